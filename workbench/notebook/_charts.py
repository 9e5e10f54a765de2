"""Altair charts of the views, drawn offline.

Altair's default renderer loads Vega from a CDN, which leaves a blank chart on a
machine without internet; every chart here goes through ``alt.JupyterChart`` with the
JavaScript bundled by vl-convert (``enable_offline``), so a notebook renders from the
installed packages alone.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import altair as alt

from ..model import EVENT_KINDS
from ._timeline import Frame

__all__ = ["KIND_COLORS", "STATUS_COLORS", "enable_offline", "offline_chart", "timeline_chart"]

KIND_COLORS = dict(zip(EVENT_KINDS, (
    "#8250df", "#0969da", "#1a7f37", "#bf8700", "#57606a", "#9a6700", "#116329", "#cf222e",
    "#8c959f"), strict=True))
STATUS_COLORS = {"ok": "#2da44e", "error": "#cf222e", "unset": "#8c959f"}
_ERROR = "#cf222e"
_HIGHLIGHT = "#1b1f24"
_SELECTED = "#0969da"
#: pixels per event row in event mode (the view scrolls past a capped height)
ROW = 14
_BARS_PX = 170  # the bins' bars; the failure strip is drawn under them

def enable_offline() -> None:
    """Charts without a CDN: JupyterChart's JavaScript comes bundled from vl-convert (once
    per process), and charts displayed directly use the same offline renderer."""
    alt.JupyterChart.enable_offline(True)
    alt.renderers.enable("jupyter", offline=True)


def offline_chart(chart: alt.TopLevelSpec) -> alt.JupyterChart:
    """A JupyterChart widget for ``chart``, with no code loaded from the network."""
    enable_offline()
    # SVG: crisp at any zoom, and each mark is an element (the browser test measures them)
    return alt.JupyterChart(chart, embed_options={"actions": False, "renderer": "svg"})


def _scale(field: str) -> alt.Scale:
    colors = KIND_COLORS if field == "kind" else STATUS_COLORS
    return alt.Scale(domain=list(colors), range=list(colors.values()))


def _legend(field: str, present: Iterable[Any]) -> alt.Legend:
    """The fixed palette (a kind keeps its colour across windows), listing only the
    values drawn."""
    colors = KIND_COLORS if field == "kind" else STATUS_COLORS
    shown = set(present)
    # on top, in rows: a legend beside the plot would push it past a narrow notebook
    return alt.Legend(title=field, values=[v for v in colors if v in shown], orient="top",
                      direction="horizontal", columns=5)


def timeline_chart(frame: Frame, color: str = "kind", width: int = 300) -> alt.TopLevelSpec:
    """Bars per event (``pick`` selects one) or stacked counts per bin (``zoom`` picks a
    bin to narrow the window to). ``width``: the plot's pixels; with the labels (at most
    200 px) and the legend on top, the default fits a 1,000 px window with the file
    browser open (the waterfall under it takes the whole width)."""
    if frame.mode == "events":
        return _event_chart(frame, color, width)
    return _bin_chart(frame, color, width)


def _x_title(frame: Frame) -> str:
    return "seconds from the trace's start" if frame.axis == "time" else "step (seq)"


def _x_scale(frame: Frame) -> alt.Scale:
    """The window's extent, not zero to its end: a window deep into a trace fills the
    axis."""
    return alt.Scale(domain=list(frame.domain), zero=False, nice=False)


def _event_chart(frame: Frame, color: str, width: int) -> alt.TopLevelSpec:
    pick = alt.selection_point(name="pick", fields=["event_id"], on="click", empty=False)
    rows = frame.rows.copy()
    any_hl = bool(rows["hl"].any()) if len(rows) else False
    rows["outline"] = [_SELECTED if sel else _HIGHLIGHT if hl else _ERROR if st == "error"
                       else "transparent"
                       for sel, hl, st in zip(rows["sel"], rows["hl"], rows["status"],
                                              strict=True)]
    rows["weight"] = [2.5 if sel or hl else 1.5 for sel, hl in zip(rows["sel"], rows["hl"],
                                                                   strict=True)]
    rows["alpha"] = [1.0 if (sel or hl or not any_hl) else 0.3
                     for sel, hl in zip(rows["sel"], rows["hl"], strict=True)]
    chart: alt.TopLevelSpec = alt.Chart(rows).mark_bar(cornerRadius=2).encode(
        x=alt.X("start:Q", title=_x_title(frame), scale=_x_scale(frame),
                axis=alt.Axis(orient="top")),
        x2="end:Q",
        y=alt.Y("label:N", sort=None, title=None,
                axis=alt.Axis(labelFont="monospace", labelLimit=200, labelFontSize=11)),
        color=alt.Color(f"{color}:N", scale=_scale(color), legend=_legend(color, rows[color])),
        stroke=alt.Stroke("outline:N", scale=None, legend=None),
        strokeWidth=alt.StrokeWidth("weight:Q", scale=None, legend=None),
        opacity=alt.Opacity("alpha:Q", scale=None, legend=None),
        tooltip=["seq:Q", "kind:N", "name:N", "status:N", "duration_ms:Q", "event_id:N"],
    ).add_params(pick).properties(width=width, height=alt.Step(ROW))
    return chart


def _bin_chart(frame: Frame, color: str, width: int) -> alt.TopLevelSpec:
    zoom = alt.selection_point(name="zoom", fields=["seq_lo", "seq_hi"], on="click",
                               empty=False)
    x = alt.X("bin_start:Q", title=_x_title(frame), scale=_x_scale(frame))
    # one layered view (one width, one x scale): the bars in
    # the top 170 px, the failure strip in its own band under them
    bars = alt.Chart(frame.rows).mark_bar().encode(
        x=x, x2="bin_end:Q",
        y=alt.Y("y0:Q", title="events", scale=alt.Scale(range=[_BARS_PX, 0])), y2="y1:Q",
        color=alt.Color(f"{color}:N", scale=_scale(color),
                        legend=_legend(color, frame.rows[color])),
        tooltip=["seq_lo:Q", "seq_hi:Q", f"{color}:N", "count:Q"],
    ).add_params(zoom)
    assert frame.bins is not None
    marks = alt.Chart(frame.bins)
    # failures where they are: a strip under the bars, each bin as red as its error rate
    strip = marks.transform_filter("datum.errors > 0").mark_rect(color=_ERROR).encode(
        x=alt.X("bin_start:Q", scale=_x_scale(frame)), x2="bin_end:Q",
        y=alt.value(_BARS_PX + 20), y2=alt.value(_BARS_PX + 30),
        opacity=alt.Opacity("error_rate:Q", scale=alt.Scale(domain=[0, 1], range=[0.25, 1]),
                            legend=None),
        tooltip=["seq_lo:Q", "seq_hi:Q", "errors:Q", "events:Q"],
    )
    hl = marks.transform_filter("datum.hl > 0").mark_point(
        shape="triangle-down", filled=True, color=_HIGHLIGHT, size=60).encode(
        x=alt.X("bin_start:Q", scale=_x_scale(frame)), y=alt.value(-8),
        tooltip=["seq_lo:Q", "seq_hi:Q", "hl:Q"])
    chart: alt.TopLevelSpec = alt.layer(bars, hl, strip).properties(
        width=width, height=_BARS_PX + 34, title=alt.TitleParams(
            "the strip under the bars: failures (red: the bin's error rate)", orient="bottom",
            anchor="start", fontSize=10, fontWeight="normal", color="#57606a"))
    return chart
