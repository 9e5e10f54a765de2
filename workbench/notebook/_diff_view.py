"""``DiffView``: two traces, or two builds' outputs of one fixture, side by side.

Traces go through ``diff_traces`` (what ``workbench diff`` runs) and the rows of the
page of ``workbench diff --html`` — A and B side by side, changed fields highlighted,
moved events marked with their verdict — shown in a frame of its own, so its styles
stay inside it, one page of ``page_rows`` rows drawn at a time (never cut: ◀ ▶ walk the
pages). A list of the changes picks one to read in full (every changed path, old and
new), turns to the page holding its row and scrolls the page to it. A shadow run
(``shadow(...)``, as ``workbench shadow`` runs it) is shown one mismatched fixture at a
time, grouped by the set of paths that changed (list indices as ``[*]``), so a second
regression is a group of its own rather than one of many near-identical rows: the
changed paths, and both canonical outputs (the ``NAME.old``/``NAME.new`` text) side by
side with the differing lines marked.
"""

from __future__ import annotations

import difflib
import html
import json
import os
import re
from pathlib import Path
from typing import Any

import anywidget
import ipywidgets as w
import traitlets as t

from ..diff import (
    Canon,
    FixtureResult,
    PathChange,
    ShadowResult,
    TraceDiff,
    canonicalize,
    diff_traces,
    html_page,
    html_rows,
    load_canon,
    pretty,
    render_value,
)
from ..model import Trace, UsageError
from ..rules import RuleSet, load_rules
from ._html import STYLE, esc
from ._scroll import Scroller
from ._trace_view import plain_text
from ._view import View

__all__ = ["DiffView", "RowPost"]

_FRAME_HEIGHT = 460
PAGE_ROWS = 200   # rows drawn in the frame at once (a folded run is one)
_INDEX = re.compile(r"\[\d+\]")
# a row of the page: its A and B step cells (empty when the event is on one side only)
_ROW = re.compile(r"<tr[^>]*><td class=seq>(\d*)</td><td>.*?</td><td class=seq>(\d*)</td>",
                  re.S)
# outlines the row of the picked change and scrolls the page to it (A and B steps; None
# matches an empty cell), then does the same for each row the notebook posts; for its
# first 30 drawn frames (a frame off screen is not drawn: its scroll may not have
# happened yet) and on a resize, a marked row out of view is scrolled to again; runs
# inside the frame only (sandboxed, no same origin: it reads nothing of the notebook)
_SCROLL = """<script>(function(){{
function mark(want){{var rows=document.querySelectorAll('tr');
for(var i=0;i<rows.length;i++){{rows[i].style.outline='';}}
for(var i=0;i<rows.length;i++){{var c=rows[i].querySelectorAll('td.seq');if(c.length<2)continue;
var a=c[0].textContent,b=c[1].textContent;
if((want[0]===null?a==='':a===String(want[0]))&&(want[1]===null?b==='':b===String(want[1]))){{
rows[i].style.outline='3px solid #0969da';rows[i].scrollIntoView({{block:'center'}});
requestAnimationFrame(function(){{keep(30);}});break;}}}}}}
function keep(n){{var r=document.querySelector('tr[style*=outline]');if(!r)return;
var b=r.getBoundingClientRect();
if(b.top<0||b.bottom>window.innerHeight)r.scrollIntoView({{block:'center'}});
if(n>0)requestAnimationFrame(function(){{keep(n-1);}});}}
var want={want};mark(want);
window.addEventListener('message',function(e){{var w=e.data&&e.data.wbRow;
if(Array.isArray(w)&&w.length===2)mark(w);}});
window.addEventListener('resize',function(){{keep(0);}});
}})();</script>"""
# in the notebook: posts a row to the frame of the view it sits in (a pick on the page
# the frame holds: no reload)
_POST = """
function render({ model, el }) {
  el.style.display = 'none';
  model.on('change:requests', () => {
    const view = el.closest('.wb-diff');
    const frame = view && view.querySelector('.wb-diff-page iframe');
    if (frame && frame.contentWindow)
      frame.contentWindow.postMessage({wbRow: model.get('row')}, '*');
  });
}
export default { render };
"""


class RowPost(anywidget.AnyWidget):
    """Invisible; ``post(row)`` has the frame outline and scroll to ``row`` (A and B
    steps). State for tests: ``row`` (the last one) and ``requests`` (how many)."""

    _esm = t.Unicode(_POST).tag(sync=True)
    row = t.List(t.Int(allow_none=True)).tag(sync=True)
    requests = t.Int(0).tag(sync=True)

    def post(self, row: tuple[int | None, int | None]) -> None:
        with self.hold_sync():
            self.row = list(row)
            self.requests += 1


def path_group(paths: list[PathChange]) -> tuple[str, ...]:
    """The set of changed paths with list indices as ``[*]``: what groups mismatches."""
    return tuple(sorted({_INDEX.sub("[*]", p.path) for p in paths}))


def _canon(canon: Canon | str | os.PathLike[str] | None) -> Canon:
    if canon is None:
        return Canon()
    return canon if isinstance(canon, Canon) else load_canon(Path(canon))


def paths_table(paths: tuple[PathChange, ...] | list[PathChange],
                sides: tuple[str, str] = ("old (A)", "new (B)")) -> str:
    """Changed paths: the old value struck red, the new one green."""
    rows = []
    for p in paths:
        old = "(absent)" if p.change == "added" else render_value(p.old, 200)
        new = "(absent)" if p.change == "removed" else render_value(p.new, 200)
        rows.append(f"<tr><td>{esc(p.path)}</td><td><del>{esc(old)}</del></td>"
                    f"<td><ins>{esc(new)}</ins></td><td>{esc(p.change)}</td></tr>")
    return (f"<div class=wb-scroll><table class=wb><tr><th>path</th><th>{esc(sides[0])}</th>"
            f"<th>{esc(sides[1])}</th><th></th></tr>" + "".join(rows) + "</table></div>")


def side_by_side(old: str, new: str) -> str:
    """Two texts in two columns; lines that differ are marked on both sides."""
    a, b = old.splitlines(), new.splitlines()
    marks_a, marks_b = [False] * len(a), [False] * len(b)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if tag != "equal":
            marks_a[i1:i2] = [True] * (i2 - i1)
            marks_b[j1:j2] = [True] * (j2 - j1)

    def column(lines: list[str], marks: list[bool], tag: str) -> str:
        body = "\n".join(f"<{tag}>{esc(x)}</{tag}>" if m else esc(x)
                         for x, m in zip(lines, marks, strict=True))
        return f"<pre style='max-height:{_FRAME_HEIGHT}px'>{body}</pre>"

    return ("<table class=wb style='width:100%;table-layout:fixed'><tr><th>old build</th>"
            "<th>new build</th></tr><tr><td>" + column(a, marks_a, "del") + "</td><td>"
            + column(b, marks_b, "ins") + "</td></tr></table>")


class DiffView(View):
    """State: ``entries`` (one label per change, or per mismatched fixture),
    ``selected`` (index into them), ``current_page`` (the page of rows in the frame, of
    ``pages``), and ``diff`` (the ``TraceDiff``) or ``shadow_result``."""

    selected = t.Int(None, allow_none=True)
    current_page = t.Int(0)
    #: a shadow run's mismatches grouped by changed paths, and their fixtures in list order
    groups: list[tuple[tuple[str, ...], list[FixtureResult]]]
    fixtures: list[str]
    #: the page (index) holding each change's row
    page_of: list[int]
    _rows: list[str]
    _anchors: list[tuple[int | None, int | None]]

    def __init__(self, a: Trace, b: Trace, *, canon: Canon | str | os.PathLike[str] | None
                 = None, rules: RuleSet | str | os.PathLike[str] | None = None,
                 page_rows: int = PAGE_ROWS) -> None:
        super().__init__()
        if page_rows < 1:
            raise UsageError(f"page_rows must be at least 1, not {page_rows}")
        ruleset = (rules if rules is None or isinstance(rules, RuleSet)
                   else load_rules(Path(rules)))
        self.diff: TraceDiff | None = diff_traces(a, b, _canon(canon), ruleset)
        self.shadow_result: ShadowResult | None = None
        self.canon = _canon(canon)
        self.groups, self.fixtures = [], []
        self.page_rows = page_rows
        entries = self._trace_entries(self.diff)
        self._rows = html_rows(self.diff, a, b)
        self._anchors = [anchor for _, _, anchor in entries]
        where: dict[tuple[int | None, int | None], int] = {}
        for n, row in enumerate(self._rows):
            m = _ROW.match(row)
            if m:
                x, y = m.groups()
                where.setdefault((int(x) if x else None, int(y) if y else None), n)
        # every change has a row (a change is never folded): its page
        self.page_of = [where[anchor] // page_rows for anchor in self._anchors]
        self.pages = max(1, -(-len(self._rows) // page_rows))
        self._build([(label, detail) for label, detail, _ in entries],
                    self._trace_summary(self.diff) + self._pages_note(), self._frame(
                        self._page_html(0)))

    def _pages_note(self) -> str:
        if self.pages == 1:
            return ""
        return (f"<div>the page below draws {len(self._rows):,} rows in {self.pages} pages "
                f"of {self.page_rows:,}: ◀ ▶ turn them, and a change picked in the list "
                "turns to the page holding its row</div>")

    def _page_html(self, page: int) -> str:
        """The frame's page: the rows of page ``page``, and where they stand."""
        first = page * self.page_rows
        rows = self._rows[first:first + self.page_rows]
        note = ""
        if self.pages > 1:
            here = [n for n, p in enumerate(self.page_of) if p == page]
            changes = (f"changes {here[0] + 1:,}–{here[-1] + 1:,} of {len(self.page_of):,} "
                       "have their rows here" if here else
                       f"none of the {len(self.page_of):,} changes has its row here")
            note = (f"<p class=tag>page {page + 1} of {self.pages}: rows {first + 1:,}–"
                    f"{first + len(rows):,} of {len(self._rows):,} drawn; {changes}</p>")
        return html_page(self.diff, rows, note) if self.diff is not None else ""

    @classmethod
    def from_shadow(cls, result: ShadowResult,
                    canon: Canon | str | os.PathLike[str] | None = None) -> DiffView:
        """A view of a shadow run: one entry per mismatched fixture."""
        self = cls.__new__(cls)
        View.__init__(self)
        self.diff, self.shadow_result, self.canon = None, result, _canon(canon)
        self._rows, self._anchors, self.page_of = [], [], []
        self.page_rows, self.pages = PAGE_ROWS, 1
        by_group: dict[tuple[str, ...], list[FixtureResult]] = {}
        for r in result.mismatches:
            by_group.setdefault(path_group(r.paths), []).append(r)
        self.groups = list(by_group.items())
        self.fixtures = [r.fixture for _, rs in self.groups for r in rs]
        entries = [(f"#{g} {r.status:<8} {r.fixture}  ({len(r.paths)} path(s))",
                    self._fixture(r))
                   for g, (_, rs) in enumerate(self.groups, 1) for r in rs]
        same = len(result.results) - len(result.mismatches)
        rows = "".join(
            f"<tr><td>#{g}</td><td>{len(rs)}</td><td>{esc(', '.join(paths) or '(none)')}"
            f"</td><td>{esc(', '.join(r.fixture for r in rs[:3]))}"
            f"{' …' if len(rs) > 3 else ''}</td></tr>"
            for g, (paths, rs) in enumerate(self.groups, 1))
        groups = ("<div class=wb-scroll><table class='wb wb-groups'><tr><th>group</th>"
                  "<th>fixtures</th><th>changed paths</th><th>e.g.</th></tr>" + rows
                  + "</table></div>" if self.groups else "")
        summary = (f"<div><b>{len(result.results)} fixture(s)</b>: {same} same, "
                   f"{len(result.mismatches)} mismatch(es) in {len(self.groups)} group(s) "
                   f"of changed paths</div>{groups}")
        self._build(entries, summary, "")
        return self

    # -- layout ------------------------------------------------------------------------
    def _build(self, entries: list[tuple[str, str]], summary: str, page: str) -> None:
        self.entries = [label for label, _ in entries]
        self._details = [detail for _, detail in entries]
        self.summary = w.HTML(f"<div class=wb-view>{summary}</div>")
        self.changes = w.Select(options=[(lbl.replace(" ", "\u00a0"), n)
                                         for n, lbl in enumerate(self.entries)],
                                value=None, rows=min(8, max(2, len(entries))),
                                layout=w.Layout(width="100%"))
        self.changes.add_class("wb-mono")
        self.detail = w.HTML("<div class=wb-muted>select a change to read it in full</div>"
                             if entries else "")
        self.page = w.HTML(page)
        self.changes.observe(self._on_pick, names=["value"])
        self.observe(self._on_selected, names=["selected"])
        self.page.add_class("wb-diff-page")
        # the pages of rows: ◀ ▶ and where the frame stands (hidden for one page)
        self.prev_page = w.Button(description="◀", layout=w.Layout(width="40px"),
                                  tooltip="the page before", disabled=True)
        self.next_page = w.Button(description="▶", layout=w.Layout(width="40px"),
                                  tooltip="the page after", disabled=self.pages <= 1)
        self.page_label = w.HTML(self._page_label())
        self.prev_page.on_click(lambda _: self.set_page(self.current_page - 1))
        self.next_page.on_click(lambda _: self.set_page(self.current_page + 1))
        self.pager = w.HBox([self.prev_page, self.page_label, self.next_page],
                            layout=w.Layout(display="" if self.pages > 1 else "none"))
        self.pager.add_class("wb-diff-pager")
        self.observe(self._on_page, names=["current_page"])
        self.scroller = Scroller()   # the page (and in it the change's row) into sight
        self.row_post = RowPost()    # a row of the frame's page outlined, without a reload
        self._listens = False        # whether the frame's page has the script that listens
        self.widget = w.VBox([w.HTML(STYLE), self.scroller, self.row_post, self.summary,
                              self.changes, self.detail, self.pager, self.page])
        self.widget.add_class("wb-view")
        self.widget.add_class("wb-diff")

    @staticmethod
    def _frame(page: str, anchor: tuple[int | None, int | None] | None = None) -> str:
        if anchor is not None:
            page = page.replace("</body>", _SCROLL.format(want=json.dumps(list(anchor)))
                                + "</body>", 1)
        return (f"<iframe title='trace diff' sandbox='allow-scripts' "
                f"srcdoc=\"{html.escape(page, quote=True)}\" "
                f"style='width:100%;height:{_FRAME_HEIGHT}px;border:1px solid #d0d7de;"
                "border-radius:4px'></iframe>")

    @staticmethod
    def _trace_summary(d: TraceDiff) -> str:
        if d.same:
            return f"<b>A {esc(d.a)} and B {esc(d.b)} are the same</b> ({d.aligned} aligned)"
        found = ""
        if d.findings is not None:
            found = (f"; findings new in B: {len(d.findings['new'])}, gone in B: "
                     f"{len(d.findings['gone'])}")
        return (f"<b>A {esc(d.a)} → B {esc(d.b)}</b>: {len(d.changed)} changed, "
                f"{len(d.added)} added, {len(d.removed)} removed, {len(d.reordered)} "
                f"reordered ({d.aligned} aligned){esc(found)}")

    def _trace_entries(self, d: TraceDiff
                       ) -> list[tuple[str, str, tuple[int | None, int | None]]]:
        """(label, detail, the row's A and B steps) of every change."""
        out: list[tuple[str, str, tuple[int | None, int | None]]] = []
        for c in d.changed:
            out.append((f"~ step {c.a.seq:>4} → {c.b.seq:<4} {c.b.kind} {c.b.name}  "
                        f"({len(c.paths)} path(s))",
                        f"<div><b>{esc(c.b.kind)} {esc(c.b.name)}</b>: A step {c.a.seq} → "
                        f"B step {c.b.seq}</div>" + paths_table(c.paths), (c.a.seq, c.b.seq)))
        for r in d.reordered:
            past = ", ".join(f"{x.name}@{x.seq}" for x in r.crossed[:8])
            why = f"{r.verdict}: {', '.join(r.rules)}" if r.rules else r.verdict
            out.append((f"↕ step {r.a.seq:>4} → {r.b.seq:<4} {r.b.kind} {r.b.name}  [{why}]",
                        f"<div><b>{esc(r.b.name)}</b> moved from A step {r.a.seq} to B step "
                        f"{r.b.seq}, past {esc(past)}: <b>{esc(why)}</b></div>", (None, r.b.seq)))
        for e in d.added:
            out.append((f"+ step {e.seq:>4}        {e.kind} {e.name}  (only in B)",
                        f"<div><b>{esc(e.name)}</b> ({esc(e.kind)}) at B step {e.seq} is "
                        "only in B</div>", (None, e.seq)))
        for e in d.removed:
            out.append((f"- step {e.seq:>4}        {e.kind} {e.name}  (only in A)",
                        f"<div><b>{esc(e.name)}</b> ({esc(e.kind)}) at A step {e.seq} is "
                        "only in A</div>", (e.seq, None)))
        return out

    def _fixture(self, r: FixtureResult) -> str:
        parts = [f"<div><b>{esc(r.fixture)}</b>: {esc(r.status)}</div>"]
        if r.problem:
            parts.append(f"<div class=wb-err>{esc(r.problem)}</div>")
        if r.paths:
            parts.append(paths_table(r.paths, ("old build", "new build")))
        if r.old.ok and r.new.ok:
            parts.append(side_by_side(pretty(canonicalize(r.old.doc, self.canon)),
                                      pretty(canonicalize(r.new.doc, self.canon))))
        else:
            for side, run in (("old", r.old), ("new", r.new)):
                if not run.ok:
                    tail = run.stderr.decode("utf-8", "replace")[-2000:]
                    parts.append(f"<div><b>{side} build stderr</b><pre>{esc(tail)}</pre></div>")
        return "".join(parts)

    # -- public API --------------------------------------------------------------------
    def select(self, index: int | None) -> None:
        """Show entry ``index`` (a change, or a mismatched fixture) in full."""
        if index is not None and not 0 <= index < len(self.entries):
            raise IndexError(f"no entry {index}: the view has {len(self.entries)}")
        self.selected = index

    def select_fixture(self, name: str) -> None:
        """Show the mismatch of fixture ``name`` (a shadow run's view)."""
        if name not in self.fixtures:
            raise KeyError(f"no mismatched fixture {name!r}")
        self.select(self.fixtures.index(name))

    def set_page(self, page: int) -> None:
        """Show page ``page`` (from 0) of the frame's rows."""
        if not 0 <= page < self.pages:
            raise IndexError(f"no page {page}: the diff has {self.pages}")
        self.current_page = page

    @property
    def detail_text(self) -> str:
        return plain_text(self.detail.value)

    def _page_label(self) -> str:
        p, first = self.current_page, self.current_page * self.page_rows
        last = min(len(self._rows), first + self.page_rows)
        return (f"<span class=wb-muted>page {p + 1} of {self.pages}: rows {first + 1:,}–"
                f"{last:,} of {len(self._rows):,}</span>")

    def _show_page(self, anchor: tuple[int | None, int | None] | None) -> None:
        """The frame (re)loaded with the current page, scrolled to ``anchor``'s row."""
        if self.diff is None:
            return
        self.page.value = self._frame(self._page_html(self.current_page), anchor)
        self._listens = anchor is not None
        self.page_label.value = self._page_label()
        self.prev_page.disabled = self.current_page == 0
        self.next_page.disabled = self.current_page >= self.pages - 1

    def _on_page(self, change: Any) -> None:
        n = self.selected
        here = n is not None and self.page_of[n] == self.current_page
        self._show_page(self._anchors[n] if here and n is not None else None)

    def _on_pick(self, change: Any) -> None:
        if change["new"] is not None and change["new"] != self.selected:
            self.selected = change["new"]

    def _on_selected(self, change: Any) -> None:
        n = change["new"]
        if self.changes.value != n:
            self.changes.value = n
        self.detail.value = ("" if n is None else
                             f"<div class=wb-view>{self._details[n]}</div>")
        if self.diff is None:
            return
        # the page holding the change's row, scrolled to it (the frame reloads)
        if n is not None and self.page_of[n] != self.current_page:
            self.current_page = self.page_of[n]   # _on_page draws it
        elif n is not None and self._listens:
            self.row_post.post(self._anchors[n])
        else:
            self._show_page(None if n is None else self._anchors[n])
        if n is not None:
            self.scroller.scroll(".wb-diff-page")
