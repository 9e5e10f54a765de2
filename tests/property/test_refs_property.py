"""Data-flow inference meets its definition (docs/model.md), on random traces."""

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.model import ARG_KINDS, COMMON_AFTER, EVENT_KINDS, RefSource, format_path, infer_refs
from workbench.model._refs import leaves

pool = st.sampled_from(["p17", "p18", "job-4711", "ok", "archived-1", 4711, 12, 4711.0, True,
                        "   spaces   ", "x" * 9, "keep-alive", "200", "http://localhost:3000"])
values = st.recursive(pool, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.sampled_from(["id", "items", "ref", "headers",
                                                         "origin", "x-id"]), inner,
                                        max_size=3), max_leaves=6)


@st.composite
def traces(draw):
    n = draw(st.integers(1, 12))
    out = []
    for i in range(n):
        timed = draw(st.booleans())
        start = draw(st.integers(0, 50)) if timed else None
        end = start + draw(st.integers(0, 20)) if timed else None
        out.append(RefSource(f"e{i}", draw(st.sampled_from(EVENT_KINDS)), start, end,
                             draw(values), draw(values)))
    return out


def echo(events, senders, i):
    """Whether the answer of event i came after the first request carrying the value."""
    if not senders:
        return False
    a = senders[0]
    if a == i:
        return True
    if events[a].start_ns is not None and events[i].end_ns is not None:
        return events[a].start_ns < events[i].end_ns
    return a < i


def reference(events):
    def precedes(a, i, b, j):
        if a.start_ns is not None and a.end_ns is not None and b.start_ns is not None:
            return a.end_ns <= b.start_ns
        return i < j

    def holds(ev, v):
        return [segs for segs, x in leaves(ev.result, ("result",))
                if x == v and type(x) is type(v)]

    out = []
    for j, ev in enumerate(events):
        refs = []
        if ev.kind in ARG_KINDS:
            for segs, v in leaves(ev.args, ("args",)):
                common = sum(1 for e in events if holds(e, v)) > COMMON_AFTER
                # an answer is no source once a request carried the value before the
                # answer came (its own request included): it echoes that request
                senders = [i for i, e in enumerate(events[:j])
                           if any(x == v and type(x) is type(v)
                                  for _, x in leaves(e.args, ("args",)))]
                sources = [i for i, s in enumerate(events)
                           if i < j and not common and holds(s, v)
                           and not echo(events, senders, i) and precedes(s, i, ev, j)]
                if sources:  # the answer given first
                    i = min(sources, key=lambda k: (events[k].end_ns is None,
                                                    events[k].end_ns or 0, k))
                    refs.append({"event_id": events[i].event_id, "path": format_path(segs),
                                 "from_path": format_path(holds(events[i], v)[0])})
        out.append(refs)
    return out


@settings(max_examples=300, deadline=None)
@given(traces())
def test_inferred_refs_match_the_definition(events):
    assert infer_refs(events) == reference(events)
