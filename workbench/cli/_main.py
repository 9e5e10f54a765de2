"""The ``workbench`` command: argument parsing, dispatch, exit codes and error output.

Exit status: 0 ran and nothing falls short; 1 ran and found violations, mismatches or
leftovers; 2 bad input or usage (``error[CODE]: message`` and a hint on stderr, or the
error envelope on stdout with ``--json``); 3 an internal error (a bug: please report it).
"""

from __future__ import annotations

import argparse
import errno
import importlib
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from ..model import StoreError, UsageError, WorkbenchError, dumps
from . import _types

__all__ = ["COMMANDS", "Command", "Parser", "command_of", "main", "summary"]

Command = Callable[[argparse.Namespace], int]


class Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises ``UsageError`` instead of exiting, and reads every
    option declared without a type as ``_types.text`` (no control characters)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.register("type", None, _types.text)

    def add_subparsers(self, **kwargs: Any) -> Any:
        # the command's name and its arguments are checked by the command's own parser
        action = super().add_subparsers(**kwargs)
        action.type = str
        return action

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


#: every command: the module that registers it and its line in ``workbench --help``.
#: Only the module of the command being run is imported, so ``workbench --help`` and
#: ``workbench traces`` do not load what ``ingest`` or ``check`` need. A module that
#: registers several commands is listed for each, next to each other.
COMMANDS: dict[str, tuple[str, str]] = {
    "ingest": ("_ingest", "read trace files into the store"),
    "traces": ("_query", "list the traces in the store"),
    "show": ("_query", "print a trace's timeline and tool calls"),
    "sql": ("_query", "run DuckDB SQL over the store's views"),
    "compact": ("_compact", "merge small batch files per day partition"),
    "export": ("_export", "write a stored trace or a fixture as JSONL or OTLP"),
    "check": ("_check", "judge stored traces against a rules file"),
    "findings": ("_check", "list recorded findings"),
    "runs": ("_runs", "run a scenario until its rules' violation rates are decided"),
    "minimize": ("_minimize", "shrink a trace to the steps that still break a rule"),
    "diff": ("_diff", "what changed between two traces"),
    "shadow": ("_diff", "run the old and the new build on frozen fixtures and compare"),
    "promote": ("_fixtures", "turn an incident trace into a regression fixture"),
    "verify": ("_fixtures", "check every fixture against fixtures.lock"),
    "lab": ("_lab", "open JupyterLab on the notebooks, with the store set"),
    "redact": ("_redact", "redact or scan files for secrets and personal data"),
    "contract": ("_contract", "tool contracts: import, lint, export, diff, check"),
    "invariants": ("_invariants", "judge recorded HTTP traffic by the eight contract invariants"),
    "probe": ("_probe", "generate traffic against a loopback service and judge it"),
    "serve": ("_serve", "answer HTTP or MCP from recorded exchanges on 127.0.0.1; record"),
    "collect": ("_collect", "receive OTLP traces on 127.0.0.1 and store each once it is idle"),
    "mcp": ("_mcp", "serve findings, checks and minimization to agents over MCP (stdio)"),
    "replay": ("_replay", "re-run a finding against a target; close it when it no longer "
                          "reproduces"),
}
_GLOBAL_FLAGS = frozenset({"--json", "--version", "-h", "--help"})


def summary(command: str) -> str:
    """The one-line help of ``command`` (what ``workbench --help`` lists)."""
    return COMMANDS[command][1]


def command_of(argv: Sequence[str]) -> str | None:
    """The command named in ``argv`` (after any global options), or None."""
    it = iter(argv)
    for tok in it:
        if tok == "--store":
            next(it, None)
        elif tok.startswith("--store=") or tok in _GLOBAL_FLAGS:
            continue
        else:
            return tok if tok in COMMANDS else None
    return None


def build_parser(command: str | None = None) -> Parser:
    """The parser, with ``command``'s module registered in full and every other command
    listed by name and help only (``None``: all of them, as ``--help`` shows them)."""
    parser = Parser(
        prog="workbench",
        description="Forensics on AI-agent tool traces: ingest, query and judge them.",
        epilog="example:\n  workbench ingest traces/examples/archive-incident.otlp.json\n"
               "  workbench traces\n  workbench show <trace-id>\n\n"
               "--store and --json may come before or after the command.",
        formatter_class=argparse.RawDescriptionHelpFormatter, allow_abbrev=False)
    parser.add_argument("--version", action=_Version, nargs=0, dest=argparse.SUPPRESS,
                        default=argparse.SUPPRESS,
                        help="show program's version number and exit")
    parser.add_argument("--store", metavar="DIR", dest="global_store",
                        help="the store, for every command that uses one "
                             "(default: $WORKBENCH_STORE or ./traces/store)")
    parser.add_argument("--json", action="store_true", dest="global_json",
                        help="print one JSON document on stdout and nothing else")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    wanted = COMMANDS[command][0] if command in COMMANDS else None
    for name, (module, text) in COMMANDS.items():
        if module != wanted:
            sub.add_parser(name, help=text)
        elif name not in sub.choices:
            importlib.import_module(f"{__package__}.{module}").register(sub)
    return parser


def _merge_globals(args: argparse.Namespace) -> None:
    """``--store`` / ``--json`` given before the command mean what they mean after it."""
    if args.global_json:
        args.json = True
    if args.global_store is None:
        return
    command = " ".join(filter(None, (args.command, getattr(args, "action", None))))
    if not hasattr(args, "store"):
        raise UsageError(f"workbench {command} takes no --store",
                         hint=f"run `workbench {command} --help` for its options")
    if args.store is not None and args.store != args.global_store:
        raise UsageError(f"--store is given twice: {args.global_store} and {args.store}",
                         hint="name the store once, before or after the command")
    args.store = args.global_store


class _Version(argparse.Action):
    """``--version``, looked up when asked (reading the installed metadata costs every
    other command a few milliseconds)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        sys.stdout.write(_version() + "\n")
        parser.exit()


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


_NO_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT})


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    wants_json = "--json" in argv
    try:
        parser = build_parser(command_of(argv))
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 2
        _merge_globals(args)
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
    except OSError as exc:
        if exc.errno not in _NO_SPACE:
            return _internal(exc)
        # the file system is full: what was being written is rolled back (each writer
        # writes beside its target and renames), so say so instead of "a bug"
        _report(StoreError(f"no space left while writing {exc.filename or 'a file'}",
                           code="DISK_FULL", hint="free some space and run the command "
                           "again (what was being written is not kept)"), wants_json)
        return 2
    except Exception as exc:  # a bug, not bad input
        return _internal(exc)


def _internal(exc: BaseException) -> int:
    """A bug, not bad input: exit 3 (the message masked like any other)."""
    if os.environ.get("WORKBENCH_DEBUG"):
        traceback.print_exception(exc)
    from ..redact import masked
    sys.stderr.write(f"error[INTERNAL]: {type(exc).__name__}: {masked(str(exc))}\n"
                     "  hint: this is a bug in the workbench; set WORKBENCH_DEBUG=1 "
                     "for the traceback and report it\n")
    return 3


def _report(exc: WorkbenchError, wants_json: bool) -> None:
    from ..redact import error_text, masked_error  # a message quotes its input redacted
    if wants_json:
        _emit_json(masked_error(exc).to_dict())
    sys.stderr.write(error_text(exc) + "\n")


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError:
        pass


def run() -> NoReturn:
    """The console entry point: this process is the CLI's own."""
    # Rules validate JSON Schema without a format checker (`format` is an annotation),
    # so the IRI grammar that jsonschema compiles on import where rfc3987-syntax is
    # installed (JupyterLab's extras bring it; about 1 s) is never used: keep it out.
    sys.modules.setdefault("rfc3987_syntax", None)  # type: ignore[arg-type]
    sys.exit(main())
