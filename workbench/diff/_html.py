"""``--html``: one self-contained page, A and B side by side, changed fields highlighted.

No scripts, no external styles or fonts: the page opens from a CI artifact or a mail
attachment. Runs of unchanged events are folded to a count with a little context, and
a very long diff is cut (the page says so; ``--json`` has everything).
"""

from __future__ import annotations

import html
from typing import Any

from ..model import Event, Trace
from ._text import render_value
from ._tracediff import TraceDiff
from ._values import PathChange

__all__ = ["html_page", "html_rows", "render_html"]

_CONTEXT = 2
_MAX_ROWS = 5000

_STYLE = """
body{font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;margin:1.5em;color:#1b1f24}
h1{font-size:16px} table{border-collapse:collapse;width:100%;table-layout:fixed}
td,th{border:1px solid #d0d7de;padding:4px 6px;vertical-align:top;overflow-wrap:anywhere}
th{background:#f6f8fa;text-align:left} .seq{width:4em;color:#57606a;text-align:right}
.changed{background:#fff8c5} .added{background:#dafbe1} .removed{background:#ffebe9}
.moved{background:#ddf4ff} .fold td{color:#57606a;text-align:center;background:#f6f8fa}
del{background:#ffcecb;text-decoration:none} ins{background:#aceebb;text-decoration:none}
.path{color:#0550ae} .tag{font-size:11px;color:#57606a} .summary span{margin-right:1.5em}
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _label(e: Event) -> str:
    return f"<b>{_e(e.name)}</b> <span class=tag>{_e(e.kind)} · {_e(e.status)}</span>"


def _paths(paths: tuple[PathChange, ...], side: str) -> str:
    items = []
    for p in paths[:200]:
        value = p.old if side == "a" else p.new
        absent = (p.change == "added" and side == "a") or (p.change == "removed" and side == "b")
        shown = "(absent)" if absent else render_value(value, 160)
        tag = "del" if side == "a" else "ins"
        items.append(f"<div><span class=path>{_e(p.path)}</span>: <{tag}>{_e(shown)}</{tag}>"
                     "</div>")
    if len(paths) > 200:
        items.append(f"<div class=tag>… {len(paths) - 200} more</div>")
    return "".join(items)


def render_html(d: TraceDiff, a: Trace, b: Trace) -> str:
    """The page for ``d``, the diff of ``b`` against ``a``."""
    rows = html_rows(d, a, b)
    if len(rows) > _MAX_ROWS:   # rows drawn: a folded run is one row, not its events
        rows = [*rows[:_MAX_ROWS],
                f"<tr class=fold><td colspan=4>page cut after {_MAX_ROWS} rows; "
                "`workbench diff --json` has the whole diff</td></tr>"]
    return html_page(d, rows)


def html_rows(d: TraceDiff, a: Trace, b: Trace) -> list[str]:
    """Every row the page of ``d`` draws, uncut: a run of unchanged events far from any
    change is one fold row (``… N unchanged events …``)."""
    body: list[str] = []
    folded = 0
    for row in _rows(d, a, b):
        if row is None:
            folded += 1
            continue
        if folded:
            body.append(f"<tr class=fold><td colspan=4>… {folded} unchanged events …</td></tr>")
            folded = 0
        body.append(row)
    if folded:
        body.append(f"<tr class=fold><td colspan=4>… {folded} unchanged events …</td></tr>")
    return body


def html_page(d: TraceDiff, rows: list[str], note: str = "") -> str:
    """The page around ``rows`` (some or all of ``html_rows``); ``note`` (HTML) goes
    under the summary."""
    summary = (f"<span>{len(d.changed)} changed</span><span>{len(d.added)} added</span>"
               f"<span>{len(d.removed)} removed</span><span>{len(d.reordered)} reordered"
               f"</span><span>{d.aligned} aligned</span>")
    return ("<!doctype html><html><head><meta charset=utf-8>"
            f"<title>workbench diff {_e(d.a)} {_e(d.b)}</title><style>{_STYLE}</style>"
            f"</head><body><h1>A {_e(d.a)} → B {_e(d.b)}</h1>"
            f"<p class=summary>{summary}</p>{note}<table><colgroup><col class=seq><col>"
            "<col class=seq><col></colgroup><tr><th>A</th><th></th><th>B</th><th></th></tr>"
            + "".join(rows) + "</table></body></html>\n")


def _rows(d: TraceDiff, a: Trace, b: Trace) -> list[str | None]:
    """Rows in B's order (A-only events where they were); ``None`` for an unchanged row
    far from any change (folded)."""
    changes = {(c.a.event_id, c.b.event_id): c.paths for c in d.changed}
    moved = {(r.a.event_id, r.b.event_id): r for r in d.reordered}
    pos_a = {e.event_id: k for k, e in enumerate(a.events)}
    pos_b = {e.event_id: k for k, e in enumerate(b.events)}
    monotone = sorted((pos_a[x], pos_b[y]) for x, y in d.pairs if (x, y) not in moved)
    moved_b = {pos_b[y]: (pos_a[x], r) for (x, y), r in moved.items()}
    moved_a = {pos_a[x] for x, _ in moved}
    cells: list[tuple[str, str | None]] = []   # (html, kind); kind None = unchanged
    ia = 0
    jb = 0

    def flush(upto_a: int, upto_b: int) -> None:
        nonlocal ia, jb
        while ia < upto_a:
            e = a.events[ia]
            kind = "moved" if ia in moved_a else "removed"
            cells.append((f"<tr class={kind}><td class=seq>{e.seq}</td><td>{_label(e)}"
                          f"{' <span class=tag>moved</span>' if kind == 'moved' else ''}"
                          "</td><td class=seq></td><td></td></tr>", kind))
            ia += 1
        while jb < upto_b:
            e = b.events[jb]
            if jb in moved_b:
                ka, r = moved_b[jb]
                ea = a.events[ka]
                note = f"moved from A step {ea.seq}: {r.verdict}" + (
                    f" ({', '.join(r.rules)})" if r.rules else "")
                cells.append((f"<tr class=moved><td class=seq></td><td></td><td class=seq>"
                              f"{e.seq}</td><td>{_label(e)} <span class=tag>{_e(note)}"
                              "</span></td></tr>", "moved"))
            else:
                cells.append((f"<tr class=added><td class=seq></td><td></td><td class=seq>"
                              f"{e.seq}</td><td>{_label(e)}</td></tr>", "added"))
            jb += 1

    for i, j in monotone:
        flush(i, j)
        ea, eb = a.events[i], b.events[j]
        paths = changes.get((ea.event_id, eb.event_id))
        kind = "changed" if paths else None
        left = _label(ea) + (_paths(paths, "a") if paths else "")
        right = _label(eb) + (_paths(paths, "b") if paths else "")
        cells.append((f"<tr{' class=changed' if kind else ''}><td class=seq>{ea.seq}</td>"
                      f"<td>{left}</td><td class=seq>{eb.seq}</td><td>{right}</td></tr>",
                      kind))
        ia, jb = i + 1, j + 1
    flush(len(a.events), len(b.events))
    near: set[int] = set()
    for k, (_, kind) in enumerate(cells):
        if kind is not None:
            near.update(range(k - _CONTEXT, k + _CONTEXT + 1))
    return [row if k in near else None for k, (row, _) in enumerate(cells)]
