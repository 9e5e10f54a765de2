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
