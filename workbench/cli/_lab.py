"""``workbench lab``: JupyterLab on the notebooks, with the store configured.

The store reaches the notebooks' kernels as ``$WORKBENCH_STORE`` (an absolute path),
so every notebook and widget reads the same store the CLI does. The access token
reaches JupyterLab as ``$JUPYTER_TOKEN`` in its environment (which only its own user
may read), never on its command line (``/proc/PID/cmdline`` is readable by every local
user, and the lab gives a terminal); a token shorter than ``MIN_TOKEN`` characters is
refused (``LAB_TOKEN_SHORT``). JupyterLab runs on
127.0.0.1 only, with no news feed and no update check: it works offline, and the
charts and widgets load their code from the installed packages (docs/notebooks.md).

Saving a notebook strips what running it added (outputs, execution counts, widget
state, the kernel's language details): ``strip_outputs`` is JupyterLab's pre-save hook,
so a demo run leaves a repository's notebooks as they were committed
(``--keep-outputs`` turns it off).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import secrets
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

from ..model import NotFoundError, UsageError, dumps
from ..store import resolve_store_path
from ._main import common, emit, summary
from ._types import integer

__all__ = ["DEFAULT_NOTEBOOK", "LAB_CONFIG", "MIN_TOKEN", "OPEN_NOTEBOOK", "PRE_SAVE_HOOK",
           "lab_command",
           "register",
           "strip_notebook", "strip_outputs", "watch"]

DEFAULT_NOTEBOOK = "01_triage.ipynb"
#: the notebook ``--open TRACE[:STEP]`` opens (it reads ``$WORKBENCH_OPEN``)
OPEN_NOTEBOOK = "04_open.ipynb"
#: the shortest access token accepted: a short one is guessed by any local process
MIN_TOKEN = 16
#: the import string JupyterLab's contents manager resolves
PRE_SAVE_HOOK = "workbench.cli._lab.strip_outputs"
#: a Jupyter config folder added to the path: its labconfig/page_config.json turns off
#: the news announcements plugin (no "get notified about Jupyter news?" toast offline)
LAB_CONFIG = Path(__file__).resolve().parent / "lab_config"

EPILOG = """examples:
  workbench lab                                  # notebooks/ with ./traces/store
  workbench lab --store /data/incidents --port 8899 --no-browser
  workbench lab --dry-run --json                 # print the command, start nothing
"""


def register(sub: Any) -> None:
    p = sub.add_parser("lab", help=summary("lab"),
                       description="Start JupyterLab (127.0.0.1 only) on the notebooks "
                       "folder and open the triage notebook. Kernels get the store as "
                       "$WORKBENCH_STORE. Needs the `lab` extra.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dir", metavar="DIR", default="notebooks",
                   help="the notebooks folder (default: ./notebooks)")
    p.add_argument("--notebook", metavar="NAME",
                   help=f"the notebook to open (default: {DEFAULT_NOTEBOOK} when there)")
    p.add_argument("--port", type=integer(1, 65_535), default=8888, help="port (default 8888)")
    p.add_argument("--token", metavar="T",
                   help="the access token, at least 16 characters (default: a random one; "
                   "the printed URL carries it; JupyterLab gets it in its environment, "
                   "never on its command line)")
    p.add_argument("--open", metavar="TRACE[:STEP]", dest="open_link",
                   help=f"open {OPEN_NOTEBOOK} on this trace (an id or a unique prefix of "
                        "the store's) with the step selected: the link a detail pane shows")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.add_argument("--keep-outputs", action="store_true",
                   help="save notebooks with their outputs (default: a save strips "
                   "outputs, execution counts and widget state, so git stays clean)")
    p.add_argument("--dry-run", action="store_true",
                   help="print the command and environment, start nothing")
    common(p)
    p.set_defaults(func=run)


def strip_notebook(nb: dict[str, Any]) -> dict[str, Any]:
    """``nb`` (a notebook as JSON, changed in place) without what running it added:
    outputs, execution counts, cell timing, widget state, and the kernel's language
    details beyond its name. What a user wrote (sources, cell and notebook metadata of
    their own) is kept."""
    for cell in nb.get("cells") or ():
        if not isinstance(cell, dict):
            continue
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        meta = cell.get("metadata")
        if isinstance(meta, dict):
            meta.pop("execution", None)
    meta = nb.get("metadata")
    if isinstance(meta, dict):
        meta.pop("widgets", None)
        lang = meta.get("language_info")
        if isinstance(lang, dict) and "name" in lang:
            meta["language_info"] = {"name": lang["name"]}
    return nb


def strip_outputs(model: dict[str, Any], **_: Any) -> None:
    """JupyterLab's pre-save hook: a notebook is saved stripped (``strip_notebook``)."""
    if model.get("type") == "notebook" and isinstance(model.get("content"), dict):
        strip_notebook(model["content"])


def lab_command(folder: Path, notebook: str | None, port: int, browser: bool, *,
                keep_outputs: bool = False) -> list[str]:
    """The JupyterLab command line: loopback only, offline, opening ``notebook``,
    saving notebooks without outputs unless ``keep_outputs``. It holds no token: that
    goes in the environment (``$JUPYTER_TOKEN``), which other users cannot read."""
    cmd = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={folder}",
           "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
           "--ServerApp.port_retries=0", "--LabApp.news_url=None",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    if notebook:
        cmd.append(f"--LabApp.default_url=/lab/tree/{notebook}")
    if not keep_outputs:
        cmd.append(f"--ContentsManager.pre_save_hook={PRE_SAVE_HOOK}")
    if not browser:
        cmd.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")  # containers and CI machines run as root
    return cmd


def _check(args: argparse.Namespace) -> tuple[Path, str | None]:
    if args.token is not None and not args.token.strip():
        raise UsageError("--token is empty: JupyterLab would turn authentication off and "
                         "serve the store to any local process", code="LAB_TOKEN_EMPTY",
                         hint="leave --token out (a random one is made and printed in the URL), or "
                              "pass a long random one")
    if args.token is not None and len(args.token) < MIN_TOKEN:
        raise UsageError(f"--token is {len(args.token)} characters: any local process could "
                         "guess it and use the lab's terminal", code="LAB_TOKEN_SHORT",
                         hint=f"leave --token out (a random one is made), or pass one of "
                              f"at least {MIN_TOKEN} random characters")
    folder = Path(args.dir).resolve()
    if not folder.is_dir():
        raise NotFoundError(f"no notebooks folder {args.dir}", code="FILE_NOT_FOUND",
                            hint="run from the repository's root, or pass --dir")
    notebook = args.notebook
    if notebook is None and args.open_link is not None:
        notebook = OPEN_NOTEBOOK
    if notebook is None:
        notebook = DEFAULT_NOTEBOOK if (folder / DEFAULT_NOTEBOOK).is_file() else None
    elif not (folder / notebook).is_file():
        names = sorted(p.name for p in folder.glob("*.ipynb"))[:10]
        raise NotFoundError(f"no notebook {notebook} in {args.dir}", code="FILE_NOT_FOUND",
                            hint=("notebooks: " + ", ".join(names)) if names
                            else f"{args.dir} holds no notebooks")
    if importlib.util.find_spec("jupyterlab") is None:
        raise UsageError("JupyterLab is not installed", code="LAB_NOT_INSTALLED",
                         hint="install the lab extra: pip install 'trace-workbench[lab]'")
    return folder, notebook


def run(args: argparse.Namespace) -> int:
    folder, notebook = _check(args)
    store = resolve_store_path(args.store).resolve()
    # the token is chosen here, not by JupyterLab, so the URL printed below opens as is
    token = args.token if args.token is not None else secrets.token_hex(24)
    cmd = lab_command(folder, notebook, args.port, not args.no_browser,
                      keep_outputs=args.keep_outputs)
    opened = _open_link(store, args.open_link)
    env = dict(os.environ, WORKBENCH_STORE=str(store), JUPYTER_TOKEN=token,
               JUPYTER_CONFIG_PATH=os.pathsep.join(
                   p for p in (str(LAB_CONFIG), os.environ.get("JUPYTER_CONFIG_PATH")) if p))
    url = (f"http://127.0.0.1:{args.port}/lab" + (f"/tree/{notebook}" if notebook else "")
           + f"?token={token}")
    doc = {"command": cmd, "store": str(store), "dir": str(folder), "notebook": notebook,
           "url": url, "strip_outputs": not args.keep_outputs,
           "config_path": env["JUPYTER_CONFIG_PATH"], "token_from": "JUPYTER_TOKEN",
           "open": opened}
    if opened is not None:
        env["WORKBENCH_OPEN"] = opened
    if args.dry_run:
        emit(args, doc, lambda: f"JupyterLab on {folder} with the store {store}\n"
                                f"  {doc['url']}")
        return 0
    # the URL is printed once the server answers, by a watcher that outlives the exec
    # below: printed earlier, it would open on "connection refused"
    ready = (dumps(doc) if args.json else f"  {url}  (Ctrl-C stops it)")
    if not args.json:
        print(f"JupyterLab on {folder} with the store {store}: starting…", flush=True)
    _start_watcher(args.port, ready)
    sys.stdout.flush()
    sys.stderr.flush()
    # become JupyterLab: a signal to this process (Ctrl-C, a supervisor's SIGTERM) then
    # reaches the server itself, and no server outlives the command that started it
    os.execve(cmd[0], cmd, env)


def _open_link(store: Path, link: str | None) -> str | None:
    """``TRACE[:STEP]`` with the trace resolved in the store (a bad link, or a trace the
    store does not hold, is refused before anything starts)."""
    if link is None:
        return None
    trace, sep, step = link.strip().partition(":")
    if not trace or (sep and not step.isdigit()):
        raise UsageError(f"--open {link!r} is not TRACE[:STEP]",
                         hint="a trace id or a unique prefix, then a step number: "
                              "--open 4bf92f3577b3:8")
    from ..store import Store
    st = Store(store)
    if not st.exists:
        raise NotFoundError(f"--open {link}: there is no store at {store}",
                            code="STORE_NOT_FOUND",
                            hint="ingest the trace first, or pass --store")
    full = st.resolve_trace_id(trace)
    return f"{full}:{step}" if sep else full


#: how long the watcher waits for the server to answer before it gives up silently
READY_TIMEOUT = 300.0


def _start_watcher(port: int, ready: str) -> None:
    """Start a detached process that prints ``ready`` once JupyterLab answers on
    ``port`` (its ``/api``, which needs no token), and gives up when this process —
    JupyterLab after the exec — has gone. It is a fresh interpreter, so the token in
    this command's arguments is not in its command line; it gets what it prints
    through its environment."""
    env = dict(os.environ, WORKBENCH_LAB_READY=ready, WORKBENCH_LAB_PORT=str(port),
               WORKBENCH_LAB_PID=str(os.getpid()))
    watcher = subprocess.Popen(
        [sys.executable, "-c", "from workbench.cli._lab import watch; watch()"],
        env=env, stdin=subprocess.DEVNULL, close_fds=True)
    watcher.wait()  # it forks and returns at once: the server never holds a zombie


def watch() -> None:
    """The watcher's body (``_start_watcher``): detach, poll, print once."""
    if os.fork():
        os._exit(0)
    os.setsid()
    port = int(os.environ["WORKBENCH_LAB_PORT"])
    server = int(os.environ["WORKBENCH_LAB_PID"])
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        try:
            os.kill(server, 0)
        except OSError:
            os._exit(0)  # the server is gone: its own error says why
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api", timeout=2) as r:
                if r.status == 200:
                    print(os.environ["WORKBENCH_LAB_READY"], flush=True)
                    os._exit(0)
        except (OSError, ValueError):
            pass
        time.sleep(0.25)
    os._exit(0)
