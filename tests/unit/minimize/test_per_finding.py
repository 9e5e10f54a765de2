"""One stored minimization per finding: two findings of one rule with one signature
(``archive-owned-only`` at steps 8 and 9 of the bundled incident) are both minimized and
stored, each under its own id; replay's lookup and promote name the one that belongs to
the finding they were given; a store written before minimizations recorded their finding
keeps working."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from tests.support import EXAMPLES
from workbench.fixtures import promote
from workbench.ingest import ingest
from workbench.minimize import (
    derive_trace,
    derived_trace_id,
    minimize,
    pick_rule,
    save_result,
    stored_minimization,
)
from workbench.model import TRACES, trace_row
from workbench.replay import pick
from workbench.rules import check, load_rules
from workbench.store import Store

RULES = load_rules(EXAMPLES / "archive-incident.rules.yaml")
RULE = pick_rule(RULES, "archive-owned-only")
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
ROOT, LIST_PROJECTS, ARCHIVE_P18, ARCHIVE_P19 = (
    "0000000000000001", "0000000000000003", "000000000000000a", "000000000000000c")
# the id every version gives the first finding of a signature: (source, rule, signature)
LEGACY = derived_trace_id(TRACE, "archive-owned-only", "e3cd8e366278883f")


@pytest.fixture
def store(tmp_path) -> Store:
    s = Store(tmp_path / "store")
    ingest([EXAMPLES / "archive-incident.otlp.json"], s)
    check(s, RULES, trace_ids=[TRACE])
    return s


def kept(store: Store, tid: str) -> list[str]:
    return [e.event_id for e in store.trace(tid).events]


def finding_ids(store: Store) -> dict[int, str]:
    rows = store.sql("SELECT seq, finding_id FROM findings WHERE rule = 'archive-owned-only'"
                     ).to_pylist()
    return {r["seq"]: r["finding_id"] for r in rows}


def test_finding_2_then_finding_1_then_promote(store, tmp_path):
    trace = store.trace(TRACE)
    second = minimize(trace, RULE, finding=2)
    assert save_result(store, second) is True
    first = minimize(trace, RULE, finding=1)
    assert first.signature == second.signature == "e3cd8e366278883f"
    assert save_result(store, first) is True          # was TRACE_EXISTS
    assert first.trace_id == LEGACY != second.trace_id
    assert kept(store, first.trace_id) == [ROOT, LIST_PROJECTS, ARCHIVE_P18]
    assert kept(store, second.trace_id) == [ROOT, LIST_PROJECTS, ARCHIVE_P19]
    # each stored trace records its finding; a second run of either stores nothing
    attrs = json.loads(store.sql("SELECT attrs FROM traces WHERE trace_id = ?",
                                 [second.trace_id]).to_pylist()[0]["attrs"])
    assert attrs["minimized"]["finding"] == {"seq": 9,
                                             "event_ids": [ARCHIVE_P19, LIST_PROJECTS]}
    assert save_result(store, minimize(trace, RULE, finding=2)) is False
    assert save_result(store, minimize(trace, RULE, finding=1)) is False
    # the lookup replay uses: each finding id to its own minimization
    ids = finding_ids(store)
    assert pick(store, ids[8]).source_trace == first.trace_id
    assert pick(store, ids[9]).source_trace == second.trace_id
    # promote names the trace that belongs to the finding it was given
    fixtures = tmp_path / "fixtures"
    for n, want, archive in ((1, first.trace_id, ARCHIVE_P18),
                             (2, second.trace_id, ARCHIVE_P19)):
        r = promote(trace, RULES, f"owned-{n}", key=store.redaction_key(),
                    fixtures_dir=fixtures, minimize_rule="archive-owned-only",
                    minimize_finding=n, store=store)
        m = json.loads((r.path / "manifest.json").read_text())
        assert m["trace"] == {"trace_id": want, "events": 3}
        assert archive in kept(store, m["trace"]["trace_id"])
        assert [e["seq"] for e in m["expected_findings"]
                if e["rule"] == "archive-owned-only"] == [2]


def _store_as_before(store: Store, result) -> str:
    """What the previous version wrote: the (source, rule, signature) id for whichever
    finding was minimized, and no record of the finding."""
    result.trace = derive_trace(result.source, result.kept_event_ids, LEGACY,
                                result.source.meta)
    with store.stage() as batch:
        batch.write("events", result.trace.to_arrow())
        row = trace_row(trace_id=LEGACY, source_format="minimized", source_path="",
                        source_sha256="", batch=batch.id, events=len(result.trace),
                        start_ns=None, end_ns=None,
                        derived_from=TRACE, attrs={"minimized": {
                            "rule": result.rule, "signature": result.signature,
                            "source_trace_id": TRACE, "source_seqs": result.source_seqs}})
        batch.write("traces", pa.Table.from_pylist([row], schema=TRACES))
        batch.commit(trace_ids=[LEGACY])
    return LEGACY


def test_a_store_written_before_keeps_working(store, tmp_path):
    """The previous version stored finding 2's minimization under the id finding 1 now
    has: finding 2 still finds it, finding 1 is stored under the id naming it."""
    trace = store.trace(TRACE)
    old = _store_as_before(store, minimize(trace, RULE, finding=2))
    ids = finding_ids(store)
    assert stored_minimization(store, TRACE, RULE.id, "e3cd8e366278883f", 9,
                               [ARCHIVE_P19, LIST_PROJECTS]) == old
    assert stored_minimization(store, TRACE, RULE.id, "e3cd8e366278883f", 8,
                               [ARCHIVE_P18, LIST_PROJECTS]) is None
    assert pick(store, ids[8]).source_trace == TRACE    # not the other finding's
    second = minimize(trace, RULE, finding=2)
    assert save_result(store, second) is False and second.trace_id == old
    first = minimize(trace, RULE, finding=1)
    assert save_result(store, first) is True
    assert first.trace_id not in (old, TRACE)
    assert kept(store, first.trace_id) == [ROOT, LIST_PROJECTS, ARCHIVE_P18]
    assert pick(store, ids[8]).source_trace == first.trace_id
    assert pick(store, ids[9]).source_trace == old
    r = promote(trace, RULES, "owned", key=store.redaction_key(),
                fixtures_dir=tmp_path / "fixtures", minimize_rule="archive-owned-only",
                minimize_finding=1, store=store)
    assert r.manifest["trace"]["trace_id"] == first.trace_id
