"""The docs that are a contract stay pinned to the code."""

from pathlib import Path

import pytest

from workbench.cli._main import COMMANDS

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_design_and_the_cli_page_list_every_command(command):
    for page in ("design.md", "cli.md"):
        assert f"workbench {command}" in (DOCS / page).read_text(), (page, command)


def test_no_doc_cites_a_design_file_outside_the_project():
    root = DOCS.parent
    for path in [*DOCS.glob("*.md"), root / "ARCHITECTURE.md", root / "README.md",
                 *root.joinpath("workbench").rglob("*.py")]:
        assert "DESIGN.md" not in path.read_text(encoding="utf-8"), path


def _raised_codes() -> dict[str, str]:
    """Every error code the package can raise: each ``WorkbenchError`` subclass's own
    ``code`` and every ``code="…"`` given where an error is built, with where it is."""
    import ast
    import importlib
    import pkgutil

    import workbench
    from workbench.model import WorkbenchError

    pkg = Path(workbench.__file__).parent
    for m in pkgutil.walk_packages(workbench.__path__, "workbench."):
        if not m.name.endswith(("__main__", "_worker_main")):
            importlib.import_module(m.name)
    codes: dict[str, str] = {}
    todo = [WorkbenchError]
    while todo:
        cls = todo.pop()
        todo.extend(cls.__subclasses__())
        if cls.__module__.startswith("workbench.") and isinstance(cls.__dict__.get("code"), str):
            codes.setdefault(cls.__dict__["code"], f"{cls.__module__}.{cls.__name__}")
    for path in pkg.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                for kw in node.keywords:
                    if (kw.arg == "code" and isinstance(kw.value, ast.Constant)
                            and isinstance(kw.value.value, str)):
                        codes.setdefault(kw.value.value, f"{path.relative_to(pkg)}:{node.lineno}")
    return codes


def test_every_error_code_the_package_raises_is_in_the_cli_page():
    page = (DOCS / "cli.md").read_text()
    codes = _raised_codes()
    assert len(codes) > 40  # the scan found the codes, not nothing
    missing = {c: where for c, where in codes.items() if f"`{c}`" not in page}
    assert not missing, f"error codes missing from docs/cli.md: {missing}"
