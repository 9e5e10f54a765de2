"""Every hostile ingest input (cases.py) inside a folder beside a good trace: the good
trace is stored, the hostile file never is (refused with the case's code, or passed
over as no trace, its code named), never an internal error, nothing left staged;
``--strict`` stores nothing when the file is refused."""

import json
import shutil

import pytest

from tests.hostile.cases import EXAMPLE, INGEST, Case
from tests.support import run, snapshot


@pytest.mark.parametrize("case", INGEST, ids=[c.id for c in INGEST])
def test_a_hostile_file_in_a_folder_costs_the_others_nothing(capsys, tmp_path, case: Case):
    folder = tmp_path / "in"
    folder.mkdir()
    shutil.copy(EXAMPLE, folder / "good.otlp.json")
    (folder / case.name).write_text(case.text)
    store = tmp_path / "store"
    extra = [a for a in case.args if a == "--no-redact"]
    code, out, err = run(capsys, "ingest", folder, "--store", store, "--json", *extra)
    doc = json.loads(out)
    assert [(t["source"], t["events"]) for t in doc["traces"]] == [
        (str(folder / "good.otlp.json"), 14)], err
    refused = [(r["path"], r["code"]) for r in doc["refused"]]
    skipped = [(s["path"], s["reason"]) for s in doc["skipped"]]
    hostile = str(folder / case.name)
    if refused:
        assert (code, refused, skipped) == (4, [(hostile, case.code)], [])
        assert f"refused {hostile}: error[{case.code}]" in err
    else:
        assert code == 0 and len(skipped) == 1 and skipped[0][0] == hostile
        assert skipped[0][1].startswith("not a trace file")
    assert list(store.glob("_staging/*")) == []
    # all or nothing: a refused file ends a strict ingest with its code, nothing stored
    again = tmp_path / "strict"
    code, out, _ = run(capsys, "ingest", folder, "--store", again, "--json", "--strict", *extra)
    if refused:
        assert code == 2 and json.loads(out)["error"]["code"] == case.code
        assert not [p for p in snapshot(again) if p.endswith(".parquet")]
    else:
        assert code == 0
