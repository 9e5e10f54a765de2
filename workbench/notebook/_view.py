"""What every view is: state in traitlets, drawn by an ipywidgets box.

A view is not a widget subclass: it holds its state (what is selected, highlighted,
running) as traitlets that code and tests read and set, and ``widget`` is the box the
notebook draws. Displaying a view displays its box.
"""

from __future__ import annotations

from typing import Any

import traitlets as t

__all__ = ["View"]


class View(t.HasTraits):
    """Base of the views: ``widget`` is the ipywidgets box that draws the view."""

    widget: Any

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget._repr_mimebundle_(**kwargs)
