"""The ``inspect-ai`` corpus folder, read by the ``inspect`` adapter, against counts taken
from the files themselves.

How the counts were taken: each log was opened with the standard ``json`` and
``zipfile`` modules and the ``events`` of every sample counted by their ``event`` field
(``messages`` where a sample has no events):

- events: sample events minus ``span_end`` and ``step``/``end`` entries (each folds
  into its begin); for a sample without events, its messages minus the tool messages
  that answer a call in the list, plus the calls;
- tool_calls: ``tool`` events (or assistant ``tool_calls`` plus unanswerable tool
  messages);
- errors: ``tool``/``model`` events with an ``error``, ``error`` events, ``sandbox``
  events with a non-zero ``result`` (exit status), tool messages with an ``error``;
- parented: events with a ``span_id`` (a ``span_begin`` only when it has a
  ``parent_id``), and events inside an open ``step``;
- traces: samples (one per sample id and epoch).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import counts, read
from workbench.formats import open_source
from workbench.formats.agents import INSPECT
from workbench.ingest import detect

FOLDER = "inspect-ai"

# file -> (events, tool_calls, errors, parented, traces)
EXPECTED: dict[str, tuple[int, int, int, int, int]] = {
    # 1 sample, 43 events: 8 span_begin + 8 span_end (folded), 5 model, 4 tool,
    # 10 sandbox (all exit 0), 4 store, 2 state, 1 sample_init, 1 score = 35 events;
    # 27 non-span events carry a span_id, 4 tool spans have parent_id = the generate span
    "2025-05-12T20-27-36-04-00_browser.json": (35, 4, 0, 31, 1),
    # 1 sample, no events, 11 tool messages (bash_1 .. bash_11) answering no call in
    # the list, each with an error.type: 11 unmatched tool calls, all errors
    "log_tool_call_error.json": (11, 11, 11, 0, 1),
    # 4 samples (2 ids x 2 epochs) of 11 events: 3 step begin + 3 step end (folded),
    # 2 state, 1 sample_init, 1 model, 1 score = 8 each; 4 of them inside a step
    "log_streaming.eval": (32, 0, 0, 16, 4),
}


def test_every_file_is_listed(corpus: Path) -> None:
    files = {p.name for p in (corpus / FOLDER).iterdir() if p.name != "SOURCE.md"}
    assert files == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_counts(corpus: Path, name: str) -> None:
    events, infos = read(INSPECT, corpus / FOLDER / name)
    assert counts(events) == EXPECTED[name]
    assert {i.trace_id for i in infos} == {e.trace_id for e in events}
    for tid in {e.trace_id for e in events}:  # ids unique within each trace
        ids = [e.event_id for e in events if e.trace_id == tid]
        assert len(ids) == len(set(ids))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_detection(corpus: Path, name: str) -> None:
    assert detect(open_source(corpus / FOLDER / name)).name == "inspect"


def test_browser_run(corpus: Path) -> None:
    events, [info] = read(INSPECT, corpus / FOLDER / "2025-05-12T20-27-36-04-00_browser.json")
    ids = {e.event_id for e in events}
    assert all(e.parent_id in ids for e in events if e.parent_id)  # no dangling parent
    tools = [e for e in events if e.kind == "tool_call"]
    assert [t.name for t in tools] == ["web_browser_go"] + ["web_browser_click"] * 3
    assert tools[0].event_id == "call_35FTpd6shR9efioDgeEBZ33s"
    assert tools[0].args == {"url": "https://www.aisi.gov.uk/"}
    assert all(t.status == "ok" and isinstance(t.result, str) for t in tools)
    # each tool event is recorded after its own span_begin but stamped ~1 ms before it;
    # the two are cross-linked, and the sandbox calls sit inside the span
    spans = {e.event_id: e for e in events if e.attrs.get("inspect.span_type") == "tool"}
    assert len(spans) == 4
    for t in tools:
        own = spans[t.attrs["inspect.tool_span_id"]]
        assert own.attrs["inspect.tool_event_id"] == t.event_id and own.name == t.name
        assert events.index(own) == events.index(t) - 1
        assert own.start_ns is not None and t.start_ns is not None
        assert 0 < own.start_ns - t.start_ns < 5_000_000
    assert sum(e.parent_id in spans for e in events if e.name == "sandbox.exec") == 10
    llm = [e for e in events if e.kind == "llm_call"]
    assert {e.name for e in llm} == {"openai/gpt-4o-mini"}
    assert sum(e.attrs["gen_ai.usage.input_tokens"] for e in llm) == 15235
    assert sum(e.attrs["gen_ai.usage.output_tokens"] for e in llm) == 281
    assert info.root_task is not None and info.root_task.startswith("Use the web browser")
    assert len(info.tools) == 8
    assert info.versions["model"] == "openai/gpt-4o-mini"


def test_eval_samples_keep_their_epochs(corpus: Path) -> None:
    events, infos = read(INSPECT, corpus / FOLDER / "log_streaming.eval")
    assert sorted((i.attrs["inspect"]["sample.id"], i.attrs["inspect"]["sample.epoch"])
                  for i in infos) == [(1, 1), (1, 2), (2, 1), (2, 2)]
    assert sum(e.kind == "receipt" for e in events) == 4
    assert sum(e.kind == "llm_call" for e in events) == 4
