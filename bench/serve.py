"""The contract server's throughput and latency with recording on, against a plain
server answering a constant, in the same run.

- Input: a generated HAR of ``--exchanges`` (default 1,000) recorded exchanges
  (``GET /v1/items/N?view=full``, JSON bodies of a few hundred bytes).
- ``ours``: ``workbench serve HAR --port 0`` (a real process, recording every request to
  a fresh store, redaction on). ``baseline``: the standard library's
  ``ThreadingHTTPServer`` with HTTP/1.1 keep-alive answering one constant JSON body,
  also its own process.
- Load: ``--clients`` processes (1, then 8 by default), each on one keep-alive
  connection, sending ``--requests`` requests in total, spread over the exchanges.
- Prints requests/s, p50 and p99 latency per server and client count, the ratio ours /
  baseline, and checks that the store holds exactly as many recorded requests as were
  sent (``lost`` must be 0).

    python bench/serve.py [--exchanges 1000] [--requests 20000] [--clients 1,8] [--json]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import signal
import subprocess
import sys
import tempfile
import time
from http.client import HTTPConnection
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

BASELINE = r"""
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
BODY = b'{"id": "item-1", "owner": "team-a", "state": "active", "tags": ["a", "b"]}'
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(BODY)))
        self.end_headers()
        self.wfile.write(BODY)
    def log_message(self, *a):
        pass
s = ThreadingHTTPServer(("127.0.0.1", 0), H)
print('{"url": "http://127.0.0.1:%d"}' % s.server_address[1], flush=True)
s.serve_forever()
"""


def make_har(path: Path, n: int) -> None:
    entries = []
    for i in range(n):
        body = json.dumps({"id": f"item-{i}", "owner": f"team-{i % 7}", "state": "active",
                           "tags": ["a", "b"], "size": i * 13})
        entries.append({
            "startedDateTime": "2026-01-01T00:00:00.000Z", "time": 1,
            "request": {"method": "GET", "url": f"https://api.test/v1/items/{i}?view=full",
                        "httpVersion": "HTTP/1.1", "headers": [], "queryString": [],
                        "cookies": [], "headersSize": -1, "bodySize": 0},
            "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                         "headers": [{"name": "Content-Type", "value": "application/json"}],
                         "cookies": [], "content": {"size": len(body),
                                                    "mimeType": "application/json",
                                                    "text": body},
                         "redirectURL": "", "headersSize": -1, "bodySize": len(body)},
            "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}})
    path.write_text(json.dumps({"log": {"version": "1.2", "creator": {"name": "bench"},
                                        "entries": entries}}))


def _client(url: str, start: int, count: int, exchanges: int, out: Any) -> None:
    host, port = url.removeprefix("http://").split(":")
    conn = HTTPConnection(host, int(port), timeout=60)
    lat: list[float] = []
    errors = 0
    for k in range(count):
        i = (start + k * 7) % exchanges
        t0 = time.perf_counter()
        conn.request("GET", f"/v1/items/{i}?view=full")
        resp = conn.getresponse()
        resp.read()
        lat.append(time.perf_counter() - t0)
        errors += resp.status != 200
    conn.close()
    out.put((lat, errors))


def load(url: str, clients: int, total: int, exchanges: int) -> dict[str, Any]:
    q: Any = mp.Queue()
    each = total // clients
    procs = [mp.Process(target=_client, args=(url, c * 131, each, exchanges, q))
             for c in range(clients)]
    t0 = time.perf_counter()
    for p in procs:
        p.start()
    results = [q.get() for _ in procs]
    wall = time.perf_counter() - t0
    for p in procs:
        p.join()
    lat = sorted(x for r in results for x in r[0])
    n = len(lat)
    return {"clients": clients, "requests": n, "errors": sum(r[1] for r in results),
            "seconds": round(wall, 3), "rps": round(n / wall),
            "p50_ms": round(lat[n // 2] * 1000, 2),
            "p99_ms": round(lat[min(n - 1, int(n * 0.99))] * 1000, 2)}


def start(cmd: list[str]) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=REPO)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        raise SystemExit(f"could not start {cmd}: {proc.stderr.read() if proc.stderr else ''}")
    return proc, json.loads(line)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--exchanges", type=int, default=1000)
    ap.add_argument("--requests", type=int, default=20000)
    ap.add_argument("--clients", default="1,8")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    counts = [int(c) for c in args.clients.split(",")]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="bench-serve-") as tmp:
        har = Path(tmp) / "items.har"
        make_har(har, args.exchanges)
        for clients in counts:
            for name in ("baseline", "ours"):
                store = Path(tmp) / f"store-{clients}"
                cmd = ([sys.executable, "-c", BASELINE] if name == "baseline" else
                       [sys.executable, "-m", "workbench", "serve", str(har), "--port", "0",
                        "--json", "--store", str(store)])
                proc, doc = start(cmd)
                try:
                    load(doc["url"], clients, min(1000, args.requests), args.exchanges)
                    row = {"server": name, **load(doc["url"], clients, args.requests,
                                                  args.exchanges)}
                finally:
                    proc.send_signal(signal.SIGTERM)
                    proc.wait(timeout=600)
                if name == "ours":
                    from workbench.store import Store
                    recorded = Store(store).sql("SELECT count(*) AS n FROM events")
                    sent = row["requests"] + min(1000, args.requests)
                    row["recorded"] = int(recorded.column("n")[0].as_py())
                    row["lost"] = sent - row["recorded"]
                rows.append(row)
    ratios = {}
    for clients in counts:
        ours = next(r for r in rows if r["server"] == "ours" and r["clients"] == clients)
        base = next(r for r in rows if r["server"] == "baseline" and r["clients"] == clients)
        ratios[f"rps ours/baseline, {clients} client(s)"] = round(ours["rps"] / base["rps"], 2)
    doc = {"rows": rows, "ratios": ratios, "cpus": os.cpu_count(),
           "targets": {"rps": ">= 2000", "p99_ms": "< 20", "lost": 0}}
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        print(f"{'server':9} {'clients':>7} {'requests':>8} {'rps':>7} {'p50 ms':>7} "
              f"{'p99 ms':>7} {'errors':>6} {'lost':>5}")
        for r in rows:
            print(f"{r['server']:9} {r['clients']:>7} {r['requests']:>8} {r['rps']:>7} "
                  f"{r['p50_ms']:>7} {r['p99_ms']:>7} {r['errors']:>6} "
                  f"{r.get('lost', '-'):>5}")
        for k, v in ratios.items():
            print(f"{k}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
