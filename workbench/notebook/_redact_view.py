"""``RedactView``: what redaction does to a file or a trace, hit by hit, before and after.

A file goes through ``redact_files`` — what ``workbench redact apply`` runs — into a
scratch folder, with the store's key (so the tokens are the store's); a trace's values
go through ``Redactor.value``, as ingest does. The view then lines the two versions up:
each place a value changed shows the detector that fired (read from the token it became),
the text around the hit before, and the same text after. The "after" column is the
redacted output itself, so the secret cannot appear there; the "before" column shows
it highlighted — it is on the user's own machine, and seeing it is how one judges a hit.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ipywidgets as w
import traitlets as t

from ..model import Trace, UsageError, loads
from ..redact import TOKEN_RE, Redactor, redact_files
from ..store import Store
from ._html import STYLE, esc
from ._source import TraceSource
from ._trace_view import plain_text
from ._view import View

__all__ = ["RedactChange", "RedactView", "redaction_changes", "redaction_key_for"]

_CONTEXT = 36      # characters shown on each side of a hit
_SHOWN = 300       # rows of the table; the counts cover every hit
_KEY_BYTES = 32


@dataclass(frozen=True)
class RedactChange:
    """One replaced value: where, which detector, and the text around it on both sides."""

    where: str
    detector: str
    category: str
    before: str         # escaped HTML, the hit marked
    after: str          # escaped HTML, the token marked
    token: str


def _kind(token: str) -> tuple[str, str]:
    """(detector, category) of a token: ``«secret:github-pat:…»`` -> github-pat, secret."""
    parts = token.strip("«»").split(":")
    return (parts[1], "secret") if parts[0] == "secret" else (parts[0], parts[0])


def _clip(text: str, start: int, end: int, cls: str) -> str:
    lo, hi = max(0, start - _CONTEXT), min(len(text), end + _CONTEXT)
    return ("…" if lo else "") + esc(text[lo:start]) + f"<span class={cls}>" + \
        esc(text[start:end]) + "</span>" + esc(text[end:hi]) + ("…" if hi < len(text) else "")


def _string_changes(where: str, before: str, after: str) -> list[RedactChange]:
    """Align the literal text between the tokens of ``after`` with ``before``: what lies
    between two literals in ``before`` is what the token between them replaced."""
    if before == after:
        return []
    nested_b, nested_a = _json(before), _json(after)
    if nested_b is not None and nested_a is not None:
        return redaction_changes(nested_b, nested_a, where + "⟨json⟩")
    tokens = list(TOKEN_RE.finditer(after))
    out: list[RedactChange] = []
    bi = ai = 0
    for k, m in enumerate(tokens):
        lit = after[ai:m.start()]
        j = before.find(lit, bi)
        if j < 0:
            return _whole(where, before, after, tokens)
        bi = j + len(lit)
        ai = m.end()
        if before.startswith(m.group(), bi):  # a token that was there already
            bi += len(m.group())
            continue
        tail = after[m.end():tokens[k + 1].start() if k + 1 < len(tokens) else len(after)]
        if k + 1 == len(tokens):
            end = len(before) - len(tail) if before.endswith(tail) else -1
        else:
            end = before.find(tail, bi + 1) if tail else -1
        if end < bi:
            return out + _whole(where, before[bi:], after[m.start():], tokens[k:],
                                offset=m.start())
        detector, category = _kind(m.group())
        out.append(RedactChange(where, detector, category, _clip(before, bi, end, "wb-hit"),
                                _clip(after, m.start(), m.end(), "wb-token"), m.group()))
        bi = end
    return out


def _whole(where: str, before: str, after: str, tokens: list[Any], offset: int = 0
           ) -> list[RedactChange]:
    """When the texts cannot be aligned (re-encoded JSON): the tokens, and ``before`` cut
    to its context without a mark."""
    return [RedactChange(where, *_kind(m.group()),
                         esc(before[:2 * _CONTEXT]) + ("…" if len(before) > 2 * _CONTEXT
                                                        else ""),
                         _clip(after, m.start() - offset, m.end() - offset, "wb-token"),
                         m.group()) for m in tokens]


def _json(text: str) -> Any:
    s = text.strip()
    if s[:1] not in ("{", "["):
        return None
    try:
        doc = loads(s)
    except (ValueError, RecursionError):
        return None
    return doc if isinstance(doc, dict | list) else None


def redaction_changes(before: Any, after: Any, where: str = "") -> list[RedactChange]:
    """Every place ``after`` (a redacted copy: same keys, types and lengths) differs from
    ``before``, hit by hit."""
    if isinstance(before, dict) and isinstance(after, dict):
        out = []
        for k, v in before.items():
            if k in after:
                out.extend(redaction_changes(v, after[k], f"{where}.{k}" if where else k))
        return out
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        out = []
        for n, (b, a) in enumerate(zip(before, after, strict=True)):
            out.extend(redaction_changes(b, a, f"{where}[{n}]"))
        return out
    if isinstance(before, str) and isinstance(after, str):
        return _string_changes(where or "$", before, after)
    if before != after:  # a structure the redactor changed: shown whole
        return [RedactChange(where or "$", "?", "?", esc(json.dumps(before, default=str)[:80]),
                             esc(json.dumps(after, default=str)[:80]), "")]
    return []


class RedactView(View):
    """State: ``changes`` (``RedactChange`` per hit), ``hits`` (replacements per
    detector, as the redactor counted them), ``title`` and, for a trace, ``ingest`` (what
    ingest recorded in ``traces.redaction``)."""

    total = t.Int(0)

    def __init__(self, source: Trace | Store | TraceSource, trace_id: str | None = None, *,
                 key: bytes | None = None) -> None:
        super().__init__()
        src = TraceSource.of(source, trace_id)
        redactor = Redactor(redaction_key_for(key, src.store))
        self.changes: list[RedactChange] = []
        for e in src.trace():
            step = f"step {e.seq} {e.name}"
            self.changes += _string_changes(f"{step}: name", e.name, redactor.text(e.name))
            for column in ("args", "result", "error", "attrs"):
                value = getattr(e, column)
                self.changes += redaction_changes(value, redactor.value(value),
                                                  f"{step}: {column}")
        self.hits = dict(sorted(redactor.hits.items()))
        meta = src.meta().get("redaction")
        self.ingest: Any = loads(meta) if isinstance(meta, str) else meta
        self.title = f"trace {src.trace_id}"
        self._build()

    @classmethod
    def file(cls, path: str | os.PathLike[str], *, store: Store | None = None,
             key: bytes | None = None) -> RedactView:
        """The redaction of one JSON, JSONL or text file, as `workbench redact apply`
        writes it (nothing is written next to the file)."""
        self = cls.__new__(cls)
        View.__init__(self)
        p = Path(path)
        redactor = Redactor(redaction_key_for(key, store))
        with tempfile.TemporaryDirectory(prefix="workbench-redact-view-") as tmp:
            result = redact_files([p], tmp, redactor)
            if not result.files:
                raise UsageError(f"{p} was not redacted: "
                                 + "; ".join(s.get("reason", "") for s in result.skipped))
            report = result.files[0]
            after = Path(report.out).read_text(encoding="utf-8-sig")
        before = p.read_text(encoding="utf-8-sig")
        self.changes = _file_changes(report.format, before, after)
        self.hits = dict(report.hits)
        self.ingest = None
        self.title = f"file {p.name} ({report.format})"
        self._build()
        return self

    # -- layout ------------------------------------------------------------------------
    def _build(self) -> None:
        self.total = sum(self.hits.values())
        by_detector = Counter(c.detector for c in self.changes)
        hits = ", ".join(f"{d} {n}" for d, n in sorted(self.hits.items())) or "none"
        ingest = ""
        if self.ingest:
            ingest = f"<div class=wb-muted>at ingest: {esc(json.dumps(self.ingest))}</div>"
        head = (f"<div><b>{esc(self.title)}</b>: {self.total} value(s) replaced "
                f"({esc(hits)})</div>{ingest}")
        if not self.changes:
            head += ("<div class=wb-ok>nothing to redact: every value is clean (or already "
                     "a token)</div>")
        self.summary = w.HTML(f"<div class=wb-view>{head}</div>")
        rows = "".join(
            f"<tr><td>{esc(c.where)}</td><td>{esc(c.detector)}</td><td>{c.before}</td>"
            f"<td>{c.after}</td></tr>" for c in self.changes[:_SHOWN])
        more = (f"<div class=wb-muted>first {_SHOWN} of {len(self.changes)} hits; "
                f"{esc(dict(by_detector))}</div>" if len(self.changes) > _SHOWN else "")
        self.table = w.HTML(
            "<div class=wb-view><table class='wb wb-full'><colgroup><col style='width:26%'>"
            "<col style='width:12%'><col style='width:31%'><col style='width:31%'></colgroup>"
            "<tr><th>where</th><th>detector</th>"
            f"<th>before</th><th>after</th></tr>{rows}</table>{more}</div>"
            if self.changes else "")
        self.widget = w.VBox([w.HTML(STYLE), self.summary, self.table])
        self.widget.add_class("wb-view")
        self.widget.add_class("wb-redact")

    @property
    def summary_text(self) -> str:
        return plain_text(self.summary.value)

    @property
    def table_text(self) -> str:
        return plain_text(self.table.value)


def _file_changes(fmt: str, before: str, after: str) -> list[RedactChange]:
    if fmt == "json":
        return redaction_changes(loads(before), loads(after))
    b_lines, a_lines = before.splitlines(), after.splitlines()
    out: list[RedactChange] = []
    for n, (b, a) in enumerate(zip(b_lines, a_lines, strict=False), 1):
        if b == a:
            continue
        if fmt == "jsonl":
            out += redaction_changes(loads(b), loads(a), f"line {n}")
        else:
            out += _string_changes(f"line {n}", b, a)
    return out


def redaction_key_for(key: bytes | None, store: Store | None) -> bytes:
    """The key given, else the store's (tokens then match the store's), else a one-time
    key (as `workbench redact apply` without a store)."""
    if key is not None:
        return key
    if store is not None:
        return store.redaction_key()
    return os.urandom(_KEY_BYTES)


