"""The ``workbench`` command: argument parsing, dispatch, exit codes and error output.

Exit status: 0 ran and nothing falls short; 1 ran and found violations, mismatches or
leftovers; 2 bad input or usage (``error[CODE]: message`` and a hint on stderr, or the
error envelope on stdout with ``--json``); 3 an internal error (a bug: please report it).
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from ..model import UsageError, WorkbenchError, dumps

__all__ = ["Command", "Parser", "main"]

Command = Callable[[argparse.Namespace], int]


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises ``UsageError`` instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message}",
                         hint=f"run `{self.prog} --help` for its options and an example")


def _emit_json(doc: Any) -> None:
    sys.stdout.write(dumps(doc) + "\n")


def emit(args: argparse.Namespace, doc: Any, text: Callable[[], str]) -> None:
    """Print ``doc`` as one JSON document with ``--json``, else the text rendering."""
    if getattr(args, "json", False):
        _emit_json(doc)
    else:
        out = text()
        if out:
            sys.stdout.write(out if out.endswith("\n") else out + "\n")


def build_parser() -> Parser:
    from . import _check, _diff, _export, _fixtures, _ingest, _lab, _minimize, _query, _redact

    parser = Parser(
        prog="workbench",
        description="Forensics on AI-agent tool traces: ingest, query and judge them.",
        epilog="example:\n  workbench ingest traces/examples/archive-incident.otlp.json\n"
               "  workbench traces\n  workbench show <trace-id>",
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    _ingest.register(sub)
    _query.register(sub)
    _export.register(sub)
    _check.register(sub)
    _minimize.register(sub)
    _diff.register(sub)
    _fixtures.register(sub)
    _lab.register(sub)
    _redact.register(sub)
    return parser


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return f"workbench {version('trace-workbench')}"
    except PackageNotFoundError:
        return "workbench (not installed)"


def common(p: argparse.ArgumentParser, *, store: bool = True) -> None:
    """The options every command takes."""
    if store:
        p.add_argument("--store", metavar="DIR",
                       help="the store (default: $WORKBENCH_STORE or ./traces/store)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON document on stdout and nothing else")


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    wants_json = "--json" in argv
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 2
        func: Command = args.func
        return func(args)
    except WorkbenchError as exc:
        _report(exc, wants_json)
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        return 130
    except BrokenPipeError:
        _silence_stdout()
        return 0
    except Exception as exc:  # a bug, not bad input
        if os.environ.get("WORKBENCH_DEBUG"):
            traceback.print_exc()
        sys.stderr.write(f"error[INTERNAL]: {type(exc).__name__}: {exc}\n"
                         "  hint: this is a bug in the workbench; set WORKBENCH_DEBUG=1 "
                         "for the traceback and report it\n")
        return 3


def _report(exc: WorkbenchError, wants_json: bool) -> None:
    if wants_json:
        _emit_json(exc.to_dict())
    sys.stderr.write(f"error[{exc.code}]: {exc.message}\n")
    if exc.hint:
        sys.stderr.write(f"  hint: {exc.hint}\n")


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


def run() -> NoReturn:
    sys.exit(main())
