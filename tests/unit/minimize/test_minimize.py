"""``minimize`` with rules: the finding picked, the signature kept, the derived trace."""

import pytest

from tests.dags import closure, ev
from tests.support import EXAMPLES
from workbench.ingest import ingest
from workbench.minimize import (
    NoFindingError,
    UnknownRuleError,
    derive_trace,
    derived_trace_id,
    minimize,
    pick_finding,
    pick_rule,
)
from workbench.model import Trace, UsageError
from workbench.rules import check_trace, load_rules, parse_rules
from workbench.store import Store

RULES = parse_rules("""version: 1
rules:
  one-capture:
    count: {event: {tool: charge, where: {result.status: captured}}, per: [args.cart_id], max: 1}
  no-retry:
    never: {event: {tool: retry_job}, after: {tool: get_job, where: {result.retry_allowed: false}}, same: [args.job_id]}
  has-search:
    exists: {tool: search}
""")


def shop() -> Trace:
    """An agent that charges cart c1 three times (two too many) amid noise."""
    events = [ev("r", 0, "agent", kind="agent")]
    seq = 1
    for i in range(12):
        events.append(ev(f"m{i}", seq, "model", kind="llm_call", parent="r"))
        seq += 1
        if i in (3, 7, 10):
            events.append(ev(f"c{i}", seq, "charge", parent=f"m{i}", args={"cart_id": "c1"},
                             result={"status": "captured"}, refs=["cart"] if i == 7 else []))
        elif i == 1:
            events.append(ev("cart", seq, "get_cart", parent=f"m{i}", result={"id": "c1"}))
        else:
            events.append(ev(f"n{i}", seq, "noise", parent=f"m{i}"))
        seq += 1
    return Trace.from_events(events)


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    store = Store(tmp_path_factory.mktemp("s") / "store")
    res = ingest([EXAMPLES / "archive-incident.otlp.json"], store)
    return store.trace(res.traces[0].trace_id)


def test_the_archive_incident_shrinks_to_the_archive_and_its_listing(archive):
    rules = load_rules(EXAMPLES / "archive-incident.rules.yaml")
    r = minimize(archive, rules.get("approval-before-archive"))
    assert [r.source[i].seq for i in r.kept_event_ids] == [0, 2, 8]
    assert [e.name for e in r.trace.events] == ["ops-agent", "list_projects", "archive_project"]
    assert r.one_minimal and r.oracle_calls == 3 and r.witness_failed
    again = check_trace(r.trace, [rules.get("approval-before-archive")])
    assert [f.signature for f in again] == [r.signature]


def test_count_keeps_two_of_three_charges_with_their_dependencies():
    t = shop()
    r = minimize(t, RULES.get("one-capture"))
    kept = set(r.kept_event_ids)
    assert kept == closure(t, ["c3", "c7"])  # the first two in dependency order
    assert r.one_minimal
    assert r.finding is not None and r.finding.event_ids == ("c7", "c3", "c10")


def test_exists_shrinks_to_a_single_root():
    t = shop()
    r = minimize(t, RULES.get("has-search"))
    assert r.kept_event_ids == ("r",) and r.one_minimal


def test_the_second_finding_and_signatures_pick_another():
    t = Trace.from_events([
        ev("r", 0, "agent", kind="agent"),
        ev("g1", 1, "get_job", parent="r", args={"job_id": "j1"}, result={"retry_allowed": False}),
        ev("x1", 2, "retry_job", parent="r", args={"job_id": "j1"}),
        ev("g2", 3, "get_job", parent="r", args={"job_id": "j2"}, result={"retry_allowed": False}),
        ev("x2", 4, "retry_job", parent="r", args={"job_id": "j2"}),
    ])
    rule = RULES.get("no-retry")
    assert set(minimize(t, rule).kept_event_ids) == {"r", "g1", "x1"}
    assert set(minimize(t, rule, finding=2).kept_event_ids) == {"r", "g2", "x2"}
    first = pick_finding(t, rule)
    assert pick_finding(t, rule, signature=first.signature[:6]) == first
    with pytest.raises(NoFindingError) as exc:
        pick_finding(t, rule, index=3)
    assert "has 2 finding(s)" in exc.value.message
    with pytest.raises(NoFindingError):
        pick_finding(t, rule, signature="zzz")
    with pytest.raises(UsageError):
        pick_finding(t, rule, index=0)


def test_no_finding_and_unknown_rule_are_refused_with_their_codes():
    t = Trace.from_events([ev("r", 0, "agent", kind="agent"), ev("s", 1, "search")])
    with pytest.raises(NoFindingError) as exc:
        minimize(t, RULES.get("has-search"))
    assert exc.value.code == "NO_FINDING"
    with pytest.raises(UnknownRuleError) as exc2:
        pick_rule(RULES, "nope")
    assert exc2.value.code == "UNKNOWN_RULE" and "one-capture" in exc2.value.hint


def test_the_derived_trace_has_a_stable_id_dense_seq_and_valid_refs():
    t = shop()
    r = minimize(t, RULES.get("one-capture"))
    assert r.trace_id == derived_trace_id(t.trace_id, "one-capture", r.signature)
    assert r.trace_id == minimize(t, RULES.get("one-capture")).trace_id
    assert [e.seq for e in r.trace.events] == list(range(len(r.trace)))
    assert {e.trace_id for e in r.trace.events} == {r.trace_id}
    for e in r.trace.events:
        assert all(ref.event_id in r.trace for ref in e.refs)
        assert e.parent_id is None or e.parent_id in r.trace
    assert r.source_seqs == {i: t[i].seq for i in r.kept_event_ids}
    d = derive_trace(t, ["r", "m0"], "new")
    assert [(e.event_id, e.seq, e.trace_id) for e in d.events] == [("r", 0, "new"),
                                                                   ("m0", 1, "new")]
