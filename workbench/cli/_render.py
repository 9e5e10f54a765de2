"""Text renderings for the terminal: tables and trace timelines."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from ..model import Event, Trace, dumps

__all__ = ["ProgressLine", "render_table", "render_timeline", "summarize"]

_CELL = 60


def _cell(v: Any) -> str:
    s = "" if v is None else v if isinstance(v, str) else dumps(v) if isinstance(
        v, dict | list) else str(v)
    s = s.replace("\n", "\\n")
    return s if len(s) <= _CELL else s[: _CELL - 1] + "…"


def render_table(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain aligned table with a header rule."""
    cells = [[_cell(v) for v in r] for r in rows]
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(columns)]
    line = "  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))
    out = [line.rstrip(), "  ".join("-" * w for w in widths)]
    out += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
            for r in cells]
    out.append(f"({len(rows)} row{'s' if len(rows) != 1 else ''})")
    return "\n".join(out)


def summarize(value: Any, width: int = 70) -> str:
    """A one-line summary of a JSON value: keys with short values, lengths of long ones."""
    if value is None:
        return ""
    if isinstance(value, dict):
        parts = []
        for k, v in value.items():
            if v is None or v == {} or v == []:
                continue
            if isinstance(v, dict):
                parts.append(f"{k}={{…{len(v)}}}")
            elif isinstance(v, list):
                parts.append(f"{k}=[…{len(v)}]")
            else:
                parts.append(f"{k}={_short(v)}")
        s = ", ".join(parts)
    elif isinstance(value, list):
        s = f"[…{len(value)}]"
    else:
        s = _short(value, width)
    return s if len(s) <= width else s[: width - 1] + "…"


def _short(v: Any, width: int = 24) -> str:
    s = dumps(v)
    return s if len(s) <= width else s[: width - 2] + "…" + s[-1]


def _dur(ns: int | None) -> str:
    if ns is None:
        return "-"
    if ns < 1_000_000:
        return f"{ns / 1e3:.0f}µs"
    if ns < 100_000_000:
        return f"{ns / 1e6:.1f}ms"
    if ns < 1_000_000_000:
        return f"{ns / 1e6:.0f}ms"
    return f"{ns / 1e9:.2f}s"


def _line(trace: Trace, e: Event, t0: int | None) -> str:
    offset = "" if e.start_ns is None or t0 is None else f"+{(e.start_ns - t0) / 1e9:.3f}s"
    indent = "  " * min(trace.depth(e), 12)
    label = f"{e.kind} {e.name}"
    args, result = e.args, e.result
    if e.kind == "http":  # the name already says method and path; the status is the result
        args = {k: v for k, v in args.items() if k not in ("method", "path")} if isinstance(
            args, dict) else args
        result = result.get("status", result) if isinstance(result, dict) else result
    if e.kind in ("tool_call", "http") and summarize(args):
        label += f"({summarize(args, 60)})"
    if e.status == "error" and isinstance(e.error, dict):
        label += f"  ! {e.error.get('code') or ''} {e.error.get('message') or ''}".rstrip()
    elif e.kind in ("tool_call", "http") and summarize(result):
        label += f" -> {summarize(result, 50)}"
    for src, path, from_path in trace.sources(e)[:3]:
        label += f"  [{path} <- {src.name} step {src.seq} {from_path}]"
    flags = [f for f in e.flags]
    if flags:
        label += "  {" + ", ".join(flags) + "}"
    return (f"{e.seq:>5}  {offset:>10}  {_dur(e.duration_ns):>8}  {e.status:<5}  "
            f"{indent}{label}")


def render_timeline(trace: Trace, events: Sequence[Event]) -> str:
    meta = trace.meta
    starts = [e.start_ns for e in trace if e.start_ns is not None]
    t0 = min(starts) if starts else None
    ends = [e.end_ns for e in trace if e.end_ns is not None]
    span = f", {_dur(max(ends) - t0)}" if t0 is not None and ends else ""
    head = (f"trace {trace.trace_id} ({meta.get('source_format', '?')}, "
            f"{meta.get('source_path', '?')}): {len(trace)} events{span}")
    out = [head, "", f"{'seq':>5}  {'start':>10}  {'duration':>8}  {'stat':<5}  event",
           *(_line(trace, e, t0) for e in events)]
    if len(events) < len(trace):
        out.append(f"      … {len(trace) - len(events)} more events not shown")
    calls: dict[str, list[int]] = {}
    for e in trace.tool_calls():
        c = calls.setdefault(e.name, [0, 0, 0])
        c[0] += 1
        c[1] += e.status == "error"
        c[2] += e.duration_ns or 0
    if calls:
        out += ["", "tool calls:", render_table(
            ["tool", "calls", "errors", "total time"],
            [[k, v[0], v[1], _dur(v[2])] for k, v in sorted(calls.items())])]
    return "\n".join(out)


class ProgressLine:
    """One progress line on stderr, rewritten in place; only when stderr is a terminal,
    so logs and pipes never see it. ``show(text)`` replaces it, ``done()`` clears it."""

    def __init__(self) -> None:
        self.active = sys.stderr.isatty()
        self.shown = False

    def show(self, text: str) -> None:
        if not self.active:
            return
        sys.stderr.write(f"\r{text}\033[K")
        sys.stderr.flush()
        self.shown = True

    def done(self) -> None:
        if self.shown:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()

