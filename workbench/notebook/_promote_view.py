"""``PromoteView``: name, policy and minimization of a fixture, a preview of what would
be written (the manifest, the redacted events), and a button that writes it.

Preview is ``prepare`` and Promote is ``write_version`` — the two halves of what
``workbench promote`` runs, with every refusal of the CLI (a clean trace, a policy that
hides the findings, a value the detectors still see, a note that does not name a
changed field) shown in the view instead of raised. Writing is atomic and never
overwrites a version; promoting the same content twice writes nothing the second time.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import ipywidgets as w
import traitlets as t

from ..fixtures import (
    DEFAULT_FIXTURES,
    Candidate,
    PromoteResult,
    check_name,
    equal_version,
    list_fixtures,
    prepare,
    write_version,
)
from ..model import Trace, WorkbenchError, dumps
from ..redact import Policy, error_text, load_policy, parse_policy
from ..rules import RuleSet, load_rules
from ..store import Store
from ._html import STYLE, esc, json_block, table
from ._redact_view import redaction_key_for
from ._source import TraceSource
from ._trace_view import plain_text
from ._view import View, busy

__all__ = ["PromoteView"]

_NO_MINIMIZE = "(keep every event)"
_PREVIEW_EVENTS = 12


def _wrap() -> w.Layout:
    """A row that wraps in a narrow window instead of clipping."""
    return w.Layout(flex_flow="row wrap")


class PromoteView(View):
    """Minimization picks ``minimize``'s ``finding``-th finding (as ``MinimizeView``
    does); with a store, the fixture names the trace that finding's minimization has
    there. State: ``candidate`` (the last preview), ``result`` (the last ``PromoteResult``),
    ``stale`` (an input changed since the preview) and ``error``."""

    stale = t.Bool(True)
    error = t.Unicode("")

    def __init__(self, source: Trace | Store | TraceSource, trace_id: str | None = None, *,
                 rules: str | os.PathLike[str] | RuleSet, name: str,
                 policy: str | os.PathLike[str] | Policy | None = None,
                 minimize: str | None = None, finding: int = 1,
                 fixtures: str | os.PathLike[str] = DEFAULT_FIXTURES, note: str | None = None,
                 allow_clean: bool = False, key: bytes | None = None,
                 preview: bool = True) -> None:
        super().__init__()
        self.source = TraceSource.of(source, trace_id)
        self.rules = rules if isinstance(rules, RuleSet) else load_rules(Path(rules))
        self.key = redaction_key_for(key, self.source.store)
        self.candidate: Candidate | None = None
        self.result: PromoteResult | None = None
        ids = [r.id for r in self.rules]
        self.name = w.Text(name, description="name", continuous_update=False,
                           layout=w.Layout(width="360px", max_width="100%"))
        self.minimize = w.Dropdown(options=[_NO_MINIMIZE, *ids],
                                   value=minimize if minimize is not None else _NO_MINIMIZE,
                                   description="minimize",
                                   layout=w.Layout(width="420px", max_width="100%"))
        self.finding = w.BoundedIntText(finding, min=1, max=10_000, description="finding",
                                        tooltip="which finding of the rule to minimize "
                                                "(1: the first in step order)",
                                        layout=w.Layout(width="160px"))
        self.policy = w.Textarea(_policy_text(policy), rows=4, continuous_update=False,
                                 layout=w.Layout(width="100%"),
                                 placeholder="empty: the default policy — keep what the "
                                             "rules test, pseudonymize what they correlate, "
                                             "shapes for everything else")
        self.policy.add_class("wb-mono")
        self.note = w.Text(note or "", description="note", continuous_update=False,
                           layout=w.Layout(width="100%"),
                           placeholder="why this version exists (a new version names the "
                                       "fields that changed)")
        self.fixtures = w.Text(str(fixtures), description="folder", continuous_update=False,
                               layout=w.Layout(width="100%"))
        self.allow_clean = w.Checkbox(allow_clean, description="allow a clean trace",
                                      indent=False)
        self.preview_button = w.Button(description="Preview", icon="eye")
        self.promote_button = w.Button(description="Promote", button_style="success",
                                       icon="save")
        self.preview_button.on_click(lambda _: self.preview())
        self.promote_button.on_click(lambda _: self.promote())
        self.status = w.HTML()
        self.manifest = w.HTML()
        self.events = w.HTML()
        for box in (self.name, self.minimize, self.finding, self.policy, self.note, self.fixtures,
                    self.allow_clean):
            box.observe(self._on_input, names=["value"])
        self.widget = w.VBox([
            w.HTML(STYLE), w.HBox([self.name, self.minimize, self.finding],
                                     layout=_wrap()), self.fixtures,
            w.Accordion([self.policy], titles=("promotion policy (YAML)",)), self.note,
            w.HBox([self.allow_clean, self.preview_button, self.promote_button], layout=_wrap()),
            self.status, self.manifest, self.events])
        self.widget.add_class("wb-view")
        self.widget.add_class("wb-promote")
        if preview:
            self.preview()

    # -- public API --------------------------------------------------------------------
    def preview(self) -> Candidate | None:
        """What would be written, checked; None when promotion would be refused."""
        self.error, self.candidate = "", None
        self.status.value = "<div class=wb-muted>previewing: minimize, policy, checks…</div>"
        try:
            with busy([self.preview_button, self.promote_button], "previewing…"):
                check_name(self.name.value)
                cand = self._prepare()
        except WorkbenchError as exc:
            self._fail(exc)
            return None
        self.candidate, self.stale = cand, False
        self._show_candidate(cand)
        return cand

    def _prepare(self) -> Candidate:
        rule = self._minimize_rule()
        return prepare(self.source.trace(), self.rules, self.name.value, key=self.key,
                       policy=self._policy(), minimize_rule=rule,
                       minimize_finding=self.finding.value if rule is not None else None,
                       store=self.source.store, allow_clean=self.allow_clean.value)

    def promote(self) -> PromoteResult | None:
        """Write the previewed fixture as its next version (previewing first if an input
        changed); None when refused."""
        cand = self.candidate if not self.stale and self.candidate is not None \
            else self.preview()
        if cand is None:
            return None
        try:
            with busy([self.promote_button, self.preview_button], "writing…"):
                result = write_version(Path(self.fixtures.value), cand,
                                       note=self.note.value or None)
        except WorkbenchError as exc:
            if exc.code == "NOTE_REQUIRED":  # the view's words: the field, not --note
                exc.hint = ("write in the note field above why this version exists, naming "
                            "each changed field (or a prefix of it, e.g. `result`; `events` "
                            "or `rules` for all of them), then press Promote again")
                self.note.add_class("wb-attention")
            self._fail(exc, keep_preview=True)  # the preview is still what would be written
            return None
        self.note.remove_class("wb-attention")
        self.result = result
        verb = "wrote" if result.written else "unchanged: already holds this content:"
        self.status.value = (f"<div class=wb-view><b class=wb-ok>{esc(verb)} "
                             f"{esc(result.fixture)}</b> <span class=wb-muted>"
                             f"{esc(result.path)} · content sha256 "
                             f"{esc(result.manifest['content_sha256'][:16])}…</span></div>")
        return result

    @property
    def status_text(self) -> str:
        return plain_text(self.status.value)

    # -- helpers -------------------------------------------------------------------------
    def _policy(self) -> Policy | None:
        text = self.policy.value.strip()
        return parse_policy(text, source="the view's policy") if text else None

    def _minimize_rule(self) -> str | None:
        value = self.minimize.value
        return None if value == _NO_MINIMIZE else str(value)

    def _fail(self, exc: WorkbenchError, *, keep_preview: bool = False) -> None:
        self.error = error_text(exc).split("\n")[0]  # quoted input masked
        hint = f"<div class=wb-muted>hint: {esc(exc.hint)}</div>" if exc.hint else ""
        self.status.value = f"<div class='wb-view wb-err'>{esc(self.error)}</div>{hint}"
        if not keep_preview:
            self.manifest.value = self.events.value = ""

    def _on_input(self, change: Any) -> None:
        self.stale = True
        if self.candidate is not None:
            self.status.value = ("<div class=wb-muted>inputs changed: press Preview (or "
                                 "Promote, which previews first)</div>")

    def _show_candidate(self, cand: Candidate) -> None:
        m = cand.manifest
        root = Path(self.fixtures.value)
        have = [f.version for f in list_fixtures(root) if f.name == cand.name]
        same = equal_version(root, cand) if have else None
        where = (f"v{same} already holds this content" if same is not None else
                 f"next version after v{have[-1]}" if have else "the first version")
        then = ("Promote writes nothing" if same is not None else "press Promote to write it")
        found = m["expected_findings"]
        self.status.value = (
            f"<div class=wb-view><b>{esc(cand.name)}</b>: {where} under "
            f"{esc(self.fixtures.value)} · {m['trace']['events']} of {m['source']['events']}"
            f" events · {len(found)} expected finding(s) · content sha256 "
            f"{esc(cand.content_sha256[:16])}… — {then}</div>")
        shown = {k: v for k, v in m.items() if k not in ("fields",)}
        self.manifest.value = ("<div class=wb-view><b>manifest.json (preview)</b>"
                               f"{json_block(shown)}</div>")
        rows = cand.events.slice(0, _PREVIEW_EVENTS).to_pylist()
        self.events.value = "<div class=wb-view><b>trace.parquet (preview)</b>" + table(
            ["seq", "kind", "name", "status", "args", "result"],
            [[r["seq"], r["kind"], r["name"], r["status"], _short(r["args"]),
              _short(r["result"])] for r in rows]) + (
            f"<div class=wb-muted>… {cand.events.num_rows - _PREVIEW_EVENTS} more</div>"
            if cand.events.num_rows > _PREVIEW_EVENTS else "") + "</div>"


def _short(text: Any, width: int = 70) -> str:
    s = text if isinstance(text, str) else dumps(text)
    return s if len(s) <= width else s[: width - 1] + "…"


def _policy_text(policy: str | os.PathLike[str] | Policy | None) -> str:
    """The policy as YAML text for the editor ('' = the default policy)."""
    if policy is None:
        return ""
    if isinstance(policy, Policy):
        return policy.to_yaml()
    p = Path(policy)
    if isinstance(policy, os.PathLike) or ("\n" not in str(policy) and p.suffix in (
            ".yaml", ".yml")):
        return load_policy(p).to_yaml()
    return str(policy)
