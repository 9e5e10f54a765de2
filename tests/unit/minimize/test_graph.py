"""The dependency graph: order, closures, dependents, cycles."""

import pytest

from tests.dags import agent_trace, ev
from workbench.minimize import Graph
from workbench.minimize._graph import members
from workbench.model import InvalidTraceError, Trace

# r <- m <- a ; m <- b (b's argument came from a) ; c stands alone under r
TRACE = Trace.from_events([
    ev("r", 0, "agent", kind="agent"),
    ev("b", 1, "use", parent="m", refs=["a"]),   # recorded before its source
    ev("m", 2, "model", kind="llm_call", parent="r"),
    ev("a", 3, "list", parent="m"),
    ev("c", 4, "other", parent="r"),
])


def test_order_puts_dependencies_first_then_seq():
    assert [e.event_id for e in Graph(TRACE).events] == ["r", "m", "a", "b", "c"]


def test_every_prefix_is_closed():
    g = Graph(agent_trace(60, seed=3))
    for i in range(len(g) + 1):
        assert g.is_closed((1 << i) - 1)


def test_close_and_dependents():
    g = Graph(TRACE)
    assert set(g.ids(g.close(g.mask(["b"])))) == {"r", "m", "a", "b"}
    assert set(g.ids(g.close(g.mask(["c"])))) == {"r", "c"}
    within = g.mask(["r", "m", "a", "b", "c"])
    assert set(g.ids(g.dependents_within(g.mask(["a"]), within))) == {"a", "b"}
    assert set(g.ids(g.dependents_within(g.mask(["m"]), g.mask(["r", "m", "c"])))) == {"m"}


def test_members_and_subtrace_keep_ids_and_seq():
    g = Graph(TRACE)
    assert members(0b10110) == [1, 2, 4]
    sub = g.subtrace(g.mask(["r", "c"]))
    assert [(e.event_id, e.seq) for e in sub.events] == [("r", 0), ("c", 4)]


def test_unknown_ids_are_ignored():
    assert Graph(TRACE).mask(["nope"]) == 0


def test_a_dependency_cycle_is_refused_with_its_code():
    t = Trace.from_events([ev("x", 0, "a", parent="y"), ev("y", 1, "b", refs=["x"])])
    with pytest.raises(InvalidTraceError) as exc:
        Graph(t)
    assert exc.value.code == "DEPENDENCY_CYCLE" and "x" in exc.value.message and exc.value.hint


def test_a_transcript_closes_over_its_turn_not_the_thread(tmp_path):
    """Each line of a Claude Code transcript names the line before it (parentUuid): a
    thread, not a cause. The closure of a tool call is the turn that asked for it and
    that turn's prompt; the earlier calls of the session are not in it."""
    import json

    from workbench.ingest import read_trace

    def line(kind, uuid, parent, message):
        return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s-1",
                "timestamp": "2026-01-05T09:00:00Z", "message": message}

    def turn(uuid, parent, mid, tid, name, **args):
        return line("assistant", uuid, parent, {"id": mid, "role": "assistant", "content": [
            {"type": "tool_use", "id": tid, "name": name, "input": args}]})

    def result(uuid, parent, tid, text):
        return line("user", uuid, parent, {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tid, "content": text}]})

    records = [line("user", "u1", None, {"role": "user", "content": "tidy up"}),
               turn("a1", "u1", "m1", "t1", "Bash", command="ls"),
               result("r1", "a1", "t1", "one two"),
               turn("a2", "r1", "m2", "t2", "Write", file_path="/w/new.txt", content="x"),
               result("r2", "a2", "t2", "written"),
               turn("a3", "r2", "m3", "t3", "Bash", command="date"),
               result("r3", "a3", "t3", "Monday")]
    path = tmp_path / "s.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    [trace] = read_trace(path)
    graph = Graph(trace)
    assert set(graph.ids(graph.close(graph.mask(["t3"])))) == {"t3", "a3", "u1"}
    assert set(trace.closure(["t3"])) == {"t3", "a3", "u1"}
