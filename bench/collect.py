"""The OTLP receiver under a steady load of real SDK exporters, against a bare
standard-library HTTP server appending the bodies to a file, in the same run.

- Load: ``--exporters`` processes (default 4), each the OpenTelemetry SDK's
  ``BatchSpanProcessor`` with the OTLP/HTTP protobuf exporter (``--protocol json``: the
  JSON one), creating ``--rate`` spans a second in all (default 5,000) for
  ``--seconds`` (default 60), in traces of ``--spans-per-trace`` spans (an
  ``invoke_agent`` span and tool calls with GenAI attributes). Each export call is timed.
- ``ours``: ``workbench collect --port 0 --idle 10`` into a fresh store (redaction on).
  ``baseline``: ``http.server.ThreadingHTTPServer`` answering every POST with an empty
  ``ExportTraceServiceResponse`` after appending the body (size-prefixed) to a file.
- Counted end to end: spans the exporters created, spans acknowledged (export
  ``SUCCESS``), spans the receiver has at the end (ours: events in the store after
  SIGTERM committed every trace; baseline: spans decoded from its file). ``lost`` =
  created − stored, must be 0.
- Prints per receiver: spans/s achieved, export latency p50/p99 (ms), lost, the
  receiver's peak RSS (its ``wait4`` maximum, the commit's ingest included) and CPU
  seconds, and the ratios ours / baseline.

    python bench/collect.py [--seconds 60] [--rate 5000] [--exporters 4] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

BASELINE = r"""
import struct, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
out = open(sys.argv[1], "ab")
lock = threading.Lock()
class H(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with lock:
            out.write(struct.pack(">I", len(body)) + body)
        self.send_response(200)
        self.send_header("Content-Type", self.headers.get("Content-Type", ""))
        self.send_header("Content-Length", "0")
        self.end_headers()
    def log_message(self, *a):
        pass
s = ThreadingHTTPServer(("127.0.0.1", 0), H)
s.daemon_threads = True
print('{"url": "http://127.0.0.1:%d"}' % s.server_address[1], flush=True)
import signal
signal.signal(signal.SIGTERM, lambda *a: (out.flush(), out.close(), sys.exit(0)))
s.serve_forever()
"""

EXPORTER = r"""
import json, sys, time
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExportResult
endpoint, protocol, rate, seconds, per_trace, n = sys.argv[1:7]
rate, seconds, per_trace = float(rate), float(seconds), int(per_trace)
if protocol == "protobuf":
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
else:
    from opentelemetry.exporter.otlp.json.http.trace_exporter import OTLPSpanExporter
lat, acked = [], [0]
class Timed(OTLPSpanExporter):
    def export(self, spans):
        t = time.perf_counter()
        r = super().export(spans)
        lat.append((time.perf_counter() - t) * 1000)
        if r == SpanExportResult.SUCCESS:
            acked[0] += len(spans)
        return r
p = TracerProvider(resource=Resource.create({"service.name": f"bench-agent-{n}"}))
p.add_span_processor(BatchSpanProcessor(Timed(endpoint=endpoint), max_queue_size=1 << 16))
t = p.get_tracer("bench")
made, start = 0, time.perf_counter()
while True:
    now = time.perf_counter() - start
    if now >= seconds:
        break
    due = int(now * rate) - made
    while due >= per_trace:
        with t.start_as_current_span("invoke_agent bench") as root:
            root.set_attribute("gen_ai.operation.name", "invoke_agent")
            root.set_attribute("gen_ai.agent.name", "bench")
            for i in range(per_trace - 1):
                with t.start_as_current_span("execute_tool search") as s:
                    s.set_attribute("gen_ai.operation.name", "execute_tool")
                    s.set_attribute("gen_ai.tool.name", "search")
                    s.set_attribute("gen_ai.tool.call.arguments", json.dumps({"q": f"q{made + i}"}))
                    s.set_attribute("gen_ai.tool.call.result", json.dumps({"hits": [made, i]}))
        made += per_trace
        due -= per_trace
    time.sleep(0.005)
p.force_flush(120_000)
p.shutdown()
print(json.dumps({"made": made, "acked": acked[0], "latencies": lat}), flush=True)
"""


def _start(cmd: list[str]) -> tuple[subprocess.Popen[bytes], dict[str, Any]]:
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line.strip():
        proc.kill()
        raise RuntimeError(f"{cmd[:4]} did not start: {proc.communicate()[1].decode()}")
    return proc, json.loads(line)


def _stop(proc: subprocess.Popen[bytes]) -> tuple[str, float, float]:
    """SIGTERM and wait: its stdout, peak RSS (MB, wait4) and CPU seconds."""
    proc.send_signal(signal.SIGTERM)
    assert proc.stdout is not None
    out = proc.stdout.read().decode()
    _, _status, usage = os.wait4(proc.pid, 0)
    proc.returncode = 0
    return out, usage.ru_maxrss * 1024 / 1e6, usage.ru_utime + usage.ru_stime


def _load(endpoint: str, args: argparse.Namespace) -> dict[str, Any]:
    procs = [subprocess.Popen([sys.executable, "-c", EXPORTER, endpoint, args.protocol,
                               str(args.rate / args.exporters), str(args.seconds),
                               str(args.spans_per_trace), str(i)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for i in range(args.exporters)]
    made = acked = 0
    lat: list[float] = []
    for p in procs:
        out, err = p.communicate()
        if p.returncode != 0:
            raise RuntimeError(f"an exporter failed: {err.decode()[-2000:]}")
        doc = json.loads(out.decode().strip().splitlines()[-1])
        made += doc["made"]
        acked += doc["acked"]
        lat += doc["latencies"]
    lat.sort()

    def q(f: float) -> float:
        return lat[min(len(lat) - 1, int(f * len(lat)))] if lat else 0.0
    return {"made": made, "acked": acked, "exports": len(lat), "p50_ms": q(0.50),
            "p99_ms": q(0.99), "max_ms": lat[-1] if lat else 0.0}


def run_ours(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    store = work / "store"
    proc, ready = _start([sys.executable, "-m", "workbench", "collect", "--port", "0",
                          "--json", "--idle", str(args.idle), "--store", str(store)])
    t0 = time.perf_counter()
    res = _load(ready["endpoint"], args)
    seconds = time.perf_counter() - t0
    out, rss, cpu = _stop(proc)
    summary = json.loads(out.strip().splitlines()[-1])
    from workbench.store import Store
    events = Store(store).sql("select count(*) as n from events").column("n")[0].as_py()
    return {**res, "seconds": seconds, "stored": events, "traces": len(summary["traces"]),
            "refused": summary["refused_spans"], "peak_rss_mb": rss, "cpu_seconds": cpu}


def run_baseline(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    sink = work / "bodies.bin"
    proc, ready = _start([sys.executable, "-c", BASELINE, str(sink)])
    t0 = time.perf_counter()
    res = _load(ready["url"] + "/v1/traces", args)
    seconds = time.perf_counter() - t0
    _, rss, cpu = _stop(proc)
    from workbench.formats import decode_traces
    data, pos, spans = sink.read_bytes(), 0, 0
    while pos < len(data):
        size = int.from_bytes(data[pos:pos + 4], "big")
        body = data[pos + 4:pos + 4 + size]
        pos += 4 + size
        doc = (decode_traces(body) if args.protocol == "protobuf" else json.loads(body))
        spans += sum(len(ss.get("spans", [])) for rs in doc["resourceSpans"]
                     for ss in rs.get("scopeSpans", []))
    return {**res, "seconds": seconds, "stored": spans, "peak_rss_mb": rss,
            "cpu_seconds": cpu}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--rate", type=float, default=5000.0, help="spans a second, in all")
    ap.add_argument("--exporters", type=int, default=4)
    ap.add_argument("--spans-per-trace", type=int, default=5)
    ap.add_argument("--protocol", choices=("protobuf", "json"), default="protobuf")
    ap.add_argument("--idle", type=float, default=10.0)
    ap.add_argument("--only", choices=("ours", "baseline"))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    doc: dict[str, Any] = {"settings": {k: v for k, v in vars(args).items() if k != "json"},
                           "load_average": os.getloadavg()[0], "failures": []}
    with tempfile.TemporaryDirectory() as tmp:
        for name, fn in (("baseline", run_baseline), ("ours", run_ours)):
            if args.only in (None, name):
                (Path(tmp) / name).mkdir()
                r = fn(args, Path(tmp) / name)
                r["spans_per_second"] = r["stored"] / r["seconds"]
                r["lost"] = r["made"] - r["stored"]
                doc[name] = r
    if "ours" in doc:
        o = doc["ours"]
        if o["lost"]:
            doc["failures"].append(f"ours lost {o['lost']} spans")
        if o["p99_ms"] >= 50:
            doc["failures"].append(f"ours p99 export latency {o['p99_ms']:.1f} ms >= 50")
        if "baseline" in doc:
            b = doc["baseline"]
            doc["ratio"] = {"p99": o["p99_ms"] / max(b["p99_ms"], 1e-9),
                            "spans_per_second": o["spans_per_second"]
                            / max(b["spans_per_second"], 1e-9),
                            "peak_rss": o["peak_rss_mb"] / max(b["peak_rss_mb"], 1e-9)}
    if args.json:
        print(json.dumps(doc, indent=2))
    else:
        _report(doc)
    return 1 if doc["failures"] else 0


def _report(doc: dict[str, Any]) -> None:
    s = doc["settings"]
    print(f"{s['exporters']} exporters ({s['protocol']}), {s['rate']:.0f} spans/s for "
          f"{s['seconds']:.0f} s, load average {doc['load_average']:.1f}")
    print(f"{'receiver':<9} {'made':>8} {'acked':>8} {'stored':>8} {'lost':>5} "
          f"{'spans/s':>8} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} {'RSS MB':>7} "
          f"{'CPU s':>6}")
    for name in ("baseline", "ours"):
        r = doc.get(name)
        if r:
            print(f"{name:<9} {r['made']:>8} {r['acked']:>8} {r['stored']:>8} "
                  f"{r['lost']:>5} {r['spans_per_second']:>8.0f} {r['p50_ms']:>7.2f} "
                  f"{r['p99_ms']:>7.2f} {r['max_ms']:>7.1f} {r['peak_rss_mb']:>7.1f} "
                  f"{r['cpu_seconds']:>6.1f}")
    if "ratio" in doc:
        r = doc["ratio"]
        print(f"ours / baseline: p99 latency {r['p99']:.2f}x, spans/s "
              f"{r['spans_per_second']:.2f}x, peak RSS {r['peak_rss']:.2f}x")
    for f in doc["failures"]:
        print(f"FAILED: {f}")


if __name__ == "__main__":
    sys.exit(main())
