"""Links to a trace and a step: ``TRACE[:STEP]``, what ``workbench lab --open`` takes.

The detail pane writes the link of the event it shows (``workbench lab --open
4bf92f3577b3:8``), to copy into a ticket or a chat; whoever runs it gets JupyterLab on
``04_open.ipynb`` with ``$WORKBENCH_OPEN`` set, and that notebook's ``open_link``
shows the trace with the step selected.
"""

from __future__ import annotations

import os

from ..model import UsageError
from ..store import Store
from ._trace_view import TraceView

__all__ = ["ENV", "open_link", "parse_link"]

ENV = "WORKBENCH_OPEN"


def parse_link(link: str) -> tuple[str, int | None]:
    """``"4bf92f35:8"`` → ``("4bf92f35", 8)``; ``"4bf92f35"`` → ``("4bf92f35", None)``."""
    trace, sep, step = link.strip().partition(":")
    if not trace or (sep and not step.isdigit()):
        raise UsageError(f"not a link to a trace and step: {link!r}",
                         hint="TRACE[:STEP], e.g. 4bf92f3577b3:8 (a trace id or a unique "
                              "prefix, then a step number)")
    return trace, int(step) if sep else None


def open_link(store: Store, link: str | None = None) -> TraceView:
    """A ``TraceView`` of the link's trace with its step selected (and scrolled to in the
    waterfall); ``link`` defaults to ``$WORKBENCH_OPEN``."""
    link = link if link is not None else os.environ.get(ENV, "")
    trace, step = parse_link(link)
    view = TraceView(store, trace)
    if step is not None:
        tl = view.timeline
        at = [k for k in range(len(tl)) if int(tl.seq[k]) == step]
        if not at:
            raise UsageError(f"trace {view.source.trace_id} has no step {step}",
                             hint=f"its steps are {tl.span()[0]}–{tl.span()[1]}")
        view.select(tl.event_ids[at[0]])
    return view
