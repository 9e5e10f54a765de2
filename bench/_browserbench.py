"""The notebook views timed in the browser itself (``bench/notebook.py --browser``).

``workbench lab`` serves a scratch notebook on 127.0.0.1; Debian's headless Chromium,
driven by Playwright (no browser download), opens it and runs its cells. Every figure
is taken inside the page with ``performance.now()``: from the input event (a cell's
execution asked for, a scroll, a click, a key) until a ``MutationObserver`` sees the
element that answers it in the DOM, then one more animation frame (the frame that
paints it). The page is offline: a request leaving the machine fails the run.

* **first paint**: the cell ``TraceView(store, A)`` run, until the waterfall's rows are
  in its output (kernel, comms, the widgets' views, the rows built);
* **scroll**: the waterfall's list scrolled 75 rows, until its axis is fitted again
  (no kernel); **next page**: ▶ under it, until the next 200 rows are drawn;
* **fold** / **expand**: a parent's twisty, until its row shows ▸ (then ▾) again;
* **search**: a query typed (Enter), until the results list shows its first match;
* **pick**: the 500th result picked, until its row is drawn selected in the waterfall
  (another page of rows);
* **diff open**: the cell ``DiffView(store.trace(A), store.trace(B))`` run, until the
  frame with the diff's page has loaded; **diff pick**: a change near the end picked in
  the list, until the frame has loaded the page holding its row.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

TOKEN = secrets.token_urlsafe(24)   # a fresh one per run
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-quic", "--no-first-run", "--disable-default-apps",
                 "--mute-audio"]
SETUP, TRACE, DIFF = 0, 1, 2   # the notebook's cells


def _notebook(folder: Path, a: str, b: str) -> None:
    import nbformat

    cells = [
        "import os\nfrom workbench import Store\n"
        "from workbench.notebook import DiffView, TraceView, enable_offline\n"
        "enable_offline()   # once per kernel: the charts' JavaScript\n"
        f"store = Store(os.environ['WORKBENCH_STORE'])\nA, B = {a!r}, {b!r}",
        "view = TraceView(store, A)\nview.widget",
        "dv = DiffView(store.trace(A), store.trace(B))\ndv.widget",
    ]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, folder / "bench.ipynb")


def _env(work: Path) -> dict[str, str]:
    settings = work / "lab-settings" / "@jupyterlab" / "notebook-extension"
    settings.mkdir(parents=True)
    (settings / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    config = work / "jupyter-config"
    config.mkdir()
    (config / "jupyter_lab_config.json").write_text(
        json.dumps({"LabApp": {"expose_app_in_browser": True}}))
    return dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(work / "lab-settings"),
                JUPYTERLAB_WORKSPACES_DIR=str(work / "lab-workspaces"),
                JUPYTER_RUNTIME_DIR=str(work / "jupyter-runtime"),
                JUPYTER_CONFIG_DIR=str(config))


@contextmanager
def _lab(store: Path, folder: Path, work: Path) -> Iterator[str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = int(s.getsockname()[1])
    log = (work / "lab.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "workbench", "lab", "--store", str(store), "--dir", str(folder),
         "--port", str(port), "--token", TOKEN, "--no-browser"],
        cwd=work, env=_env(work), stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                raise SystemExit("workbench lab exited:\n" + (work / "lab.log").read_text())
            try:
                with urllib.request.urlopen(f"{base}/api/status?token={TOKEN}", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("JupyterLab did not answer within 120 s") from None
                time.sleep(0.3)
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


# -- in the page --------------------------------------------------------------------------
# ``until(root, ready)``: a promise of the ms from now until ``ready()`` returns truthy
# after a mutation under ``root`` (checked at once too), plus the frame that paints it
_UNTIL = """
window.wbUntil = (root, ready, act, limit) => new Promise((resolve, reject) => {
  let done = false;
  const t0 = performance.now();
  const finish = () => { if (done) return; done = true; obs.disconnect(); clearTimeout(timer);
    requestAnimationFrame(() => resolve(performance.now() - t0)); };
  const obs = new MutationObserver(() => { if (ready()) finish(); });
  obs.observe(root, {childList: true, subtree: true, attributes: true, characterData: true});
  const timer = setTimeout(() => { if (!done) { done = true; obs.disconnect();
    reject(new Error('no answer within ' + limit + ' ms')); } }, limit);
  act();
  if (ready()) finish();
});
window.wbCell = i => window.jupyterapp.shell.currentWidget.content.widgets[i].node;
window.wbRun = i => { const nb = window.jupyterapp.shell.currentWidget.content;
  nb.activeCellIndex = i; void window.jupyterapp.commands.execute('notebook:run-cell'); };
"""

_RUN_TRACE = """i => { const node = wbCell(i);
  const old = new Set(node.querySelectorAll('.wb-waterfall'));
  return wbUntil(node, () => Array.from(node.querySelectorAll('.wb-waterfall')).some(
    w => !old.has(w) && w.querySelector('.wb-wf-row')), () => wbRun(i), 300000); }"""

_RUN_DIFF = """i => { const node = wbCell(i);
  const old = new Set(node.querySelectorAll('.wb-diff-page iframe'));
  const loaded = new Set();
  return wbUntil(node, () => {
    for (const f of node.querySelectorAll('.wb-diff-page iframe')) if (!old.has(f) && !f.wbSeen) {
      f.wbSeen = true; f.addEventListener('load', () => { loaded.add(f);
        node.dataset.wbLoads = String(loaded.size); }); }
    return loaded.size > 0; }, () => wbRun(i), 300000); }"""

_WF = "wbCell(i).querySelector('.wb-waterfall')"

_SCROLL = f"""i => {{ const wf = {_WF}, box = wf.querySelector('.wb-wf-box'),
  head = wf.querySelector('.wb-wf-axis'), before = head.dataset.lo + ' ' + head.dataset.hi;
  const to = box.scrollTop + 75 * 20 < box.scrollHeight - box.clientHeight
    ? box.scrollTop + 75 * 20 : 0;
  return wbUntil(head, () => head.dataset.lo + ' ' + head.dataset.hi !== before,
                 () => {{ box.scrollTop = to; }}, 30000); }}"""

_NEXT_PAGE = f"""i => {{ const wf = {_WF};
  const first = () => {{ const r = wf.querySelector('.wb-wf-row'); return r && r.dataset.id; }};
  const before = first();
  const next = Array.from(wbCell(i).querySelectorAll('.wb-trace button'))
    .find(b => b.textContent.trim() === '▶');
  return wbUntil(wf, () => first() !== before, () => next.click(), 30000); }}"""

_TWISTY = f"""([i, id, want]) => {{ const wf = {_WF};
  const twisty = () => wf.querySelector('.wb-wf-row[data-id="' + id + '"] .wb-wf-twisty');
  const start = twisty();
  return wbUntil(wf, () => {{ const t = twisty(); return t && t !== start &&
    t.textContent === want; }}, () => start.click(), 30000); }}"""

_SEARCH = """([i, q]) => { const node = wbCell(i);
  const input = Array.from(node.querySelectorAll('.wb-trace input[type=text]'))
    .find(e => e.placeholder.startsWith('search this trace'));
  const list = node.querySelector('.wb-search-results select');
  const first = () => list.options.length ? list.options[0].textContent : '';
  const before = first();
  return wbUntil(node, () => first() !== before && list.offsetParent !== null, () => {
    input.focus(); input.value = q; input.dispatchEvent(new Event('input', {bubbles: true}));
    input.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', code: 'Enter',
                                                      keyCode: 13, bubbles: true}));
    input.dispatchEvent(new Event('change', {bubbles: true})); }, 30000); }"""

_PICK = f"""([i, n]) => {{ const node = wbCell(i), wf = {_WF};
  const list = node.querySelector('.wb-search-results select');
  const step = list.options[n].textContent.split(/\\s+/)[1];
  return wbUntil(wf, () => {{ const r = wf.querySelector('.wb-wf-sel');
    if (!r || r.querySelector('.wb-wf-label span:nth-child(2)').textContent
      .split(' ')[0] !== step) return false;
    const b = wf.querySelector('.wb-wf-box').getBoundingClientRect(),
          x = r.getBoundingClientRect();
    return x.top >= b.top - 1 && x.bottom <= b.bottom + 1; }},
    () => {{ list.selectedIndex = n; list.dispatchEvent(new Event('change', {{bubbles: true}}));
    }}, 30000); }}"""

_DIFF_PICK = """([i, n]) => { const node = wbCell(i);
  const list = node.querySelector('.wb-diff select');
  const old = new Set(node.querySelectorAll('.wb-diff-page iframe'));
  let loaded = false;
  return wbUntil(node, () => {
    for (const f of node.querySelectorAll('.wb-diff-page iframe')) if (!old.has(f) && !f.wbSeen) {
      f.wbSeen = true; f.addEventListener('load', () => { loaded = true;
        node.dataset.wbPicks = String(Number(node.dataset.wbPicks || 0) + 1); }); }
    return loaded; }, () => { list.selectedIndex = n;
      list.dispatchEvent(new Event('change', {bubbles: true})); }, 30000); }"""

_KERNEL = """() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return k ? k.id + ' ' + k.status : null; }"""


def _stable_idle_kernel(page: Any, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    seen, since = None, time.monotonic()
    while time.monotonic() < deadline:
        state = page.evaluate(_KERNEL)
        if state != seen:
            seen, since = state, time.monotonic()
        elif state and state.endswith(" idle") and time.monotonic() - since >= 3:
            return
        page.wait_for_timeout(250)
    raise SystemExit(f"no stable idle kernel after {timeout:.0f} s (last: {seen})")


def _idle(page: Any, timeout: float = 300) -> None:
    """The kernel idle for half a second (the last round's messages handled)."""
    deadline = time.monotonic() + timeout
    since = None
    while time.monotonic() < deadline:
        state = page.evaluate(_KERNEL) or ""
        if state.endswith(" idle"):
            since = since or time.monotonic()
            if time.monotonic() - since >= 0.5:
                return
        else:
            since = None
        page.wait_for_timeout(100)
    raise SystemExit("the kernel stayed busy")


_STATE = """i => { const node = wbCell(i), sel = node.querySelector('.wb-wf-sel');
  const list = node.querySelector('.wb-search-results select');
  return {selected: sel && sel.textContent, picked: list && list.selectedIndex,
          option: list && list.selectedIndex >= 0 && list.options[list.selectedIndex]
                  .textContent, text: node.innerText.slice(-1500)}; }"""


def _timed(page: Any, what: str, script: str, arg: Any, cell: int) -> float:
    """Seconds ``script`` measured in the page; a timeout names the step and the page's
    state (and leaves a screenshot in the working folder)."""
    try:
        return float(page.evaluate(script, arg)) / 1e3
    except Exception as e:   # a Playwright error: the page did not answer
        state = page.evaluate(_STATE, cell)
        raise SystemExit(f"{what}: {e}\nstate: {json.dumps(state, indent=1)}") from None


def _chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        raise SystemExit("--browser needs Debian's chromium (`apt-get install chromium`)")
    return path


def measure(store: Path, a: str, b: str, repeat: int, work: Path,
            cli: Callable[[], dict[str, float]]) -> list[dict[str, float]]:
    """``repeat`` rounds, each: ``cli()`` (the CLI's figures), then the browser's."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        raise SystemExit("--browser needs the playwright Python package (the lab-test "
                         "extra)") from None
    folder = work / "nb"
    folder.mkdir()
    _notebook(folder, a, b)
    rounds: list[dict[str, float]] = []
    errors: list[str] = []
    outside: list[str] = []
    with _lab(store, folder, work) as base, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=_chromium(), headless=True,
                                     args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000})

            def gate(route: Any) -> None:
                url = route.request.url
                if url.startswith(base) or url.startswith(("data:", "blob:", "about:")):
                    route.continue_()
                else:
                    outside.append(url)
                    route.abort()

            context.route("**/*", gate)
            page = context.new_page()
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(f"{base}/lab/tree/bench.ipynb?reset&token={TOKEN}")
            _stable_idle_kernel(page)
            page.evaluate("() => { " + _UNTIL + " }")
            page.evaluate("i => wbRun(i)", SETUP)
            page.wait_for_function(
                "() => wbCell(0).querySelector('.jp-InputPrompt').textContent.includes('[1]')",
                timeout=300_000)
            _idle(page)
            for k in range(repeat):
                r = dict(cli())
                r["first paint"] = _timed(page, "first paint", _RUN_TRACE, TRACE, TRACE)
                _idle(page)
                r["scroll"] = _timed(page, "scroll", _SCROLL, TRACE, TRACE)
                r["next page"] = _timed(page, "next page", _NEXT_PAGE, TRACE, TRACE)
                _idle(page)
                parent = page.evaluate(f"""i => Array.from({_WF}.querySelectorAll(
                    '.wb-wf-row')).find(r => r.querySelector('.wb-wf-twisty').textContent
                    === '▾' && r.dataset.id !== 'root').dataset.id""", TRACE)
                r["fold"] = _timed(page, "fold", _TWISTY, [TRACE, parent, "▸"], TRACE)
                _idle(page)
                r["expand"] = _timed(page, "expand", _TWISTY, [TRACE, parent, "▾"], TRACE)
                _idle(page)
                r["search"] = _timed(page, "search", _SEARCH, [TRACE, f"tool{3 + k % 4}"], TRACE)
                _idle(page)
                r["pick"] = _timed(page, "pick", _PICK, [TRACE, 499], TRACE)
                _idle(page)
                r["diff open"] = _timed(page, "diff open", _RUN_DIFF, DIFF, DIFF)
                _idle(page)
                n = page.evaluate("i => wbCell(i).querySelector('.wb-diff select')"
                                  ".options.length", DIFF)
                r["diff pick"] = _timed(page, "diff pick", _DIFF_PICK, [DIFF, max(0, n - 41)], DIFF)
                _idle(page)
                rounds.append(r)
        finally:
            browser.close()
    if errors or outside:
        raise SystemExit(f"errors in the page: {errors[:3]}; requests leaving the machine: "
                         f"{outside[:3]}")
    return rounds
