"""Configuration files: every node keeps its line, and every error names the file and
the line, in the class and with the codes of the file's kind."""

import pytest

from workbench.config import ConfigError, ConfigFile


class ThingError(ConfigError):
    code = "THING_INVALID"


THING = ConfigFile("thing file", ThingError, keys=("items", "name"), yaml_code="THING_YAML")


def test_every_node_keeps_its_line():
    doc = THING.parse("version: 1\nname: x\nitems:\n  - a\n  - {b: 1}\n  - '3'\n", "t.yaml")
    assert doc.value == {"version": 1, "name": "x", "items": ["a", {"b": 1}, "3"]}
    assert [(k.value, k.line, v.line) for k, v in doc.entries()] == [
        ("version", 1, 1), ("name", 2, 2), ("items", 3, 4)]
    items = doc.get("items")
    assert items is not None and items.line == 3 and items.kind == "sequence"
    assert [(i.value, i.line, i.kind, i.text) for i in items.items()] == [
        ("a", 4, "scalar", "a"), ({"b": 1}, 5, "mapping", None), ("3", 6, "scalar", "3")]
    assert doc.get("nope") is None


@pytest.mark.parametrize(("text", "code", "line", "words"), [
    ("version: 1\nitems: [a\n", "THING_YAML", 3, "not valid YAML"),
    ("- a\n", "THING_INVALID", None, "a thing file is a mapping"),
    ("", "THING_INVALID", None, "a thing file is a mapping"),
    ("name: x\n", "THING_INVALID", 1, "`version: 1` is missing"),
    ("name: x\nversion: 2\n", "THING_INVALID", 2, "version must be 1 (found 2)"),
    ("version: true\n", "THING_INVALID", 1, "version must be 1 (found True)"),
    ("version: 1\nname: x\nother: 1\n", "THING_INVALID", 3, "unknown key 'other'"),
])
def test_errors_name_the_file_and_the_line(text, code, line, words):
    with pytest.raises(ThingError) as err:
        THING.parse(text, "t.yaml")
    e = err.value
    assert (e.code, e.details["line"], e.details["file"]) == (code, line, "t.yaml")
    where = "t.yaml" + (f" line {line}" if line else "")
    assert e.message.startswith(where + ": ") and words in e.message, e.message


def test_a_node_error_names_its_line_and_part():
    doc = THING.parse("version: 1\nitems: [a, 7]\n", "t.yaml")
    items = doc.get("items")
    assert items is not None
    e = items.items()[1].error("not a name", part="item 2", hint="use text")
    assert isinstance(e, ThingError) and isinstance(e, ValueError)
    assert e.message == "t.yaml line 2, item 2: not a name" and e.hint == "use text"


def test_reading(tmp_path):
    with pytest.raises(ThingError) as err:
        THING.read(tmp_path / "nope.yaml")
    assert err.value.code == "FILE_NOT_FOUND" and err.value.message.startswith("no thing file")
    (tmp_path / "bad.yaml").write_bytes(b"\xff\xfe")
    with pytest.raises(ThingError) as err:
        THING.read(tmp_path / "bad.yaml")
    assert err.value.code == "THING_INVALID" and "cannot read the thing file" in err.value.message
    (tmp_path / "ok.yaml").write_text("version: 1\n")
    assert THING.read(tmp_path / "ok.yaml") == "version: 1\n"
