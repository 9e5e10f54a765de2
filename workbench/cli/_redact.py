"""``workbench redact apply`` and ``workbench redact scan``."""

from __future__ import annotations

import argparse
from typing import Any

from ..model import UsageError
from ..redact import ApplyResult, Redactor, ScanResult, redact_files, redaction_key, scan_files
from ._main import Parser, common, emit, summary

RAW = argparse.RawDescriptionHelpFormatter


def register(sub: Any) -> None:
    p = sub.add_parser("redact", help=summary("redact"),
                       description="Apply the ingest-time detectors to JSON, JSONL, text or "
                       "Parquet files (apply), or report what they still find (scan).",
                       epilog="examples:\n  workbench redact apply incident.har --out clean/\n"
                              "  workbench redact scan clean/ --json",
                       formatter_class=RAW)
    actions = p.add_subparsers(dest="action", metavar="ACTION", parser_class=Parser)
    p.set_defaults(func=_missing)

    a = actions.add_parser(
        "apply", help="write redacted copies of files",
        description="Write a redacted copy of each file (folders are walked) under --out, "
        "with the same relative names. Secrets and personal data become keyed tokens such "
        "as «email:1c9e02ab3f4d»: the store's key when there is a store, so tokens match "
        "the store's, else a one-time key (docs/redact.md).",
        epilog="examples:\n  workbench redact apply incident.har --out clean/\n"
               "  workbench redact apply exports/ --out shared/ --json",
        formatter_class=RAW)
    a.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to redact")
    a.add_argument("--out", required=True, metavar="DIR",
                   help="the folder for the redacted copies (outside the inputs)")
    _keep_going(a)
    common(a)
    a.set_defaults(func=run_apply)

    s = actions.add_parser(
        "scan", help="report secrets and personal data left in files",
        description="Run the detectors over files (folders are walked) and list what they "
        "find as FILE:PATH: DETECTOR, never the value. Exit 1 when anything is found.",
        epilog="examples:\n  workbench redact scan clean/\n"
               "  workbench redact scan incident.jsonl --json",
        formatter_class=RAW)
    s.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to scan")
    _keep_going(s)
    common(s, store=False)
    s.set_defaults(func=run_scan)


def _keep_going(p: Any) -> None:
    p.add_argument("--keep-going", action="store_true",
                   help="go on past a file that cannot be read (truncated, encrypted or not "
                   "Parquet, not UTF-8): list it as an error and exit 1 instead of 2")


def _errors_text(errors: list[dict[str, str]]) -> list[str]:
    return [f"error[{e['code']}]: {e['message']}" for e in errors]


def _missing(args: argparse.Namespace) -> int:
    raise UsageError("workbench redact: name an action, apply or scan",
                     hint="run `workbench redact --help` for both and an example")


def _apply_text(result: ApplyResult) -> str:
    lines = []
    for f in result.files:
        what = ", ".join(f"{n} {d}" for d, n in f.hits.items()) or "nothing to redact"
        lines.append(f"{f.file} -> {f.out} ({f.format}): {what}")
    for s in result.skipped:
        lines.append(f"skipped {s['path']}: {s['reason']}")
    lines += _errors_text(result.errors)
    total = sum(result.hits.values())
    lines.append(f"{total} values redacted in {len(result.files)} files -> {result.out}"
                 + (" (one-time key: no store, so tokens match within this run only)"
                    if result.key == "one-time" else ""))
    return "\n".join(lines)


def run_apply(args: argparse.Namespace) -> int:
    key = redaction_key(args.store)
    result = redact_files(args.paths, args.out, Redactor(key.key), key=key.source,
                          keep_going=args.keep_going)
    emit(args, result.to_dict(), lambda: _apply_text(result))
    return 1 if result.errors else 0


def _scan_text(result: ScanResult) -> str:
    lines = [f"{h.file}:{h.path}: {h.detector}" for h in result.hits]
    lines += [f"skipped {s['path']}: {s['reason']}" for s in result.skipped]
    lines += _errors_text(result.errors)
    unread = f"; {len(result.errors)} files unreadable" if result.errors else ""
    lines.append(f"{len(result.hits)} left in {result.files} files{unread}" if result.hits
                 else f"nothing found in {result.files} files{unread}" if unread
                 else f"clean: nothing found in {result.files} files")
    return "\n".join(lines)


def run_scan(args: argparse.Namespace) -> int:
    result = scan_files(args.paths, keep_going=args.keep_going)
    emit(args, result.to_dict(), lambda: _scan_text(result))
    return 1 if result.hits or result.errors else 0
