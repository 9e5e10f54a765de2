"""The timeline's data for one window of a trace: one row per event, or — when the
window holds more events than a browser should draw — counts per bin.

The chart never gets more than ``max_events`` bars in event mode, or ``bins`` x
(kinds + 1) rows in aggregate mode, whatever the trace's size: a 100k-event trace is
drawn as 120 stacked bins until the user narrows the window (a slider, or a click on
a bin) to a stretch that can be drawn event by event.

Every frame carries its x ``domain``: the window's own extent, never from zero, so a
window deep into a trace fills the axis. Bins are stacked here (``y0``/``y1`` per
colour value), not by the chart library, and each bin knows its failures (``errors``)
so the chart can show where they are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import pyarrow as pa

__all__ = ["Frame", "Timeline", "depths"]

DEFAULT_MAX_EVENTS = 1500
DEFAULT_BINS = 120


def depths(event_ids: list[str], parent_ids: list[str | None]) -> list[int]:
    """Nesting depth of each event (0 for a root or an orphan); cycles stop the walk."""
    index = {e: i for i, e in enumerate(event_ids)}
    parent = [index.get(p, -1) if p is not None else -1 for p in parent_ids]
    depth = [-1] * len(event_ids)
    for i in range(len(event_ids)):
        chain: list[int] = []
        j = i
        while j >= 0 and depth[j] < 0 and len(chain) <= len(event_ids):
            chain.append(j)
            depth[j] = -2  # on the walk: a parent cycle ends here
            j = parent[j]
        base = depth[j] if j >= 0 and depth[j] >= 0 else -1
        for k in reversed(chain):
            base += 1
            depth[k] = base
    return depth


@dataclass(frozen=True)
class Frame:
    """What the chart draws for a window: ``rows`` and how they were made."""

    mode: str                 # "events" (a bar per event) or "aggregate" (counts per bin)
    axis: str                 # "time" (seconds from the trace's start) or "seq"
    window: tuple[int, int]   # first and last seq drawn
    events: int               # events in the window
    untimed: int              # events of the window without times (not drawn on "time")
    rows: pd.DataFrame        # a row per event, or per (bin, colour value)
    bins: pd.DataFrame | None  # aggregate mode: a row per bin (events, errors, highlighted)
    domain: tuple[float, float] = (0.0, 1.0)  # the x axis: the window's extent

    @property
    def marks(self) -> int:
        """Rows handed to the browser: what bounds its work."""
        return len(self.rows) + (len(self.bins) if self.bins is not None else 0)


class Timeline:
    """The light columns of one trace (sorted by seq), ready to be windowed."""

    def __init__(self, table: pa.Table) -> None:
        cols = {c: table.column(c).to_pylist() for c in
                ("seq", "event_id", "parent_id", "kind", "name", "status")}
        self.seq = np.asarray(cols["seq"], dtype=np.int64)
        self.event_ids: list[str] = cols["event_id"]
        self.kinds: list[str] = cols["kind"]
        self.names: list[str] = cols["name"]
        self.statuses: list[str] = cols["status"]
        self.depth = depths(cols["event_id"], cols["parent_id"])
        self.position = {e: i for i, e in enumerate(self.event_ids)}
        self.parent = [self.position.get(q, -1) if q is not None else -1
                       for q in cols["parent_id"]]
        self.children = np.bincount([q for q in self.parent if q >= 0],
                                    minlength=len(self.event_ids)) if self.event_ids else \
            np.zeros(0, dtype=np.int64)
        start = table.column("start_ns").to_numpy(zero_copy_only=False)
        end = table.column("end_ns").to_numpy(zero_copy_only=False)
        start = np.asarray(pd.array(start, dtype="Float64").to_numpy(na_value=np.nan))
        end = np.asarray(pd.array(end, dtype="Float64").to_numpy(na_value=np.nan))
        self.timed = ~np.isnan(start)
        self.t0 = float(np.nanmin(start)) if self.timed.any() else 0.0
        self.start_s = (start - self.t0) / 1e9
        self.end_s = np.where(np.isnan(end), self.start_s, (end - self.t0) / 1e9)

    def __len__(self) -> int:
        return len(self.event_ids)

    @property
    def has_times(self) -> bool:
        return bool(self.timed.any())

    def span(self) -> tuple[int, int]:
        """The first and last seq of the trace."""
        return (int(self.seq[0]), int(self.seq[-1])) if len(self) else (0, 0)

    def indices(self, window: tuple[int, int]) -> tuple[int, int]:
        """Positions [i, j) of the events whose seq lies in the window (inclusive)."""
        lo, hi = window
        return (int(np.searchsorted(self.seq, lo, "left")),
                int(np.searchsorted(self.seq, hi, "right")))

    def frame(self, window: tuple[int, int], axis: str, *, max_events: int = DEFAULT_MAX_EVENTS,
              bins: int = DEFAULT_BINS, color: str = "kind",
              highlighted: frozenset[str] = frozenset(), selected: str | None = None) -> Frame:
        """The chart's rows for the events with seq in ``window``."""
        if axis == "time" and not self.has_times:
            axis = "seq"
        i, j = self.indices(window)
        n = j - i
        untimed = int((~self.timed[i:j]).sum()) if axis == "time" else 0
        if n <= max_events:
            rows = self._events(i, j, axis, highlighted, selected)
            dom = ((float(rows["start"].min()), float(rows["end"].max())) if len(rows)
                   else (0.0, 1.0))
            return Frame("events", axis, window, n, untimed, rows, None, _padded(dom))
        rows, per_bin = self._bins(i, j, axis, bins, color, highlighted)
        dom = ((float(per_bin["bin_start"].min()), float(per_bin["bin_end"].max()))
               if len(per_bin) else (0.0, 1.0))
        return Frame("aggregate", axis, window, n, untimed, rows, per_bin, _padded(dom))

    def hidden(self, collapsed: set[int]) -> np.ndarray:
        """Which events a collapsed ancestor hides (the span tree folded at the positions
        in ``collapsed``). Pointer doubling over the parent array: after step j each
        event knows whether one of its 2**j nearest ancestors is collapsed, and which
        ancestor is 2**j up; a parent cycle ends after log2(n) steps."""
        n = len(self)
        if not collapsed:
            return np.zeros(n, dtype=bool)
        parent = np.asarray(self.parent, dtype=np.int64)
        mark = np.zeros(n, dtype=bool)
        mark[sorted(collapsed)] = True
        out = np.zeros(n, dtype=bool)
        up = parent.copy()
        some = np.flatnonzero(up >= 0)
        out[some] = mark[up[some]]
        for _ in range(max(1, n.bit_length()) + 1):
            some = np.flatnonzero(up >= 0)
            if not len(some):
                break
            above = up[some]
            more = out.copy()
            more[some] |= out[above]
            higher = np.full(n, -1, dtype=np.int64)
            higher[some] = up[above]
            out, up = more, higher
        return out

    def label(self, k: int) -> str:
        """``"  12  ··list_projects"``: the step, nesting by depth, the name."""
        pad = "\u00b7\u00a0" * min(self.depth[k], 12)
        return f"{self.seq[k]:>5}\u00a0{pad}{self.names[k]}"

    def _events(self, i: int, j: int, axis: str, highlighted: frozenset[str],
                selected: str | None) -> pd.DataFrame:
        ks = [k for k in range(i, j) if axis == "seq" or self.timed[k]]
        if axis == "time":
            start = self.start_s[ks]
            end = self.end_s[ks]
            span = float(end.max() - start.min()) if ks else 0.0
            end = np.maximum(end, start + max(span, 1e-6) * 0.004)  # zero-length still shows
        else:
            start = self.seq[ks].astype(float)
            end = start + 1.0
        ids = [self.event_ids[k] for k in ks]
        return pd.DataFrame({
            "seq": self.seq[ks], "event_id": ids,
            "label": [self.label(k) for k in ks],
            "kind": [self.kinds[k] for k in ks], "name": [self.names[k] for k in ks],
            "status": [self.statuses[k] for k in ks],
            "start": start, "end": end,
            "duration_ms": np.round((self.end_s[ks] - self.start_s[ks]) * 1e3, 3),
            "hl": [e in highlighted for e in ids], "sel": [e == selected for e in ids],
        })

    def _bins(self, i: int, j: int, axis: str, bins: int, color: str,
              highlighted: frozenset[str]) -> tuple[pd.DataFrame, pd.DataFrame]:
        ks = np.arange(i, j)
        if axis == "time":
            ks = ks[self.timed[i:j]]
            x = self.start_s[ks]
        else:
            x = self.seq[ks].astype(float)
        if len(ks) == 0:
            return (pd.DataFrame(columns=["bin_start", "bin_end", "seq_lo", "seq_hi", color,
                                          "count", "y0", "y1"]),
                    pd.DataFrame(columns=["bin_start", "bin_end", "seq_lo", "seq_hi",
                                          "events", "errors", "hl", "error_rate"]))
        lo, hi = float(x.min()), float(x.max())
        width = (hi - lo) / bins if hi > lo else 1.0
        source = self.kinds if color == "kind" else self.statuses
        df = pd.DataFrame({
            "bin": np.minimum(((x - lo) / width).astype(np.int64), bins - 1),
            "seq": self.seq[ks],
            color: np.asarray(source, dtype=object)[ks],
            "error": np.asarray(self.statuses, dtype=object)[ks] == "error",
            "hl": ([self.event_ids[k] in highlighted for k in ks] if highlighted
                   else np.zeros(len(ks), dtype=bool)),
        })
        per_bin = df.groupby("bin").agg(seq_lo=("seq", "min"), seq_hi=("seq", "max"),
                                         events=("seq", "size"), errors=("error", "sum"),
                                         hl=("hl", "sum"))
        per_bin["bin_start"] = lo + per_bin.index * width
        per_bin["bin_end"] = per_bin["bin_start"] + width
        counts = df.groupby(["bin", color]).size().rename("count").reset_index()
        counts = counts.sort_values(["bin", color], kind="stable")
        counts["y1"] = counts.groupby("bin")["count"].cumsum()   # stacked, bottom up
        counts["y0"] = counts["y1"] - counts["count"]
        rows = counts.merge(per_bin[["bin_start", "bin_end", "seq_lo", "seq_hi"]],
                            left_on="bin", right_index=True).drop(columns=["bin"])
        per_bin["error_rate"] = per_bin["errors"] / per_bin["events"]
        return rows.reset_index(drop=True), per_bin.reset_index(drop=True)


def _padded(dom: tuple[float, float]) -> tuple[float, float]:
    """A domain with room for a zero-length extent."""
    lo, hi = dom
    return (lo, hi) if hi > lo else (lo - 0.5, lo + 0.5)
