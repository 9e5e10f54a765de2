"""From a violation to a finding: the words, the witnesses and the shapes.

Both engines find violations their own way (Python per trace, DuckDB store-wide) and
hand each one here as the rule, the trace and the *primary* events: the ``then`` of a
``before``, the ``event`` of ``never``/``every``/``absent``/``flow``, the events of an
over-full ``count`` group, nothing for ``exists``/``order``. Everything a reader sees
is decided here, once, so the engines cannot word the same violation differently.
"""

from __future__ import annotations

from typing import Any

from ..model import Event, Trace, dumps
from ..model import Path as JPath
from ._conditions import selects, where_holds
from ._findings import Finding, event_shape
from ._model import Absent, Before, Count, Every, Exists, Flow, Never, Order, Rule, Where

__all__ = ["explain", "same_key", "short"]

_MISSING = object()


def short(value: Any, width: int = 40) -> str:
    """A value as a reader sees it in a message: text bare, the rest as JSON, cut."""
    s = value if isinstance(value, str) else dumps(value)
    return s if len(s) <= width else s[: width - 1] + "…"


def same_key(e: Event, paths: tuple[JPath, ...]) -> tuple[str, ...] | None:
    """The values at ``same`` paths, as canonical JSON; None when one is missing."""
    out = []
    for p in paths:
        vals = e.values(p)
        if not vals:
            return None
        v = vals[0]
        if isinstance(v, int | float) and not isinstance(v, bool):
            v = float(v)
        out.append(dumps(v))
    return tuple(out)


def _names(paths: tuple[JPath, ...]) -> str:
    return ", ".join(str(p.segments[-1]) for p in paths)


def _keytext(e: Event, paths: tuple[JPath, ...]) -> str:
    vals = [e.values(p) for p in paths]
    return "/".join(short(v[0], 24) for v in vals if v)


def _label(e: Event, paths: tuple[JPath, ...] = ()) -> str:
    key = _keytext(e, paths)
    return f"{e.name} {key} at step {e.seq}" if key else f"{e.name} at step {e.seq}"


def _finding(rule: Rule, trace: Trace, events: list[Event], operation: str, message: str,
             expected: dict[str, Any], actual: dict[str, Any] | None = None,
             values: tuple[str, ...] = (), stepless: bool = False) -> Finding:
    return Finding(rule.id, rule.severity, trace.trace_id, tuple(e.event_id for e in events),
                   events[0].seq if events and not stepless else None, operation, message,
                   expected,
                   actual if actual is not None else (event_shape(events[0]) if events else {}),
                   values)


def _quoted(e: Event, paths: tuple[JPath, ...]) -> tuple[str, ...]:
    """The texts ``_label`` quotes for these paths (blanked in the signature)."""
    return tuple(short(v[0], 24) for v in (e.values(p) for p in paths) if v)


def explain(rule: Rule, trace: Trace, primary: tuple[str, ...]) -> Finding:
    """The finding for one violation of ``rule`` in ``trace``."""
    body = rule.body
    events = [trace[i] for i in primary]
    if isinstance(body, Before):
        return _before(rule, body, trace, events[0])
    if isinstance(body, Never):
        return _never(rule, body, trace, events[0])
    if isinstance(body, Count):
        return _count(rule, body, trace, events)
    if isinstance(body, Every):
        return _every(rule, body, trace, events[0])
    if isinstance(body, Exists):
        return _finding(rule, trace, [], body.event.describe(),
                        f"no {body.event.describe()} in the trace",
                        {"exists": body.event.describe()}, {"events": len(trace)})
    if isinstance(body, Absent):
        e = events[0]
        return _finding(rule, trace, [e], e.name,
                        f"{_label(e)} is not allowed: {body.event.describe()} must be absent",
                        {"absent": body.event.describe()})
    if isinstance(body, Order):
        return _order(rule, body, trace)
    if isinstance(body, Flow):
        return _flow(rule, body, trace, events[0])
    raise TypeError(f"unknown rule body {type(body).__name__}")


def _before(rule: Rule, b: Before, trace: Trace, t: Event) -> Finding:
    same = f" for the same {_names(b.same)}" if b.same else ""
    return _finding(rule, trace, [t], t.name,
                    f"{_label(t, b.same)} has no earlier {b.first.describe()}{same}",
                    {"before": b.first.describe(), "same": [str(p) for p in b.same]},
                    values=_quoted(t, b.same))


def _never(rule: Rule, b: Never, trace: Trace, e: Event) -> Finding:
    key = same_key(e, b.same)
    after = next(a for a in trace if selects(b.after, a) and trace.precedes(a, e)
                 and same_key(a, b.same) == key)
    same = f" for the same {_names(b.same)}" if b.same else ""
    return _finding(rule, trace, [e, after], e.name,
                    f"{_label(e, b.same)} happens after {b.after.describe()} at step "
                    f"{after.seq}{same}",
                    {"never_after": b.after.describe(), "same": [str(p) for p in b.same]},
                    values=_quoted(e, b.same))


def _count(rule: Rule, c: Count, trace: Trace, events: list[Event]) -> Finding:
    n = len(events)
    what = c.event.describe()
    per = ""
    if c.per and events:
        per = f" for {_names(c.per)} {_keytext(events[0], c.per)}"
    if c.max is not None and n > c.max:
        beyond = events[c.max]
        return _finding(rule, trace, [beyond, *[e for e in events if e is not beyond]],
                        beyond.name,
                        f"{what} happens {n} times{per}, more than {c.max}: the one at step "
                        f"{beyond.seq} is one too many",
                        {"max": c.max, "per": [str(p) for p in c.per]}, {"count": n},
                        values=_quoted(events[0], c.per))
    return _finding(rule, trace, events, events[0].name if events else what,
                    f"{what} happens {n} times{per}, fewer than {c.min}",
                    {"min": c.min, "per": [str(p) for p in c.per]}, {"count": n},
                    values=_quoted(events[0], c.per) if events else ())


def _where_failure(e: Event, w: Where) -> str:
    vals = e.values(w.path)
    for c in w.conds:
        if c.op == "exists":
            if c.value and not vals:
                return f"{w.path} is missing"
            if not c.value and vals:
                return f"{w.path} is present"
    if not vals:
        return f"{w.path} is missing"
    tests = ", ".join(f"{c.op} {short(c.value, 60)}" for c in w.conds if c.op != "exists")
    return f"{w.path} is {short(vals[0])}, which does not meet {tests}"


def _every(rule: Rule, b: Every, trace: Trace, e: Event) -> Finding:
    for w in b.where:
        if not where_holds(e.values(w.path), w):
            vals = e.values(w.path)
            return _finding(rule, trace, [e], e.name, f"{_label(e)}: {_where_failure(e, w)}",
                            {"where": {str(w.path): [c.op for c in w.conds]}},
                            values=(short(vals[0]),) if vals else ())
    for root, schema in b.schema:
        import jsonschema  # only rules with a `schema` condition pay for it

        err = jsonschema.exceptions.best_match(
            jsonschema.validators.validator_for(schema)(schema).iter_errors(getattr(e, root)))
        if err is not None:
            at = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)
            return _finding(rule, trace, [e], e.name,
                            f"{_label(e)}: {root}{at} does not match the schema "
                            f"({short(err.message, 80)})", {"schema": root})
    raise ValueError(f"{e.event_id} meets every condition of {rule.id}")


def order_assignment(o: Order, trace: Trace) -> dict[str, Event] | None:
    """Distinct events for the steps such that every edge a -> b has a before b, or None."""
    cands = {name: [e for e in trace if selects(s, e)] for name, s in o.steps}
    preds = {name: [a for a, b in o.edges if b == name] for name, _ in o.steps}
    order = _topological([n for n, _ in o.steps], o.edges)
    chosen: dict[str, Event] = {}
    used: set[str] = set()

    def place(i: int) -> bool:
        if i == len(order):
            return True
        name = order[i]
        for e in sorted(cands[name], key=lambda x: (x.end_ns is None, x.end_ns or 0, x.seq)):
            if e.event_id in used or not all(trace.precedes(chosen[p], e) for p in preds[name]):
                continue
            chosen[name] = e
            used.add(e.event_id)
            if place(i + 1):
                return True
            used.discard(e.event_id)
            del chosen[name]
        return False

    return dict(chosen) if place(0) else None


def _topological(names: list[str], edges: tuple[tuple[str, str], ...]) -> list[str]:
    out: list[str] = []
    left = list(names)
    while left:
        ready = [n for n in left if all(a in out for a, b in edges if b == n)]
        out.append(ready[0])
        left.remove(ready[0])
    return out


def _order(rule: Rule, o: Order, trace: Trace) -> Finding:
    steps = dict(o.steps)
    missing = [n for n, s in o.steps if not any(selects(s, e) for e in trace)]
    chain = ", ".join(f"{steps[a].describe()} before {steps[b].describe()}" for a, b in o.edges)
    if missing:
        what = steps[missing[0]].describe()
        message = f"no {what} in the trace, so the required order ({chain}) cannot hold"
        operation = what
    else:
        message = f"no choice of distinct events puts them in the required order ({chain})"
        operation = steps[o.steps[0][0]].describe()
    witnesses = sorted({e.event_id: e for n, s in o.steps for e in trace if selects(s, e)}
                       .values(), key=lambda e: e.seq)[:20]
    return _finding(rule, trace, witnesses, operation, message,
                    {"order": [[a, b] for a, b in o.edges]}, {"events": len(witnesses)},
                    stepless=True)


def flow_source(f: Flow, trace: Trace, e: Event) -> tuple[bool, tuple[Event, str] | None]:
    """Whether the event's value came from a qualifying source; else the nearest miss."""
    vals = e.values(f.value)
    if not vals:
        return False, None
    v = vals[0]
    miss = None
    root = f.from_value.root
    for s in trace:
        if not selects(f.source, s) or not trace.precedes(s, e):
            continue
        base = getattr(s, str(root))
        for segs, x in f.from_value.tail().find(base):
            if not _same_value(x, v):
                continue
            item = _at(base, segs[:-1])
            if all(where_holds(w.path.values(item), w) for w in f.source_where):
                return True, None
            if miss is None:
                miss = (s, f"{root}" + "".join(
                    f"[{k}]" if isinstance(k, int) else f".{k}" for k in segs[:-1]))
    return False, miss


def _same_value(a: Any, b: Any) -> bool:
    from ._conditions import eq
    if isinstance(a, dict | list) or isinstance(b, dict | list):
        return False
    return eq(a, b)


def _at(base: Any, segs: tuple[Any, ...]) -> Any:
    for k in segs:
        base = base[k]
    return base


def _flow(rule: Rule, f: Flow, trace: Trace, e: Event) -> Finding:
    _, miss = flow_source(f, trace, e)
    label = _label(e, (f.value,))
    quoted = _quoted(e, (f.value,))
    expected = {"from": f.source.describe(), "from_value": str(f.from_value),
                "source_where": [str(w.path) for w in f.source_where]}
    if not e.values(f.value):
        return _finding(rule, trace, [e], e.name, f"{label} has no {f.value}", expected)
    if miss is not None:
        s, where = miss
        conds = ", ".join(str(w.path) for w in f.source_where)
        return _finding(rule, trace, [e, s], e.name,
                        f"{label} came from {s.name} at step {s.seq} ({where}), whose "
                        f"{conds} does not qualify", expected, values=quoted)
    return _finding(rule, trace, [e], e.name,
                    f"{label} did not come from an earlier {f.source.describe()}", expected,
                    values=quoted)
