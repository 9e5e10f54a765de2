"""Store rows and Python values: an ``events`` row as an event dict, a ``traces`` row
from its parts. Every reader and writer of those rows goes through here.

A store row holds the JSON columns as text (``args``, ``result``, ``error``, ``attrs``;
``traces``: ``tools``, ``versions``, ``redaction``, ``attrs``); an event dict holds them
as JSON values.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from ._json import dumps, loads

__all__ = ["event_dict", "trace_row"]


def event_dict(row: Mapping[str, Any]) -> dict[str, Any]:
    """An ``events`` row (JSON columns as text) as an event dict: the event columns in
    schema order, ``args``/``result``/``error`` parsed (null stays ``None``), ``attrs``
    parsed (null or empty: ``{}``), ``refs`` as plain dicts."""
    args, result, error, attrs = row.get("args"), row.get("result"), row.get("error"), \
        row.get("attrs")
    return {
        "trace_id": row["trace_id"], "event_id": row["event_id"],
        "parent_id": row.get("parent_id"), "seq": row["seq"], "kind": row["kind"],
        "name": row["name"], "start_ns": row.get("start_ns"), "end_ns": row.get("end_ns"),
        "status": row["status"],
        "args": None if args is None else loads(args),
        "result": None if result is None else loads(result),
        "error": None if error is None else loads(error),
        "attrs": loads(attrs) if attrs else {},
        "refs": [dict(r) for r in row.get("refs") or ()],
    }


def _json_text(value: Any, empty: Any) -> str:
    """A JSON column's text: a ``str`` is JSON text already; ``None`` is ``empty``."""
    if isinstance(value, str):
        return value
    return dumps(empty if value is None else value)


def trace_row(*, trace_id: str, source_format: str, source_path: str, source_sha256: str,
              batch: str, events: int, start_ns: int | None, end_ns: int | None,
              root_task: str | None = None, tools: Any = None, versions: Any = None,
              redaction: Any = None, derived_from: str | None = None, attrs: Any = None,
              ingested_at: dt.datetime | None = None, env: str = "default",
              scenario: str | None = None, build: str | None = None) -> dict[str, Any]:
    """One row of the ``traces`` table, its columns in schema order. The JSON columns
    take values (``None``: ``[]`` for ``tools``, else ``{}``) or JSON text, kept as it
    is; ``ingested_at`` is now (UTC) unless given."""
    return {
        "trace_id": trace_id, "source_format": source_format, "source_path": source_path,
        "source_sha256": source_sha256,
        "ingested_at": dt.datetime.now(dt.UTC) if ingested_at is None else ingested_at,
        "batch": batch, "events": events, "start_ns": start_ns, "end_ns": end_ns,
        "root_task": root_task, "tools": _json_text(tools, []),
        "versions": _json_text(versions, {}), "redaction": _json_text(redaction, {}),
        "derived_from": derived_from, "attrs": _json_text(attrs, {}), "env": env,
        "scenario": scenario, "build": build,
    }
