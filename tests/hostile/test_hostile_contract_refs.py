"""Hostile ``$ref``s in an OpenAPI document ``contract import`` reads: a file named from
the document is read inside the document's folder only, and one that leaves it (a URL,
an absolute path, ``..``, a link pointing out), a device, a FIFO or a missing file
refuses that operation alone, with its code: the others are imported (exit 4), and
``--strict`` refuses the whole document (exit 2, nothing written)."""

import json
import os

import pytest

from tests.support import run, snapshot


@pytest.fixture(autouse=True)
def no_env_store(monkeypatch, tmp_path):
    monkeypatch.delenv("WORKBENCH_STORE", raising=False)
    monkeypatch.chdir(tmp_path)


def _doc(ref: str) -> dict:
    ok = {"responses": {"204": {"description": "ok"}}}
    return {"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {
        "/fine": {"get": {"operationId": "fine", **ok}},
        "/bad": {"post": {"operationId": "bad", "requestBody": {"content": {
            "application/json": {"schema": {"$ref": ref}}}}, **ok}}}}


def _outside(tmp_path):
    secret = tmp_path / "secret.json"
    secret.write_text('{"type": "string", "description": "outside"}')
    return secret


CASES = {
    "url": (lambda tmp, api: "https://example.com/s.json", "REF_OUTSIDE"),
    "file url": (lambda tmp, api: (_outside(tmp).as_uri()), "REF_OUTSIDE"),
    "absolute": (lambda tmp, api: str(_outside(tmp)), "REF_OUTSIDE"),
    "dot dot": (lambda tmp, api: (_outside(tmp), "../secret.json")[1], "REF_OUTSIDE"),
    "device": (lambda tmp, api: "/dev/zero", "REF_OUTSIDE"),
    "link out": (lambda tmp, api: (os.symlink(_outside(tmp), api / "link.json"),
                                   "link.json")[1], "REF_OUTSIDE"),
    "fifo": (lambda tmp, api: (os.mkfifo(api / "pipe.json"), "pipe.json")[1], "NOT_A_FILE"),
    "missing": (lambda tmp, api: "gone.json#/Thing", "FILE_NOT_FOUND"),
    "self loop": (lambda tmp, api: "api.json#/paths/~1bad/post/requestBody/content/"
                                   "application~1json/schema", "SCHEMA_INVALID"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_hostile_ref_refuses_its_operation_alone(capsys, tmp_path, case):
    api = tmp_path / "api"
    api.mkdir()
    make, code_ = CASES[case]
    ref = make(tmp_path, api)
    (api / "api.json").write_text(json.dumps(_doc(ref)))
    code, out, err = run(capsys, "contract", "import", api / "api.json", "--json")
    assert code == 4, err
    doc = json.loads(out)
    assert [t["tool"] for t in doc["tools"]] == ["fine"]
    assert [(r["tool"], r["code"]) for r in doc["refused"]] == [("bad", code_)]
    assert "outside" not in out  # nothing outside the folder was read into a descriptor
    before = snapshot(tmp_path)
    code, out, err = run(capsys, "contract", "import", api / "api.json", "--strict",
                         "--out", tmp_path / "out")
    assert code == 2 and err.startswith(f"error[{code_}]: ") and "hint:" in err
    assert snapshot(tmp_path) == before and not (tmp_path / "out").exists()
