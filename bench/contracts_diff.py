"""Contract diff: ``workbench.contracts.diff_tools`` on two 500-tool manifests with
MCP-sized schemas, against a plain structural comparison and DeepDiff.

    python bench/contracts_diff.py [--tools 500] [--changed 25] [--repeat 5] [--seed 0] [--read]
                                   [--json]

Input: a seeded manifest OLD of ``--tools`` descriptors whose ``input`` has 10–40
properties (strings with patterns and enums, bounded integers with defaults, arrays,
nested objects, ``$ref``s into ``$defs``) and whose ``output`` lists items of a
``$defs`` schema of 10–20 fields, plus an error envelope; and two NEW manifests:

* **edited**: OLD with ``--changed`` tools edited, one edit each, cycling through the
  kinds an agent meets (a field renamed, an output enum value added, a default raised,
  a field removed, an argument made required, a description rewritten, a side effect
  raised, a tool renamed); the truth is known from the construction;
* **respelled**: every tool written differently and meaning the same — ``$defs``
  inlined, nullable types spelled ``nullable: true``, keys in another order — so every
  schema is walked and nothing may be reported.

Methods, in one process, on descriptors built from the generated fields (``--read``
also times reading OLD the checked way, ``descriptor_from_dict`` with the schema file
and JSON Schema meta-validation, apart from the figures):

* **ours**: ``diff_tools(old, new)``;
* **dumps-eq**: ``json.dumps(sort_keys=True)`` of each tool on both sides compared —
  which tools differ as text, nothing about how (the floor of any structural diff);
* **deepdiff**: ``DeepDiff(old_by_name, new_by_name)``, its defaults, from the bench
  environment (bench/README.md); skipped with a note when it is not installed.

Target: ours diffs the 500-tool pair in **< 1 s**. Reported: median seconds of
``--repeat`` runs, changes (or differing tools / DeepDiff entries) reported, and ratios
to dumps-eq and DeepDiff. A measurement, not a test: it exits 0 unless something
crashed.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import statistics
import sys
import time
from typing import Any

from _measure import finish

TARGET_SECONDS = 1.0
SIDE_EFFECTS = ["read_only", "idempotent_write", "write", "external_send", "destructive"]
WORDS = ["project", "owner", "state", "label", "region", "plan", "quota", "member", "token",
         "cursor", "limit", "filter", "sort", "created", "updated", "archived", "team", "kind"]


# --- the manifests ---------------------------------------------------------------------

def _field(rng: random.Random, depth: int, defs: dict[str, Any]) -> dict[str, Any]:
    r = rng.random()
    if r < 0.25:
        return {"type": "string", "description": f"the {rng.choice(WORDS)} name",
                **({"pattern": "^[a-z][a-z0-9-]*$"} if rng.random() < 0.3 else {})}
    if r < 0.4:
        return {"enum": rng.sample(WORDS, rng.randint(2, 6)), "default": None} \
            if rng.random() < 0.2 else {"enum": rng.sample(WORDS, rng.randint(2, 6))}
    if r < 0.55:
        return {"type": "integer", "minimum": 0, "maximum": rng.choice([10, 100, 1000]),
                "default": rng.choice([1, 10, 100])}
    if r < 0.65:
        return {"type": ["string", "null"], "format": rng.choice(["date-time", "uri", "email"])}
    if r < 0.75:
        return {"type": "boolean", "default": False}
    if r < 0.85:
        return {"type": "array", "items": {"type": "string"}, "maxItems": rng.choice([10, 50])}
    if depth < 2 and r < 0.95:
        return _object(rng, rng.randint(3, 8), depth + 1, defs)
    name = f"Ref{len(defs)}"
    defs[name] = {}  # the name is taken before the definition's own fields take theirs
    defs[name] = _object(rng, rng.randint(3, 6), 2, defs)
    return {"$ref": f"#/$defs/{name}"}


def _object(rng: random.Random, n: int, depth: int, defs: dict[str, Any]) -> dict[str, Any]:
    names = [f"{rng.choice(WORDS)}_{i}" for i in range(n)]
    props = {k: _field(rng, depth, defs) for k in names}
    return {"type": "object", "properties": props,
            "required": [k for k in names if rng.random() < 0.3],
            "additionalProperties": rng.random() < 0.5}


def make_tool(rng: random.Random, i: int) -> dict[str, Any]:
    defs: dict[str, Any] = {}
    inp = _object(rng, rng.randint(10, 40), 0, defs)
    if defs:
        inp["$defs"] = defs
    item_defs: dict[str, Any] = {}
    item = _object(rng, rng.randint(10, 20), 1, item_defs)
    out = {"$defs": {"Item": item, **item_defs}, "type": "object", "properties": {
        "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
        "next_cursor": {"type": ["string", "null"]},
        "status": {"enum": ["ok", "partial", "queued"]}}}
    return {"tool": f"svc{i // 20}.op_{i}", "revision": 1,
            "description": f"Operation {i}: acts on {rng.choice(WORDS)}s of a "
                           f"{rng.choice(WORDS)}.",
            "input": inp, "output": out, "side_effect": rng.choice(SIDE_EFFECTS),
            "errors": {"codes": ["not_found", "forbidden", "rate_limited"],
                       "retryable": ["rate_limited"]},
            "timeout_s": rng.choice([5, 30, 60]), "auth_scope": [f"svc{i // 20}:use"]}


def _edit(t: dict[str, Any], k: int) -> str:
    props = t["input"]["properties"]
    first = next(iter(props))
    if k == 0:
        props[first + "_id"] = props.pop(first)
        return "field-renamed"
    if k == 1:
        t["output"]["properties"]["status"]["enum"].append("retry_later")
        return "enum-value-added"
    if k == 2:
        t["input"]["properties"]["page_size"] = {"type": "integer", "default": 100}
        return "field-added"
    if k == 3:
        del props[first]
        return "field-removed"
    if k == 4:
        t["input"]["required"] = [*t["input"]["required"], *[p for p in props if p not in
                                                            t["input"]["required"]][:1]]
        return "required-added"
    if k == 5:
        t["description"] += " Prefer this tool for bulk changes."
        return "description-changed"
    if k == 6:
        t["side_effect"] = "destructive" if t["side_effect"] != "destructive" else "write"
        return "side-effect-changed"
    t["tool"] += "_v2"
    return "tool-renamed"


def _respell(schema: Any, root: Any, rng: random.Random) -> Any:
    """The same schema with its $refs inlined, [T, null] as nullable, keys reordered."""
    if isinstance(schema, list):
        return [_respell(x, root, rng) for x in schema]
    if not isinstance(schema, dict):
        return schema
    if "$ref" in schema:
        target = root
        for part in schema["$ref"][2:].split("/"):
            target = target[part]
        return _respell(target, root, rng)
    out = {}
    for k in sorted(schema, key=lambda _: rng.random()):
        v = schema[k]
        if k == "$defs":
            continue
        if k == "type" and isinstance(v, list) and "null" in v and len(v) == 2:
            out["type"] = next(x for x in v if x != "null")
            out["nullable"] = True
        elif k in ("enum", "required", "default"):
            out[k] = v
        else:
            out[k] = _respell(v, root, rng)
    return out


def make_manifests(n: int, changed: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    old = [make_tool(rng, i) for i in range(n)]
    edited = copy.deepcopy(old)
    truth: dict[str, int] = {}
    for j, idx in enumerate(rng.sample(range(n), min(changed, n))):
        kind = _edit(edited[idx], j % 8)
        truth[kind] = truth.get(kind, 0) + 1
    respelled = [{**t, "input": _respell(t["input"], t["input"], rng),
                  "output": _respell(t["output"], t["output"], rng)} for t in old]
    return {"old": old, "edited": edited, "respelled": respelled, "truth": truth}


# --- the methods -----------------------------------------------------------------------

def _median(fn: Any, repeat: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def _toolset(docs: list[dict[str, Any]]) -> Any:
    """Descriptors built straight from the generated fields (they are valid by
    construction); ``--read`` times reading them the checked way."""
    from workbench.contracts import Descriptor, ErrorEnvelope, ToolSet
    return ToolSet(Descriptor(
        tool=d["tool"], revision=d["revision"], description=d["description"],
        input=d["input"], output=d["output"], side_effect=d["side_effect"],
        errors=ErrorEnvelope(tuple(d["errors"]["codes"]), tuple(d["errors"]["retryable"])),
        timeout_s=float(d["timeout_s"]), auth_scope=tuple(d["auth_scope"])) for d in docs)


def _read(docs: list[dict[str, Any]]) -> Any:
    from workbench.contracts import ToolSet, descriptor_from_dict
    return ToolSet(descriptor_from_dict({"version": 1, **d}, "bench") for d in docs)


def _dumps_eq(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> int:
    old = {t["tool"]: json.dumps(t, sort_keys=True) for t in a}
    new = {t["tool"]: json.dumps(t, sort_keys=True) for t in b}
    return sum(1 for k in old.keys() | new.keys() if old.get(k) != new.get(k))


def _deepdiff(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> int | None:
    try:
        from deepdiff import DeepDiff
    except ImportError:
        return None
    d = DeepDiff({t["tool"]: t for t in a}, {t["tool"]: t for t in b})
    return sum(len(v) for v in d.values())


def run(n: int, changed: int, repeat: int, seed: int, read: bool) -> dict[str, Any]:
    from workbench.contracts import diff_tools

    m = make_manifests(n, changed, seed)
    old = _toolset(m["old"])
    sides = {k: _toolset(m[k]) for k in ("edited", "respelled")}
    read_s = None
    if read:
        t0 = time.perf_counter()
        checked = _read(m["old"])
        read_s = round(time.perf_counter() - t0, 3)
        assert dict(checked) == dict(old)
    rows = []
    for scenario, new in sides.items():
        ours_s, res = _median(lambda new=new: diff_tools(old, new), repeat)
        kinds: dict[str, int] = {}
        for c in res.changes:
            kinds[c.kind] = kinds.get(c.kind, 0) + 1
        eq_s, eq_n = _median(lambda s=scenario: _dumps_eq(m["old"], m[s]), repeat)
        dd_s, dd_n = _median(lambda s=scenario: _deepdiff(m["old"], m[s]), 1)
        rows.append({"scenario": scenario, "ours_seconds": round(ours_s, 4),
                     "ours_changes": len(res.changes), "ours_kinds": kinds,
                     "dumps_eq_seconds": round(eq_s, 4), "dumps_eq_tools_differing": eq_n,
                     "deepdiff_seconds": round(dd_s, 4) if dd_n is not None else None,
                     "deepdiff_entries": dd_n,
                     "ratio_ours_to_dumps_eq": round(ours_s / eq_s, 2) if eq_s else None,
                     "ratio_deepdiff_to_ours": round(dd_s / ours_s, 1)
                     if dd_n is not None and ours_s else None})
    expected = {k: v for k, v in m["truth"].items() if k != "tool-renamed"}
    for k in ("tool-removed", "tool-added") if m["truth"].get("tool-renamed") else ():
        expected[k] = m["truth"]["tool-renamed"]
    for r in rows:
        r["exact"] = r["ours_kinds"] == (expected if r["scenario"] == "edited" else {})
    over = [r["scenario"] for r in rows if r["ours_seconds"] >= TARGET_SECONDS]
    wrong = [r["scenario"] for r in rows if not r["exact"]]
    return {"tools": n, "changed": changed, "truth": m["truth"], "repeat": repeat,
            "read_seconds": read_s, "rows": rows, "over_target": over,
            "failures": [f"{s}: ours did not report exactly the edits made" for s in wrong],
            "python": sys.version.split()[0]}


def report(doc: dict[str, Any]) -> None:
    print(f"{doc['tools']} tools; {doc['changed']} edited ({doc['truth']}); median of "
          f"{doc['repeat']} runs")
    if doc["read_seconds"] is not None:
        print(f"reading OLD's {doc['tools']} descriptors the checked way (descriptor_from_dict: "
              f"the schema file and JSON Schema meta-validation): {doc['read_seconds']:.2f} s, "
              "not in the figures below")
    print()
    print(f"{'scenario':<10} {'method':<9} {'seconds':>8}  reported")
    for r in doc["rows"]:
        print(f"{r['scenario']:<10} {'ours':<9} {r['ours_seconds']:>8.3f}  "
              f"{r['ours_changes']} changes {r['ours_kinds']}"
              + ("  (exactly the edits)" if r["exact"] else "  MISMATCH"))
        print(f"{'':<10} {'dumps-eq':<9} {r['dumps_eq_seconds']:>8.3f}  "
              f"{r['dumps_eq_tools_differing']} tools differ as text")
        if r["deepdiff_entries"] is None:
            print(f"{'':<10} {'deepdiff':<9} {'':>8}  not installed (bench environment)")
        else:
            print(f"{'':<10} {'deepdiff':<9} {r['deepdiff_seconds']:>8.3f}  "
                  f"{r['deepdiff_entries']} entries")
        dd = (f", deepdiff / ours {r['ratio_deepdiff_to_ours']}x"
              if r["ratio_deepdiff_to_ours"] is not None else "")
        print(f"{'':<10} ratio ours / dumps-eq {r['ratio_ours_to_dumps_eq']}x{dd}")
    print(f"\ntarget: ours < {TARGET_SECONDS:g} s per pair: "
          + ("met" if not doc["over_target"] else "over in " + ", ".join(doc["over_target"])))
    for f in doc["failures"]:
        print("MISMATCH", f)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tools", type=int, default=500)
    ap.add_argument("--changed", type=int, default=25)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--read", action="store_true",
                    help="also time reading OLD through descriptor_from_dict (slow)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    return finish(run(args.tools, args.changed, args.repeat, args.seed, args.read), args.json,
                  report)


if __name__ == "__main__":
    sys.exit(main())
