"""What every view is: state in traitlets, drawn by an ipywidgets box.

A view is not a widget subclass: it holds its state (what is selected, highlighted,
running) as traitlets that code and tests read and set, and ``widget`` is the box the
notebook draws. Displaying a view displays its box.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import traitlets as t

__all__ = ["View", "busy"]


@contextmanager
def busy(buttons: Sequence[Any], text: str = "running…") -> Iterator[None]:
    """Long work under way: the buttons say ``text`` and are disabled until it ends
    (raised or not). Widget state is sent to the browser as it changes, so the user
    sees this at once, before the work starts."""
    saved = [(b.description, b.icon, b.disabled) for b in buttons]
    for b in buttons:
        b.disabled = True
    if buttons:
        buttons[0].description, buttons[0].icon = text, "hourglass-half"
    try:
        yield
    finally:
        for b, (description, icon, disabled) in zip(buttons, saved, strict=True):
            b.description, b.icon, b.disabled = description, icon, disabled


class View(t.HasTraits):
    """Base of the views: ``widget`` is the ipywidgets box that draws the view."""

    widget: Any

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)
