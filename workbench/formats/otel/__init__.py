"""OpenTelemetry: OTLP JSON (documents, collector JSONL, Tempo envelopes), OTLP protobuf
(files and the collector's bodies, turned into OTLP JSON), SDK span JSON, Phoenix span
exports, any-agent traces, Langfuse exports, all mapped by one span mapping (``_span``);
and the OTLP writer."""

from ._any_agent import ANY_AGENT
from ._langfuse import LANGFUSE
from ._otel_json import OTEL_JSON
from ._otlp import OTLP
from ._otlp_proto import (
    OTLP_PROTO,
    ProtoUnavailableError,
    decode_traces,
    gunzip,
    span_trace_ids,
    to_otlp_json,
)
from ._phoenix import PHOENIX
from ._write import otlp_rows

__all__ = ["ANY_AGENT", "LANGFUSE", "OTEL_JSON", "OTLP", "OTLP_PROTO", "PHOENIX",
           "ProtoUnavailableError", "decode_traces", "gunzip", "otlp_rows", "span_trace_ids",
           "to_otlp_json"]
