"""The triage notebook in a real browser: `workbench lab` on 127.0.0.1 with a token,
Debian's Chromium driven headless by Playwright (no browser download), every cell run,
the widgets and the Vega chart rendered, one finding selected and its witnesses
highlighted through a kernel round trip, the first diff entry opened and its row
scrolled to, a zoomed timeline window filling the axis, Promote pressed once over the
repository's own fixtures (a fresh clone: "unchanged", no note asked), the notebook
saved and `git status` clean, no news toast, screenshots saved, and no request leaving
the machine (the charts and widgets load nothing from a CDN); then, in a cell of its own, a diff past
5,000 rows drawn whose change near the end, picked in the list, is brought into view
on its page.

CI runs it (``CI=true``: a missing Chromium or Playwright fails the test); locally it
is skipped when they are missing and deselected with ``-m 'not browser'``. The
screenshot goes to ``test-artifacts/notebook/`` (or ``$WORKBENCH_ARTIFACTS``); the
test prints its path.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.lab_support import running_lab, status
from tests.support import REPO

pytestmark = pytest.mark.browser

NOTEBOOK = "01_triage.ipynb"
TOKEN = "workbench-browser-test"
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--disable-quic", "--no-first-run", "--disable-default-apps",
                 "--mute-audio"]
SETTINGS = {  # JupyterLab user settings for the run: every cell rendered (the news toast
    # and saving are left as a user has them: `workbench lab` must deal with both)
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
}
GIT = ["git", "-c", "user.name=workbench-test", "-c", "user.email=test@example.invalid",
       "-c", "commit.gpgsign=false", "-c", "init.defaultBranch=main"]


def _missing(what: str) -> None:
    """In CI a missing browser is a failure (the test must run there); locally, a skip."""
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"{what} (CI=true: the browser test must run in CI)")
    pytest.skip(what)


def _chromium() -> str:
    path = shutil.which("chromium")
    if path is None:
        _missing("Debian's chromium is not installed (`apt-get install chromium`; .ci/run "
                 "installs it)")
    assert path is not None
    return path


def _artifacts() -> Path:
    out = Path(os.environ.get("WORKBENCH_ARTIFACTS") or REPO / "test-artifacts") / "notebook"
    out.mkdir(parents=True, exist_ok=True)
    return out


def _project(tmp: Path) -> Path:
    """A fresh clone, as far as the notebook sees one: the notebooks beside the example
    traces and the repository's fixtures, committed in a git repository of their own
    with the repository's .gitignore, so a save is checked against git without ever
    touching the repository's notebooks."""
    shutil.copytree(REPO / "notebooks", tmp / "notebooks",
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__"))
    shutil.copytree(REPO / "traces" / "fixtures", tmp / "fixtures")
    (tmp / "traces").mkdir()
    (tmp / "traces" / "examples").symlink_to(REPO / "traces" / "examples")
    ignore = (REPO / ".gitignore").read_text()
    (tmp / ".gitignore").write_text(ignore + "\n# the test's own files\n/store/\n/lab-*/\n"
                                    "/jupyter-*/\n/lab.log\n")
    for cmd in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "clone"]):
        subprocess.run([*GIT, *cmd], cwd=tmp, check=True, capture_output=True)
    return tmp / "notebooks"


def _git_status(tmp: Path) -> str:
    return subprocess.run([*GIT, "status", "--porcelain", "--untracked-files=all"], cwd=tmp,
                          check=True, capture_output=True, text=True).stdout


def _jupyter_env(tmp: Path) -> dict[str, str]:
    settings = tmp / "lab-settings"
    for name, value in SETTINGS.items():
        plugin, file = name.rsplit("/", 1)
        (settings / plugin).mkdir(parents=True, exist_ok=True)
        (settings / plugin / file).write_text(json.dumps(value))
    config = tmp / "jupyter-config"
    config.mkdir()
    # the test reads the app's state (kernel, cells) through window.jupyterapp
    (config / "jupyter_lab_config.json").write_text(
        json.dumps({"LabApp": {"expose_app_in_browser": True}}))
    env = dict(os.environ, JUPYTERLAB_SETTINGS_DIR=str(settings),
               JUPYTERLAB_WORKSPACES_DIR=str(tmp / "lab-workspaces"),
               JUPYTER_RUNTIME_DIR=str(tmp / "jupyter-runtime"), JUPYTER_CONFIG_DIR=str(config),
               WORKBENCH_FIXTURES="../fixtures")  # beside the copy, from the kernel's folder
    env.pop("WORKBENCH_STORE", None)
    return env


@pytest.fixture
def lab(tmp_path: Path) -> Iterator[str]:
    """`workbench lab` serving a copy of the notebooks; yields its base URL."""
    if shutil.which("git") is None:
        _missing("git is not installed (the test checks `git status` after a save)")
    folder = _project(tmp_path)
    with running_lab(tmp_path, folder, TOKEN, _jupyter_env(tmp_path)) as server:
        server.wait(lambda: status(server.base, TOKEN, timeout=2) == 200,
                    "answer from JupyterLab")
        yield server.base


# -- the page ----------------------------------------------------------------------------
_KERNEL = """() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  return k ? k.id + ' ' + k.status : null; }"""
_CELLS = """() => { const nb = window.jupyterapp.shell.currentWidget.content;
  const cells = nb.widgets.filter(c => c.model.type === 'code');
  const errors = [];
  for (const c of cells) for (const o of c.model.outputs.toJSON())
    if (o.output_type === 'error') errors.push(o.ename + ': ' + o.evalue);
  return {cells: cells.length, done: cells.filter(c => c.model.executionCount !== null).length,
          errors: errors}; }"""


def _wait(page: Any, what: str, fn: str, timeout: float, arg: Any = None) -> Any:
    """Poll ``fn`` in the page until it returns something truthy (no timing asserted)."""
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(fn, arg) if arg is not None else page.evaluate(fn)
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        page.wait_for_timeout(250)


def _stable_idle_kernel(page: Any, timeout: float = 90) -> str:
    """JupyterLab may replace the first kernel right after opening; wait until one kernel
    id has been idle for 3 s."""
    deadline = time.monotonic() + timeout
    seen, since = None, time.monotonic()
    while time.monotonic() < deadline:
        state = page.evaluate(_KERNEL)
        if state != seen:
            seen, since = state, time.monotonic()
        elif state and state.endswith(" idle") and time.monotonic() - since >= 3:
            return str(state.split()[0])
        page.wait_for_timeout(250)
    raise AssertionError(f"no stable idle kernel after {timeout:.0f} s (last: {seen})")


def test_triage_notebook_runs_and_renders_in_chromium(lab: str, tmp_path: Path) -> None:
    chromium = _chromium()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _missing("the playwright Python package is not installed (the notebook test extra)")
    outside: list[str] = []
    page_errors: list[str] = []
    shots = _artifacts()
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 1000})

            def gate(route: Any) -> None:  # the machine is offline for the page
                url = route.request.url
                if url.startswith(lab) or url.startswith(("data:", "blob:", "about:")):
                    route.continue_()
                else:
                    outside.append(url)
                    route.abort()

            context.route("**/*", gate)
            page = context.new_page()
            page.on("pageerror", lambda e: page_errors.append(str(e)))
            page.goto(f"{lab}/lab/tree/{NOTEBOOK}?reset&token={TOKEN}")
            _stable_idle_kernel(page)
            page.evaluate("() => { void window.jupyterapp.commands.execute("
                          "'notebook:run-all-cells'); }")
            state = _wait(page, "every cell to run", f"""() => {{ const s = ({_CELLS})();
                const k = ({_KERNEL})();
                return s.done === s.cells && k && k.endsWith(' idle') ? s : null; }}""", 240)
            assert state["errors"] == [], f"cells raised: {state['errors']}"
            _check_rendered(page)
            _select_a_finding(page)
            _first_diff_entry_opens(page)
            _zoomed_window_fills_the_axis(page)
            _waterfall(page)
            _promote_on_first_press(page)
            _save_leaves_git_clean(page, tmp_path)
            _no_news_toast(page)
            _layout_at_1000_px(page)
            _screenshots(page, shots)
            _long_diff_turns_to_the_row(page, shots)
        finally:
            browser.close()
    assert outside == [], f"the page tried to load from outside the machine: {outside[:5]}"
    assert page_errors == [], f"errors in the page: {page_errors[:5]}"


NB = "window.jupyterapp.shell.currentWidget.node"


def _check_rendered(page: Any) -> None:
    nb = NB
    _wait(page, "the timeline's Vega chart", f"""() => {{
        const v = {nb}.querySelector('.wb-trace .vega-embed');
        return v && v.querySelector('svg.marks, canvas') ? true : null; }}""", 60)
    for css, what in ((".wb-trace .wb-wf-row", "the waterfall"),
                      (".wb-findings select option", "the findings"),
                      (".wb-minimize .widget-html", "the minimizer's result"),
                      (".wb-diff iframe", "the diff"),
                      (".wb-redact", "the redaction view"), (".wb-promote", "the promotion view")):
        _wait(page, what, f"() => {nb}.querySelectorAll({json.dumps(css)}).length > 0", 60)
    text = page.evaluate(f"() => {nb}.innerText")
    for needle in ("5 finding(s): 4 error(s), 1 warning(s)", "minimized 4bf92f3577b3 from 14 to 3",
                   "approval-before-archive",
                   # the planted secrets and personal data of the bundled incident
                   "7 value(s) replaced (bearer 4, email 1, openai-api-key 1, person-name 1)"):
        assert needle in text, f"{needle!r} is not on the page"
    for broken in ("Error displaying widget", "Error loading script", "Failed to load model",
                   "Javascript Error"):
        assert broken not in text, f"the page shows {broken!r}"
    frame = page.frame_locator(".wb-diff iframe")
    assert frame.locator("tr.changed").count() > 0, "the diff shows no changed rows"


def _select_a_finding(page: Any) -> None:
    """Pick the `archive-owned-only` finding at step 8 in the list: the kernel highlights
    its witnesses (steps 8 and 2) in the timeline and shows step 8 in the detail pane; the
    finding shows the rule's condition and the offending value as stored (team-b), and
    its witness "step 2 · list_projects" is a button that shows that event."""
    findings = page.locator(".wb-findings select")
    labels = [" ".join(t.split()) for t in findings.locator("option").all_inner_texts()]
    index = next(i for i, t in enumerate(labels) if "e3cd8e36" in t and "step 8 " in t)
    findings.select_option(index=index)
    nb = NB
    _wait(page, "the witnesses highlighted in the timeline", f"""() => {{
        const t = {nb}.querySelector('.wb-trace').innerText;
        return t.includes('highlighted: 2 event(s), archive-owned-only') &&
               t.includes('p18 (args.project_id) came from list_projects at step 2'); }}""", 30)
    _wait(page, "the chart redrawn with the highlight", f"""() => {{
        const v = {nb}.querySelector('.wb-trace .vega-embed');
        return v && v.querySelector('svg.marks, canvas') ? true : null; }}""", 30)
    rules = page.evaluate(f"() => {nb}.querySelector('.wb-rules').innerText")
    assert "the rule's condition" in rules and "source_where" in rules, rules[-1500:]
    offending = page.evaluate(f"""() => Array.from({nb}.querySelectorAll(
        '.wb-rules tr.wb-offending'), r => r.innerText)""")
    assert any("team-b" in r for r in offending), offending
    # the timeline is a screen above the findings: the witness button brings it into
    # sight (where nothing visible would happen otherwise)
    button = page.locator(".wb-rules button").filter(has_text="step 2 · list_projects")
    button.scroll_into_view_if_needed()
    assert not page.evaluate(_IN_SIGHT, ".wb-trace .wb-detail"), \
        "the timeline's detail is already in sight: the test proves nothing"
    button.click()
    _wait(page, "the witness shown in the timeline", f"""() => {nb}.querySelector('.wb-trace')
        .innerText.includes('step 2 · tool_call list_projects')""", 30)
    _wait(page, "the timeline's detail scrolled into sight",
          f"() => ({_IN_SIGHT})('.wb-trace .wb-detail')", 30)


# is the element (css, inside the notebook) on screen: inside the notebook's scrolled
# box and the window, by at least 40 px
_IN_SIGHT = f"""css => {{
    const e = {NB}.querySelector(css);
    if (!e) return false;
    const r = e.getBoundingClientRect();
    const box = {NB}.querySelector('.jp-WindowedPanel-outer') || {NB};
    const b = box.getBoundingClientRect();
    const top = Math.max(r.top, b.top, 0);
    const bottom = Math.min(r.bottom, b.bottom, window.innerHeight);
    return bottom - top >= Math.min(40, r.height); }}"""


def _first_diff_entry_opens(page: Any) -> None:
    """Nothing is shown selected until something is: a click on the first entry opens
    it, and the page in the frame scrolls to that change's row (outlined)."""
    changes = page.locator(".wb-diff select").first
    assert changes.evaluate("s => s.selectedIndex") == -1, "an entry is shown selected"
    changes.select_option(index=0)
    _wait(page, "the first change opened", f"""() => {NB}.querySelector('.wb-diff')
        .innerText.includes('A step 0 → B step 0')""", 30)
    frame = page.frame_locator(".wb-diff iframe")
    deadline = time.monotonic() + 30
    while frame.locator("tr[style*='outline']").count() != 1:
        if time.monotonic() > deadline:
            raise AssertionError("the picked change's row is not outlined in the page")
        page.wait_for_timeout(250)
    # in sight: the frame in the notebook, and the row in the frame
    _wait(page, "the diff's page scrolled into sight",
          f"() => ({_IN_SIGHT})('.wb-diff .wb-diff-page iframe')", 30)
    row = frame.locator("tr[style*='outline']")
    deadline = time.monotonic() + 30
    while not row.evaluate("r => { const b = r.getBoundingClientRect(); "
                           "return b.top >= 0 && b.bottom <= window.innerHeight; }"):
        if time.monotonic() > deadline:
            raise AssertionError("the picked change's row is outside the frame's view")
        page.wait_for_timeout(250)
    # the renamed endpoint is one change, not an addition and a removal
    labels = [" ".join(t.split()) for t in changes.locator("option").all_inner_texts()]
    assert any(t.startswith("~ step 3 → 3 http GET /projects") for t in labels), labels
    assert not any(t.endswith(("GET /projects (only in B)", "GET /v1/projects (only in A)"))
                   for t in labels), labels


_BARS = f"""() => {{
    const svg = {NB}.querySelector('.wb-trace .vega-embed svg');
    if (!svg) return null;
    const bars = Array.from(svg.querySelectorAll('g.mark-rect.role-mark path'),
                            p => p.getBoundingClientRect()).filter(r => r.width > 0);
    const axes = Array.from(svg.querySelectorAll('g.role-axis-domain line, g.role-axis-domain path'),
                            p => p.getBoundingClientRect().width);
    if (!bars.length || !axes.length) return null;
    const lo = Math.min(...bars.map(r => r.left)), hi = Math.max(...bars.map(r => r.right));
    return {{bars: bars.length, ratio: (hi - lo) / Math.max(...axes)}}; }}"""


def _run_in_kernel(page: Any, code: str) -> None:
    page.evaluate("""code => { const k = window.jupyterapp.shell.currentWidget.sessionContext
        .session.kernel; k.requestExecute({code: code, silent: false, store_history: false}); }""",
                  code)


def _zoomed_window_fills_the_axis(page: Any) -> None:
    """Steps 8–13 of the incident (from about 4 s in): the axis is the window's extent,
    so the drawn bars span most of it (from zero they would fill about half)."""
    _run_in_kernel(page, "timeline.set_window(8, 13)")
    _wait(page, "the window redrawn", f"""() => {NB}.querySelector('.wb-trace')
        .innerText.includes('steps 8–13: drawing 6 events')""", 30)
    got = _wait(page, "six bars drawn", f"() => {{ const b = ({_BARS})(); "
                "return b && b.bars === 6 ? b : null; }", 30)
    assert got["ratio"] > 0.85, f"the zoomed window's bars span {got['ratio']:.0%} of the axis"
    _run_in_kernel(page, "timeline.set_window(0, 13)")
    _wait(page, "the whole trace again", f"""() => {NB}.querySelector('.wb-trace')
        .innerText.includes('steps 0–13: drawing 14 events')""", 30)


_WF = f"{NB}.querySelector('.wb-trace .wb-waterfall')"


def _waterfall(page: Any) -> None:
    """The span tree as a waterfall: a row per event; a click on a row selects it
    (through the kernel); in a box three rows high, the picked row is scrolled into
    sight, and the axis fits the rows in sight: the root, whose children are in sight,
    is drawn clipped with its length written instead of setting the scale."""
    _wait(page, "the waterfall's rows", f"() => {_WF} && "
          f"{_WF}.querySelectorAll('.wb-wf-row').length === 14", 30)
    page.locator(".wb-trace .wb-wf-row").filter(has_text="list_projects").first.click()
    _wait(page, "a row picked in the waterfall", f"""() => {NB}.querySelector('.wb-trace')
        .innerText.includes('step 2 · tool_call list_projects')""", 30)
    page.evaluate(f"() => {{ {_WF}.querySelector('.wb-wf-box').style.maxHeight = '60px'; }}")
    _run_in_kernel(page, "timeline.select(timeline.timeline.event_ids[-1])")
    _wait(page, "the picked row scrolled into sight in the waterfall", f"""() => {{
        const box = {_WF}.querySelector('.wb-wf-box'), row = {_WF}.querySelector('.wb-wf-sel');
        if (!row) return false;
        const b = box.getBoundingClientRect(), r = row.getBoundingClientRect();
        return box.scrollTop > 0 && r.top >= b.top - 1 && r.bottom <= b.bottom + 1; }}""", 30)
    page.evaluate(f"""() => {{ const box = {_WF}.querySelector('.wb-wf-box');
        box.scrollTop = 0; box.dispatchEvent(new Event('scroll')); }}""")
    root = _wait(page, "the root drawn clipped at the top", f"""() => {{
        const bar = {_WF}.querySelector('.wb-wf-row .wb-wf-bar');
        return bar && bar.dataset.clipped === '1' ? bar.textContent : null; }}""", 30)
    assert re.search(r"\d(\.\d+)? (s|ms)$", root), root
    page.evaluate(f"() => {{ {_WF}.querySelector('.wb-wf-box').style.maxHeight = ''; }}")
    # every row in sight again (the box resized): the axis reaches the trace's last end
    _wait(page, "the axis fitted again to all the rows", f"""() => {{
        const hi = parseFloat({_WF}.querySelector('.wb-wf-axis').dataset.hi);
        return hi > 9 ? hi : null; }}""", 30)


def _promote_on_first_press(page: Any) -> None:
    """The notebook's Promote over the repository's fixtures, promoted from another store
    with another key: the same content, so "unchanged", not NOTE_REQUIRED."""
    page.locator(".wb-promote button").filter(
        has_text=re.compile(r"^\s*Promote\s*$")).click()
    _wait(page, "the promotion's answer", f"""() => {{
        const t = {NB}.querySelector('.wb-promote').innerText;
        return t.includes('unchanged: already holds this content: archive-incident/v1') ||
               t.includes('error[') ? t : null; }}""", 60)
    text = page.evaluate(f"() => {NB}.querySelector('.wb-promote').innerText")
    assert "error[" not in text, text[:2000]
    assert "manifest.json (preview)" in text
    # the note field as NOTE_REQUIRED marks it (test_promote_view.py checks when): red
    # on screen, through the widgets' own `outline: none !important`
    _run_in_kernel(page, "promotion.note.add_class('wb-attention')")
    shadow = _wait(page, "the note field marked", f"""() => {{
        const i = {NB}.querySelector('.wb-promote .wb-attention input');
        const s = i && getComputedStyle(i).boxShadow;
        return s && s.includes('rgb(207, 34, 46)') ? s : null; }}""", 30)
    assert shadow
    _run_in_kernel(page, "promotion.note.remove_class('wb-attention')")


def _save_leaves_git_clean(page: Any, tmp: Path) -> None:
    """Save the executed notebook as a user would: the pre-save hook strips what the run
    added, so the file is again what was committed, and nothing else changed."""
    path = tmp / "notebooks" / NOTEBOOK
    before = path.stat().st_mtime_ns
    page.evaluate("() => { void window.jupyterapp.commands.execute('docmanager:save'); }")
    deadline = time.monotonic() + 30
    while path.stat().st_mtime_ns == before or page.evaluate(
            "() => window.jupyterapp.shell.currentWidget.context.model.dirty"):
        if time.monotonic() > deadline:
            raise AssertionError("the notebook was not saved within 30 s")
        page.wait_for_timeout(250)
    assert _git_status(tmp) == "", f"the save left git dirty:\n{_git_status(tmp)}"


VIEWS = (".wb-trace", ".wb-rules", ".wb-redact", ".wb-minimize", ".wb-diff", ".wb-promote")


def _layout_at_1000_px(page: Any) -> None:
    """A 1000 px window with the file browser open: no view is wider than the notebook
    (nothing clipped or pushed out of sight; wide content scrolls inside its own box)."""
    page.set_viewport_size({"width": 1000, "height": 1000})
    page.evaluate("() => window.jupyterapp.shell.expandLeft()")
    page.wait_for_timeout(1500)
    over = page.evaluate(f"""views => views.map(css => {{
        const e = {NB}.querySelector(css);
        return e ? [css, e.scrollWidth - e.clientWidth, e.clientWidth] : [css, null, 0]; }})""",
                         list(VIEWS))
    wide = [(css, extra, width) for css, extra, width in over if extra is None or extra > 1]
    assert wide == [], f"views wider than the notebook at 1000 px (css, overflow px, width): {wide}"
    # nothing clipped inside a box either: the chart (bars, labels, legend) fits its box,
    # and every finding's row fits the list (long ones wrap)
    chart = page.evaluate(f"""() => {{ const b = {NB}.querySelector('.wb-trace .wb-chart');
        const svg = b.querySelector('svg');
        const legend = b.querySelector('g.role-legend');
        const r = b.getBoundingClientRect();
        return {{extra: b.scrollWidth - b.clientWidth, svg: svg && svg.getBoundingClientRect().right
                 - r.right, legend: legend ? legend.getBoundingClientRect().right - r.right
                 : null}}; }}""")
    assert chart["extra"] <= 1 and chart["svg"] <= 1 and chart["legend"] is not None \
        and chart["legend"] <= 1, f"the timeline is clipped at 1000 px: {chart}"
    clipped = page.evaluate(f"""() => {{ const s = {NB}.querySelector('.wb-findings select');
        return Array.from(s.options).filter(o => o.scrollWidth > s.clientWidth + 1)
            .map(o => o.text); }}""")
    assert clipped == [], f"finding rows clipped at 1000 px: {clipped[:3]}"
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
    page.set_viewport_size({"width": 1400, "height": 1000})


def _no_news_toast(page: Any) -> None:
    text = page.evaluate("() => document.body.innerText")
    assert "Jupyter news" not in text, "the news toast is shown"


def _screenshots(page: Any, out: Path) -> None:
    """The whole notebook (a viewport as tall as it), and each view on its own."""
    page.evaluate("() => window.jupyterapp.shell.collapseLeft()")
    height = page.evaluate("""() => { const nb = window.jupyterapp.shell.currentWidget.node;
        return Math.max(...Array.from(nb.querySelectorAll('*'), e => e.scrollHeight)); }""")
    page.set_viewport_size({"width": 1400, "height": min(int(height) + 200, 16000)})
    page.wait_for_timeout(1000)
    page.evaluate("""() => { const nb = window.jupyterapp.shell.currentWidget.node;
        for (const e of nb.querySelectorAll('*')) if (e.scrollTop) e.scrollTop = 0; }""")
    page.wait_for_timeout(500)
    whole = out / "01_triage.png"
    page.screenshot(path=str(whole))
    for css, name in ((".wb-trace", "trace_view"), (".wb-rules", "rule_view"),
                      (".wb-redact", "redact_view"), (".wb-minimize", "minimize_view"),
                      (".wb-diff", "diff_view"), (".wb-promote", "promote_view")):
        page.locator(css).first.screenshot(path=str(out / f"{name}.png"))
    print(f"\nscreenshot: {whole}")
    assert whole.stat().st_size > 50_000


# a diff past 5,000 rows drawn: 6,000 events, every 4th answering otherwise in B
_LONG_DIFF = """from workbench.model import Event, Trace
from workbench.notebook import DiffView

def _run(tid, every):
    ms = 1_000_000
    return Trace.from_events(
        [Event(tid, "root", None, 0, "agent", "agent", 0, 6000 * ms, "ok")]
        + [Event(tid, f"e{i}", "root", i, "tool_call", f"tool{i % 7}", i * ms, i * ms + 1,
                 "ok", result={"id": f"y{i}" if every and i % every == 0 else f"x{i}"})
           for i in range(1, 6000)])

long_diff = DiffView(_run("a", 0), _run("b", 4))
long_diff.widget"""
_LAST = "window.jupyterapp.shell.currentWidget.content.widgets.at(-1).node"


def _long_diff_turns_to_the_row(page: Any, out: Path) -> None:
    """A diff past 5,000 rows drawn (5,999 rows, 1,499 changes), in a cell added at the
    end: the frame shows one page of rows and says where it stands; picking the 1,400th
    change (step 5600) turns to page 28 of 30, whose row for it is outlined and in view,
    with the frame in sight in the notebook; another change on that page (step 5524) is
    outlined in its place without the page reloading."""
    page.set_viewport_size({"width": 1400, "height": 1000})
    page.evaluate("""code => { const nb = window.jupyterapp.shell.currentWidget.content;
        const m = nb.model.sharedModel;
        m.insertCell(m.cells.length, {cell_type: 'code', source: code});
        nb.activeCellIndex = nb.widgets.length - 1;
        void window.jupyterapp.commands.execute('notebook:run-cell'); }""", _LONG_DIFF)
    _wait(page, "the long diff drawn", f"""() => {{ const c = {_LAST};
        return c.querySelector('.wb-diff select') && c.querySelector('.wb-diff-page iframe')
            && c.innerText.includes('page 1 of 30: rows 1–200 of 5,999'); }}""", 120)
    cell = page.locator(".jp-Notebook .jp-CodeCell").last
    text = cell.inner_text()
    assert "1499 changed" in text and "draws 5,999 rows in 30 pages of 200" in text, text[-800:]
    changes = cell.locator(".wb-diff select")
    label = " ".join(changes.locator("option").nth(1399).inner_text().split())
    assert label.startswith("~ step 5600 → 5600"), label
    changes.select_option(index=1399)
    _wait(page, "the page holding the change", f"""() => {_LAST}.innerText.includes(
        'page 28 of 30: rows 5,401–5,600 of 5,999')""", 30)
    frame = cell.frame_locator(".wb-diff-page iframe")
    row = frame.locator("tr[style*='outline']")
    deadline = time.monotonic() + 30
    while row.count() != 1:
        if time.monotonic() > deadline:
            raise AssertionError("the picked change's row is not outlined on its page")
        page.wait_for_timeout(250)
    assert row.locator("td.seq").all_inner_texts() == ["5600", "5600"]
    assert "changes 1,351–1,400 of 1,499 have their rows here" in frame.locator(
        "body").inner_text()
    deadline = time.monotonic() + 30
    while not row.evaluate("r => { const b = r.getBoundingClientRect(); "
                           "return b.top >= 0 && b.bottom <= window.innerHeight; }"):
        if time.monotonic() > deadline:
            where = row.evaluate("r => [r.getBoundingClientRect().top, r.getBoundingClientRect()"
                                 ".bottom, window.innerHeight, document.scrollingElement"
                                 ".scrollTop, document.scrollingElement.scrollHeight]")
            raise AssertionError("the picked change's row is outside the frame's view "
                                 f"(top, bottom, frame height, scrollTop, height): {where}")
        page.wait_for_timeout(250)
    _wait(page, "the frame in sight in the notebook", f"""() => {{
        const r = {_LAST}.querySelector('.wb-diff-page iframe').getBoundingClientRect();
        const b = ({NB}.querySelector('.jp-WindowedPanel-outer') || {NB})
            .getBoundingClientRect();
        return Math.min(r.bottom, b.bottom, window.innerHeight) - Math.max(r.top, b.top, 0)
            >= 40; }}""", 30)
    cell.locator(".wb-diff").screenshot(path=str(out / "diff_view_pages.png"))
    frame.locator("body").evaluate("b => { b.dataset.same = 'yes'; }")
    changes.select_option(index=1380)
    deadline = time.monotonic() + 30
    while row.count() != 1 or row.locator("td.seq").all_inner_texts() != ["5524", "5524"]:
        if time.monotonic() > deadline:
            raise AssertionError("a second change on the page is not outlined alone")
        page.wait_for_timeout(250)
    assert frame.locator("body[data-same=yes]").count() == 1, "the page was reloaded"
    assert row.evaluate("r => { const b = r.getBoundingClientRect(); "
                        "return b.top >= 0 && b.bottom <= window.innerHeight; }")
