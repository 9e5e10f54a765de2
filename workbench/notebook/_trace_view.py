"""``TraceView``: a trace as a timeline linked to a table of its events and a detail pane.

Select an event (a click on its bar, a row of the table, or ``view.select(id)``) and
the detail pane shows its args, result and error and where its arguments came from
("p17 (args.project_id) came from list_projects at step 2"). Other views highlight
events in it (``view.highlight(ids)``): a RuleView its findings' witnesses, a
MinimizeView the events it kept. Big traces are drawn in bins until the window is
narrow enough to draw event by event (see ``_timeline.py``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import ipywidgets as w
import numpy as np
import traitlets as t
from altair.utils.selection import PointSelection

from ..model import Trace, UsageError
from ..store import Store
from ._charts import offline_chart, timeline_chart
from ._html import STYLE, esc, event_detail, flow_links, link_html, plain_text
from ._scroll import Scroller
from ._search import Match, SearchBar
from ._source import TraceSource
from ._timeline import DEFAULT_BINS, DEFAULT_MAX_EVENTS, Frame, Timeline
from ._tree import SpanTree
from ._view import View
from ._waterfall import Waterfall

__all__ = ["TraceView", "plain_text"]

PAGE = 200  # rows of the table at once: one page of the window's events
CHART_HEIGHT = 480  # px: a taller chart (many events) scrolls inside its box


def _dur(seconds: float) -> str:
    ms = seconds * 1e3
    return f"{ms / 1e3:.2f}s" if ms >= 1000 else f"{ms:.0f}ms" if ms >= 1 else "-"


class TraceView(View):
    """A trace's timeline, table and event detail. State (traitlets): ``selected`` (the
    event in the detail pane), ``highlighted`` (events marked by another view, with
    ``note`` saying why), ``window`` (first and last seq drawn), ``axis`` (``time`` or
    ``seq``) and ``color`` (``kind`` or ``status``)."""

    selected = t.Unicode(None, allow_none=True)
    highlighted = t.List(t.Unicode())
    note = t.Unicode("")
    window = t.Tuple(t.Int(), t.Int())
    page = t.Int(0)
    collapsed = t.List(t.Unicode())   # events whose descendants the table folds away
    axis = t.Unicode("time")
    color = t.Unicode("kind")
    order = t.Unicode("start")        # rows: the tree by start time, or "latency" (slowest
    #                                   siblings first)
    critical = t.Unicode(None, allow_none=True)   # whose subtree's critical path is marked

    def __init__(self, source: Trace | Store | TraceSource, trace_id: str | None = None, *,
                 max_events: int = DEFAULT_MAX_EVENTS, bins: int = DEFAULT_BINS,
                 width: int = 300) -> None:
        super().__init__()
        self.source = TraceSource.of(source, trace_id)
        if len(self.source) == 0:
            raise UsageError(f"trace {self.source.trace_id} has no events")
        self.timeline = Timeline(self.source.table)
        tl = self.timeline
        self.tree = SpanTree(tl.parent, tl.start_s, tl.end_s, tl.timed)
        self.findings: list[Any] = []    # a linked RuleView's last run (the detail names them)
        self._critical: frozenset[int] = frozenset()
        self.max_events, self.bins, self.width = max_events, bins, width
        self._syncing = False
        self._choosing: str | None = None        # the event `select` is moving the window to
        self._chart_due: Any = None              # its chart, sent after the selection
        self._drawn_selected: str | None = None  # the selection the chart was drawn with
        first, last = self.timeline.span()
        self._build_controls(first, last)
        self.frame: Frame = self._frame((first, last), "time", "kind")
        self.chart = offline_chart(timeline_chart(self.frame, "kind", width))
        self.chart.observe(self._on_chart_selection, names=["_vl_selections"])
        # a window of many events is drawn a row each; its box caps the height and scrolls
        self.chart_box = w.Box([self.chart], layout=w.Layout(
            max_height=f"{CHART_HEIGHT}px", overflow="auto", width="100%"))
        self.chart_box.add_class("wb-chart")
        self.scroller = Scroller()    # brings the detail into sight (`show`)
        self.widget = w.VBox([w.HTML(STYLE), self.scroller, self.header, self.controls,
                              self.status,
                              self.chart_box,
                              self.search_bar.widget, self.tree_bar, self.waterfall,
                              self.pager,
                              w.Box([w.Accordion([w.VBox([self.table_head, self.table])],
                                                 titles=("the rows as text",),
                                                 selected_index=None,
                                                 layout=w.Layout(width="560px",
                                                                 max_width="100%")),
                                     self.detail_box],
                                    layout=w.Layout(flex_flow="row wrap"))])
        self.widget.add_class("wb-view")
        self.widget.add_class("wb-trace")
        self.observe(self._redraw, names=["window", "axis", "color", "highlighted"])
        self.observe(lambda _: self._fill_table(), names=["page"])
        self.observe(self._on_collapsed, names=["collapsed", "order"])
        self.observe(self._on_critical, names=["critical"])
        self._visible: np.ndarray | None = None   # rows of the window, in tree order, folded
        self.observe(self._on_selected, names=["selected"])
        self.observe(self._on_note, names=["note"])
        with self.hold_trait_notifications():
            self.axis = "time" if self.timeline.has_times else "seq"
            self.window = (first, last)
        roots = [k for k in self.tree.roots if tl.timed[k]]
        if roots:    # the whole trace's critical path: under its longest root
            self.critical = tl.event_ids[max(roots, key=lambda k: self.tree.duration[k])]
        self._redraw()
        self._on_note()

    # -- layout ------------------------------------------------------------------------
    def _build_controls(self, first: int, last: int) -> None:
        self.header = w.HTML(self._header_html())
        self.axis_buttons = w.ToggleButtons(options=[("time", "time"), ("step", "seq")],
                                            description="x axis",
                                            style={"button_width": "60px"})
        self.color_buttons = w.ToggleButtons(options=["kind", "status"], description="colour",
                                             style={"button_width": "60px"})
        self.slider = w.IntRangeSlider(value=(first, last), min=first, max=max(last, first),
                                       description="steps", continuous_update=False,
                                       layout=w.Layout(width="420px"))
        self.reset = w.Button(description="whole trace", layout=w.Layout(width="110px"))
        self.reset.on_click(lambda _: self.set_window(first, last))
        w.link((self.axis_buttons, "value"), (self, "axis"))
        w.link((self.color_buttons, "value"), (self, "color"))
        self.slider.observe(self._on_slider, names=["value"])
        self.controls = w.HBox([self.axis_buttons, self.color_buttons, self.slider, self.reset],
                               layout=w.Layout(flex_flow="row wrap"))
        self.status = w.HTML()
        self.table_head = w.HTML()
        self.table = w.Select(options=[], rows=14, layout=w.Layout(width="100%"))
        # the span tree as a waterfall: the page's rows, bars on an axis fitted to the
        # rows in sight
        self.waterfall = Waterfall(self.toggle)
        self.waterfall.observe(self._on_waterfall, names=["selected"])
        self.order_buttons = w.ToggleButtons(
            options=[("tree", "start"), ("slowest first", "latency")], description="rows",
            style={"button_width": "100px"})
        w.link((self.order_buttons, "value"), (self, "order"))
        self.crit_button = w.Button(description="critical path of the selected",
                                    icon="road", layout=w.Layout(width="auto"),
                                    tooltip="mark the chain the selected event's end waited on")
        self.crit_button.on_click(lambda _: setattr(self, "critical", self.selected)
                                  if self.selected else None)
        self.crit_label = w.HTML()
        self.search_bar = SearchBar(self.source, self.select)
        self.tree_bar = w.HBox([self.order_buttons, self.crit_button, self.crit_label],
                               layout=w.Layout(flex_flow="row wrap"))
        self.table.add_class("wb-mono")
        self.table.observe(self._on_table, names=["value"])
        # the table holds one page of the window; the pager walks the rest, so a 100k
        # window costs the browser PAGE rows
        self.prev_page = w.Button(description="◀", layout=w.Layout(width="40px"),
                                  tooltip="previous page")
        self.next_page = w.Button(description="▶", layout=w.Layout(width="40px"),
                                  tooltip="next page")
        self.page_label = w.Label("")
        self.prev_page.on_click(lambda _: self.set_page(self.page - 1))
        self.next_page.on_click(lambda _: self.set_page(self.page + 1))
        # the span tree: fold the selected event's descendants away, or unfold everything
        self.fold = w.Button(description="fold / unfold", icon="sitemap",
                             tooltip="fold the selected event's descendants (or unfold them)",
                             layout=w.Layout(width="auto"))
        self.unfold_all = w.Button(description="unfold all", layout=w.Layout(width="auto"))
        self.fold.on_click(lambda _: self.toggle(self.selected) if self.selected else None)
        self.unfold_all.on_click(lambda _: setattr(self, "collapsed", []))
        self.pager = w.HBox([self.prev_page, self.page_label, self.next_page, self.fold,
                             self.unfold_all], layout=w.Layout(flex_flow="row wrap"))
        self.detail_html = w.HTML("<div class=wb-muted>select an event: a bar of the "
                                  "timeline or a row of the table</div>")
        # where its arguments came from, and its parent, as buttons that go there
        self.flow_bar = w.HBox([], layout=w.Layout(flex_flow="row wrap"))
        self.flow_bar.add_class("wb-flow-links")
        self.detail_box = w.VBox([self.flow_bar, self.detail_html],
                                 layout=w.Layout(width="520px", max_width="100%",
                                                 margin="0 0 0 12px"))
        self.detail_box.add_class("wb-detail")

    def _header_html(self) -> str:
        meta = self.source.meta()
        fmt = meta.get("source_format") or "in memory"
        tl = self.timeline
        span = ""
        if tl.has_times:
            span = f", {_dur(float(tl.end_s[tl.timed].max() - tl.start_s[tl.timed].min()))}"
        return (f"<div class=wb-view><b>trace {esc(self.source.trace_id)}</b> "
                f"<span class=wb-muted>({esc(fmt)}): {len(tl):,} events{span}</span></div>")

    # -- public API --------------------------------------------------------------------
    def select(self, event_id: str | None) -> None:
        """Show this event in the detail pane (and mark it in the timeline and table)."""
        if event_id is not None and event_id not in self.timeline.position:
            self.source.event(event_id)  # raises NotFoundError naming the trace
        if event_id is not None:
            # a window moved for it draws it selected at once, and the chart last: the
            # browser draws the waterfall's answer before the chart's
            self._choosing, self._chart_due = event_id, None
            try:
                self._reveal(event_id)
            finally:
                self._choosing = None
        self.selected = event_id
        if self._chart_due is not None:
            self.chart.chart, self._chart_due = self._chart_due, None

    def show(self, event_id: str) -> None:
        """Select the event and scroll the view's detail pane into sight in the browser
        (a button elsewhere in the notebook asked for it)."""
        self.select(event_id)
        self.scroller.scroll(".wb-detail")

    def search(self, query: str) -> list[Match]:
        """Events whose name, kind, args, result, error or attributes hold ``query``
        (a whole redaction token: exactly); the first is selected, the list picks."""
        return self.search_bar.search(query)

    def highlight(self, event_ids: Iterable[str], note: str = "") -> None:
        """Mark these events (e.g. a finding's witnesses) and select the first of them."""
        ids = [e for e in event_ids if e in self.timeline.position]
        with self.hold_trait_notifications():
            self.note = note if ids else ""
            self.highlighted = ids
        if ids:
            self.select(ids[0])

    def set_window(self, first: int, last: int) -> None:
        """Draw the events with seq from ``first`` to ``last`` (inclusive)."""
        lo, hi = self.timeline.span()
        first, last = max(lo, min(first, last)), min(hi, max(first, last))
        self.window = (first, last)

    def set_page(self, page: int) -> None:
        """Show page ``page`` (0-based, clamped) of the window's events in the table."""
        last = max(0, (len(self._rows()) - 1) // PAGE)
        self.page = max(0, min(page, last))

    def toggle(self, event_id: str) -> None:
        """Fold this event's descendants out of the table, or unfold them."""
        if event_id not in self.timeline.position:
            self.source.event(event_id)  # raises NotFoundError naming the trace
        self.collapsed = ([e for e in self.collapsed if e != event_id]
                          if event_id in self.collapsed else [*self.collapsed, event_id])

    def chart_spec(self) -> dict[str, Any]:
        """The Vega-Lite spec handed to the browser (what the tests count marks in)."""
        spec: dict[str, Any] = self.chart.spec or {}
        return spec

    @property
    def detail(self) -> w.HTML:
        """The detail pane's HTML (args, result, error, data flow in words)."""
        return self.detail_html

    @property
    def detail_text(self) -> str:
        return plain_text(self.detail.value)

    # -- reactions ---------------------------------------------------------------------
    def _frame(self, window: tuple[int, int], axis: str, color: str) -> Frame:
        return self.timeline.frame(window, axis, max_events=self.max_events, bins=self.bins,
                                   color=color, highlighted=frozenset(self.highlighted),
                                   selected=self._choosing or self.selected)

    def _redraw(self, change: Any = None) -> None:
        self.frame = self._frame(self.window, self.axis, self.color)
        self._drawn_selected = self._choosing or self.selected
        chart = timeline_chart(self.frame, self.color, self.width)
        if self._choosing is None:
            self.chart.chart = chart
        else:
            self._chart_due = chart
        self.status.value = self._status_html()
        if change is not None and change["name"] == "window" and self.page:
            self.page = 0          # refills the table
        elif change is None or change["name"] in ("window", "highlighted"):
            self._fill_table()
        if tuple(self.slider.value) != tuple(self.window):
            self._syncing = True
            try:
                self.slider.value = self.window
            finally:
                self._syncing = False

    def _status_html(self) -> str:
        f = self.frame
        drawn = (f"drawing {f.events - f.untimed:,} events"
                 + (" (scroll the chart for the rest)" if f.events * 14 > CHART_HEIGHT else "")
                 if f.mode == "events" else
                 f"{f.events:,} events in {len(f.bins) if f.bins is not None else 0} bins "
                 f"(more than {self.max_events} to draw one by one): click a bin or narrow "
                 "the steps to see events")
        extra = (f"; {f.untimed:,} without times not drawn (use the step axis)"
                 if f.untimed else "")
        return (f"<div class='wb-view wb-muted'>steps {f.window[0]}–{f.window[1]}: "
                f"{drawn}{extra}</div>")

    def _rows(self) -> np.ndarray:
        """Positions listed: the window's events in tree order (``order``), less those a
        folded parent hides."""
        if self._visible is None:
            tl = self.timeline
            order = self.tree.order(self.order)
            if self.collapsed:
                hidden = tl.hidden({tl.position[e] for e in self.collapsed
                                    if e in tl.position})
                order = order[~hidden[order]]
            self._visible = order
        lo, hi = self.window
        seq = self.timeline.seq[self._visible]
        out: np.ndarray = self._visible[(seq >= lo) & (seq <= hi)]
        return out

    def _on_collapsed(self, change: Any) -> None:
        self._visible = None
        self._fill_table()

    def _on_critical(self, change: Any) -> None:
        tl = self.timeline
        k = tl.position.get(change["new"]) if change["new"] else None
        self._critical = frozenset(self.tree.critical_path(k)) if k is not None else frozenset()
        self.crit_label.value = ("" if k is None else
                                 f"<span class=wb-muted>critical path of step {tl.seq[k]} "
                                 f"{esc(tl.names[k])}: {len(self._critical)} event(s), "
                                 "marked</span>")
        self._fill_table()

    @property
    def critical_path(self) -> list[str]:
        """The event ids on the marked critical path, in tree order."""
        order = self.tree.order("start")
        return [self.timeline.event_ids[k] for k in order if int(k) in self._critical]

    def _on_waterfall(self, change: Any) -> None:
        if not self._syncing and change["new"] is not None and change["new"] != self.selected:
            self.select(change["new"])

    def _waterfall_rows(self, ks: np.ndarray, hl: set[str]) -> list[dict[str, Any]]:
        tl, tree = self.timeline, self.tree
        own = tree.self_time()
        out = []
        for k in ks.tolist():
            timed = bool(tl.timed[k])
            out.append({"id": tl.event_ids[k], "seq": int(tl.seq[k]), "depth": tl.depth[k],
                        "name": tl.names[k], "kind": tl.kinds[k], "status": tl.statuses[k],
                        "start": float(tl.start_s[k]) if timed else None,
                        "end": float(tl.end_s[k]) if timed else None,
                        "self": float(own[k]) if timed else None,
                        "total": float(tree.duration[k]) if timed else None,
                        "kids": int(tl.children[k]) if len(tl.children) else 0,
                        "folded": tl.event_ids[k] in self.collapsed,
                        "crit": k in self._critical, "hl": tl.event_ids[k] in hl})
        return out

    def _fill_table(self) -> None:
        tl = self.timeline
        rows = self._rows()
        hl = set(self.highlighted)
        start = self.page * PAGE
        page = rows[start:start + PAGE]
        options = [(self._row(k, tl.event_ids[k] in hl), tl.event_ids[k])
                   for k in page.tolist()]
        self.table_head.value = (
            "<div class=wb-view><pre style='margin:0;padding:2px 6px'>"
            + esc(f"   {'step':>5} {'start':>9} {'took':>7} {'status':<6} event")
            + "</pre></div>")
        folded = tl.indices(self.window)[1] - tl.indices(self.window)[0] - len(rows)
        self.page_label.value = (f"rows {start + 1:,}–{start + len(options):,} of {len(rows):,}"
                                 + (f" ({folded:,} folded)" if folded else "")
                                 if options else "no events")
        self.prev_page.disabled = self.page == 0
        self.next_page.disabled = start + PAGE >= len(rows)
        self._syncing = True
        try:
            self.table.options = options
            self.table.value = self.selected if self.selected in {o[1] for o in options} \
                else None
            with self.waterfall.hold_sync():
                self.waterfall.rows = self._waterfall_rows(page, hl)
                self.waterfall.selected = self.selected
        finally:
            self._syncing = False

    def _row(self, k: int, marked: bool) -> str:
        tl = self.timeline
        start = f"+{tl.start_s[k]:.3f}s" if tl.timed[k] else "-"
        took = _dur(float(tl.end_s[k] - tl.start_s[k])) if tl.timed[k] else "-"
        indent = "  " * min(tl.depth[k], 8)
        kids = int(tl.children[k]) if len(tl.children) else 0
        twisty = ("▸" if tl.event_ids[k] in self.collapsed else "▾") if kids else " "
        text = (f"{'●' if marked else ' '}  {tl.seq[k]:>5} {start:>9} {took:>7} "
                f"{tl.statuses[k]:<6} {indent}{twisty} {tl.kinds[k]} {tl.names[k]}"
                + (f"  (+{kids} inside)" if kids and tl.event_ids[k] in self.collapsed
                   else ""))
        return text.replace(" ", "\u00a0")

    def _reveal(self, event_id: str) -> None:
        """Move the window so that the event is drawn as a bar and listed in the table:
        it must lie in the window, and the window must be small enough to draw."""
        tl = self.timeline
        seq = int(tl.seq[tl.position[event_id]])
        lo, hi = self.window
        i, j = tl.indices(self.window)
        k = tl.position[event_id]
        if not (lo <= seq <= hi and j - i <= self.max_events):
            half = min(self.max_events, PAGE) // 2
            start = max(0, min(k - half, len(tl) - 2 * half))
            self.set_window(int(tl.seq[start]),
                            int(tl.seq[min(len(tl), start + 2 * half) - 1]))
            i, _ = tl.indices(self.window)
        if self.collapsed:   # unfold what hides it
            hiding: set[str] = set()
            j = tl.parent[k]
            while j >= 0 and len(hiding) <= len(tl):
                hiding.add(tl.event_ids[j])
                j = tl.parent[j]
            if hiding & set(self.collapsed):
                self.collapsed = [e for e in self.collapsed if e not in hiding]
        rows = self._rows()
        at = int(np.flatnonzero(rows == k)[0])
        self.set_page(at // PAGE)   # the table's page that lists it

    def _on_selected(self, change: Any) -> None:
        event_id = change["new"]
        if event_id is None:
            self.detail.value = "<div class=wb-muted>no event selected</div>"
            self.flow_bar.children = ()
        else:
            event = self.source.event(event_id)
            tl = self.timeline
            sources = {r.event_id: (int(tl.seq[tl.position[r.event_id]]),
                                    tl.names[tl.position[r.event_id]])
                       for r in event.refs if r.event_id in tl.position}
            parent = None
            if event.parent_id in tl.position:
                p = tl.position[event.parent_id]
                parent = (int(tl.seq[p]), tl.names[p])
            named = [(f.rule, f.message) for f in self.findings if event_id in f.event_ids]
            self.detail.value = (event_detail(event, sources, parent, named)
                                 + link_html(self.source.trace_id, event.seq))
            buttons = []
            for text, target, icon in flow_links(event, sources, parent):
                b = w.Button(description=text, icon=icon, tooltip=f"show event {target}",
                             layout=w.Layout(width="auto", max_width="100%"))
                b.on_click(lambda _, eid=target: self.show(eid))
                buttons.append(b)
            self.flow_bar.children = tuple(buttons)
        # bins do not show a selection, and a window just moved to the event drew it: no
        # new chart (one chart a pick: the browser redraws each)
        if self.frame.mode == "events" and self._drawn_selected != event_id:
            self._redraw(change)
        if not self._syncing and self.table.value != event_id:
            self._syncing = True
            try:
                ids = {o[1] for o in self.table.options}
                self.table.value = event_id if event_id in ids else None
            finally:
                self._syncing = False
        if self.waterfall.selected != event_id:   # and the row scrolled into sight there
            self._syncing = True
            try:
                self.waterfall.selected = event_id
            finally:
                self._syncing = False

    def _on_note(self, change: Any = None) -> None:
        base = self._header_html()
        if self.note:
            base += (f"<div class=wb-view>highlighted: {len(self.highlighted)} event(s), "
                     f"{esc(self.note)}</div>")
        self.header.value = base

    def _on_table(self, change: Any) -> None:
        if not self._syncing and change["new"] is not None:
            self.select(change["new"])

    def _on_slider(self, change: Any) -> None:
        if not self._syncing:
            self.set_window(*change["new"])

    def _on_chart_selection(self, change: Any) -> None:
        """A click in the browser: ``pick`` selects an event, ``zoom`` narrows to a bin."""
        for name, sel in (change["new"] or {}).items():
            points = PointSelection.from_vega(name, sel.get("value"), sel.get("store")).value
            if not points:
                continue
            if name == "pick" and points[0].get("event_id"):
                self.select(points[0]["event_id"])
            elif name == "zoom" and "seq_lo" in points[0]:
                self.set_window(int(points[0]["seq_lo"]), int(points[0]["seq_hi"]))
