"""``workbench probe OPENAPI --target URL``: generated traffic against a loopback service,
recorded as a trace in the store and judged by the contract invariants."""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path
from typing import Any

from ..ingest import ingest
from ..invariants import (
    NoHTTPEventsError,
    check_invariants,
    check_target,
    load_spec,
    probe,
)
from ..model import UsageError, dumps
from ..store import Store, resolve_store_path
from ._invariants import add_options, fault_windows, reports, text
from ._main import common, emit, summary
from ._output import report_path
from ._types import integer, seconds

RAW = argparse.RawDescriptionHelpFormatter


def register(sub: Any) -> None:
    p = sub.add_parser(
        "probe", help=summary("probe"),
        description="Send the traffic the contract invariants need to a service on this "
        "machine (a loopback URL you name): valid requests from the document's schemas, "
        "the same call without a credential, a write retried with its Idempotency-Key and "
        "with the key but another body, a cursor walk beside one larger page, a create "
        "followed by a read, and requests made invalid one field at a time. Values are "
        "drawn by Hypothesis from the schemas and reproduced from --seed. The traffic is "
        "recorded as a trace and judged like `workbench invariants`. Writes (and "
        "operations marked x-dangerous) only with --writes. Exit 1 on a finding.",
        epilog="examples:\n  workbench probe openapi.yaml --target http://127.0.0.1:8080\n"
               "  workbench probe openapi.yaml --target http://127.0.0.1:8080 --writes "
               "--seed 7 --auth-env API_TOKEN --json",
        formatter_class=RAW)
    p.add_argument("openapi", metavar="OPENAPI", help="an OpenAPI 3.0 or 3.1 document")
    p.add_argument("--target", required=True, metavar="URL",
                   help="the service to probe: a loopback http:// URL")
    p.add_argument("--seed", type=integer(0, 2**63 - 1), default=1, metavar="N",
                   help="the seed the generated values are drawn from (default 1)")
    p.add_argument("--max-requests", type=integer(1, 1_000_000), default=300, metavar="N",
                   help="stop after N requests (default 300)")
    p.add_argument("--max-seconds", type=seconds(), default=120.0, metavar="S",
                   help="stop after S seconds (default 120)")
    p.add_argument("--writes", action="store_true",
                   help="also send writes (POST, PUT, PATCH, DELETE, x-dangerous operations)")
    p.add_argument("--operation", action="append", metavar="OP",
                   help="only this operation (`GET /orders` or its operationId; repeat)")
    p.add_argument("--auth-env", metavar="VAR",
                   help="the Authorization header's value, read from this environment "
                        "variable (never recorded: the trace keeps «credential»)")
    add_options(p)
    p.add_argument("--sarif", metavar="FILE", help="also write SARIF 2.1.0 here")
    p.add_argument("--junit", metavar="FILE", help="also write JUnit XML here")
    common(p)
    p.set_defaults(func=run)


def _hypothesis_home(folder: Path | None) -> None:
    """Where Hypothesis keeps what it writes (its example database is off; its Unicode
    tables are cached): a folder removed after the probe, never ``./.hypothesis``."""
    try:
        from hypothesis.configuration import set_hypothesis_home_dir
    except ImportError:  # the probe itself says PROBE_UNAVAILABLE
        return
    set_hypothesis_home_dir(folder)


def run(args: argparse.Namespace) -> int:
    report_path("--sarif", args.sarif)
    report_path("--junit", args.junit)
    windows = fault_windows(args.fault_window)
    check_target(args.target)
    spec = load_spec(args.openapi)
    auth = None
    if args.auth_env:
        auth = os.environ.get(args.auth_env)
        if not auth:
            raise UsageError(f"--auth-env {args.auth_env}: the variable is not set")
    with tempfile.TemporaryDirectory(prefix="workbench-probe-") as scratch:
        _hypothesis_home(Path(scratch))  # its caches, not in the working folder
        try:
            done = probe(spec, args.target, seed=args.seed, max_requests=args.max_requests,
                         max_seconds=args.max_seconds, writes=args.writes, auth=auth,
                         operations=args.operation)
        finally:
            _hypothesis_home(None)
    if not done.exchanges:
        raise NoHTTPEventsError("the probe sent no request: every operation it may probe "
                                "writes", hint="add --writes, against a service whose data "
                                "may change", skipped=done.skipped)
    store = Store(resolve_store_path(args.store))
    with tempfile.TemporaryDirectory() as tmp:
        har = Path(tmp) / f"probe-seed-{args.seed}.har"
        har.write_text(dumps(done.har()))
        ingested = ingest([har], store)
    trace_id = ingested.traces[0].trace_id
    result = check_invariants(store, spec, trace_ids=[trace_id], only=args.only,
                              windows=windows, source=f"{args.openapi} (probe seed {args.seed})")
    reports(args, result)
    doc = {**result.to_dict(), "target": args.target, "seed": args.seed,
           "requests": len(done.exchanges), "trace_id": trace_id,
           "skipped_operations": done.skipped}
    emit(args, doc, lambda: f"probed {args.target} with {len(done.exchanges)} request(s), "
                            f"seed {args.seed}, trace {trace_id[:12]}\n" + text(result))
    return 1 if result.errors else 0
