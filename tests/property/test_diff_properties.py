"""Properties of the diff: a trace against itself is empty, the diff is symmetric up to
added/removed, canonicalization is idempotent and drops only what is listed, and
inserted events are found as exactly themselves."""

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench import diff_traces
from workbench.diff import Canon, canonical_bytes, canonicalize
from workbench.model import Event, Trace

keys = st.sampled_from(["id", "project_id", "status", "items", "n", "generated_at", "a b"])
scalars = (st.none() | st.booleans() | st.integers(-(2**70), 2**70)
           | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=6))
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(keys, inner, max_size=3), max_leaves=10)
CANONS = st.sampled_from([
    Canon(), Canon.of(drop=["generated_at"]), Canon.of(symbolize=["*.id", "*_id"]),
    Canon.of(drop=["**.generated_at", "items[*].n"], symbolize=["id"]),
])
NAMES = ["search", "read_file", "apply_patch", "run_tests", "get_job"]


@st.composite
def event_specs(draw, min_size=1, max_size=12):
    n = draw(st.integers(min_size, max_size))
    return [(draw(st.sampled_from(NAMES)), draw(st.dictionaries(keys, values, max_size=3)),
             draw(st.sampled_from(["ok", "error"]))) for _ in range(n)]


def build(tid, specs):
    return Trace.from_events(Event(tid, f"{tid}-{i}", None, i, "tool_call", name, None, None,
                                   status, args, {}) for i, (name, args, status)
                             in enumerate(specs))


@given(event_specs(), CANONS)
def test_a_trace_against_itself_is_the_same(specs, canon):
    a = build("a", specs)
    d = diff_traces(a, build("b", specs), canon)
    assert d.same and d.aligned == len(specs)


def _no_length_changes(specs_a, specs_b):
    # list items are aligned by the old side's indices when a list's length changes, so
    # path names are symmetric only where no list changed length
    def lens(v, at=()):
        if isinstance(v, dict):
            for k, x in v.items():
                yield from lens(x, (*at, k))
        elif isinstance(v, list):
            yield at, len(v)
            for i, x in enumerate(v):
                yield from lens(x, (*at, i))
    return all(dict(lens(a[1])) == dict(lens(b[1])) for a, b in zip(specs_a, specs_b, strict=False))


@settings(max_examples=150)
@given(event_specs(), event_specs(), CANONS)
def test_the_diff_is_symmetric_up_to_added_and_removed(sa, sb, canon):
    a, b = build("a", sa), build("b", sb)
    ab, ba = diff_traces(a, b, canon), diff_traces(b, a, canon)
    assert [e.event_id for e in ab.added] == [e.event_id for e in ba.removed]
    assert [e.event_id for e in ab.removed] == [e.event_id for e in ba.added]
    assert sorted((x, y) for x, y in ab.pairs) == sorted((x, y) for y, x in ba.pairs)
    assert ab.same == ba.same and len(ab.reordered) == len(ba.reordered)
    if not canon.symbolize and _no_length_changes(sa, sb):
        flip = {"added": "removed", "removed": "added", "changed": "changed"}
        fwd = {(c.a.event_id, p.path, repr(p.old), repr(p.new), p.change)
               for c in ab.changed for p in c.paths}
        back = {(c.b.event_id, p.path, repr(p.new), repr(p.old), flip[p.change])
                for c in ba.changed for p in c.paths}
        assert fwd == back


@given(event_specs(min_size=3, max_size=20), st.data())
def test_inserted_events_are_exactly_the_added_ones(specs, data):
    # every event distinct (its index in the args), then events inserted at random places
    specs = [(n, {**args, "n": i}, s) for i, (n, args, s) in enumerate(specs)]
    b = list(specs)
    inserted = []
    for k in range(data.draw(st.integers(1, 3))):
        at = data.draw(st.integers(0, len(b)))
        b.insert(at, ("run_tests", {"n": f"new-{k}"}, "ok"))
    inserted = [i for i, s in enumerate(b) if str(s[1].get("n")).startswith("new-")]
    d = diff_traces(build("a", specs), build("b", b))
    assert [e.seq for e in d.added] == inserted
    assert d.removed == [] and d.changed == [] and d.reordered == []


@given(values, CANONS)
def test_canonicalization_is_idempotent(value, canon):
    once = canonicalize(value, canon)
    assert canonical_bytes(canonicalize(once, canon)) == canonical_bytes(once)


@given(st.dictionaries(keys, values, max_size=5))
def test_only_listed_paths_are_dropped(doc):
    got = canonicalize(doc, Canon.of(drop=["generated_at"]))
    assert set(got) == set(doc) - {"generated_at"}
    for k in got:  # nothing below the top level is touched (sorted keys aside)
        assert canonical_bytes(got[k]) == canonical_bytes(doc[k])
