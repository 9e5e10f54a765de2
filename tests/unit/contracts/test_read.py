"""Reading descriptor files, manifests and folders into one tool set."""

import json

import pytest

from workbench.contracts import (
    ContractError,
    ContractVersionError,
    DuplicateToolError,
    UnknownSourceError,
    read_tools,
)
from workbench.model import NotFoundError


def test_a_file_a_manifest_and_a_folder(tmp_path):
    (tmp_path / "one.yaml").write_text("version: 1\ntool: projects.archive\nside_effect: destructive\n")
    (tmp_path / "many.json").write_text(json.dumps({"version": 1, "tools": [
        {"tool": "projects.list", "side_effect": "read_only"}, {"tool": "projects.get"}]}))
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "x.yaml").write_text("not: read")
    (tmp_path / "notes.txt").write_text("ignored: not a descriptor suffix")
    tools = read_tools([tmp_path])
    assert list(tools) == ["projects.list", "projects.get", "projects.archive"]
    assert tools["projects.archive"].source.file == str(tmp_path / "one.yaml")
    assert tools["projects.get"].source.format == "descriptor"


def test_the_same_tool_in_two_files_is_refused(tmp_path):
    for n in ("a", "b"):
        (tmp_path / f"{n}.yaml").write_text("version: 1\ntool: search\n")
    with pytest.raises(DuplicateToolError, match=r"a\.yaml and .*b\.yaml"):
        read_tools([tmp_path])


@pytest.mark.parametrize(("text", "error", "words"), [
    ("", ContractError, "is empty"),
    ("version: 1\ntool: [unclosed\nside_effect: x\n", ContractError, "neither JSON nor YAML"),
    ("version: 3\ntools: [{tool: a}]\n", ContractVersionError, "version 3 is newer"),
    ("version: 1\ntools: [{tool: a}]\nextra: 1\n", ContractError, "'extra'"),
    ("version: 1\ntools: [{tool: a, side_effect: nuke}]\n", ContractError, "tools[0], tool a"),
    ('{"openapi_like": true}', UnknownSourceError, "not a descriptor"),
])
def test_bad_files_name_the_file(tmp_path, text, error, words):
    p = tmp_path / "t.yaml"
    p.write_text(text)
    with pytest.raises(error) as info:
        read_tools([p])
    assert str(p) in str(info.value) and words in str(info.value)


def test_missing_paths_and_empty_folders(tmp_path):
    with pytest.raises(NotFoundError):
        read_tools([tmp_path / "nope.yaml"])
    with pytest.raises(ContractError, match="holds no descriptor files"):
        read_tools([tmp_path])
