"""The DuckDB and Spark engines find exactly the violations the Python engine finds, for
random traces and random rules of every body (docs/design.md: "the engines give the same
findings"). Spark runs on one session-scoped local session and fewer examples (each is a
Spark job).

Generated data stays where the engines are documented to agree (``workbench.rules._sql``):
regular expressions without classes that RE2 reads as ASCII, no empty keys.
"""

import json
import tempfile
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.ingest import ingest
from workbench.rules import SparkEngine, parse_rules
from workbench.rules._python import violations
from workbench.rules._sql import sql_violations
from workbench.store import Store

KINDS = ["tool_call", "http", "llm_call"]
NAMES = ["a", "b", "c"]
STATUSES = ["ok", "error", "unset"]
LONG = "long-" + "x" * 40
SCALARS = [0, 1, 2, -1, 1.0, 2.5, -0.0, 2**70, True, False, None,
           "", "p1", "p2", "1", "true", "team-a", "é", LONG]
KEYS = ["id", "items", "status", "project_id", "owner", "status.code", "code"]

scalars = st.sampled_from(SCALARS)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.sampled_from(KEYS), inner, max_size=3),
                      max_leaves=8)
docs = st.dictionaries(st.sampled_from(KEYS), values, max_size=4)


def times(draw, mode):
    """(start_ns, end_ns): both ("all"), never both ("none"), or anything ("some");
    durations from 0, so intervals touch and overlap."""
    start = draw(st.integers(0, 30)) if mode == "all" else draw(st.none() | st.integers(0, 30))
    end = draw(st.none() | st.integers(0, 10).map(lambda d: (start or 0) + d))
    if mode == "all" and end is None:
        end = start
    if mode == "none" and start is not None:
        end = None
    return start, end


@st.composite
def traces(draw):
    out = []
    for t in range(draw(st.integers(1, 3))):
        mode = draw(st.sampled_from(["all", "none", "some"]))  # the order engine has a path each
        for i in range(draw(st.integers(1, 15))):
            start, end = times(draw, mode)
            out.append({
                "trace_id": f"t{t}", "event_id": f"e{t}-{i}", "seq": i,
                "parent_id": draw(st.none() | st.just(f"e{t}-0")),
                "kind": draw(st.sampled_from(KINDS)), "name": draw(st.sampled_from(NAMES)),
                "status": draw(st.sampled_from(STATUSES)),
                "start_ns": start, "end_ns": end,
                "args": draw(docs), "result": draw(docs | values),
                "error": draw(st.none() | st.fixed_dictionaries({"code": scalars})),
                "attrs": draw(st.dictionaries(st.sampled_from(["x", "x.y", "model"]), values,
                                              max_size=2)),
            })
    return out


EVENT_PATHS = ["args.project_id", "args.items[*].id", "args.items[0]", "args.items[-1].id",
               "args.status.code", "result.status", "result.status.code", "result.items[*]",
               "result[*]", "result.items[*].status", "result.items[*][*]", "args", "result",
               "name", "kind", "seq", "parent_id", "start_ns", "attrs.x", "attrs.x.y",
               "error", "error.code", "args.id", "refs[*].from_path"]
ITEM_PATHS = ["owner", "id", "status", "status.code", "items[*]", "[0]"]
PATTERNS = ["^p", "1$", "^$", "a", "[0-9]", "^te.m-", "é", "x{3}"]
SCHEMAS = [{"type": "string"}, {"type": "object", "required": ["id"]}, {"minimum": 1},
           {"type": "array", "items": {"type": "integer"}}]
JSON_TYPES = ["string", "number", "integer", "boolean", "null", "object", "array"]

comparable = st.sampled_from([0, 1, 2.5, -1, "p1", "", "team-a", "é"])
ops = st.one_of(
    st.tuples(st.sampled_from(["eq", "ne"]), scalars),
    st.tuples(st.sampled_from(["in", "not_in"]), st.lists(scalars, max_size=3)),
    st.tuples(st.just("exists"), st.booleans()),
    st.tuples(st.just("matches"), st.sampled_from(PATTERNS)),
    st.tuples(st.sampled_from(["lt", "le", "gt", "ge"]), comparable),
    st.tuples(st.just("type"), st.sampled_from(JSON_TYPES)),
    st.tuples(st.just("schema"), st.sampled_from(SCHEMAS)),
)
conditions = scalars | st.lists(ops, min_size=1, max_size=2).map(dict)


def wheres(paths):
    return st.dictionaries(st.sampled_from(paths), conditions, max_size=2)


@st.composite
def selectors(draw):
    sel = {}
    if draw(st.booleans()):
        sel["tool"] = draw(st.sampled_from(NAMES))
    else:
        for key, pool in (("kind", KINDS), ("name", NAMES)):
            if draw(st.booleans()):
                sel[key] = draw(st.sampled_from(pool))
    if draw(st.integers(0, 3)) == 0:
        sel["status"] = draw(st.sampled_from(STATUSES))
    where = draw(wheres(EVENT_PATHS))
    if where:
        sel["where"] = where
    return sel or {"kind": "tool_call"}


same_paths = st.lists(st.sampled_from(EVENT_PATHS), max_size=2)


@st.composite
def bodies(draw):
    kind = draw(st.sampled_from(["before", "never", "count", "every", "exists", "absent",
                                 "order", "flow"]))
    if kind in ("before", "never"):
        a, b = ("first", "then") if kind == "before" else ("after", "event")
        body = {a: draw(selectors()), b: draw(selectors())}
        same = draw(same_paths)
        return {kind: {**body, "same": same} if same else body}
    if kind == "count":
        lo, hi = draw(st.none() | st.integers(0, 3)), draw(st.none() | st.integers(0, 3))
        if lo is None and hi is None:
            hi = 1
        if lo is not None and hi is not None and lo > hi:
            lo, hi = hi, lo
        body = {"event": draw(selectors())}
        per = draw(same_paths)
        body.update({k: v for k, v in (("per", per), ("min", lo), ("max", hi)) if v or v == 0})
        return {kind: body}
    if kind == "every":
        body = {"event": draw(selectors()), "where": draw(wheres(EVENT_PATHS))}
        if draw(st.integers(0, 3)) == 0:
            body["schema"] = {draw(st.sampled_from(["args", "result", "error", "attrs"])):
                              draw(st.sampled_from(SCHEMAS))}
        if not body["where"]:
            body["where"] = {"args.project_id": {"exists": True}}
        return {kind: body}
    if kind in ("exists", "absent"):
        return {kind: draw(selectors())}
    if kind == "order":
        n = draw(st.integers(1, 4))
        pairs = [[f"s{i}", f"s{j}"] for i in range(n) for j in range(i + 1, n)]
        edges = draw(st.lists(st.sampled_from(pairs), unique_by=tuple, max_size=3)) if pairs else []
        return {kind: {"steps": {f"s{i}": draw(selectors()) for i in range(n)}, "edges": edges}}
    body = {"event": draw(selectors()), "value": draw(st.sampled_from(EVENT_PATHS)),
            "from": draw(selectors()),
            "from_value": draw(st.sampled_from(
                ["result.items[*].id", "result.items[*]", "result.id", "result", "args.items[0]",
                 "result.status.code", "args.project_id", "result[*].id", "name", "seq"]))}
    source_where = draw(wheres(ITEM_PATHS))
    if source_where:
        body["source_where"] = source_where
    return {kind: body}


rulesets = st.lists(bodies(), min_size=1, max_size=3).map(
    lambda bs: {"version": 1, "rules": {f"r{i}": b for i, b in enumerate(bs)}})


def both_engines(events, doc, pick):
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "in.jsonl"
        src.write_text("".join(json.dumps(e) + "\n" for e in events))
        store = Store(Path(d) / "store")
        ingest([src], store)
        rules = parse_rules(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
        ids = sorted(store.trace_ids())
        scope = None if pick is None else [t for t in ids if t in pick]
        con = store.connect()
        try:
            got = sql_violations(con, rules, scope, store.trace)
        finally:
            con.close()
        want = [(rule.id, tid, p) for tid in (ids if scope is None else scope)
                for trace in [store.trace(tid)] for rule in rules
                for p in violations(rule, trace)]
        return sorted(got), sorted(want)


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(traces(), rulesets, st.none() | st.sets(st.sampled_from(["t0", "t1", "t2"])))
def test_sql_and_python_engines_agree(events, doc, pick):
    got, want = both_engines(events, doc, pick)
    assert got == want


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(traces(), rulesets, st.none() | st.sets(st.sampled_from(["t0", "t1", "t2"])),
       st.booleans())
def test_spark_and_python_engines_agree(spark_engine, events, doc, pick, shuffle):
    """Either of the Spark engine's plans (whole files, or a shuffle by trace)."""
    with tempfile.TemporaryDirectory() as d:
        src = Path(d) / "in.jsonl"
        src.write_text("".join(json.dumps(e) + "\n" for e in events))
        store = Store(Path(d) / "store")
        ingest([src], store)
        rules = parse_rules(yaml.safe_dump(doc, sort_keys=False, allow_unicode=True))
        ids = sorted(store.trace_ids())
        scope = None if pick is None else [t for t in ids if t in pick]
        engine = SparkEngine(spark_engine.master, spark_engine.partitions, shuffle=shuffle)
        got = engine.violations(store, rules, scope)
        want = [(rule.id, tid, p) for tid in (ids if scope is None else scope)
                for trace in [store.trace(tid)] for rule in rules
                for p in violations(rule, trace)]
        assert sorted(got) == sorted(want)
        # the order check() and the DuckDB engine give: rule by rule, then by trace
        order = [r.id for r in rules]
        assert [(order.index(v.rule), v.trace_id) for v in got] == \
            sorted((order.index(v.rule), v.trace_id) for v in got)
