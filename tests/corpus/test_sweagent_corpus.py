"""The ``swe-agent`` corpus folder, read by its adapter, against counts taken from the
files themselves.

How the counts were taken: each ``.traj`` was loaded with the standard ``json`` module
and its lists counted directly.

- a file with a ``trajectory``: events = the history messages before the first
  assistant message (system prompt, demonstration, issue) + 2 per trajectory step (the
  model turn and the action it ran); tool_calls = the steps with a non-empty ``action``;
  parented = the tool calls (each under its step's model turn) + the model turns (each
  under the issue, the last user message before it);
- a history-only file: events = the messages, minus the ``role: tool`` messages (each
  is folded into its call), plus one per ``tool_calls[]`` entry; tool_calls = the
  ``tool_calls[]`` entries, all answered by a ``tool_call_ids`` of a tool message;
  parented = the tool calls + the assistant turns (under the issue);
- errors: observations starting with one of SWE-agent's failure messages (here only
  "Your proposed edit has introduced new syntax error(s)");
- traces: one per file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import counts, orphans, read
from workbench.formats import open_source
from workbench.formats.agents import SWE_AGENT
from workbench.ingest import detect

# file -> (events, tool_calls, errors, parented, traces)
EXPECTED: dict[str, tuple[int, int, int, int, int]] = {
    # history only: 12 messages = system + issue + 5 assistant turns (5 tool_calls) + 5
    # tool results folded into their calls
    "swe-agent/function_calling_simple.traj": (12, 5, 0, 10, 1),
    # 2 leading messages + 11 steps x 2; step 6's edit was refused by the linter; its
    # history reuses tool-call ids (call_5iDd... four times), so the ids are positional
    "swe-agent/marshmallow-code__marshmallow-1867.function_calling.traj": (24, 11, 1, 22, 1),
    # 3 leading messages (system, demonstration, issue) + 12 steps x 2; steps 5-7 are
    # refused edits; no tool_calls: names are the commands' first words
    "swe-agent/pydicom__pydicom-1458.traj": (27, 12, 3, 24, 1),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_counts(corpus: Path, name: str) -> None:
    events, infos = read(SWE_AGENT, corpus / name)
    assert counts(events) == EXPECTED[name]
    assert len({e.event_id for e in events}) == len(events)
    assert orphans(events) == 0
    assert not [e for e in events if e.attrs.get("workbench.flags")]
    assert len(infos) == 1 and infos[0].root_task


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_detection(corpus: Path, name: str) -> None:
    assert detect(open_source(corpus / name)).name == "swe-agent"


def test_every_file_of_the_folder_is_counted(corpus: Path) -> None:
    files = sorted(p.relative_to(corpus).as_posix() for p in (corpus / "swe-agent").glob("*.traj"))
    assert files == sorted(EXPECTED)


def test_function_calling_names_and_arguments(corpus: Path) -> None:
    events, [info] = read(SWE_AGENT, corpus / "swe-agent/"
                          "marshmallow-code__marshmallow-1867.function_calling.traj")
    tools = [e for e in events if e.kind == "tool_call"]
    assert [t.name for t in tools] == ["create", "edit", "bash", "bash", "find_file", "open",
                                       "edit", "edit", "bash", "bash", "submit"]
    assert tools[4].args == {"file_name": "fields.py", "dir": "src"}
    assert tools[2].result == "344" and tools[8].result == "345"
    assert tools[6].status == "error"
    assert info.versions == {"model": "gpt-4o"}
    assert info.attrs["swe_agent.instance_id"] == "marshmallow-code__marshmallow-1867"
    assert info.root_task.startswith("TimeDelta serialization precision")
