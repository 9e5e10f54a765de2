"""Configuration files within limits, duplicate keys, and ``resolve_ref``: the one check
of a file named from another."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from workbench.config import (
    ConfigError,
    ConfigFile,
    DuplicateKeyError,
    RefError,
    resolve_ref,
    safe_load,
)
from workbench.model import LIMITS, LimitExceededError

KIND = ConfigFile("test file", ConfigError, keys=("items",))


@pytest.mark.parametrize("ref", ["a.json", "sub/b.json", "./a.json", "sub/../a.json",
                                 "sub/./deeper/c.json", "name with spaces.json"])
def test_resolve_ref_keeps_paths_inside_the_folder(tmp_path, ref):
    path = resolve_ref(ref, tmp_path)
    assert path == (tmp_path / ref).resolve()
    assert path.is_relative_to(tmp_path.resolve())


@pytest.mark.parametrize(("ref", "why"), [
    ("file:///etc/passwd", "URL"), ("FILE:///etc/passwd", "URL"), ("http://127.0.0.1/x", "URL"),
    ("https://example.invalid/s.json", "URL"), ("data:application/json,{}", "URL"),
    ("//host/share/x.json", "URL"), ("/etc/passwd", "absolute"), ("C:\\x.json", "URL"),
    ("\\\\host\\share\\x.json", "absolute"), ("../x.json", "leaves"),
    ("sub/../../x.json", "leaves"), ("sub/../../../../../../etc/passwd", "leaves"),
    ("", "empty"), ("   ", "empty"), ("a\x00.json", "NUL"),
])
def test_resolve_ref_refuses_what_leaves_the_folder(tmp_path, ref, why):
    with pytest.raises(RefError, match=why) as info:
        resolve_ref(ref, tmp_path)
    assert info.value.code == "REF_OUTSIDE" and info.value.hint


def test_resolve_ref_follows_links_and_refuses_one_out(tmp_path):
    (tmp_path / "inside").mkdir()
    (tmp_path / "inside" / "real.json").write_text("{}")
    (tmp_path / "inside" / "alias.json").symlink_to(tmp_path / "inside" / "real.json")
    (tmp_path / "secret.json").write_text("{}")
    (tmp_path / "inside" / "out.json").symlink_to(tmp_path / "secret.json")
    (tmp_path / "inside" / "dir").symlink_to(tmp_path)
    assert resolve_ref("alias.json", tmp_path / "inside") == tmp_path / "inside" / "real.json"
    for ref in ("out.json", "dir/secret.json"):
        with pytest.raises(RefError, match="leaves"):
            resolve_ref(ref, tmp_path / "inside")


def _parse(text: str):
    return KIND.parse(text, "f.yaml")


def test_duplicate_keys_are_refused_with_both_lines():
    with pytest.raises(ConfigError) as info:
        _parse("version: 1\nitems: [1]\nitems: [2]\n")
    assert info.value.code == "DUPLICATE_KEY"
    assert info.value.message == "f.yaml line 3: duplicate key 'items' (first on line 2)"
    with pytest.raises(ConfigError, match="duplicate key 'a'") as nested:
        _parse("version: 1\nitems: {a: 1, b: 2, a: 3}\n")
    assert nested.value.code == "DUPLICATE_KEY"


def test_keys_that_differ_and_merge_keys_are_kept():
    doc = _parse("version: 1\nitems: {a: 1, 'A': 2, '1': 3, 1: 4}\n")
    assert doc.get("items").value == {"a": 1, "A": 2, "1": 3, 1: 4}
    merged = safe_load("base: &b {x: 1, y: 2}\nuse: {<<: *b, y: 3}\n", "m.yaml")
    assert merged["use"] == {"x": 1, "y": 3}


def test_a_duplicate_in_plain_data_is_a_yaml_error():
    with pytest.raises(DuplicateKeyError) as info:
        safe_load("a: 1\nb: 2\na: 3\n", "p.yaml")
    assert isinstance(info.value, yaml.YAMLError) and info.value.line == 3


@pytest.mark.parametrize(("text", "limit"), [
    ("version: 1\nitems: " + "[" * 129 + "]" * 129 + "\n", "yaml_depth"),
    ("version: 1\nitems:\n" + "".join("  " * (i + 1) + "-\n" for i in range(130)), "yaml_depth"),
    ("version: " + "1" * 4301 + "\n", "integer_digits"),
    ("version: 1\nitems: '" + "x" * 65_537 + "'\n", "config_scalar_chars"),
    ("x: &a [1, 2, 3, 4, 5, 6, 7, 8, 9]\ny: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
     "z: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n", "config_alias_nodes"),
    ("version: 1\nitems: &a [1, *a]\n", "config_alias_nodes"),
])
def test_configuration_limits(text, limit):
    with pytest.raises(LimitExceededError) as info:
        _parse(text)
    err = info.value
    assert err.code == "LIMIT_EXCEEDED" and err.details["limit"] == limit
    assert err.details["value"] == LIMITS[limit].value
    assert err.message.startswith("f.yaml line ") and limit in err.message
    assert err.details["file"] == "f.yaml" and err.details["line"] >= 1


def test_within_the_limits_is_read():
    at_depth = "version: 1\nitems: " + "[" * 127 + "]" * 127 + "\n"
    assert _parse(at_depth).get("items") is not None
    assert _parse("version: 1\nitems: " + "9" * 4300 + "\n").get("items").value == int("9" * 4300)
    shared = safe_load("a: &a [1, 2]\nb: *a\nc: *a\n", "s.yaml")
    assert shared == {"a": [1, 2], "b": [1, 2], "c": [1, 2]}


def test_a_file_beyond_config_bytes_is_refused_before_it_is_read(tmp_path):
    big = tmp_path / "big.yaml"
    with open(big, "wb") as f:
        f.truncate(LIMITS["config_bytes"].value + 1)
    with pytest.raises(LimitExceededError, match="config_bytes"):
        KIND.read(big)
    small = tmp_path / "small.yaml"
    small.write_text("version: 1\n")
    assert KIND.read(small) == "version: 1\n"
    assert os.path.getsize(big) > LIMITS["config_bytes"].value
    assert isinstance(Path(big), Path)
