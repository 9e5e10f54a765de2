"""Search inside one trace: event names, kinds, argument, result and error text and
attribute values, case and spacing ignored; a redaction token (``«email:…»``) is
searched as the whole token, exactly.

From a store it is one DuckDB query over the trace's rows (the JSON columns as their
text); a trace in memory is searched over its events' JSON, built once. The results
are a list (step, event, where it matched) that picks the event in the waterfall.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import ipywidgets as w
import orjson

from ..redact import TOKEN_RE
from ._source import TraceSource

__all__ = ["Match", "SearchBar", "search_events"]

LIMIT = 500            # matches listed; the count says how many there are
_FIELDS = ("name", "kind", "args", "result", "error", "attrs")


@dataclass(frozen=True)
class Match:
    event_id: str
    seq: int
    name: str
    where: str        # the first field that matched: name, kind, args, result, error, attrs

    @property
    def label(self) -> str:
        return f"step {self.seq:>6} · {self.name} · in {self.where}"


def _needle(query: str) -> tuple[str, bool]:
    """(text to look for, whether case counts): a whole redaction token is exact."""
    q = query.strip()
    if TOKEN_RE.fullmatch(q):
        return q, True
    return " ".join(q.lower().split()), False


def search_events(source: TraceSource, query: str, limit: int = LIMIT
                  ) -> tuple[list[Match], int]:
    """The first ``limit`` matches in step order, and how many there are."""
    needle, exact = _needle(query)
    if not needle:
        return [], 0
    if source.store is not None and source._trace is None:
        return _in_store(source, needle, exact, limit)
    texts = _texts(source)
    found: list[Match] = []
    total = 0
    for seq, eid, name, fields in texts:
        where = next((f for f, text in fields if needle in (text if exact else text.lower())),
                     None)
        if where is not None:
            total += 1
            if len(found) < limit:
                found.append(Match(eid, seq, name, where))
    return found, total


def _in_store(source: TraceSource, needle: str, exact: bool, limit: int
              ) -> tuple[list[Match], int]:
    assert source.store is not None
    def col(c: str) -> str:
        text = f"coalesce(CAST({c} AS VARCHAR), '')"
        return text if exact else f"lower({text})"

    cond = " OR ".join(f"contains({col(c)}, ?)" for c in _FIELDS)
    where = f"trace_id = ? AND ({cond})"
    params: list[Any] = [source.trace_id, *([needle] * len(_FIELDS))]
    total = source.store.sql(f"SELECT count(*) AS n FROM events WHERE {where}",
                             params).to_pylist()[0]["n"]
    cases = " ".join(f"WHEN contains({col(c)}, ?) THEN '{c}'" for c in _FIELDS)
    rows = source.store.sql(
        f"SELECT seq, event_id, name, CASE {cases} END AS field FROM events WHERE {where} "
        f"ORDER BY seq LIMIT {int(limit)}", [*([needle] * len(_FIELDS)), *params]).to_pylist()
    return [Match(r["event_id"], int(r["seq"]), r["name"], r["field"]) for r in rows], int(total)


def _texts(source: TraceSource) -> list[tuple[int, str, str, list[tuple[str, str]]]]:
    cached: list[tuple[int, str, str, list[tuple[str, str]]]] | None = getattr(
        source, "_search_texts", None)
    if cached is None:
        def text(value: Any) -> str:
            if value is None:
                return ""
            return orjson.dumps(value, default=str).decode()
        cached = [(e.seq, e.event_id, e.name,
                   [("name", e.name), ("kind", e.kind), ("args", text(e.args)),
                    ("result", text(e.result)), ("error", text(e.error)),
                    ("attrs", text(e.attrs))]) for e in source.trace().events]
        source._search_texts = cached   # type: ignore[attr-defined]
    return cached


class SearchBar:
    """A search box and its results; a picked result calls ``pick(event_id)``."""

    def __init__(self, source: TraceSource, pick: Callable[[str], Any]) -> None:
        self.source, self.pick = source, pick
        self.matches: list[Match] = []
        self.total = 0
        self.box = w.Text(placeholder="search this trace: name, tool, argument or result "
                          "text, attribute value, «token»", continuous_update=False,
                          layout=w.Layout(width="420px", max_width="100%"))
        self.label = w.Label("")
        self.results = w.Select(options=[], rows=5, layout=w.Layout(
            width="100%", display="none"))
        self.results.add_class("wb-mono")
        self.results.add_class("wb-search-results")
        self._filling = False
        self.box.observe(lambda c: self.search(c["new"]), names=["value"])
        self.results.observe(self._on_pick, names=["value"])
        self.widget = w.VBox([w.HBox([self.box, self.label],
                                     layout=w.Layout(flex_flow="row wrap")), self.results])

    def search(self, query: str) -> list[Match]:
        if self.box.value != query:
            self.box.value = query      # comes back here through the observer
            return self.matches
        self.matches, self.total = search_events(self.source, query)
        self._filling = True
        try:
            self.results.options = [(m.label.replace(" ", "\u00a0"), n)
                                    for n, m in enumerate(self.matches)]
            self.results.value = None
        finally:
            self._filling = False
        self.results.layout.display = "" if self.matches else "none"
        self.label.value = ("" if not query.strip() else
                            f"{self.total:,} match(es)" + (
                                f", the first {len(self.matches):,} listed"
                                if self.total > len(self.matches) else ""))
        if self.matches:
            self.pick(self.matches[0].event_id)    # the waterfall moves to the first
        return self.matches

    def _on_pick(self, change: Any) -> None:
        if not self._filling and change["new"] is not None:
            self.pick(self.matches[change["new"]].event_id)
