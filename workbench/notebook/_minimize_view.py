"""``MinimizeView``: shrink a trace to the steps that still break a rule, with a live
progress bar, and show the kept events.

It calls ``minimize`` with the offline rule oracle, as ``workbench minimize`` does, and
stores the result as a derived trace (``save_result``) when it has a store — running
it twice stores nothing the second time. Progress comes from the minimizer's own
callback after every oracle call: the calls made and the smallest failing candidate.
"""

from __future__ import annotations

import os
from pathlib import Path

import ipywidgets as w
import traitlets as t

from ..minimize import MinimizeProgress, MinimizeResult, minimize, pick_rule, save_result
from ..model import Trace, WorkbenchError
from ..redact import error_text
from ..rules import RuleSet, load_rules
from ..store import Store
from ._html import STYLE, esc, table
from ._source import TraceSource
from ._trace_view import TraceView, plain_text
from ._view import View, busy

__all__ = ["MinimizeView"]


class MinimizeView(View):
    """Pick a rule (and which of its findings), run, watch, read the kept events.
    State: ``phase``, ``calls``, ``best`` (events in the smallest failing candidate),
    ``total``, ``running``, ``result`` (the last ``MinimizeResult``), ``stored`` (the
    id it was stored under), ``history`` ((calls, best) after each oracle call) and
    ``error``."""

    phase = t.Unicode("")
    calls = t.Int(0)
    best = t.Int(0)
    total = t.Int(0)
    running = t.Bool(False)
    error = t.Unicode("")

    def __init__(self, source: Trace | Store | TraceSource, trace_id: str | None = None, *,
                 rules: str | os.PathLike[str] | RuleSet, rule: str | None = None,
                 finding: int = 1, max_calls: int | None = None, save: bool = True,
                 trace_view: TraceView | None = None) -> None:
        super().__init__()
        self.source = TraceSource.of(source, trace_id)
        self.rules = rules if isinstance(rules, RuleSet) else load_rules(Path(rules))
        self.save, self.trace_view = save, trace_view
        self.result: MinimizeResult | None = None
        self.stored: str | None = None
        self.history: list[tuple[int, int]] = []
        ids = [r.id for r in self.rules]
        self.rule_picker = w.Dropdown(options=ids, value=rule if rule is not None else ids[0],
                                      description="rule", layout=w.Layout(width="420px"))
        self.finding_box = w.BoundedIntText(finding, min=1, max=10_000, description="finding",
                                            layout=w.Layout(width="160px"))
        self.budget = w.BoundedIntText(max_calls or 0, min=0, max=1_000_000,
                                       description="max calls", tooltip="0: no budget",
                                       layout=w.Layout(width="180px"))
        self.run_button = w.Button(description="Minimize", button_style="primary",
                                   icon="compress")
        self.run_button.on_click(lambda _: self.run())
        self.calls_bar = w.IntProgress(0, min=0, max=10, description="oracle calls",
                                       style={"description_width": "110px"})
        self.size_bar = w.IntProgress(0, min=0, max=1, description="events removed",
                                      style={"description_width": "110px"})
        self.label = w.Label("")
        self.size_label = w.Label("")
        self.summary = w.HTML()
        self.kept = w.HTML()
        self.widget = w.VBox([w.HTML(STYLE),
                              w.HBox([self.rule_picker, self.finding_box, self.budget,
                                      self.run_button], layout=w.Layout(flex_flow="row wrap")),
                              w.HBox([self.calls_bar, self.label],
                                     layout=w.Layout(flex_flow="row wrap")),
                              w.HBox([self.size_bar, self.size_label],
                                     layout=w.Layout(flex_flow="row wrap")), self.summary,
                              self.kept])
        self.widget.add_class("wb-view")
        self.widget.add_class("wb-minimize")

    # -- public API --------------------------------------------------------------------
    def run(self) -> MinimizeResult | None:
        """Minimize for the picked rule and finding; the result, or None on an error
        (shown in the view and in ``error``)."""
        self.error, self.history, self.result, self.stored = "", [], None, None
        self.label.value, self.summary.value, self.kept.value = "reading the trace…", "", ""
        self.running = True
        try:
            with busy([self.run_button], "minimizing…"):
                return self._run()
        finally:
            self.running = False

    def _run(self) -> MinimizeResult | None:
        trace = self.source.trace()
        self.total = len(trace)
        self._reset_bars()
        try:
            rule = pick_rule(self.rules, self.rule_picker.value)
            result = minimize(trace, rule, finding=self.finding_box.value,
                              max_calls=self.budget.value or None, progress=self._progress)
            if self.save and self.source.store is not None:
                save_result(self.source.store, result)
                self.stored = result.trace_id
        except WorkbenchError as exc:
            self.error = error_text(exc).split("\n")[0]  # quoted input masked
            hint = f"<div class=wb-muted>hint: {esc(exc.hint)}</div>" if exc.hint else ""
            self.summary.value = f"<div class=wb-err>{esc(self.error)}</div>{hint}"
            self.kept.value = self.label.value = ""
            self.calls_bar.bar_style = self.size_bar.bar_style = "danger"
            return None
        self.result = result
        self._show(result)
        return result

    @property
    def summary_text(self) -> str:
        return plain_text(self.summary.value)

    # -- progress and result -------------------------------------------------------------
    def _reset_bars(self) -> None:
        self.calls_bar.max = self.budget.value or 10
        self.calls_bar.value = 0
        # the second bar fills as events are removed: at most all but one can go
        self.size_bar.max = max(1, self.total - 1)
        self.size_bar.value = 0
        self.calls_bar.bar_style = self.size_bar.bar_style = "info"
        self.label.value = "running: the first oracle calls…"
        self.size_label.value = f"0 of {self.total:,} events removed"
        self.summary.value = self.kept.value = ""

    def _progress(self, p: MinimizeProgress) -> None:
        self.phase, self.calls, self.best = p.phase, p.calls, p.best
        self.history.append((p.calls, p.best))
        while p.calls > self.calls_bar.max:
            self.calls_bar.max *= 2  # no budget: the bar's end moves as calls come
        self.calls_bar.value = p.calls
        self.size_bar.value = min(self.size_bar.max, p.total - (p.best or p.total))
        self.size_label.value = f"{p.total - (p.best or p.total):,} of {p.total:,} events removed"
        best = f"smallest failing {p.best:,} of {p.total:,} events" if p.best else \
            "no failing candidate yet"
        self.label.value = f"{p.phase}: {p.calls:,} calls, {best}, {p.seconds:.1f}s"

    def _show(self, r: MinimizeResult) -> None:
        # finished bars are full: the calls made, and every event that could go, gone
        self.calls_bar.max = max(1, r.oracle_calls)
        self.calls_bar.value = r.oracle_calls
        removed = len(r.source) - len(r.kept_event_ids)
        self.size_bar.max = max(1, removed)
        self.size_bar.value = self.size_bar.max
        self.calls_bar.bar_style = self.size_bar.bar_style = "success"
        self.label.value = f"done: {r.oracle_calls:,} oracle calls"
        self.size_label.value = (f"done: {removed:,} of {len(r.source):,} events removed, "
                                 f"{len(r.kept_event_ids):,} kept")
        proof = ("1-minimal (verified)" if r.one_minimal else
                 f"NOT proven 1-minimal ({r.stopped or 'final re-test passed'})")
        stored = (f"<div class=wb-muted>stored as {esc(r.trace_id)} (derived from "
                  f"{esc(r.source.trace_id)})</div>" if self.stored else "")
        self.summary.value = (
            f"<div><b>minimized {esc(r.source.trace_id[:12])} from {len(r.source):,} to "
            f"{len(r.kept_event_ids)} events</b> in {r.oracle_calls} oracle calls, "
            f"{esc(proof)}, {r.seconds:.2f}s</div><div class=wb-muted>rule {esc(r.rule)} · "
            f"signature {esc(r.signature)}</div>{stored}")
        steps = r.source_seqs
        self.kept.value = table(["step", "kind", "name", "status"],
                                [[steps[e.event_id], e.kind, e.name, e.status]
                                 for e in r.trace.events])
        tv = self.trace_view
        if tv is not None and tv.source.trace_id == r.source.trace_id:
            tv.highlight(r.kept_event_ids, note=f"kept by minimize ({r.rule})")
