"""``redact_files`` / ``scan_files``: formats, names, byte-for-byte copies, refusals."""

import json
import os

import pytest

from workbench.model import EncodingError, InputError, NotFoundError, UsageError
from workbench.redact import TOKEN_RE, Redactor, redact_files, scan_files

KEY = bytes(range(32))
GHP = "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"
EMAIL = "dana.whitfield@example.org"


def tree(root, files):
    for rel, data in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data if isinstance(data, bytes) else data.encode())
    return root


def listing(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_json_stays_json_of_the_same_structure_and_indentation(tmp_path):
    doc = {"log": {"entries": [{"request": {"headers": [
        {"name": "Authorization", "value": f"token {GHP}"}, {"name": "Accept", "value": "*/*"}]},
        "n": 12345678901234567890123}]}}
    src = tree(tmp_path / "in", {"a.har": json.dumps(doc, indent=4) + "\n"})
    res = redact_files([src / "a.har"], tmp_path / "out", Redactor(KEY))
    text = (tmp_path / "out" / "a.har").read_text()
    out = json.loads(text)
    assert text.startswith('{\n    "log"') and text.endswith("}\n")
    headers = out["log"]["entries"][0]["request"]["headers"]
    assert GHP not in text and TOKEN_RE.search(headers[0]["value"])
    assert headers[1] == {"name": "Accept", "value": "*/*"}
    assert out["log"]["entries"][0]["n"] == 12345678901234567890123  # every digit kept
    [f] = res.files
    assert (f.format, f.changed, f.file, f.out) == ("json", True, str(src / "a.har"),
                                                   str(tmp_path / "out" / "a.har"))


def test_a_clean_file_is_copied_byte_for_byte(tmp_path):
    raw = '{ "a" : [1,2,   3], "b": "plain" }\r\n'
    src = tree(tmp_path / "in", {"c.json": raw})
    res = redact_files([src / "c.json"], tmp_path / "out", Redactor(KEY))
    assert (tmp_path / "out" / "c.json").read_bytes() == raw.encode()
    assert not res.files[0].changed and res.hits == {}


def test_jsonl_is_redacted_line_by_line(tmp_path):
    lines = [json.dumps({"i": 0, "x": "plain"}), "", json.dumps({"i": 1, "email": EMAIL}),
             json.dumps([GHP])]
    src = tree(tmp_path / "in", {"t.jsonl": "\n".join(lines) + "\n"})
    res = redact_files([src / "t.jsonl"], tmp_path / "out", Redactor(KEY))
    out = (tmp_path / "out" / "t.jsonl").read_text().split("\n")
    assert out[0] == lines[0] and out[1] == "" and out[4] == ""
    assert json.loads(out[2])["i"] == 1 and TOKEN_RE.fullmatch(json.loads(out[2])["email"])
    assert TOKEN_RE.fullmatch(json.loads(out[3])[0])
    assert res.files[0].format == "jsonl" and res.files[0].hits["email"] == 1


def test_text_is_redacted_as_text(tmp_path):
    raw = f"2024-05-01 auth failed for {EMAIL}\nkey={GHP}\nbye\n"
    src = tree(tmp_path / "in", {"app.log": raw})
    res = redact_files([src], tmp_path / "out", Redactor(KEY))
    out = (tmp_path / "out" / "app.log").read_text()
    assert EMAIL not in out and GHP not in out
    assert out.startswith("2024-05-01 auth failed for «email:") and out.endswith("\nbye\n")
    assert res.files[0].format == "text"


def test_a_jsonl_file_with_a_broken_line_is_read_as_text(tmp_path):
    src = tree(tmp_path / "in", {"t.jsonl": json.dumps({"e": EMAIL}) + "\n{broken\n"})
    res = redact_files([src / "t.jsonl"], tmp_path / "out", Redactor(KEY))
    assert res.files[0].format == "text"
    assert EMAIL not in (tmp_path / "out" / "t.jsonl").read_text()


def test_folders_keep_relative_names_and_skip_hidden_files(tmp_path):
    src = tree(tmp_path / "in", {"a.json": "{}", "sub/b.txt": EMAIL, ".env": "A=1",
                                 ".git/config": "x", "sub/deeper/c.jsonl": '{"a": 1}\n'})
    res = redact_files([src], tmp_path / "out", Redactor(KEY))
    assert listing(tmp_path / "out") == ["a.json", "sub/b.txt", "sub/deeper/c.jsonl"]
    assert [s["reason"] for s in res.skipped] == ["hidden file"]


def test_a_bom_is_kept(tmp_path):
    src = tree(tmp_path / "in", {"b.json": "\ufeff" + json.dumps({"e": EMAIL})})
    redact_files([src / "b.json"], tmp_path / "out", Redactor(KEY))
    data = (tmp_path / "out" / "b.json").read_text(encoding="utf-8")
    assert data.startswith("\ufeff") and EMAIL not in data
    assert json.loads(data[1:])["e"].startswith("«email:")


def test_the_same_value_gets_the_same_token_in_every_file(tmp_path):
    src = tree(tmp_path / "in", {"a.json": json.dumps({"x": EMAIL}), "b.log": f"to {EMAIL}\n"})
    redact_files([src], tmp_path / "out", Redactor(KEY))
    t = json.loads((tmp_path / "out" / "a.json").read_text())["x"]
    assert (tmp_path / "out" / "b.log").read_text() == f"to {t}\n"


def test_rerunning_overwrites_earlier_outputs(tmp_path):
    src = tree(tmp_path / "in", {"a.txt": EMAIL})
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "a.txt").write_text("old")
    redact_files([src], tmp_path / "out", Redactor(KEY))
    assert (tmp_path / "out" / "a.txt").read_text().startswith("«email:")
    assert listing(tmp_path / "out") == ["a.txt"]


# -- refusals: each one before anything is written ------------------------------------------

def refused(tmp_path, exc, code, paths, out):
    with pytest.raises(exc) as e:
        redact_files(paths, out, Redactor(KEY))
    assert e.value.code == code and e.value.hint
    return e.value


def test_missing_path(tmp_path):
    src = tree(tmp_path / "in", {"a.txt": EMAIL})
    refused(tmp_path, NotFoundError, "FILE_NOT_FOUND", [src / "a.txt", src / "nope.json"],
            tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_a_path_that_is_neither_file_nor_folder(tmp_path):
    os.mkfifo(tmp_path / "pipe")
    refused(tmp_path, InputError, "NOT_A_FILE", [tmp_path / "pipe"], tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_not_utf8_anywhere_refuses_everything(tmp_path):
    src = tree(tmp_path / "in", {"a.txt": EMAIL, "z.bin": b"ok\n\xff\xfe\n"})
    err = refused(tmp_path, EncodingError, "INVALID_ENCODING", [src], tmp_path / "out")
    assert "z.bin" in err.message and "line 2" in err.message
    assert not (tmp_path / "out").exists()


def test_out_inside_an_input_folder(tmp_path):
    src = tree(tmp_path / "in", {"a.txt": EMAIL})
    refused(tmp_path, UsageError, "OUT_INSIDE_INPUT", [src], src / "clean")
    refused(tmp_path, UsageError, "OUT_INSIDE_INPUT", [src], src)
    assert listing(src) == ["a.txt"]


def test_writing_over_an_input(tmp_path):
    src = tree(tmp_path / "in", {"a.txt": EMAIL})
    refused(tmp_path, UsageError, "OUT_OVERWRITES_INPUT", [src / "a.txt"], src)
    (tmp_path / "o2").mkdir()
    os.link(src / "a.txt", tmp_path / "o2" / "a.txt")
    refused(tmp_path, UsageError, "OUT_OVERWRITES_INPUT", [src / "a.txt"], tmp_path / "o2")
    assert (src / "a.txt").read_text() == EMAIL


def test_out_is_a_file(tmp_path):
    src = tree(tmp_path / "in", {"a.txt": EMAIL})
    (tmp_path / "f").write_text("x")
    refused(tmp_path, UsageError, "OUT_NOT_A_DIRECTORY", [src], tmp_path / "f")


def test_two_inputs_with_one_output_name(tmp_path):
    tree(tmp_path, {"x/a.txt": "1", "y/a.txt": "2"})
    refused(tmp_path, UsageError, "OUT_CLASH", [tmp_path / "x/a.txt", tmp_path / "y/a.txt"],
            tmp_path / "out")
    assert not (tmp_path / "out").exists()


# -- scan -------------------------------------------------------------------------------------

def test_scan_paths_per_format(tmp_path):
    tree(tmp_path, {
        "a.json": json.dumps({"args": {"headers": {"authorization": f"token {GHP}"}}}),
        "b.jsonl": json.dumps({"x": 1}) + "\n" + json.dumps({"args": {"to": EMAIL}}) + "\n",
        "c.log": f"start\nmail {EMAIL}\n",
        "d.json": json.dumps(EMAIL)})
    res = scan_files([tmp_path])
    assert res.files == 4
    got = {(os.path.basename(h.file), h.path) for h in res.hits}
    assert got == {("a.json", "args.headers.authorization"), ("b.jsonl", "line 2 args.to"),
                   ("c.log", "line 2"), ("d.json", "$")}
    assert EMAIL not in repr(res.to_dict()) and GHP not in repr(res.to_dict())


def test_scan_of_applied_output_is_clean(tmp_path):
    tree(tmp_path / "in", {"a.json": json.dumps({"password": "hunter2", "e": EMAIL}),
                           "b.log": f"{GHP}\n"})
    redact_files([tmp_path / "in"], tmp_path / "out", Redactor(KEY))
    assert scan_files([tmp_path / "in"]).hits
    assert scan_files([tmp_path / "out"]).hits == []


def test_scan_refuses_missing_and_non_utf8(tmp_path):
    with pytest.raises(NotFoundError):
        scan_files([tmp_path / "nope"])
    (tmp_path / "x.bin").write_bytes(b"\xff")
    with pytest.raises(EncodingError):
        scan_files([tmp_path])
