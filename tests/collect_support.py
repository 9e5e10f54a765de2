"""Helpers of the collector's tests: the real OpenTelemetry SDK exporting to it, and
OTLP bodies built with the official protobuf definitions."""

from __future__ import annotations

import gzip
import http.client
import json
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from workbench.store import Store

SECRET = "ghp_" + "Zx9" * 12  # a GitHub token shape the redactor knows
TRACE_A = "5b8efff798038103d269b633813fc60c"
TRACE_B = "0af7651916cd43dd8448eb211c80319c"


def export_with_sdk(endpoint: str, protocol: str, traces: int, *,
                    secret: str = SECRET) -> None:
    """``traces`` traces of two spans (an agent turn and one tool call that carries
    ``secret`` in an attribute), exported by the real SDK's OTLP/HTTP exporter
    (``protobuf`` or ``json``) and flushed."""
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor
    if protocol == "protobuf":
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    else:
        from opentelemetry.exporter.otlp.json.http.trace_exporter import (  # type: ignore
            OTLPSpanExporter,
        )
    provider = TracerProvider(resource=Resource.create({"service.name": f"agent-{protocol}"}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    tracer = provider.get_tracer("collect-tests")
    for i in range(traces):
        with tracer.start_as_current_span("invoke_agent ops") as root:
            root.set_attribute("gen_ai.operation.name", "invoke_agent")
            with tracer.start_as_current_span("execute_tool search") as tool:
                tool.set_attribute("gen_ai.operation.name", "execute_tool")
                tool.set_attribute("gen_ai.tool.name", "search")
                tool.set_attribute("gen_ai.tool.call.arguments", json.dumps({"q": f"q{i}"}))
                tool.set_attribute("http.request.header.authorization", f"token {secret}")
    assert provider.force_flush(30_000)
    provider.shutdown()


def span(trace_id: str, span_id: str, name: str = "execute_tool search", **attrs: str
         ) -> dict[str, Any]:
    """An OTLP/JSON span."""
    return {"traceId": trace_id, "spanId": span_id, "name": name, "kind": 1,
            "startTimeUnixNano": "1700000000000000000",
            "endTimeUnixNano": "1700000000100000000",
            "attributes": [{"key": k, "value": {"stringValue": v}} for k, v in attrs.items()]}


def otlp_json(*spans: dict[str, Any]) -> dict[str, Any]:
    return {"resourceSpans": [{"resource": {"attributes": [
        {"key": "service.name", "value": {"stringValue": "tests"}}]},
        "scopeSpans": [{"scope": {"name": "tests"}, "spans": list(spans)}]}]}


def otlp_protobuf(*spans: dict[str, Any]) -> bytes:
    """The same document as protobuf bytes (ids hex in, bytes out)."""
    import base64

    from google.protobuf.json_format import ParseDict
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest,
    )
    doc = otlp_json(*spans)
    for rs in doc["resourceSpans"]:
        for ss in rs["scopeSpans"]:
            for sp in ss["spans"]:
                for k in ("traceId", "spanId", "parentSpanId"):
                    if k in sp:
                        sp[k] = base64.b64encode(bytes.fromhex(sp[k])).decode()
    msg: Any = ParseDict(doc, ExportTraceServiceRequest())
    return bytes(msg.SerializeToString())


def post(url: str, body: bytes, content_type: str, *, gzipped: bool = False,
         headers: dict[str, str] | None = None,
         path: str = "/v1/traces") -> tuple[int, dict[str, str], bytes]:
    """One POST on a new connection: status, headers (lower-case), raw body."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        hdrs = {"Content-Type": content_type, **(headers or {})}
        if gzipped:
            body = gzip.compress(body)
            hdrs["Content-Encoding"] = "gzip"
        conn.request("POST", path, body=body, headers=hdrs)
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def partial(body: bytes, content_type: str) -> tuple[int, str]:
    """``(rejected spans, message)`` of an ``ExportTraceServiceResponse``."""
    if content_type == "application/json":
        doc = json.loads(body)
        ps = doc.get("partialSuccess") or {}
        return int(ps.get("rejectedSpans") or 0), ps.get("errorMessage", "")
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceResponse,
    )
    resp = ExportTraceServiceResponse.FromString(body)
    return resp.partial_success.rejected_spans, resp.partial_success.error_message


def stored(store: Path) -> set[str]:
    return Store(store).trace_ids() if (store / "_commits").exists() else set()


def wait_until(predicate: Any, what: str, limit: float = 120.0) -> None:
    """Poll ``predicate`` until it holds (a hang, not a slow machine, trips ``limit``)."""
    deadline = time.monotonic() + limit
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


def all_bytes(root: Path) -> bytes:
    """Every file under ``root`` concatenated (for "this secret is nowhere")."""
    return b"".join(p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file())
