"""The OTel-shaped corpus folders, read by their adapters, against counts taken from
the files themselves.

How the counts were taken: each file was loaded with the standard ``json`` module
and its spans (OTLP ``spans[]`` under ``resourceSpans``/``batches``, the span array,
or Langfuse ``observations[]``) counted directly; an attribute map is one span.

- events: the number of spans / observations;
- tool_calls: spans with ``gen_ai.operation.name = execute_tool``, a
  ``gen_ai.tool.name``, OpenInference kind ``TOOL``, Vercel ``ai.toolCall``, or
  Langfuse type ``TOOL``;
- parented: spans whose parent id is non-empty; orphans: those whose parent id is not
  the id of a span in the same file;
- errors: status code 2 / level ERROR, an ``error.type`` attribute, or an ``exception``
  span event on a span whose status is not OK (kagent: 5 ``dequeue_event`` spans with
  status code 0 and an ``asyncio.CancelledError`` exception event);
- traces: distinct trace ids.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import counts, orphans, read
from workbench.formats import Adapter, open_source
from workbench.formats.otel._langfuse import LANGFUSE
from workbench.formats.otel._otel_json import OTEL_JSON
from workbench.formats.otel._otlp import OTLP
from workbench.ingest import detect

# file -> (adapter, events, tool_calls, parented, orphans, errors, traces)
EXPECTED: dict[str, tuple[Adapter, int, int, int, int, int, int]] = {
    # one SERVER span, upper-case hex ids, its parent EEE19B7EC3C1B173 is not in the file
    "opentelemetry-proto-examples/trace.json": (OTLP, 1, 0, 1, 1, 0, 1),
    # Tempo envelope: 86 spans, "" parent on the root, 9 parents missing from the export
    "agentevals-kagent-tempo/tempo_export_with_batches.json": (OTLP, 86, 1, 85, 9, 5, 1),
    # one execute_tool span each, no parent, client and server in different traces
    "assay-otlp-mcp/mcp_client_tools_call.json": (OTLP, 1, 1, 0, 0, 0, 1),
    "assay-otlp-mcp/mcp_server_tools_call.json": (OTLP, 1, 1, 0, 0, 0, 1),
    # ten Vercel AI SDK spans, each in its own trace, no parent ids stored
    "openinference-otel-spans/vercel-ai-sdk-v6.all-spans.json": (OTEL_JSON, 10, 0, 0, 0, 0, 10),
    # attribute maps of one span each
    "openinference-otel-spans/openinference_client_span_tool_calls.json":
        (OTEL_JSON, 1, 0, 0, 0, 0, 1),
    "openinference-otel-spans/otel_genai_client_span_tool_calls.json":
        (OTEL_JSON, 1, 0, 0, 0, 0, 1),
    "openinference-otel-spans/otel_genai_deprecated_client_span_tool_calls.json":
        (OTEL_JSON, 1, 0, 0, 0, 0, 1),
    "openinference-otel-spans/otel_genai_tool_execution_span.json":
        (OTEL_JSON, 1, 1, 0, 0, 0, 1),
    # Langfuse exports: 62 observations in all, every parent resolves
    "langfuse-framework-traces/claude-agent-2025-12-22.trace.json": (LANGFUSE, 7, 2, 6, 0, 0, 1),
    "langfuse-framework-traces/crewai-2025-07-11.trace.json": (LANGFUSE, 6, 0, 5, 0, 0, 1),
    "langfuse-framework-traces/google-adk-2025-08-28.trace.json": (LANGFUSE, 5, 1, 4, 0, 0, 1),
    "langfuse-framework-traces/koog-2025-08-26.trace.json": (LANGFUSE, 11, 2, 10, 0, 0, 1),
    "langfuse-framework-traces/langgraph-python-2025-08-22.trace.json":
        (LANGFUSE, 9, 0, 8, 0, 0, 1),
    "langfuse-framework-traces/microsoft-agent-2025-12-17.trace.json":
        (LANGFUSE, 4, 1, 3, 0, 0, 1),
    "langfuse-framework-traces/openai-agents-2025-09-30.trace.json":
        (LANGFUSE, 5, 1, 4, 0, 0, 1),
    "langfuse-framework-traces/pydantic-ai-tools-2025-12-04.trace.json":
        (LANGFUSE, 12, 3, 11, 0, 0, 1),
    "langfuse-framework-traces/vercel-aisdk-2025-11-17.trace.json": (LANGFUSE, 3, 1, 2, 0, 0, 1),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_counts(corpus: Path, name: str) -> None:
    adapter, n, tools, parented, orphaned, errors, traces = EXPECTED[name]
    events, _ = read(adapter, corpus / name)
    assert counts(events) == (n, tools, errors, parented, traces)
    assert orphans(events) == orphaned


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_detection(corpus: Path, name: str) -> None:
    assert detect(open_source(corpus / name)).name == EXPECTED[name][0].name


def test_langfuse_folder_totals(corpus: Path) -> None:
    files = sorted((corpus / "langfuse-framework-traces").glob("*.trace.json"))
    assert len(files) == 9
    assert sum(len(read(LANGFUSE, f)[0]) for f in files) == 62


def test_capture_manifest_is_not_a_trace(corpus: Path) -> None:
    # vercel-ai-sdk-v6.capture-results.json lists attribute *names* as values; no adapter
    # of an OTel shape may claim it
    src = open_source(corpus / "openinference-otel-spans/vercel-ai-sdk-v6.capture-results.json")
    assert OTEL_JSON.sniff(src) == 0
    assert OTLP.sniff(src) == 0
    assert LANGFUSE.sniff(src) == 0


def test_mcp_session_log_is_left_to_its_own_adapter(corpus: Path) -> None:
    src = open_source(corpus / "assay-otlp-mcp/mcp_edge_case_session.json")
    assert (OTLP.sniff(src), OTEL_JSON.sniff(src), LANGFUSE.sniff(src)) == (0, 0, 0)


def test_kagent_spans_keep_their_quirks(corpus: Path) -> None:
    events, [info] = read(OTLP, corpus / "agentevals-kagent-tempo/tempo_export_with_batches.json")
    [tool] = [e for e in events if e.kind == "tool_call"]
    assert tool.name == "helm_list_releases"
    assert tool.args == {}   # from gcp.vertex.agent.tool_call_args
    assert isinstance(tool.result, dict) and "content" in tool.result
    assert tool.attrs["gen_ai.tool.call.id"] == "call_w0eKlvnaE7S9GQJeSSs0gn05"
    generate = [e for e in events if e.attrs.get("gen_ai.operation.name") == "generate_content"]
    assert [e.result["finish_reasons"] for e in generate] == [["stop"], ["stop"]]
    assert {e.attrs["otel.span_kind"] for e in events} == {"SERVER", "CLIENT", "INTERNAL"}
    assert info.root_task == "list all helm releases"
    assert info.versions["providers"] == ["openai", "gemini"]
    assert len(info.attrs["resources"]) == 2


def test_proto_example_ids_are_lower_case(corpus: Path) -> None:
    [ev], _ = read(OTLP, corpus / "opentelemetry-proto-examples/trace.json")
    assert (ev.trace_id, ev.event_id, ev.parent_id) == (
        "5b8efff798038103d269b633813fc60c", "eee19b7ec3c1b174", "eee19b7ec3c1b173")
    assert ev.attrs["otel.scope.attributes"] == {"my.scope.attribute": "some scope attribute"}
