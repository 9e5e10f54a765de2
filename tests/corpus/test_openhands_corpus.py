"""The ``openhands`` corpus folder, read by its adapter, against counts taken from the
files themselves.

How the counts were taken: each file was loaded with the standard ``json`` module (a
top-level array of events) and its events sorted by hand into actions (an ``action``
key) and observations (an ``observation`` key); every ``cause`` names an action of the
same file.

- events = actions + observations without a ``cause`` (state reports) + distinct
  ``tool_call_metadata.model_response.id`` values (one model turn each); observations
  with a ``cause`` are folded into the action they answer;
- tool_calls = actions other than ``message``, ``system`` and ``change_agent_state``;
- errors = observations answering an action with ``observation: error``,
  ``success: false`` or a non-zero ``extras.metadata.exit_code``;
- parented = the tool calls that carry a model response (each under its model turn)
  + the model turns (responses, agent messages) after a user message (each under the
  latest one: the prompt of its turn);
- traces: one per file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import counts, orphans, read
from workbench.formats import open_source
from workbench.formats.agents import OPENHANDS
from workbench.ingest import detect

# file -> (events, tool_calls, errors, parented, traces)
EXPECTED: dict[str, tuple[int, int, int, int, int]] = {
    # user message; edit (id 3, answered by 4); finish (5): 2 model responses
    "openhands/basic.json": (5, 2, 0, 4, 1),
    # 18 events: 7 actions (change_agent_state, user message, run, edit, edit, run, agent
    # message), 7 observations with a cause (folded), 4 agent_state_changed reports,
    # 4 model responses; the http.server run (13) ends with exit code -1, success false
    "openhands/basic_gui_mode.json": (15, 4, 1, 9, 1),
    # 3 user and 2 agent messages, then finish with its model response (3 model turns,
    # each after a user message)
    "openhands/basic_interactions.json": (7, 1, 0, 4, 1),
    # user message; read, run, read (each answered, exit code 0); finish: 4 responses
    "openhands/wrong_initial_state.json": (9, 4, 0, 8, 1),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_counts(corpus: Path, name: str) -> None:
    events, infos = read(OPENHANDS, corpus / name)
    assert counts(events) == EXPECTED[name]
    assert len({e.event_id for e in events}) == len(events)
    assert orphans(events) == 0
    assert not [e for e in events if e.attrs.get("workbench.flags")]  # all answered
    assert len(infos) == 1 and infos[0].root_task


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_detection(corpus: Path, name: str) -> None:
    assert detect(open_source(corpus / name)).name == "openhands"


def test_every_file_of_the_folder_is_counted(corpus: Path) -> None:
    files = sorted(p.relative_to(corpus).as_posix() for p in (corpus / "openhands").glob("*.json"))
    assert files == sorted(EXPECTED)


def test_gui_mode_stream(corpus: Path) -> None:
    events, [info] = read(OPENHANDS, corpus / "openhands/basic_gui_mode.json")
    kinds = [e.kind for e in events]
    assert kinds.count("state") == 5 and kinds.count("llm_call") == 5
    [failed] = [e for e in events if e.status == "error"]
    assert failed.event_id == "13" and failed.name == "execute_bash"
    assert failed.error == {"message": failed.attrs["openhands.observation_message"],
                            "details": {"exit_code": -1}}
    assert [e.name for e in events if e.kind == "tool_call"] == [
        "execute_bash", "str_replace_editor", "str_replace_editor", "execute_bash"]
    assert info.versions == {"model": "claude-3-5-sonnet-20241022"}
    assert info.root_task.startswith("I want to create a VueJS app")
