"""Replaying a 50-step finding against a loopback service, 3 attempts, against the
service's own time and a plain client sending the same requests, in the same run.

- Service: the orders service of the invariants tests (127.0.0.1, a thread per
  request) with its double-create bug on; each handler call is timed, so the time
  spent inside the service is known (``service``).
- The finding: a recorded run of ``--steps`` (default 50) HTTP steps — creates, each
  with its own Idempotency-Key and followed by a read of the id it returned, one create
  retried under the same key, a list — ingested as HAR, judged by ``invariants``
  (``idempotent_retry`` finds the double create); the whole trace is replayed (not
  minimized).
- ``ours``: ``run_replay(store, SIGNATURE, URL, attempts=3)`` in this process (sending
  with ids substituted, recording each attempt as a trace, judging it, appending the
  rows), best of ``--repeat``; and ``workbench replay … --json`` in a fresh process
  (start-up included; ``workbench traces`` on the same store, timed beside it, is the
  start-up floor of any command). ``baseline``: the same 3 × steps requests sent as recorded with
  ``http.client`` on one connection (no substitution, no recording, no judging).
- Prints each time, the service's share, and ``overhead`` = ours − service; the target
  is an overhead under 2 s.

    python bench/replay.py [--steps 50] [--attempts 3] [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from http.server import ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from _measure import finish  # noqa: E402

from tests.unit.invariants.service import DOC, TOKEN, Handler, Orders  # noqa: E402

TARGET_OVERHEAD = 2.0


class Timed(Handler):
    def do_GET(self) -> None:
        t0 = time.perf_counter()
        try:
            super().do_GET()
        finally:
            self.server.add(time.perf_counter() - t0)  # type: ignore[attr-defined]

    def do_POST(self) -> None:
        t0 = time.perf_counter()
        try:
            super().do_POST()
        finally:
            self.server.add(time.perf_counter() - t0)  # type: ignore[attr-defined]


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Timed)
        self.svc = Orders({"double_create"})
        self.busy = 0.0
        self.lock = threading.Lock()

    def add(self, seconds: float) -> None:
        with self.lock:
            self.busy += seconds

    def take(self) -> float:
        with self.lock:
            busy, self.busy = self.busy, 0.0
        return busy


def record(url: str, steps: int) -> tuple[dict[str, Any], list[tuple[str, str, Any, dict]]]:
    """A recorded run of ``steps`` requests as HAR, and the requests as sent."""
    parts = urlsplit(url)
    entries: list[dict[str, Any]] = []
    sent: list[tuple[str, str, Any, dict]] = []

    def call(method: str, target: str, body: Any = None, extra: dict | None = None) -> Any:
        hdrs = {"authorization": TOKEN, **(extra or {})}
        data = None if body is None else json.dumps(body)
        if data is not None:
            hdrs["content-type"] = "application/json"
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
        start = dt.datetime.now(dt.UTC)
        conn.request(method, target, body=data, headers=hdrs)
        resp = conn.getresponse()
        raw = resp.read().decode()
        conn.close()
        sent.append((method, target, data, hdrs))
        req: dict[str, Any] = {"method": method, "url": url + target,
                               "httpVersion": "HTTP/1.1", "cookies": [], "queryString": [],
                               "headers": [{"name": k, "value": v} for k, v in hdrs.items()],
                               "headersSize": -1, "bodySize": -1}
        if data is not None:
            req["postData"] = {"mimeType": "application/json", "text": data}
        entries.append({"startedDateTime": start.isoformat(), "time": 1, "request": req,
                        "response": {"status": resp.status, "statusText": "",
                                     "httpVersion": "HTTP/1.1", "cookies": [],
                                     "headers": [{"name": "content-type",
                                                  "value": "application/json"}],
                                     "content": {"size": len(raw), "text": raw,
                                                 "mimeType": "application/json"},
                                     "redirectURL": "", "headersSize": -1, "bodySize": -1},
                        "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}})
        return json.loads(raw)

    pairs = (steps - 2) // 2
    made: dict[str, Any] = {}
    for i in range(pairs):
        made = call("POST", "/orders", {"sku": f"SKU-{i}", "quantity": i % 5 + 1},
                    {"idempotency-key": f"key-{i}"})
        call("GET", f"/orders/{made['id']}")
    call("POST", "/orders", {"sku": f"SKU-{pairs - 1}", "quantity": (pairs - 1) % 5 + 1},
         {"idempotency-key": f"key-{pairs - 1}"})
    call("GET", "/orders?limit=5")
    return {"log": {"version": "1.2", "creator": {"name": "bench"}, "entries": entries}}, sent


def plain(url: str, sent: list[tuple[str, str, Any, dict]], attempts: int) -> float:
    parts = urlsplit(url)
    t0 = time.perf_counter()
    for _ in range(attempts):
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
        for method, target, data, hdrs in sent:
            conn.request(method, target, body=data, headers=hdrs)
            conn.getresponse().read()
        conn.close()
    return time.perf_counter() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--attempts", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    import yaml

    from workbench.ingest import ingest
    from workbench.invariants import check_invariants, parse_spec
    from workbench.replay import run_replay
    from workbench.store import Store

    server = Server()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}"
    failures: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        doc, sent = record(url, args.steps)
        har = Path(tmp) / "run.har"
        har.write_text(json.dumps(doc))
        api = Path(tmp) / "openapi.yaml"
        api.write_text(yaml.safe_dump(DOC))
        store = Store(Path(tmp) / "store")
        ingest([har], store)
        found = check_invariants(store, parse_spec(DOC, str(api)), only=["idempotent_retry"],
                                 source=str(api))
        sig = next(f.signature for f in found.findings
                   if "created a second resource" in f.message)
        os.environ["BENCH_ORDERS_TOKEN"] = TOKEN
        ours, service = [], []
        for _ in range(args.repeat):
            server.take()
            t0 = time.perf_counter()
            result = run_replay(store, sig, url, attempts=args.attempts,
                                auth_env=["BENCH_ORDERS_TOKEN"])
            ours.append(time.perf_counter() - t0)
            service.append(server.take())
            runs = [(r.outcome, r.steps_run) for r in result.runs]
            if runs != [("reproduced", args.steps)] * args.attempts:
                failures.append(f"replay did not reproduce on every attempt: {runs}")
        best = min(range(args.repeat), key=lambda i: ours[i])
        server.take()
        t0 = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "workbench", "replay", sig, "--target",
                               url, "--attempts", str(args.attempts), "--auth-env",
                               "BENCH_ORDERS_TOKEN", "--store", str(store.root), "--json"],
                              capture_output=True, text=True, cwd=tmp, check=False)
        cli = time.perf_counter() - t0
        cli_service = server.take()
        t0 = time.perf_counter()  # the start-up floor: a fresh process that reads the store
        subprocess.run([sys.executable, "-m", "workbench", "traces", "--store",
                        str(store.root), "--json"], capture_output=True, cwd=tmp, check=True)
        startup = time.perf_counter() - t0
        if done.returncode != 1:
            failures.append(f"workbench replay exited {done.returncode}: {done.stderr[-300:]}")
        base = plain(url, sent, args.attempts)
        base_service = server.take()
    server.shutdown()
    out = {"steps": args.steps, "attempts": args.attempts, "requests": args.steps
           * args.attempts,
           "ours_seconds": round(ours[best], 3), "ours_service_seconds": round(service[best], 3),
           "ours_overhead_seconds": round(ours[best] - service[best], 3),
           "cli_seconds": round(cli, 3), "cli_service_seconds": round(cli_service, 3),
           "cli_overhead_seconds": round(cli - cli_service, 3),
           "startup_seconds": round(startup, 3),
           "baseline_seconds": round(base, 3), "baseline_service_seconds": round(base_service, 3),
           "ratio_ours_to_baseline": round(ours[best] / base, 1) if base else None,
           "target_overhead_seconds": TARGET_OVERHEAD,
           "failures": failures}
    if out["cli_overhead_seconds"] >= TARGET_OVERHEAD:
        out["note"] = "the CLI's overhead (start-up included) is over the target"

    def report(d: dict[str, Any]) -> None:
        print(f"replay of a {d['steps']}-step finding, {d['attempts']} attempts "
              f"({d['requests']} requests) against a loopback service")
        print(f"{'':<28}{'total s':>9}{'service s':>11}{'overhead s':>12}")
        print(f"{'ours (run_replay)':<28}{d['ours_seconds']:>9.3f}"
              f"{d['ours_service_seconds']:>11.3f}{d['ours_overhead_seconds']:>12.3f}")
        print(f"{'ours (workbench replay)':<28}{d['cli_seconds']:>9.3f}"
              f"{d['cli_service_seconds']:>11.3f}{d['cli_overhead_seconds']:>12.3f}")
        print(f"{'start-up (workbench traces)':<28}{d['startup_seconds']:>9.3f}")
        print(f"{'baseline (http.client)':<28}{d['baseline_seconds']:>9.3f}"
              f"{d['baseline_service_seconds']:>11.3f}"
              f"{d['baseline_seconds'] - d['baseline_service_seconds']:>12.3f}")
        print(f"ours / baseline: {d['ratio_ours_to_baseline']}x; target: overhead under "
              f"{d['target_overhead_seconds']:.0f} s plus the service's time")
        for f in d["failures"]:
            print("FAILED:", f)

    return finish(out, args.json, report)


if __name__ == "__main__":
    sys.exit(main())
