"""The promotion policy: the file and its refusals (with lines), and what each column
becomes — verbatim but scanned, pseudonymized with equal tokens, or reduced to shapes."""

import json
import re

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from workbench.model import EVENTS, FLAGS_KEY
from workbench.redact import TOKEN_RE, Redactor
from workbench.redact._policy import (
    Policy,
    PolicyError,
    apply_policy,
    load_policy,
    parse_policy,
    shape_of,
)

KEY = bytes(range(32))
GHP = "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"
EMAIL = "dana.whitfield@example.org"


def row(seq, name="archive_project", kind="tool_call", args=None, result=None, error=None,
        attrs=None, refs=(), status="ok", parent=None):
    return {"trace_id": "t1", "event_id": f"e{seq}", "parent_id": parent, "seq": seq,
            "kind": kind, "name": name, "start_ns": 1000 + seq, "end_ns": 2000 + seq,
            "status": status, "args": json.dumps(args), "result": json.dumps(result),
            "error": None if error is None else json.dumps(error),
            "attrs": json.dumps(attrs or {}), "refs": list(refs)}


def apply(rows, policy):
    out = apply_policy(pa.Table.from_pylist(rows, schema=EVENTS), policy, Redactor(KEY))
    assert out.schema == EVENTS
    got = out.to_pylist()
    for r in got:
        for c in ("args", "result", "error", "attrs"):
            r[c] = None if r[c] is None else json.loads(r[c])
    return got


# -- the file ----------------------------------------------------------------------------

def test_the_design_example_loads(tmp_path):
    p = tmp_path / "policy.yaml"
    p.write_text("version: 1\n"
                 "keep: [kind, name, status, args.state, result.status]   # verbatim\n"
                 'pseudonymize: [args.project_id, "result.items[*].id"]\n')
    pol = load_policy(p)
    assert pol.keep == ("kind", "name", "status", "args.state", "result.status")
    assert pol.pseudonymize == ("args.project_id", "result.items[*].id")
    assert pol.to_dict() == {"version": 1, "keep": list(pol.keep),
                             "pseudonymize": list(pol.pseudonymize)}
    assert parse_policy(pol.to_yaml()) == Policy(pol.keep, pol.pseudonymize, "<policy>")


@pytest.mark.parametrize("text, code, line, words", [
    ("version: 1\nkeep: [args.a\n", "POLICY_YAML", 3, "not valid YAML"),
    ("- just a list\n", "POLICY_INVALID", None, "a policy is a mapping"),
    ("version: 2\nkeep: []\n", "POLICY_INVALID", 1, "version must be 1"),
    ("version: 1\nkeep: []\ndrop: [x]\n", "POLICY_INVALID", 3, "unknown key 'drop'"),
    ("version: 1\nkeep: args.a\n", "POLICY_INVALID", 2, "keep is a list of paths"),
    ("version: 1\nkeep:\n  - args.a\n  - args..b\n", "POLICY_INVALID", 4, "empty name"),
    ("version: 1\nkeep:\n  - seq\n", "POLICY_INVALID", 3, "structure and always kept"),
    ("version: 1\npseudonymize:\n  - args.id\n  - kind\n", "POLICY_INVALID", 4,
     "closed vocabulary"),
    ("version: 1\nkeep: [name.first]\n", "POLICY_INVALID", 2, "name is not JSON"),
    ("version: 1\nkeep: [body.x]\n", "POLICY_INVALID", 2, "does not start with a column"),
    ("version: 1\nkeep: [3]\n", "POLICY_INVALID", 2, "a path is text"),
])
def test_bad_policy_files_are_refused_with_the_line(text, code, line, words):
    with pytest.raises(PolicyError) as err:
        parse_policy(text, source="p.yaml")
    assert err.value.code == code
    assert err.value.details.get("line") == line
    assert words in err.value.message and err.value.message.startswith("p.yaml")


def test_a_missing_policy_file_is_not_found(tmp_path):
    with pytest.raises(PolicyError) as err:
        load_policy(tmp_path / "nope.yaml")
    assert err.value.code == "FILE_NOT_FOUND"


# -- shapes --------------------------------------------------------------------------------

def test_shapes_keep_keys_types_and_lengths():
    value = {"a": "hello", "n": 3, "x": 1.5, "ok": True, "none": None,
             "list": [1, "ab", [False]], "nested": {"k": "v"}}
    assert shape_of(value) == {"a": "«str:5»", "n": "«int»", "x": "«float»", "ok": "«bool»",
                               "none": None, "list": ["«int»", "«str:2»", ["«bool»"]],
                               "nested": {"k": "«str:1»"}}


def test_everything_unlisted_becomes_its_shape_and_structure_stays():
    [out] = apply([row(0, args={"project_id": "p17", "force": True},
                       result={"state": "archived", "items": [1, 2.5]},
                       attrs={"model": "gpt-4.1", FLAGS_KEY: ["orphan"]}, parent="e9",
                       refs=[{"event_id": "e9", "path": "args.project_id",
                              "from_path": "result.items[0].id"}])],
                  Policy())
    assert out["args"] == {"project_id": "«str:3»", "force": "«bool»"}
    assert out["result"] == {"state": "«str:8»", "items": ["«int»", "«float»"]}
    assert out["attrs"] == {"model": "«str:7»", FLAGS_KEY: ["orphan"]}
    assert out["name"] == "«str:15»"
    assert (out["kind"], out["status"], out["event_id"], out["parent_id"], out["seq"],
            out["start_ns"], out["end_ns"]) == ("tool_call", "ok", "e0", "e9", 0, 1000, 2000)
    assert out["refs"] == [{"event_id": "e9", "path": "args.project_id",
                            "from_path": "result.items[0].id"}]
    assert out["error"] is None


def test_kept_paths_are_verbatim_but_still_scanned():
    pol = Policy(keep=("name", "result.status", "args.note", "args.headers"))
    [out] = apply([row(0, name=f"notify {EMAIL}",
                       args={"note": f"mail {EMAIL} now", "headers": {
                           "authorization": "Bearer 8f14e45fceea167a5a36dedd4bea2543"},
                           "other": "x"},
                       result={"status": "captured", "id": "ch_1"})], pol)
    assert out["result"] == {"status": "captured", "id": "«str:4»"}
    assert out["args"]["other"] == "«str:1»"
    assert EMAIL not in out["args"]["note"] and out["args"]["note"].startswith("mail «email:")
    assert EMAIL not in out["name"] and out["name"].startswith("notify «email:")
    auth = out["args"]["headers"]["authorization"]
    assert "8f14e45f" not in auth and TOKEN_RE.search(auth)


def test_pseudonyms_are_equal_for_equal_values_across_events_and_paths():
    pol = Policy(pseudonymize=("args.project_id", "result.items[*].id", "args.n"))
    out = apply([row(0, name="list_projects", result={"items": [{"id": "p17"}, {"id": "p18"}]}),
                 row(1, args={"project_id": "p17", "n": 5}),
                 row(2, args={"project_id": "p18", "n": 5.0})], pol)
    listed = [i["id"] for i in out[0]["result"]["items"]]
    assert listed == [out[1]["args"]["project_id"], out[2]["args"]["project_id"]]
    assert listed[0] != listed[1] and all(TOKEN_RE.fullmatch(t) for t in listed)
    assert listed[0].startswith("«id:")
    assert out[1]["args"]["n"] == out[2]["args"]["n"]  # 5 and 5.0: one value to `same`


def test_pseudonymizing_wins_over_keeping_and_reaches_every_scalar_below():
    pol = Policy(keep=("args",), pseudonymize=("args.owner",))
    [out] = apply([row(0, args={"owner": {"id": "u1", "tags": ["a", None]}, "limit": 20})], pol)
    assert out["args"]["limit"] == 20
    owner = out["args"]["owner"]
    assert set(owner) == {"id", "tags"} and owner["tags"][1] is None
    assert TOKEN_RE.fullmatch(owner["id"]) and TOKEN_RE.fullmatch(owner["tags"][0])


def test_name_pseudonymized_or_kept():
    out = apply([row(0, name="GET /users/42")], Policy(pseudonymize=("name",)))
    assert out[0]["name"].startswith("«id:")
    out = apply([row(0, name="GET /users/42")], Policy(keep=("name",)))
    assert out[0]["name"] == "GET /users/42"


def test_star_reaches_object_values_and_negative_indexes_count_from_the_end():
    pol = Policy(keep=("attrs.usage[*]", "result.items[-1]"))
    [out] = apply([row(0, attrs={"usage": {"in": 963, "out": 46}, "model": "m"},
                       result={"items": ["a", "b", "c"]})], pol)
    assert out["attrs"] == {"usage": {"in": 963, "out": 46}, "model": "«str:1»"}
    assert out["result"] == {"items": ["«str:1»", "«str:1»", "c"]}


def test_flat_dotted_attribute_keys_are_reached():
    pol = Policy(keep=("attrs.gen_ai.tool.name",))
    [out] = apply([row(0, attrs={"gen_ai.tool.name": "archive_project", "x": "y"})], pol)
    assert out["attrs"] == {"gen_ai.tool.name": "archive_project", "x": "«str:1»"}


def test_a_key_holding_personal_data_is_rewritten_and_refs_follow_it():
    refs = [{"event_id": "e0", "path": f'args.users["{EMAIL}"]', "from_path": "result.id"}]
    out = apply([row(0, result={"id": "u1"}),
                 row(1, args={"users": {EMAIL: "u1"}}, refs=refs)], Policy(keep=("args",)))
    [key] = out[1]["args"]["users"]
    assert EMAIL not in key and key.startswith("«email:")
    assert EMAIL not in out[1]["refs"][0]["path"]
    assert out[1]["refs"][0]["path"] == f'args.users["{key}"]'


def test_an_error_column_is_shaped_and_null_stays_null():
    out = apply([row(0, status="error", error={"code": "E42", "message": "no", "retryable": False}),
                 row(1)], Policy(keep=("error.code",)))
    assert out[0]["error"] == {"code": "E42", "message": "«str:2»", "retryable": "«bool»"}
    assert out[1]["error"] is None


def test_secrets_never_survive_in_any_column():
    pol = Policy(keep=("name", "args", "result", "attrs", "error"))
    [out] = apply([row(0, name=f"push {GHP}", args={"token": GHP, "cmd": f"git push {GHP}"},
                       result={"nested": json.dumps({"password": "hunter2-Secret!"})},
                       attrs={"api_key": GHP}, error={"message": f"bad token {GHP}"},
                       status="error")], pol)
    text = json.dumps(out)
    assert GHP not in text and "hunter2-Secret!" not in text


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False,
                    allow_infinity=False) | st.text(max_size=12),
                    lambda inner: st.lists(inner, max_size=4) |
                    st.dictionaries(st.text("abcdefgh_", min_size=1, max_size=6), inner,
                                    max_size=4), max_leaves=20)
SHAPE = re.compile(r"«(str:\d+|int|float|bool)»")


def same_structure(a, b):
    if isinstance(a, dict):
        return isinstance(b, dict) and list(a) == list(b) and all(
            same_structure(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(
            same_structure(x, y) for x, y in zip(a, b, strict=True))
    return (a is None) == (b is None)


@settings(max_examples=60, deadline=None)
@given(args=JSON, result=JSON)
def test_with_nothing_listed_no_value_survives_and_the_structure_does(args, result):
    [out] = apply([row(0, args=args, result=result)], Policy())
    for before, after in ((args, out["args"]), (result, out["result"])):
        assert same_structure(before, after)
        leaves = [after] if not isinstance(after, dict | list) else []
        stack = [after]
        while stack:
            v = stack.pop()
            items = v.values() if isinstance(v, dict) else v if isinstance(v, list) else None
            if items is None:
                leaves.append(v)
            else:
                stack.extend(items)
        assert all(v is None or SHAPE.fullmatch(v) for v in leaves)


def test_first_seen_pseudonyms_number_values_by_first_appearance():
    """Promote's pseudonyms: the n-th distinct value is «id:n» whatever the key; equal
    values (17 and "17", 5 and 5.0) share one; numbering the output again changes
    nothing."""
    from workbench.redact import FirstSeen

    pol = Policy(pseudonymize=("args.project_id", "result.items[*].id", "args.n"))
    rows = [row(0, name="list_projects", result={"items": [{"id": "p18"}, {"id": "p17"}]}),
            row(1, args={"project_id": "p17", "n": 5}),
            row(2, args={"project_id": "p18", "n": 5.0}),
            row(3, args={"project_id": 17, "n": "17"})]
    outs = []
    for key in (KEY, bytes(reversed(KEY))):
        t = apply_policy(pa.Table.from_pylist(rows, schema=EVENTS), pol, Redactor(key),
                         pseudonyms=FirstSeen())
        outs.append(t)
    assert outs[0].equals(outs[1])                      # independent of the key
    got = [{c: json.loads(r[c]) if r[c] else None for c in ("args", "result")}
           for r in outs[0].to_pylist()]
    assert [i["id"] for i in got[0]["result"]["items"]] == ["«id:000000000001»",
                                                            "«id:000000000002»"]
    assert got[1]["args"] == {"project_id": "«id:000000000002»", "n": "«id:000000000003»"}
    assert got[2]["args"] == {"project_id": "«id:000000000001»", "n": "«id:000000000003»"}
    assert got[3]["args"] == {"project_id": "«id:000000000004»", "n": "«id:000000000004»"}
    assert all(TOKEN_RE.fullmatch(v) for v in got[1]["args"].values())
    again = apply_policy(outs[0], pol, Redactor(KEY), pseudonyms=FirstSeen())
    for c in ("args", "result"):                        # idempotent (shapes are not)
        assert again.column(c).equals(outs[0].column(c))
    keyed = apply(rows, pol)                            # without: the key's tokens
    assert keyed[1]["args"]["project_id"] not in ("«id:000000000001»", "«id:000000000002»")
