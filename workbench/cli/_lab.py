"""``workbench lab``: JupyterLab on the notebooks, with the store configured.

The store reaches the notebooks' kernels as ``$WORKBENCH_STORE`` (an absolute path),
so every notebook and widget reads the same store the CLI does. JupyterLab runs on
127.0.0.1 only, with no news feed and no update check: it works offline, and the
charts and widgets load their code from the installed packages (docs/notebooks.md).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

from ..model import NotFoundError, UsageError
from ..store import resolve_store_path
from ._main import common, emit, summary

__all__ = ["DEFAULT_NOTEBOOK", "lab_command", "register"]

DEFAULT_NOTEBOOK = "01_triage.ipynb"

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
    p.add_argument("--port", type=int, default=8888, help="port (default 8888)")
    p.add_argument("--token", metavar="T",
                   help="the access token (default: JupyterLab makes one and prints it)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser")
    p.add_argument("--dry-run", action="store_true",
                   help="print the command and environment, start nothing")
    common(p)
    p.set_defaults(func=run)


def lab_command(folder: Path, notebook: str | None, port: int, token: str | None,
                browser: bool) -> list[str]:
    """The JupyterLab command line: loopback only, offline, opening ``notebook``."""
    cmd = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={folder}",
           "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
           "--ServerApp.port_retries=0", "--LabApp.news_url=None",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    if notebook:
        cmd.append(f"--LabApp.default_url=/lab/tree/{notebook}")
    if token is not None:
        cmd.append(f"--IdentityProvider.token={token}")
    if not browser:
        cmd.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")  # containers and CI machines run as root
    return cmd


def _check(args: argparse.Namespace) -> tuple[Path, str | None]:
    if not 0 < args.port < 65536:
        raise UsageError(f"--port {args.port} is not a port number")
    if args.token is not None and not args.token.strip():
        raise UsageError("--token is empty: JupyterLab would turn authentication off and "
                         "serve the store to any local process", code="LAB_TOKEN_EMPTY",
                         hint="leave --token out (JupyterLab makes one and prints it), or "
                              "pass a long random one")
    folder = Path(args.dir).resolve()
    if not folder.is_dir():
        raise NotFoundError(f"no notebooks folder {args.dir}", code="FILE_NOT_FOUND",
                            hint="run from the repository's root, or pass --dir")
    notebook = args.notebook
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
    cmd = lab_command(folder, notebook, args.port, args.token, not args.no_browser)
    env = dict(os.environ, WORKBENCH_STORE=str(store))
    doc = {"command": cmd, "store": str(store), "dir": str(folder), "notebook": notebook,
           "url": f"http://127.0.0.1:{args.port}/lab" + (f"/tree/{notebook}" if notebook
                                                         else "")}
    emit(args, doc, lambda: (f"JupyterLab on {folder} with the store {store}\n"
                             f"  {doc['url']}" + ("" if args.dry_run else
                                                  "  (Ctrl-C stops it)")))
    if args.dry_run:
        return 0
    sys.stdout.flush()
    sys.stderr.flush()
    # become JupyterLab: a signal to this process (Ctrl-C, a supervisor's SIGTERM) then
    # reaches the server itself, and no server outlives the command that started it
    os.execve(cmd[0], cmd, env)
