"""``RuleView``: edit or pick rules, run them, read the findings grouped by signature.

Running calls what ``workbench check`` calls: ``check`` over a store (DuckDB engine,
the default) or ``check_trace`` for a trace held in memory (the Python engine). A
finding selected in the list highlights its witness events in a linked ``TraceView``.
A rules file that does not load shows its error (code, message, hint) in the view
instead of raising, so the user can fix the text and run again.
"""

from __future__ import annotations

import dataclasses
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ipywidgets as w
import traitlets as t

from ..contracts import ToolSet, calls_of, check_calls, check_contracts, read_tools
from ..model import Event, NotFoundError, Trace, WorkbenchError
from ..redact import error_text
from ..rules import Finding, RuleSet, check, check_trace, parse_rules
from ..store import Store
from ._finding import FindingFacts, finding_facts
from ._html import STYLE, esc, table
from ._source import TraceSource
from ._trace_view import TraceView, plain_text
from ._view import View, busy

__all__ = ["FindingGroup", "RuleView"]

PAGE = 100  # findings listed at once; the pager walks the rest


@dataclass(frozen=True)
class FindingGroup:
    """The findings of one run that share a signature (the same failure)."""

    signature: str
    rule: str
    severity: str
    findings: tuple[Finding, ...]
    status: str = "open"            # the store's finding_groups.status (docs/replay.md)
    last_replay: str = ""           # "clean 2026-05-01 10:00 in staging (URL)", or ""; a
    #                                 diverged or error one adds ": step N: …" (its note)

    @property
    def example(self) -> str:
        return self.findings[0].message


def _life(store: Store | None, groups: list[FindingGroup]) -> list[FindingGroup]:
    """The groups with the status and last replay the store keeps for their signatures
    (a group never recorded or replayed is ``open`` with no replay)."""
    if store is None or not groups or not store.exists:
        return groups
    from ..store import to_rows
    rows = {r["signature"]: r for r in to_rows(store.sql(
        "SELECT signature, status, last_replay, last_replay_at, last_replay_env, "
        "last_replay_target, last_replay_note FROM finding_groups "
        "WHERE list_contains(?, signature)",
        [[g.signature for g in groups]]))}
    out = []
    for g in groups:
        r = rows.get(g.signature)
        if r is None:
            out.append(g)
            continue
        last = "" if not r["last_replay"] else (
            f"{r['last_replay']} {str(r['last_replay_at'])[:16]} in {r['last_replay_env']} "
            f"({r['last_replay_target']})"
            + (f": {r['last_replay_note']}" if r["last_replay_note"] else ""))
        out.append(dataclasses.replace(g, status=r["status"], last_replay=last))
    return out


def _row_label(label: str) -> str:
    """A list row: the aligned columns (signature, severity, step) held together, the
    message free to wrap in a narrow list."""
    head, sep, message = label.partition("  step ")
    if not sep:
        return label
    step, _, message = message.lstrip().partition("  ")
    return (f"{head}{sep}{step.rjust(5)}  ".replace(" ", "\u00a0") + message)


def group(findings: list[Finding]) -> list[FindingGroup]:
    """Groups in order of first appearance; findings keep their order inside."""
    by_sig: dict[str, list[Finding]] = {}
    for f in findings:
        by_sig.setdefault(f.signature, []).append(f)
    return [FindingGroup(sig, fs[0].rule, fs[0].severity, tuple(fs))
            for sig, fs in by_sig.items()]


def _rules_text(rules: str | os.PathLike[str] | RuleSet) -> tuple[str, str, Path | None]:
    """(YAML text, source name, folder for schema refs) of a path, a RuleSet or text."""
    if isinstance(rules, RuleSet):
        base = Path(rules.source).parent if rules.source else None
        return rules.text, rules.source or "<rules>", base
    if isinstance(rules, os.PathLike) or (isinstance(rules, str) and "\n" not in rules and (
            Path(rules).is_file() or rules.strip().endswith((".yaml", ".yml")))):
        p = Path(rules)
        from ..rules import load_rules
        load_rules(p)  # a missing or broken file fails here, loudly, with its code
        return p.read_text(encoding="utf-8"), str(p), p.parent
    return str(rules), "<rules>", None


class RuleView(View):
    """Rules (an editable text and a pick list), a Run button, findings grouped by
    signature; with ``contracts`` (descriptors: a path or a ``ToolSet``) each run also
    holds the tool calls to them, as ``contract check`` does. State: ``findings`` and
    ``groups`` of the last run, ``selected`` (index into ``findings``), ``error`` (the
    last error's text, empty when none)."""

    selected = t.Int(None, allow_none=True)
    error = t.Unicode("")
    runs = t.Int(0)
    query = t.Unicode("")     # the list's filter: words every listed finding contains
    page = t.Int(0)

    def __init__(self, source: Trace | Store | TraceSource, trace_id: str | None = None, *,
                 rules: str | os.PathLike[str] | RuleSet,
                 contracts: str | os.PathLike[str] | ToolSet | None = None,
                 trace_view: TraceView | None = None, record: bool = False) -> None:
        super().__init__()
        self.store: Store | None = None
        self.trace_source: TraceSource | None = None
        if isinstance(source, Store) and trace_id is None:
            self.store = source  # every trace of the store, as `workbench check` does
        else:
            self.trace_source = TraceSource.of(source, trace_id)
            self.store = self.trace_source.store
        self.trace_view, self.record = trace_view, record
        # tool contracts, held to the same traces on every run (`contract check`)
        self.tools: ToolSet | None = (
            read_tools([contracts]) if isinstance(contracts, str | os.PathLike) else contracts)
        text, self.rules_source, self.base = _rules_text(rules)
        self._original = text
        self.ruleset: RuleSet | None = None
        self.findings: list[Finding] = []
        self.groups: list[FindingGroup] = []
        self.editor = w.Textarea(text, rows=min(18, text.count("\n") + 2),
                                 continuous_update=False, layout=w.Layout(width="100%"))
        self.editor.add_class("wb-mono")
        self.picker = w.SelectMultiple(options=[], rows=4, description="rules",
                                       layout=w.Layout(width="60%"))
        self.run_button = w.Button(description="Run rules", button_style="primary",
                                   icon="play")
        self.run_button.on_click(lambda _: self.run())
        self.status = w.HTML()
        # real progress: one step per rule (and the contracts), as each one finishes
        self.progress = w.IntProgress(0, min=0, max=1, layout=w.Layout(
            width="240px", visibility="hidden"))
        self.progress_label = w.Label("")
        self.groups_html = w.HTML()
        self.finding_list = w.Select(options=[], rows=10, layout=w.Layout(width="100%"))
        self.finding_list.add_class("wb-mono")
        self.finding_list.add_class("wb-findings")
        self.finding_list.add_class("wb-wrap")   # a long message wraps, never clipped
        self.finding_list.observe(self._on_pick, names=["value"])
        # long lists: a filter (rule, step, text, signature) and pages of PAGE findings
        self.filter_box = w.Text(placeholder="filter: rule, step 8, text, signature…",
                                 continuous_update=False, layout=w.Layout(width="320px"))
        w.link((self.filter_box, "value"), (self, "query"))
        self.prev_page = w.Button(description="◀", layout=w.Layout(width="40px"))
        self.next_page = w.Button(description="▶", layout=w.Layout(width="40px"))
        self.page_label = w.Label("")
        self.prev_page.on_click(lambda _: self.set_page(self.page - 1))
        self.next_page.on_click(lambda _: self.set_page(self.page + 1))
        self.list_bar = w.HBox([self.filter_box, self.prev_page, self.page_label,
                                self.next_page], layout=w.Layout(flex_flow="row wrap"))
        self.observe(lambda _: self._list(reset=True), names=["query"])
        self.observe(lambda _: self._list(), names=["page"])
        self._listing = False           # the list is being refilled: not a user's pick
        self._labels: list[str] = []
        self._order: list[int] = []     # findings in list order (by signature group)
        self._shown: list[int] = []
        self.facts: FindingFacts | None = None   # the selected finding's, for code
        self._highlighting = False      # the linked timeline shows this view's highlights
        self.detail = w.HTML()
        self.witness_bar = w.HBox([], layout=w.Layout(flex_flow="row wrap"))
        self.editor.observe(lambda _: self._load(), names=["value"])
        self.observe(self._on_selected, names=["selected"])
        self.widget = w.VBox([w.HTML(STYLE),
                              w.Accordion([self.editor], titles=("rules (YAML)",)),
                              w.HBox([self.picker, self.run_button]),
                              w.HBox([self.progress, self.progress_label]), self.status,
                              self.groups_html, self.list_bar, self.finding_list,
                              self.witness_bar, self.detail])
        self.widget.add_class("wb-view")
        self.widget.add_class("wb-rules")
        self._load()

    # -- public API --------------------------------------------------------------------
    def set_rules(self, text: str) -> None:
        """Replace the rules' text (as typing in the editor does)."""
        self.editor.value = text

    def pick(self, *rule_ids: str) -> None:
        """Run only these rules (none: all)."""
        known = set(self.picker.options)
        self.picker.value = tuple(r for r in rule_ids if r in known)

    def run(self) -> list[Finding]:
        """Run the picked rules (all when none is picked) and list the findings."""
        self.selected = None
        self._unhighlight()    # the last run's witnesses are not this run's
        ruleset = self._load()
        if ruleset is None:
            self._clear()      # the last run's findings (and highlights) are not this text's
            return []
        if self.picker.value:
            ruleset = ruleset.only(list(self.picker.value))
        where = (f"trace {self.trace_source.trace_id[:12]}" if self.trace_source is not None
                 else "every trace of the store")
        self.status.value = (f"<div class=wb-muted>running {len(ruleset)} rule(s) over "
                             f"{esc(where)}…</div>")
        try:
            with busy([self.run_button]):
                self.findings = self._check(ruleset)
        except WorkbenchError as exc:
            self.progress.bar_style = "danger"
            self.progress_label.value = ""
            self._clear()
            self._fail(exc)
            return []
        self.groups = group(self.findings)
        self.runs += 1
        if self.trace_view is not None:     # its detail pane names the findings
            self.trace_view.findings = list(self.findings)
        self._show(ruleset)
        return self.findings

    def set_page(self, page: int) -> None:
        """Show page ``page`` (0-based, clamped) of the listed findings."""
        last = max(0, (len(self._shown) - 1) // PAGE)
        self.page = max(0, min(page, last))

    @property
    def listed(self) -> list[int]:
        """Indices into ``findings`` that pass the filter (every page)."""
        return list(self._shown)

    def select_finding(self, index: int | None) -> None:
        """Show finding ``index`` of the last run and highlight its witnesses."""
        if index is not None and not 0 <= index < len(self.findings):
            raise IndexError(f"no finding {index}: the last run found {len(self.findings)}")
        self.selected = index

    @property
    def status_text(self) -> str:
        return plain_text(self.status.value)

    # -- work ------------------------------------------------------------------------------
    def _load(self) -> RuleSet | None:
        try:
            edited = self.editor.value != self._original
            self.ruleset = parse_rules(self.editor.value, base=self.base, source=(
                f"{self.rules_source} (edited)" if edited else self.rules_source))
        except WorkbenchError as exc:
            self.ruleset = None
            self._fail(exc)
            return None
        self.error = ""
        ids = tuple(r.id for r in self.ruleset)
        if tuple(self.picker.options) != ids:
            keep = tuple(v for v in self.picker.value if v in ids)
            self.picker.options = ids
            self.picker.value = keep
        if not self.runs:
            self.status.value = (f"<div class=wb-muted>{len(ids)} rule(s) loaded; pick some "
                                 "(none = all) and run them</div>")
        return self.ruleset

    def _check(self, ruleset: RuleSet) -> list[Finding]:
        """The findings, rule by rule so the bar shows real progress (a recorded run is
        one call: one run in the store); contracts last."""
        steps = len(ruleset) + (1 if self.tools else 0)
        self.progress.max, self.progress.value = max(1, steps), 0
        self.progress.bar_style = "info"
        self.progress.layout.visibility = "visible"
        if self.trace_source is not None and self.trace_source.store is None:
            trace = self.trace_source.trace()
            found = self._by_rule(ruleset, lambda rs: check_trace(trace, rs))
            if self.tools:
                self._step("tool contracts")
                found += check_calls(calls_of(trace), self.tools)
        else:
            assert self.store is not None
            store = self.store
            ids = [self.trace_source.trace_id] if self.trace_source is not None else None
            if self.record:
                self._step(f"{len(ruleset)} rule(s), recorded as one run")
                found = check(store, ruleset, trace_ids=ids, record=True).findings
                self.progress.value = len(ruleset)
            else:
                found = self._by_rule(ruleset, lambda rs: check(
                    store, rs, trace_ids=ids, record=False).findings)
            if self.tools:
                self._step("tool contracts")
                found += check_contracts(store, self.tools, trace_ids=ids,
                                         record=self.record).findings
        self.progress.value = self.progress.max
        self.progress.bar_style = "success"
        self.progress_label.value = f"done: {len(found):,} finding(s)"
        return found

    def _by_rule(self, ruleset: RuleSet, run: Any) -> list[Finding]:
        found: list[Finding] = []
        for r in ruleset:
            self._step(f"rule {self.progress.value + 1} of {len(ruleset)}: {r.id}")
            found += run(ruleset.only([r.id]))
            self.progress.value += 1
        return found

    def _clear(self) -> None:
        """No findings listed: a run that failed leaves nothing of the last one on
        screen, in the list or as highlights in the linked timeline."""
        self.findings, self.groups, self._order, self._labels = [], [], [], []
        if self.trace_view is not None:
            self.trace_view.findings = []
        self.facts = None
        self.groups_html.value = ""
        self.witness_bar.children = ()
        self.detail.value = ""
        self._list(reset=True)
        self._unhighlight()

    def _unhighlight(self) -> None:
        """Take this view's highlights out of the linked timeline."""
        tv = self.trace_view
        if tv is not None and tv.highlighted and self._highlighting:
            tv.highlight([])
        self._highlighting = False

    def _step(self, text: str) -> None:
        self.progress_label.value = f"{text}…"

    def _fail(self, exc: WorkbenchError) -> None:
        self.error = error_text(exc).split("\n")[0]  # quoted input masked
        hint = f"<div class=wb-muted>hint: {esc(exc.hint)}</div>" if exc.hint else ""
        self.status.value = f"<div class=wb-err>{esc(self.error)}</div>{hint}"

    def _show(self, ruleset: RuleSet) -> None:
        errors = sum(f.severity == "error" for f in self.findings)
        where = (f"trace {self.trace_source.trace_id[:12]}" if self.trace_source is not None
                 else "every trace of the store")
        self.status.value = (
            f"<div><b>{len(self.findings)} finding(s)</b>: {errors} error(s), "
            f"{len(self.findings) - errors} warning(s), {len(self.groups)} signature(s) — "
            f"{len(ruleset)} rule(s) over {esc(where)}</div>")
        self.groups = _life(self.store, self.groups)
        self.groups_html.value = table(
            ["signature", "rule", "severity", "count", "status", "last replay", "example"],
            [[g.signature[:8], g.rule, g.severity, len(g.findings), g.status,
              g.last_replay or "-", g.example] for g in self.groups]) if self.groups else ""
        index = {id(f): n for n, f in enumerate(self.findings)}
        self._order = []
        self._labels = [""] * len(self.findings)
        for g in self.groups:
            for f in g.findings:
                step = "-" if f.seq is None else f.seq
                n = index[id(f)]
                self._labels[n] = (f"{g.signature[:8]}  {f.severity:<5}  step {step:>5}  "
                                   f"{f.message}")
                self._order.append(n)
        self.witness_bar.children = ()
        self.detail.value = ("<div class=wb-muted>select a finding to see it and highlight its "
                             "witness events</div>" if self.findings else "")
        self._list(reset=True)

    def _list(self, reset: bool = False) -> None:
        """The list: findings passing the filter, one page of them."""
        words = " ".join(self.query.lower().split())   # case and spacing ignored
        order = self._order
        # a number is a whole number: "step 29" is not step 291
        pattern = re.compile(("(?<![0-9])" if words[:1].isdigit() else "") + re.escape(words)
                             + ("(?![0-9])" if words[-1:].isdigit() else ""))
        self._shown = [n for n in order if pattern.search(" ".join(
            f"{self._labels[n]} {self.findings[n].rule} {self.findings[n].signature}"
            .lower().split()))] if words else list(order)
        if reset and self.page:
            self.page = 0     # comes back here through the observer
            return
        first = self.page * PAGE
        page = self._shown[first:first + PAGE]
        # refilling a Select picks its first row: the user's selection stays what it was
        # (listed or filtered out), so the refill is not taken for a pick
        self._listing = True
        try:
            self.finding_list.options = [(_row_label(self._labels[n]), n) for n in page]
            self.finding_list.value = self.selected if self.selected in page else None
        finally:
            self._listing = False
        total = len(self._shown)
        self.page_label.value = (f"{first + 1:,}–{first + len(page):,} of {total:,}"
                                 + (f" (filtered from {len(order):,})" if words else "")
                                 if page else ("no finding matches" if words else ""))
        self.prev_page.disabled = self.page == 0
        self.next_page.disabled = first + PAGE >= total

    def _on_pick(self, change: Any) -> None:
        if not self._listing and change["new"] is not None and change["new"] != self.selected:
            self.selected = change["new"]

    def _on_selected(self, change: Any) -> None:
        n = change["new"]
        if self.finding_list.value != n and (
                n is None or n in {v for _, v in self.finding_list.options}):
            self._listing = True
            try:
                self.finding_list.value = n
            finally:
                self._listing = False
        if n is None:
            return
        f = self.findings[n]
        assert self.ruleset is not None
        facts = finding_facts(f, self.ruleset, self.editor.value,
                              lambda eid: self._event(f.trace_id, eid))
        self.facts = facts
        self.detail.value = facts.html(f)
        tv = self.trace_view
        linked = tv is not None and f.trace_id == tv.source.trace_id
        buttons = []
        for wit in facts.witnesses:   # a witness is a step and a name; a click shows it
            b = w.Button(description=wit.label, icon="crosshairs",
                         tooltip=(f"show event {wit.event_id} in the timeline" if linked
                                  else "no linked timeline of this trace"),
                         disabled=not linked, layout=w.Layout(width="auto"))
            b.on_click(lambda _, eid=wit.event_id: self._show_event(eid))
            buttons.append(b)
        self.witness_bar.children = (w.Label("witnesses:"), *buttons)
        if linked:
            assert tv is not None
            tv.highlight(f.event_ids, note=f"{f.rule}: {f.message}")
            self._highlighting = True

    def _event(self, trace_id: str, event_id: str) -> Event | None:
        try:
            if self.trace_source is not None and self.trace_source.trace_id == trace_id:
                return self.trace_source.event(event_id)
            assert self.store is not None
            rows = self.store.sql("SELECT * FROM events WHERE trace_id = ? AND event_id = ?",
                                  [trace_id, event_id]).to_pylist()
            return Event.from_row(rows[0]) if rows else None
        except NotFoundError:
            return None

    def _show_event(self, event_id: str) -> None:
        if self.trace_view is not None:   # the timeline may be a screen away: into sight
            self.trace_view.show(event_id)
