"""``workbench ingest``."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from ..ingest import format_names, start_workers
from ._main import common, emit, summary
from ._render import ProgressLine

if TYPE_CHECKING:
    from ..ingest import IngestProgress, IngestResult
    from ..store import Store

EXAMPLE = """examples:
  workbench ingest traces/examples/archive-incident.otlp.json
  workbench ingest spans/*.jsonl --format otlp --json
  workbench ingest exports/          # every trace file under a folder
  workbench ingest synthetic.jsonl --no-redact   # keep values as they are (no secrets)
  workbench ingest exports/ --strict # all or nothing: any unreadable file stores nothing
  workbench ingest runs/ --scenario refund-flow --build 1.4.2   # runs of one scenario

exit status 4 (partial): of a folder or several files, some could not be read; they are
listed (stderr, and "refused" with --json) and every other file was stored.
"""


def register(sub: Any) -> None:
    p = sub.add_parser("ingest", help=summary("ingest"),
                       description="Read trace files into the store. The format is detected "
                       "from the content; files of one trace may be given together. "
                       "Re-ingesting a file adds nothing. Secrets and personal data are "
                       "replaced by keyed tokens before anything is written (docs/redact.md).",
                       epilog=EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+", metavar="PATH", help="files or folders to read")
    p.add_argument("--format", default="auto", choices=format_names(),
                   help="the source format (default: auto)")
    p.add_argument("--no-redact", dest="redact", action="store_false",
                   help="store values as they are, secrets included (recorded per trace)")
    p.add_argument("--env", default="default", metavar="NAME",
                   help="the environment these traces were recorded in (kept in `traces`; "
                        "replay closes a finding only from its own environment; default: "
                        "default)")
    p.add_argument("--scenario", metavar="NAME",
                   help="the scenario these traces are runs of (kept in `traces`; `check "
                        "--by scenario` gives each rule's violation rate per scenario; "
                        "default: the resource attribute workbench.scenario, where present)")
    p.add_argument("--build", metavar="ID",
                   help="the build of the agent that made these runs (`check --compare "
                        "BASE..CANDIDATE` compares two; default: the resource attribute "
                        "workbench.build, where present)")
    p.add_argument("--memory", metavar="SIZE",
                   help="memory for this ingest and its worker processes together, e.g. "
                        "1.5GB or 800MB (default: $WORKBENCH_INGEST_MEMORY, else 1.5GB); "
                        "fewer processes and earlier spills below that")
    p.add_argument("--strict", action="store_true",
                   help="all or nothing: a file of a folder (or of several named) that "
                        "cannot be read stores nothing and exits 2, instead of being "
                        "refused while the others are stored (exit 4)")
    common(p)
    p.set_defaults(func=run)


class _Progress(ProgressLine):
    """Events read (and from which file), then events written."""

    def __call__(self, p: IngestProgress) -> None:
        what = "read" if p.phase == "read" else "wrote"
        self.show(f"{what} {p.events:,} events"
                  + (f" from {p.file}" if p.file and p.phase == "read" else ""))


def _text(result: IngestResult, store: Store) -> str:
    lines = []
    for t in result.traces:
        lines.append(f"ingested {t.trace_id} ({t.format}): {t.events} events, "
                     f"{t.tool_calls} tool calls"
                     + (f", {t.orphans} orphans" if t.orphans else "") + f"  <- {t.source}")
    for m in result.merged:
        lines.append(f"merged {m['path']} into {m['into']}  <- {m['source']}")
    for s in result.skipped:
        lines.append(f"skipped {s['path']}: {s['reason']}")
    if result.traces:
        lines.append(f"{result.events} events in {len(result.traces)} traces -> {store.root}")
    elif not result.skipped and not result.refused:
        lines.append("nothing to ingest")
    if result.refused:
        n = len(result.refused)
        lines.append(f"{n} file{'s' if n > 1 else ''} refused (listed on stderr); "
                     + ("every other file was read" if result.traces else "nothing stored"))
    return "\n".join(lines)


def _refused(result: IngestResult) -> str:
    """Each refused file as its error, on stderr."""
    out = []
    for r in result.refused:
        message = r["message"].removeprefix(f"{r['path']}: ")
        out.append(f"refused {r['path']}: error[{r['code']}]: {message}"
                   + (f"\n  hint: {r['hint']}" if r["hint"] else ""))
    return "\n".join(out)


def run(args: argparse.Namespace) -> int:
    # a large input's workers import the ingest code while this process does
    start_workers(args.paths, redact=args.redact, memory=args.memory)
    from ..ingest import ingest, warm_up  # the pipeline and the store: not for `--help`
    from ..store import Store, resolve_store_path, suggestion

    warm_up(pandas=False)  # this process converts no pandas objects: spare the import
    store = Store(resolve_store_path(args.store))
    progress = _Progress()
    try:
        result = ingest(args.paths, store, format=args.format, progress=progress,
                        redact=args.redact, env=args.env, memory=args.memory,
                        strict=args.strict, scenario=args.scenario, build=args.build)
    finally:
        progress.done()
    doc = result.to_dict()
    doc["store"] = str(store.root)
    note = suggestion(store) if store.exists else None
    if note is not None:
        doc["suggestion"] = note
    emit(args, doc, lambda: _text(result, store) + (f"\nnote: {note}" if note else ""))
    if result.partial:
        sys.stderr.write(_refused(result) + "\n")
        return 4
    return 0
