import pytest

from workbench.model import Event, InvalidTraceError, Ref, Trace


def e(eid, seq, parent=None, start=None, end=None, kind="tool_call", name="t", refs=(), **kw):
    return Event("t1", eid, parent, seq, kind, name, start, end, "ok", refs=refs, **kw)


@pytest.fixture
def trace():
    return Trace.from_events([
        e("root", 0, kind="agent", name="ops-agent", start=0, end=100),
        e("list", 1, "root", 10, 20, name="list_projects", result={"items": [{"id": "p17"}]}),
        e("a", 2, "root", 30, 60, name="archive_project", args={"project_id": "p17"},
          refs=(Ref("list", "args.project_id", "result.items[0].id"),)),
        e("b", 3, "root", 40, 50, name="notify"),
        e("lost", 4, "gone", 70, 80, name="orphan_call"),
    ])


def test_order_parents_and_children(trace):
    assert [x.event_id for x in trace] == ["root", "list", "a", "b", "lost"]
    assert trace.parent("a").event_id == "root"
    assert [c.event_id for c in trace.children("root")] == ["list", "a", "b"]
    assert [x.event_id for x in trace.roots()] == ["root", "lost"]
    assert [x.event_id for x in trace.orphans()] == ["lost"]
    assert trace.depth("a") == 1


def test_happens_before_and_concurrency(trace):
    assert trace.precedes("list", "a")
    assert not trace.precedes("a", "list")
    assert trace.concurrent("a", "b")  # 30-60 overlaps 40-50
    assert not trace.precedes("a", "a")


def test_precedence_falls_back_to_seq_without_times():
    t = Trace.from_events([e("x", 0), e("y", 1)])
    assert t.precedes("x", "y") and not t.precedes("y", "x")


def test_data_flow_and_closure(trace):
    [(src, path, from_path)] = trace.sources("a")
    assert (src.name, path, from_path) == ("list_projects", "args.project_id",
                                           "result.items[0].id")
    assert trace.closure(["a"]) == {"a", "list", "root"}


def test_paths_into_events(trace):
    a = trace["a"]
    assert a.get("args.project_id") == "p17"
    assert a.get("name") == "archive_project"
    assert a.get("seq") == 2
    assert a.get("refs[0].event_id") == "list"
    assert trace["list"].values("result.items[*].id") == ["p17"]
    assert a.get("nope.x", "default") == "default"


def test_duplicate_ids_are_refused():
    with pytest.raises(InvalidTraceError) as info:
        Trace.from_events([e("x", 0), e("x", 1)])
    assert info.value.code == "DUPLICATE_EVENT_ID"


def test_arrow_round_trip(trace):
    again = Trace.from_arrow(trace.to_arrow())
    assert again.events == trace.events
