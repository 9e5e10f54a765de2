"""``Scroller``: brings part of a view into sight in the browser, on the kernel's word.

A view changed by a click elsewhere (a witness button under the findings, a change
picked in a diff's list) may sit a screen away from where the user clicked. Each view
holds one ``Scroller`` (an invisible anywidget inside its box); ``scroll(css)`` asks
the browser to scroll the element ``css`` names inside that view (the view itself when
empty) into sight: the nearest edge, so a view already on screen does not move. The
code is inline ES module text in the widget's state: nothing is loaded from a network.
State for tests and code: ``target`` (the last request) and ``requests`` (how many).
"""

from __future__ import annotations

import anywidget
import traitlets as t

__all__ = ["Scroller"]

_ESM = """
function scroll(el, css) {
  const view = el.closest('.wb-view') || el.parentElement;
  if (!view) return;
  const target = css ? view.querySelector(css) : view;
  if (!target) return;
  target.scrollIntoView({block: 'nearest', inline: 'nearest'});
}
function render({ model, el }) {
  el.style.display = 'none';
  model.on('change:requests', () => {
    // after the kernel's other changes of this round have been drawn
    requestAnimationFrame(() => scroll(el, model.get('target')));
  });
}
export default { render };
"""


class Scroller(anywidget.AnyWidget):
    """Invisible; ``scroll(css)`` scrolls ``css`` (inside the view) into sight."""

    _esm = t.Unicode(_ESM).tag(sync=True)
    target = t.Unicode("").tag(sync=True)
    requests = t.Int(0).tag(sync=True)

    def scroll(self, css: str = "") -> None:
        """Scroll the element ``css`` names inside the view (or the view) into sight."""
        with self.hold_sync():
            self.target = css
            self.requests += 1
