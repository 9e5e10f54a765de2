"""``Waterfall``: the rows of a trace's span tree with their bars on a time axis.

One row per event, indented by its parent (a twisty folds a parent's descendants), a
bar from its start to its end. The time axis is fitted to the rows in sight: as the
list scrolls, the axis spans the rows on screen that have no children on screen, so
a root lasting hours never sets the scale for the milliseconds under it; such a long
bar is drawn clipped (a ragged edge) with its length written on it. Rows on the
critical path are marked, highlighted rows outlined, failed ones red; the picked row
is scrolled into sight. Self time and total time are written on every row.

The code is inline ES module text in the widget's state (anywidget): nothing is loaded
from a network. The kernel sends one page of rows (``rows``); a click picks a row
(``selected``), a twisty sends ``{"toggle": id}``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import anywidget
import traitlets as t

__all__ = ["ROW_PX", "Waterfall"]

ROW_PX = 20

_ESM = r"""
const ROW = __ROW__;
function fmt(s) {
  if (s === null || s === undefined) return '-';
  if (s >= 100) return Math.round(s).toLocaleString('en') + ' s';
  if (s >= 1) return s.toFixed(2) + ' s';
  if (s >= 0.001) return (s * 1e3).toFixed(1) + ' ms';
  return (s * 1e6).toFixed(0) + ' µs';
}
function render({ model, el }) {
  el.classList.add('wb-waterfall');
  const head = document.createElement('div'); head.className = 'wb-wf-axis';
  const box = document.createElement('div'); box.className = 'wb-wf-box';
  const inner = document.createElement('div'); inner.className = 'wb-wf-inner';
  box.appendChild(inner); el.appendChild(head); el.appendChild(box);
  let rows = [], nodes = [];
  function visible() {
    const first = Math.max(0, Math.floor(box.scrollTop / ROW));
    const last = Math.min(rows.length, Math.ceil((box.scrollTop + box.clientHeight) / ROW));
    return [first, Math.max(first, last)];
  }
  function fit() {   // the axis: rows in sight with no child in sight set it
    const [a, b] = visible();
    let lo = Infinity, hi = -Infinity, any = false;
    for (let pass = 0; pass < 2 && !any; pass++) {
      for (let i = a; i < b; i++) {
        const r = rows[i];
        if (r.start === null) continue;
        const parentInSight = i + 1 < b && rows[i + 1].depth > r.depth;
        if (pass === 0 && parentInSight) continue;
        lo = Math.min(lo, r.start); hi = Math.max(hi, r.end); any = true;
      }
    }
    if (!any) { lo = 0; hi = 1; }
    if (hi <= lo) { hi = lo + 1e-6; }
    return [lo, hi];
  }
  function draw() {
    const [lo, hi] = fit();
    const span = hi - lo;
    head.dataset.lo = lo; head.dataset.hi = hi;
    head.innerHTML = '<span class=wb-wf-l>step · event</span><span class=wb-wf-t>' +
      '<span>' + fmt(lo) + '</span><span>' + fmt(lo + span / 2) + '</span><span>' +
      fmt(hi) + '</span></span>';
    const [a, b] = visible();
    for (let i = Math.max(0, a - 20); i < Math.min(rows.length, b + 20); i++) {
      const r = rows[i], bar = nodes[i].bar;
      if (r.start === null) { bar.style.display = 'none'; continue; }
      const x0 = (r.start - lo) / span, x1 = (r.end - lo) / span;
      const left = Math.max(0, x0), right = Math.min(1, x1);
      bar.style.display = right < 0 || left > 1 ? 'none' : '';
      bar.style.left = (left * 100) + '%';
      bar.style.width = Math.max(0.3, (right - left) * 100) + '%';
      bar.classList.toggle('wb-wf-cut-l', x0 < 0);
      bar.classList.toggle('wb-wf-cut-r', x1 > 1);
      bar.dataset.clipped = (x0 < 0 || x1 > 1) ? '1' : '';
      bar.textContent = (x0 < 0 || x1 > 1) ? fmt(r.end - r.start) : '';
    }
  }
  function build() {
    rows = model.get('rows') || [];
    inner.innerHTML = ''; nodes = [];
    inner.style.height = (rows.length * ROW) + 'px';
    const sel = model.get('selected');
    rows.forEach((r, i) => {
      const row = document.createElement('div');
      row.className = 'wb-wf-row' + (r.crit ? ' wb-wf-crit' : '') + (r.hl ? ' wb-wf-hl' : '') +
        (r.status === 'error' ? ' wb-wf-err' : '') + (r.id === sel ? ' wb-wf-sel' : '');
      row.style.top = (i * ROW) + 'px';
      row.dataset.id = r.id;
      const label = document.createElement('div'); label.className = 'wb-wf-label';
      label.style.paddingLeft = (4 + Math.min(r.depth, 16) * 12) + 'px';
      const twisty = document.createElement('span'); twisty.className = 'wb-wf-twisty';
      twisty.textContent = r.kids ? (r.folded ? '▸' : '▾') : ' ';
      if (r.kids) twisty.addEventListener('click', (ev) => {
        ev.stopPropagation(); model.send({toggle: r.id}); });
      const text = document.createElement('span');
      text.textContent = r.seq + ' ' + r.name + (r.folded ? ' (+' + r.kids + ' inside)' : '');
      text.title = r.kind + ' ' + r.name + ' · ' + r.status;
      const times = document.createElement('span'); times.className = 'wb-wf-times';
      times.textContent = fmt(r.self) + ' / ' + fmt(r.total);
      times.title = 'self time / total time';
      label.appendChild(twisty); label.appendChild(text); label.appendChild(times);
      const lane = document.createElement('div'); lane.className = 'wb-wf-lane';
      const bar = document.createElement('div'); bar.className = 'wb-wf-bar wb-wf-' + r.kind;
      lane.appendChild(bar);
      row.appendChild(label); row.appendChild(lane);
      row.addEventListener('click', () => { model.set('selected', r.id); model.save_changes(); });
      inner.appendChild(row); nodes.push({row, bar});
    });
    draw(); reveal();
  }
  function reveal() {   // the picked row into sight inside the box (nearest edge)
    const sel = model.get('selected');
    nodes.forEach((n, i) => n.row.classList.toggle('wb-wf-sel', rows[i].id === sel));
    const i = rows.findIndex(r => r.id === sel);
    if (i < 0) return;
    const top = i * ROW;
    if (top < box.scrollTop) box.scrollTop = top;
    else if (top + ROW > box.scrollTop + box.clientHeight)
      box.scrollTop = top + ROW - box.clientHeight;
  }
  let pending = false;
  box.addEventListener('scroll', () => {
    if (pending) return; pending = true;
    requestAnimationFrame(() => { pending = false; draw(); });
  });
  // a box resized (the window, a folded panel) shows other rows: fit the axis again
  if (typeof ResizeObserver !== 'undefined') new ResizeObserver(() => draw()).observe(box);
  model.on('change:rows', build);
  model.on('change:selected', () => { reveal(); draw(); });
  build();
}
export default { render };
""".replace("__ROW__", str(ROW_PX))

_CSS = """
.wb-waterfall{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;width:100%;
  border:1px solid #d0d7de;border-radius:4px;min-width:0}
.wb-wf-axis{display:flex;background:#f6f8fa;border-bottom:1px solid #d0d7de;color:#57606a}
.wb-wf-axis .wb-wf-l{flex:0 0 42%;padding:2px 6px}
.wb-wf-axis .wb-wf-t{flex:1;display:flex;justify-content:space-between;padding:2px 4px}
.wb-wf-box{position:relative;max-height:420px;overflow-y:auto;overflow-x:hidden}
.wb-wf-inner{position:relative}
.wb-wf-row{position:absolute;left:0;right:0;height:20px;display:flex;cursor:pointer;
  box-sizing:border-box}
.wb-wf-row:hover{background:#f6f8fa}
.wb-wf-label{flex:0 0 42%;display:flex;gap:4px;align-items:center;overflow:hidden;
  white-space:nowrap;box-sizing:border-box}
.wb-wf-label>span:nth-child(2){overflow:hidden;text-overflow:ellipsis;flex:1;min-width:0}
.wb-wf-times{color:#57606a;font-size:11px;padding-right:4px}
.wb-wf-twisty{width:12px;display:inline-block;text-align:center}
.wb-wf-lane{flex:1;position:relative;border-left:1px solid #d0d7de;min-width:0}
.wb-wf-bar{position:absolute;top:4px;height:12px;border-radius:2px;background:#0969da;
  color:#fff;font-size:10px;line-height:12px;overflow:hidden;white-space:nowrap;
  padding:0 3px;box-sizing:border-box}
.wb-wf-llm_call{background:#8250df}.wb-wf-tool_call{background:#1a7f37}
.wb-wf-http{background:#bf8700}.wb-wf-agent{background:#8250df;opacity:.75}
.wb-wf-cut-r{border-right:3px dashed #fff}.wb-wf-cut-l{border-left:3px dashed #fff}
.wb-wf-err .wb-wf-bar{background:#cf222e}
.wb-wf-crit .wb-wf-label{box-shadow:inset 3px 0 0 #bf8700}
.wb-wf-crit .wb-wf-bar{outline:2px solid #bf8700}
.wb-wf-hl{background:#fff8c5}
.wb-wf-sel{background:#ddf4ff !important;outline:1px solid #0969da}
"""


class Waterfall(anywidget.AnyWidget):
    """State: ``rows`` (one dict per row: id, seq, depth, name, kind, status, start, end,
    self, total, kids, folded, crit, hl) and ``selected`` (an event id, or None)."""

    _esm = t.Unicode(_ESM).tag(sync=True)
    _css = t.Unicode(_CSS).tag(sync=True)
    rows = t.List(t.Dict()).tag(sync=True)
    selected = t.Unicode(None, allow_none=True).tag(sync=True)

    def __init__(self, on_toggle: Callable[[str], Any], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.on_msg(lambda _, content, buffers: on_toggle(content["toggle"])
                    if isinstance(content, dict) and "toggle" in content else None)
