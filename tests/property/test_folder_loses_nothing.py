"""Any mix of good and broken files in a folder: every good file is stored, whole; every
broken one is refused with its code and contributes nothing; every tool definition and
non-trace file is skipped; no file is lost (each is in exactly one of the three lists).
With ``strict`` the same folder stores nothing when anything is broken."""

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.ingest import ingest
from workbench.model import WorkbenchError
from workbench.store import Store

HEAD = {"format": "workbench-events", "version": 1}


def _event(trace: str, i: int, **kw: object) -> dict[str, object]:
    return {"trace_id": trace, "event_id": f"e{i}", "parent_id": None, "kind": "tool_call",
            "name": "get", "start_ns": i + 1, "end_ns": i + 2, "status": "ok", "args": {},
            "result": None, **kw}


def _lines(*docs: object) -> str:
    return "".join(json.dumps(d) + "\n" for d in docs)


def _good(trace: str, n: int) -> str:
    return _lines(HEAD, *(_event(trace, i) for i in range(n)))


#: broken files, each with the code its refusal carries; the good part before the break
#: is read first, so a refused file is seen to contribute nothing
BROKEN = {
    "truncated": (lambda t, n: _good(t, n) + '{"trace_id": "' + t + '", "eve', "INVALID_JSON"),
    "kind": (lambda t, n: _lines(HEAD, *(_event(t, i) for i in range(n)),
                                 _event(t, n, kind="tool_cal")), "INVALID_TRACE"),
    "status": (lambda t, n: _lines(HEAD, *(_event(t, i) for i in range(n)),
                                   _event(t, n, status="fine")), "INVALID_TRACE"),
    "duplicate": (lambda t, n: _lines(HEAD, *(_event(t, i) for i in range(n)),
                                      _event(t, 0)), "DUPLICATE_EVENT_ID"),
    # blank lines after the header keep each such file's content its own
    "no events": (lambda t, n: _lines(HEAD) + "\n" * int(t.split("-")[1]), "INVALID_TRACE"),
}
#: files that are not traces, each with the reason it is skipped
SKIPPED = {
    "tool definition": (lambda t: json.dumps({"name": t, "inputSchema": {"type": "object"}}),
                        "a tool definition: use `workbench contract import`"),
    "notes": (lambda t: f"notes on {t}\n", "not a trace file"),
}

files = st.lists(st.tuples(st.sampled_from(["good", *BROKEN, *SKIPPED]),
                           st.integers(min_value=1, max_value=4)), min_size=1, max_size=7)


def _write(folder: Path, plan: list[tuple[str, int]]) -> dict[str, tuple[str, str, int]]:
    """The files written: name -> (what, trace id, events)."""
    out = {}
    for i, (what, n) in enumerate(plan):
        name, trace = f"f{i:02d}.jsonl", f"trace-{i}"
        if what == "good":
            text = _good(trace, n)
        elif what in BROKEN:
            text = BROKEN[what][0](trace, n)
        else:
            text = SKIPPED[what][0](trace)
            name = f"f{i:02d}.json"
        (folder / name).write_text(text)
        out[name] = (what, trace, n)
    return out


@settings(max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(plan=files)
def test_every_good_file_is_stored_and_every_broken_one_refused(plan):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "in"
        folder.mkdir()
        written = _write(folder, plan)
        store = Store(Path(tmp) / "store")
        result = ingest([folder], store, redact=False, workers=1)
        name = {t.trace_id: Path(t.source).name for t in result.traces}
        good = {f: (tr, n) for f, (what, tr, n) in written.items() if what == "good"}
        assert {name[t.trace_id]: (t.trace_id, t.events) for t in result.traces} == good
        refused = {Path(r["path"]).name: r["code"] for r in result.refused}
        assert refused == {f: BROKEN[what][1] for f, (what, _, _) in written.items()
                           if what in BROKEN}
        assert all(r["hint"] and r["message"] for r in result.refused)
        skipped = {Path(s["path"]).name: s["reason"] for s in result.skipped}
        assert skipped == {f: SKIPPED[what][1] for f, (what, _, _) in written.items()
                           if what in SKIPPED}
        # none lost: each file is in exactly one list
        assert len(good) + len(refused) + len(skipped) == len(written)
        # nothing of a refused file reached the store
        if store.exists:
            stored = {r["trace_id"] for r in store.sql(
                "SELECT DISTINCT trace_id FROM events").to_pylist()}
            assert stored == {tr for tr, _ in good.values()}
        assert result.partial == bool(refused)


@settings(max_examples=15, suppress_health_check=[HealthCheck.too_slow])
@given(plan=files)
def test_strict_stores_nothing_when_a_file_is_broken(plan):
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "in"
        folder.mkdir()
        written = _write(folder, plan)
        store = Store(Path(tmp) / "store")
        broken = [what for what, _, _ in written.values() if what in BROKEN]
        if not broken:
            result = ingest([folder], store, redact=False, workers=1, strict=True)
            assert not result.refused
            return
        with pytest.raises(WorkbenchError) as caught:
            ingest([folder], store, redact=False, workers=1, strict=True)
        assert caught.value.code in {BROKEN[w][1] for w in broken}
        assert not store.exists or not store.sql("SELECT * FROM events").to_pylist()
