"""``list_findings``, ``list_groups`` and ``show_finding``: the store's findings read
for an agent.

A finding is named by the store's ``finding_id`` (the id ``replay`` takes): the same
finding of the same run always has the same id, and another run's finding of the same
failure has another (both share the signature, which names the group).
"""

from __future__ import annotations

from typing import Any

from ..replay import FindingNotFoundError
from ..rules import finding_json
from ..store import Store, to_rows
from ._schemas import FINDING, GROUP, ID, LIMIT, OFFSET, STEP, obj
from ._steps import finding_steps
from ._tool import Tool, ToolContext

__all__ = ["LIST_FINDINGS", "LIST_GROUPS", "SHOW_FINDING"]

_ROWS = "SELECT * FROM findings"


def _where(filters: list[tuple[str, Any]]) -> tuple[str, list[Any]]:
    conds = [c for c, _ in filters]
    return (" WHERE " + " AND ".join(conds)) if conds else "", [v for _, v in filters]


def _page(store: Store, query: str, order: str, params: list[Any], args: dict[str, Any]
          ) -> tuple[list[dict[str, Any]], list[str], int]:
    """The rows of ``query`` in ``order`` from ``args``' offset, at most its limit; the
    columns; how many rows there are in all (one query: a window count beside each
    row, and a second only when the offset is past the end)."""
    limit, offset = int(args.get("limit", 100)), int(args.get("offset", 0))
    table = store.sql(f"SELECT *, count(*) OVER () AS \"total rows\" FROM ({query}) "
                      f"ORDER BY {order} LIMIT {limit} OFFSET {offset}", params)
    rows = to_rows(table)
    if rows:
        total = rows[0]["total rows"]
    else:
        total = store.sql(f"SELECT count(*) AS n FROM ({query})", params).column(
            "n")[0].as_py() if offset else 0
    for r in rows:
        del r["total rows"]
    return rows, table.column_names[:-1], total


def list_findings(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    store = ctx.store()
    filters: list[tuple[str, Any]] = []
    if "rule" in args:
        filters.append(("rule = ?", args["rule"]))
    if "severity" in args:
        filters.append(("severity = ?", args["severity"]))
    if "trace_id" in args:
        filters.append(("trace_id = ?", store.resolve_trace_id(args["trace_id"])))
    if "signature" in args:
        filters.append(("starts_with(signature, ?)", args["signature"]))
    cond, params = _where(filters)
    rows, _, total = _page(store, f"{_ROWS}{cond}",
                           "checked_at DESC, rule, trace_id, seq, finding_id", params, args)
    return {"findings": [finding_json(r) for r in rows], "total": total,
            "truncated": total > args.get("offset", 0) + len(rows)}


def list_groups(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    store = ctx.store()
    filters: list[tuple[str, Any]] = []
    if "rule" in args:
        filters.append(("rule = ?", args["rule"]))
    if "status" in args:
        filters.append(("status = ?", args["status"]))
    cond, params = _where(filters)
    rows, columns, total = _page(store, f"SELECT * FROM finding_groups{cond}",
                                 "last_seen DESC, signature", params, args)
    return {"groups": [finding_json(r) for r in rows], "columns": columns, "total": total,
            "truncated": total > args.get("offset", 0) + len(rows)}


def _pick(store: Store, key: str) -> dict[str, Any]:
    """The finding ``key`` names: its id, or the latest of the group of its signature;
    an unambiguous prefix of either will do (one query)."""
    rows = to_rows(store.sql(
        "WITH m AS (SELECT *, CASE WHEN finding_id = ? THEN 0 WHEN signature = ? THEN 1 "
        "ELSE 2 END AS \"exact\", CASE WHEN starts_with(finding_id, ?) THEN 'finding ' || "
        f"finding_id ELSE 'group ' || signature END AS \"what\" FROM ({_ROWS}) "
        "WHERE starts_with(finding_id, ?) OR "
        "starts_with(signature, ?)), "
        "w AS (SELECT list(DISTINCT \"what\" ORDER BY \"what\")[1:6] AS \"names\" FROM m) "
        "SELECT m.*, w.\"names\" FROM m, w ORDER BY \"exact\", checked_at DESC, trace_id, "
        "seq, rule LIMIT 1", [key, key, key, key, key]))
    if not rows:
        raise FindingNotFoundError(f"no finding or group {key!r} in the store", finding=key)
    row = rows[0]
    exact, names = row.pop("exact"), row.pop("names")
    del row["what"]
    if exact < 2 or len(names) == 1:
        return row
    raise FindingNotFoundError(
        f"{key!r} names several: {', '.join(names[:5])}", finding=key,
        code="AMBIGUOUS_FINDING", hint="give more characters of the id or signature")


def show_finding(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    from ..minimize import stored_minimization

    store = ctx.store()
    row = finding_json(_pick(store, args["finding"]))
    minimized = stored_minimization(store, row["trace_id"], row["rule"], row["signature"],
                                    row["seq"], row["event_ids"])
    group = to_rows(store.sql(
        "SELECT (SELECT events FROM traces WHERE trace_id = ?) AS \"minimized events\", g.* "
        "FROM (SELECT 1) LEFT JOIN finding_groups g ON g.signature = ?",
        [minimized, row["signature"]]))[0]
    kept = group.pop("minimized events")
    trace = store.trace(row["trace_id"])
    steps = finding_steps(trace, row["event_ids"], args.get("max_steps", 50))
    doc = dict(row)
    doc.update(group=finding_json(group) if group.get("signature") else None,
               steps=steps["steps"], steps_left_out=steps["left_out"],
               minimized=None if kept is None else {"trace_id": minimized, "events": kept})
    doc["text"] = "\n".join([f"{row['severity']} {row['rule']}: {row['message']}",
                             *(s["text"] for s in steps["steps"])])
    return doc


LIST_FINDINGS = Tool(
    "list_findings",
    "List recorded findings, newest first (what `workbench findings --json` lists), each "
    "with its finding_id for show_finding and replay. Filters: rule, trace_id (or a "
    "prefix), signature (or a prefix), severity.",
    obj({"rule": ID, "trace_id": ID, "signature": ID,
         "severity": {"enum": ["error", "warn"]}, "limit": LIMIT, "offset": OFFSET},
        closed=True),
    obj({"findings": {"type": "array", "items": {
        "allOf": [FINDING, obj({"finding_id": {"type": "string"}, "run_id": {"type": "string"},
                                "checked_at": {"type": "string"}}, ("finding_id", "run_id"))]}},
         "total": {"type": "integer"}, "truncated": {"type": "boolean"}},
        ("findings", "total", "truncated")),
    list_findings, read_only=True)

LIST_GROUPS = Tool(
    "list_groups",
    "List finding groups (one per signature: the same failure on other ids, steps or "
    "times), newest first, with every column of the store's finding_groups view "
    "(status included). Filters: status, rule.",
    obj({"status": ID, "rule": ID, "limit": LIMIT, "offset": OFFSET}, closed=True),
    obj({"groups": {"type": "array", "items": GROUP},
         "columns": {"type": "array", "items": {"type": "string"}},
         "total": {"type": "integer"}, "truncated": {"type": "boolean"}},
        ("groups", "columns", "total", "truncated")),
    list_groups, read_only=True)

SHOW_FINDING = Tool(
    "show_finding",
    "Show one finding with its steps in operational language: the witness events and "
    "the steps they depend on (parents and where their arguments came from), each with "
    "its step number, kind, name, status and the shapes of its arguments and result; the "
    "message, the expected and actual shapes, its group and its minimized trace if one is "
    "stored. `finding`: a finding id (list_findings) or a signature (the group's latest "
    "finding), or an unambiguous prefix of either.",
    obj({"finding": ID, "max_steps": {"type": "integer", "minimum": 1, "maximum": 1000,
                                      "default": 50}}, ("finding",), closed=True),
    {"type": "object", "allOf": [FINDING, obj({
        "finding_id": {"type": "string"}, "group": {"type": ["object", "null"]},
        "steps": {"type": "array", "items": STEP}, "steps_left_out": {"type": "integer"},
        "minimized": {"type": ["object", "null"]}, "text": {"type": "string"}},
        ("finding_id", "group", "steps", "steps_left_out", "minimized", "text"))]},
    show_finding, read_only=True)
