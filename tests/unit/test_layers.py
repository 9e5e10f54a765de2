"""Imports point down only: core <- storage <- services <- surfaces (ARCHITECTURE.md)."""

import ast
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "workbench"
LAYER = {"model": 0, "store": 1, "ingest": 2, "rules": 2, "redact": 2, "minimize": 2,
         "diff": 2, "fixtures": 2, "config": 2, "contracts": 2, "replay": 2,
         "cli": 3, "notebook": 3, "pytest_plugin": 3, "__main__": 3}
CORE_THIRD_PARTY = {"pyarrow", "orjson"}


def _package(path: Path) -> str:
    rel = path.relative_to(PKG)
    return rel.parts[0].removesuffix(".py")


def _imports(path: Path):
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level >= 2 and node.module:
                yield "workbench", node.module.split(".")[0]
            elif node.level == 0 and node.module:
                top = node.module.split(".")
                yield top[0], top[1] if len(top) > 1 else None
        elif isinstance(node, ast.Import):
            for a in node.names:
                top = a.name.split(".")
                yield top[0], top[1] if len(top) > 1 else None


FILES = sorted(p for p in PKG.rglob("*.py") if p.parent != PKG or p.name == "__main__.py")


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PKG)))
def test_imports_point_down(path):
    here = _package(path)
    for top, sub in _imports(path):
        if top == "workbench" and sub in LAYER:
            assert LAYER[sub] <= LAYER[here], f"{here} (layer {LAYER[here]}) imports {sub}"
            if LAYER[sub] == LAYER[here] and LAYER[here] == 2:
                # services may use each other only through their public package
                pass


@pytest.mark.parametrize("path", sorted((PKG / "config").rglob("*.py")),
                         ids=lambda p: p.name)
def test_config_depends_on_the_core_only(path):
    for top, sub in _imports(path):
        if top == "workbench" and sub in LAYER:
            assert sub == "model", f"config imports {sub}"


@pytest.mark.parametrize("path", sorted((PKG / "model").rglob("*.py")),
                         ids=lambda p: p.name)
def test_core_is_pure(path):
    import sys
    stdlib = set(sys.stdlib_module_names)
    for top, _ in _imports(path):
        if top in ("workbench", "__future__"):
            continue
        assert top in stdlib | CORE_THIRD_PARTY, f"core imports {top}"
        assert top not in {"os", "io", "pathlib", "subprocess", "socket", "shutil", "tempfile"}, \
            f"core does I/O through {top}"


def test_every_package_is_placed_in_a_layer():
    for p in PKG.iterdir():
        if p.is_dir() and (p / "__init__.py").exists():
            assert p.name in LAYER, f"{p.name} is not placed in a layer"


PRIVATE_OK = {"rules", "diff", "redact", "config"}  # packages whose privates stay private


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(PKG)))
def test_other_packages_use_rules_diff_redact_config_through_their_init(path):
    here = _package(path)
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.level >= 2:
            parts = node.module.split(".")
            if parts[0] in PRIVATE_OK and parts[0] != here and len(parts) > 1:
                assert not parts[1].startswith("_"), f"{here} imports {node.module}"
