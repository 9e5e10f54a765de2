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
- Generated inputs: the users service of the replay tests (double create on), probed
  with ``--seed 3`` (its generated emails are redacted at ingest), the double create
  replayed 3 times: ``run_replay`` in this process, and ``regenerate`` alone on the same
  steps in a fresh process that has judged the trace and redacted a value first (what
  any replay pays), so the figure is what regeneration adds to ``workbench replay``:
  Hypothesis's import, the first strategy, the draws and the proofs; beside the same
  call on the orders finding (which holds no token: the scan alone).

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


_REGEN = """
import sys, time
t0 = time.perf_counter()
from workbench.replay._find import pick, spec_for
from workbench.replay._regen import regenerate
from workbench.replay._send import steps_of
from workbench.invariants import exchanges_of
from workbench.store import Store
store = Store(sys.argv[1])
picked = pick(store, sys.argv[2])
trace = store.trace(picked.source_trace)
steps = steps_of(trace.events, exchanges_of(trace))
# what a replay pays anyway: judging (jsonschema and its format checkers) and redacting
# (each attempt is ingested with redaction on)
from workbench.replay._find import judge_for
from workbench.redact import Redactor
judge_for(picked)(trace)
Redactor(store.redaction_key()).value(trace.events[0].args)
t1 = time.perf_counter()
out = regenerate(steps, trace.events, lambda: spec_for(picked), store.redaction_key)
t2 = time.perf_counter()
print(t2 - t1, out.values, out.draws, len(out.tokens), len(steps))
"""


def regen_cost(store: Path, ref: str, cwd: str) -> tuple[float, int, int, int, int]:
    """``regenerate`` alone in a fresh process: seconds, values, draws, token steps, steps."""
    done = subprocess.run([sys.executable, "-c", _REGEN, str(store), ref], cwd=cwd,
                          capture_output=True, text=True, check=True,
                          env={**os.environ, "PYTHONPATH": str(REPO)})
    secs, *counts = done.stdout.split()
    values, draws, tokens, steps = map(int, counts)
    return float(secs), values, draws, tokens, steps


def generated(tmp: str, attempts: int, repeat: int) -> dict[str, Any]:
    """A probe's finding whose emails the store holds as tokens, replayed."""
    import yaml

    from tests.unit.replay.users import DOC as USERS
    from tests.unit.replay.users import running
    from workbench.ingest import ingest
    from workbench.invariants import check_invariants, parse_spec, probe
    from workbench.model import dumps
    from workbench.replay import run_replay
    from workbench.store import Store

    api = Path(tmp) / "users.yaml"
    api.write_text(yaml.safe_dump(USERS))
    spec = parse_spec(USERS, str(api))
    store = Store(Path(tmp) / "users-store")
    with running({"double_create"}) as (url, _):
        done = probe(spec, url, seed=3, writes=True)
        har = Path(tmp) / "probe-seed-3.har"
        har.write_text(dumps(done.har()))
        ingest([har], store)
        found = check_invariants(store, spec, only=["idempotent_retry"],
                                 source=f"{api} (probe seed 3)")
        sig = next(f.signature for f in found.findings
                   if "created a second resource" in f.message)
        took, outcomes = [], []
        for _ in range(repeat):
            t0 = time.perf_counter()
            result = run_replay(store, sig, url, attempts=attempts)
            took.append(time.perf_counter() - t0)
            outcomes.append([(r.outcome, r.tokens_sent) for r in result.runs])
    from workbench.invariants import exchanges_of
    from workbench.replay._find import pick, spec_for
    from workbench.replay._regen import regenerate
    from workbench.replay._send import steps_of

    picked = pick(store, sig)
    trace = store.trace(picked.source_trace)
    spec_of, steps_ = (lambda: spec_for(picked)), steps_of(trace.events, exchanges_of(trace))
    warm = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        regenerate(steps_, trace.events, spec_of, store.redaction_key)
        warm.append(time.perf_counter() - t0)
    secs, values, draws, tokens, steps = regen_cost(store.root, sig, tmp)
    return {"steps": steps, "replay_seconds": round(min(took), 3),
            "regenerate_warm_seconds": round(min(warm), 3),
            "regenerate_seconds": round(secs, 3), "values": values, "draws": draws,
            "steps_left_with_tokens": tokens, "reproduced_every_attempt": all(
                o == [("reproduced", [])] * attempts for o in outcomes)}


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
        scan = regen_cost(store.root, sig, tmp)[0]
        gen = generated(tmp, args.attempts, args.repeat)
    server.shutdown()
    if not gen["reproduced_every_attempt"]:
        failures.append("the probe's finding did not reproduce with its emails regenerated")
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
           "regenerate_scan_seconds": round(scan, 4), "generated": gen,
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
        g = d["generated"]
        print(f"generated inputs: regenerate on this finding (no token, the scan alone) "
              f"{d['regenerate_scan_seconds']:.4f} s")
        print(f"  a {g['steps']}-step probe finding ({g['values']} values proved, "
              f"{g['draws']} draws, {g['steps_left_with_tokens']} steps left with tokens): "
              f"regenerate {g['regenerate_warm_seconds']:.3f} s in this process, "
              f"{g['regenerate_seconds']:.3f} s added to a fresh one (imports included); "
              f"run_replay {g['replay_seconds']:.3f} s for {d['attempts']} attempts")
        for f in d["failures"]:
            print("FAILED:", f)

    return finish(out, args.json, report)


if __name__ == "__main__":
    sys.exit(main())
