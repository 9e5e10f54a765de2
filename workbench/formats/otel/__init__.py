"""OpenTelemetry: OTLP JSON (documents, collector JSONL, Tempo envelopes), SDK span JSON,
Phoenix span exports, any-agent traces, Langfuse exports, all mapped by one span mapping
(``_span``); and the OTLP writer."""

from ._any_agent import ANY_AGENT
from ._langfuse import LANGFUSE
from ._otel_json import OTEL_JSON
from ._otlp import OTLP
from ._phoenix import PHOENIX
from ._write import otlp_rows

__all__ = ["ANY_AGENT", "LANGFUSE", "OTEL_JSON", "OTLP", "PHOENIX", "otlp_rows"]
