"""``workbench compact``."""

from __future__ import annotations

import argparse
from typing import Any

from ..store import GRACE_SECONDS, Store, compact, resolve_store_path
from ._main import common, emit, summary
from ._types import DAY, seconds

RAW = argparse.RawDescriptionHelpFormatter


def register(sub: Any) -> None:
    p = sub.add_parser("compact", help=summary("compact"),
                       description="Merge the small batches of each day partition into "
                       "larger files sorted by (trace_id, seq), under the store's commit "
                       "protocol: readers see every event exactly once throughout. Files "
                       "replaced more than --grace seconds ago are removed.",
                       epilog="examples:\n  workbench compact\n"
                              "  workbench compact --store traces/store --json",
                       formatter_class=RAW)
    p.add_argument("--grace", type=seconds(zero=True, maximum=30 * DAY), default=GRACE_SECONDS,
                   metavar="SECONDS",
                   help="keep replaced files this long for readers still reading them "
                   f"(default {GRACE_SECONDS:g})")
    common(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    store = Store(resolve_store_path(args.store))
    result = compact(store, grace=args.grace)
    doc = result.to_dict()
    doc["store"] = str(store.root)

    def text() -> str:
        lines = [f"day={r['day']}: {len(r['batches'])} batches, {r['files_before']} files "
                 f"-> {r['files_after']}" for r in result.runs]
        if not result.runs:
            lines.append("nothing to compact")
        if result.removed_batches:
            lines.append(f"removed {result.removed_files} replaced files of "
                         f"{result.removed_batches} batches")
        return "\n".join(lines)

    emit(args, doc, text)
    return 0
