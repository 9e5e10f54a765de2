"""OpenTelemetry: OTLP JSON (documents, collector JSONL, Tempo envelopes), SDK span JSON,
Langfuse exports, all mapped by one span mapping (``_span``); and the OTLP writer."""

from ._langfuse import LANGFUSE
from ._otel_json import OTEL_JSON
from ._otlp import OTLP
from ._write import otlp_rows

__all__ = ["LANGFUSE", "OTEL_JSON", "OTLP", "otlp_rows"]
