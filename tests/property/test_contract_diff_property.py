"""Properties of ``contract diff``: a set of tools against itself has no changes, nor
against the same tools written differently — keys, ``required``, ``enum`` and ``type``
lists shuffled, sub-schemas moved under ``$defs`` behind ``$ref``s, nullability spelled
another way, descriptions re-wrapped — and a real change is always found."""

import copy

from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.contracts import ToolSet, descriptor_from_dict, diff_tools, schema_changes

NAMES = st.sampled_from(["id", "owner", "state", "limit", "items", "cursor", "a.b"])
SCALAR_TYPES = st.sampled_from(["string", "integer", "number", "boolean"])


@st.composite
def leaves(draw):
    t = draw(SCALAR_TYPES)
    s = {"type": t}
    if t == "string" and draw(st.booleans()):
        s["enum"] = draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1,
                                  max_size=4, unique=True))
    if t in ("integer", "number") and draw(st.booleans()):
        s["maximum"] = draw(st.integers(0, 1000))
    if draw(st.booleans()):
        s["description"] = draw(st.sampled_from(["the owner", "a cursor", "how many"]))
    if draw(st.booleans()):
        s["default"] = draw(st.sampled_from([1, "a", None, True]))
    if draw(st.booleans()):
        s["type"] = [t, "null"]
    return s


def objects(inner):
    return st.builds(
        lambda props, req, closed: {"type": "object", "properties": props,
                                    "required": [k for k in props if k in req],
                                    **({"additionalProperties": False} if closed else {})},
        st.dictionaries(NAMES, inner, max_size=4), st.sets(NAMES), st.booleans())


schemas = st.recursive(leaves(), lambda inner: objects(inner)
                       | st.builds(lambda i: {"type": "array", "items": i}, inner)
                       | st.builds(lambda a, b: {"anyOf": [a, b]}, inner, inner),
                       max_leaves=12)


def descriptors():
    return st.builds(lambda name, se, desc, i, o: {
        "version": 1, "tool": name, "side_effect": se, "description": desc,
        "input": i, "output": o},
        st.sampled_from(["projects.list", "jobs.retry", "email.send"]),
        st.sampled_from(["read_only", "write", "destructive", None]),
        st.sampled_from(["List projects by owner.", "Retry one job."]),
        objects(schemas), objects(schemas))


def shuffled(value, rnd):
    """The same JSON with every object's keys, and required / enum / type lists, in
    another order."""
    if isinstance(value, dict):
        keys = list(value)
        rnd.shuffle(keys)
        out = {}
        for k in keys:
            v = value[k]
            if k in ("required", "enum", "type") and isinstance(v, list):
                v = list(v)
                rnd.shuffle(v)
                out[k] = v
            elif k in ("default", "const", "examples"):
                out[k] = v
            else:
                out[k] = shuffled(v, rnd)
        return out
    if isinstance(value, list):
        return [shuffled(v, rnd) for v in value]
    return value


def respelled(schema, rnd):
    """The same schema with property schemas moved under $defs behind $refs, and
    `type: [T, null]` written as `nullable: true` or an anyOf with null."""
    defs = {}

    def walk(s):
        if not isinstance(s, dict):
            return s
        s = dict(s)
        if isinstance(s.get("type"), list) and "null" in s["type"] and len(s["type"]) == 2:
            t = next(x for x in s["type"] if x != "null")
            choice = rnd.randrange(3)
            if choice == 1:
                s = {**s, "type": t, "nullable": True}
            elif choice == 2:
                rest = {k: v for k, v in s.items() if k not in ("type", "description", "default")}
                outer = {k: s[k] for k in ("description", "default") if k in s}
                s = {"anyOf": [{**rest, "type": t}, {"type": "null"}], **outer}
        for k in ("properties",):
            if isinstance(s.get(k), dict):
                s[k] = {name: walk(v) for name, v in s[k].items()}
                for name in list(s[k]):
                    if rnd.random() < 0.5:
                        ref = f"d{len(defs)}"
                        defs[ref] = s[k][name]
                        s[k][name] = {"$ref": f"#/$defs/{ref}"}
        if isinstance(s.get("items"), dict):
            s["items"] = walk(s["items"])
        if isinstance(s.get("anyOf"), list):
            s["anyOf"] = [walk(m) for m in s["anyOf"]]
        return s

    out = walk(copy.deepcopy(schema))
    if defs:
        out["$defs"] = defs
    return out


def one(doc):
    return ToolSet([descriptor_from_dict(doc, "t.yaml")])


@settings(max_examples=150)
@given(descriptors())
def test_a_tool_against_itself_has_no_changes(doc):
    assert diff_tools(one(doc), one(copy.deepcopy(doc))).changes == ()
    for side in ("input", "output"):  # the walk itself, not the equality shortcut
        assert schema_changes(doc[side], copy.deepcopy(doc[side]), side) == []


@settings(max_examples=150)
@given(descriptors(), st.randoms(use_true_random=False))
def test_the_same_tool_written_differently_has_no_changes(doc, rnd):
    other = shuffled(doc, rnd)
    other["description"] = "  " + doc["description"].replace(" ", "\n  ") + "\n"
    for side in ("input", "output"):
        other[side] = respelled(other[side], rnd)
    assert diff_tools(one(doc), one(other)).changes == ()
    assert diff_tools(one(other), one(doc)).changes == ()


@settings(max_examples=100)
@given(descriptors(), NAMES)
def test_a_removed_argument_is_always_found(doc, name):
    doc["input"]["properties"][name] = {"type": "string"}
    smaller = copy.deepcopy(doc)
    del smaller["input"]["properties"][name]
    smaller["input"]["required"] = [r for r in smaller["input"]["required"] if r != name]
    changes = diff_tools(one(doc), one(smaller)).changes
    assert [(c.kind, c.path) for c in changes if c.direction == "input"] in (
        [("field-removed", f"args.{name}")], [("field-removed", f'args["{name}"]')])
    assert all(c.severity == "error" for c in changes)
