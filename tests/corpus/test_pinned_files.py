"""Real files kept under ``tests/corpus/``, each pinned to what ingesting it gives.

A folder that holds a ``pins.yaml`` is ingested whole, as ``workbench ingest FOLDER``
would, into a fresh store; each file named under ``files:`` must then give exactly
what is pinned::

    rules: incident.rules.yaml   # optional: judged on the folder's traces
    files:
      rollout.jsonl:
        format: codex            # the adapter detection picked
        traces: 1
        events: 42
        tool_calls: 7            # events of kind tool_call
        kinds: {llm_call: 10, message: 25, tool_call: 7}
        statuses: {ok: 40, error: 2}
        max_depth: 2             # the deepest parent chain (a root is 0)
        findings: {rule-id: 1}   # with ``rules``: findings per rule ({} for none)
      notes.json:
        skipped: a tool definition   # not a trace: skipped with this reason (prefix)
      broken.json:
        refused: INVALID_JSON        # recognised, not readable: refused with this code
      session/subagents/agent-1.jsonl:
        merged: session.jsonl        # its events joined the trace of that file

Every file of the folder other than ``SOURCE.md`` and ``pins.yaml`` must be listed, so
nothing is added unpinned. These folders live in the repository: the test never skips.

``python tests/corpus/test_pinned_files.py FOLDER`` prints what a folder gives today in
this form, to review against the source before pinning it.
"""

from __future__ import annotations

import runpy
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from workbench.ingest import ingest
from workbench.rules import check, load_rules
from workbench.store import Store

HERE = Path(__file__).resolve().parent
#: each event's number of ancestors, as scripts/parent_depth.py counts them
depths = runpy.run_path(str(HERE.parents[1] / "scripts" / "parent_depth.py"))["depths"]
NOT_LISTED = {"SOURCE.md", "pins.yaml"}


def _folders() -> list[Path]:
    return sorted(p.parent for p in HERE.glob("*/pins.yaml"))


def observed(folder: Path, store_dir: Path, rules_file: str | None) -> dict[str, dict[str, Any]]:
    """What ingesting ``folder`` gives, per file name relative to the folder."""
    store = Store(store_dir)
    result = ingest([folder], store)
    out: dict[str, dict[str, Any]] = {}
    for s in result.skipped:
        out[Path(s["path"]).resolve().relative_to(folder.resolve()).as_posix()] = {
            "skipped": s["reason"]}
    for s in result.refused:
        name = Path(s["path"]).resolve().relative_to(folder.resolve()).as_posix()
        out[name] = {"refused": s["code"]}
    findings: Counter[tuple[str, str]] = Counter()
    rules = None
    if rules_file is not None:
        rules = load_rules(folder / rules_file)
        for f in check(store, rules, record=False).findings:
            findings[(f.trace_id, f.rule)] += 1
    by_file: dict[str, list[str]] = {}
    for t in result.traces:
        name = Path(t.source).resolve().relative_to(folder.resolve()).as_posix()
        by_file.setdefault(name, []).append(t.trace_id)
        out.setdefault(name, {"format": t.format})
    for m in result.merged:
        name = Path(m["path"]).resolve().relative_to(folder.resolve()).as_posix()
        if name not in by_file:  # a file with traces of its own is pinned by those
            out[name] = {"merged": Path(m["source"]).resolve().relative_to(
                folder.resolve()).as_posix()}
    for name, ids in by_file.items():
        rows = [tuple(r.values()) for r in store.sql(
            "SELECT event_id, parent_id, kind, status, trace_id FROM events "
            "WHERE list_contains(?, trace_id)", [ids]).to_pylist()]
        kinds = Counter(r[2] for r in rows)
        depth = 0
        for tid in ids:
            parents = {r[0]: r[1] for r in rows if r[4] == tid}
            depth = max([depth, *depths(parents).values()])
        entry = out[name]
        entry.update({
            "traces": len(ids), "events": len(rows), "tool_calls": kinds.get("tool_call", 0),
            "kinds": dict(sorted(kinds.items())),
            "statuses": dict(sorted(Counter(r[3] for r in rows).items())),
            "max_depth": depth})
        if rules is not None:
            entry["findings"] = {rule: n for (tid, rule), n in sorted(findings.items())
                                 if tid in ids}
    return out


def _pins(folder: Path) -> dict[str, Any]:
    doc = yaml.safe_load((folder / "pins.yaml").read_text(encoding="utf-8"))
    assert isinstance(doc, dict) and isinstance(doc.get("files"), dict), folder
    return doc


@pytest.mark.parametrize("folder", _folders(), ids=lambda p: p.name)
def test_folder_gives_what_is_pinned(folder: Path, tmp_path: Path) -> None:
    pins = _pins(folder)
    files = {p.relative_to(folder).as_posix() for p in folder.rglob("*")
             if p.is_file() and p.name not in NOT_LISTED}
    assert files == set(pins["files"]), "every file of the folder is pinned, and only those"
    seen = observed(folder, tmp_path / "store", pins.get("rules"))
    for name, want in pins["files"].items():
        got = seen.get(name, {})
        if "skipped" in want:
            assert str(got.get("skipped", "")).startswith(want["skipped"]), (name, got)
            continue
        if "refused" in want or "merged" in want:
            assert got == want, name
            continue
        assert got == {**want, **({} if "findings" in want or not pins.get("rules")
                                   else {"findings": {}})}, name


#: folders made on this machine rather than taken from a public repository (their
#: SOURCE.md says how): pinned like the rest, not counted as the world's material
MADE_HERE = {"genai-pydantic-ai", "phoenix-spans"}  # phoenix-spans: 3 of its 4 files


def test_the_kept_corpus_is_wide() -> None:
    """At least 30 real trace files pinned, from at least ten folders of other projects."""
    folders = [f for f in _folders() if f.name not in MADE_HERE]
    traces = [n for f in folders for n, w in _pins(f)["files"].items()
              if not {"skipped", "merged"} & set(w)]
    assert len(traces) >= 30, len(traces)
    assert sum(1 for f in folders if any(
        not {"skipped", "merged"} & set(w) for w in _pins(f)["files"].values())) >= 10


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        target = Path(arg).resolve()
        rules = None
        if (target / "pins.yaml").exists():
            rules = _pins(target).get("rules")
        with tempfile.TemporaryDirectory() as tmp:
            got = observed(target, Path(tmp) / "store", rules)
        got = {k: v for k, v in got.items() if Path(k).name not in NOT_LISTED}
        print(yaml.safe_dump({"files": got}, sort_keys=True, width=100))
