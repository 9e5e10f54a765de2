"""The Claude Code corpus folders, read by adapter ``claude-code``, against counts taken
from the files themselves.

How the counts were taken: every line of the ``claude-code-log`` JSONL files and every
item of the ``messages`` list of the ``openinference-claude-agent-sdk`` YAML files was
read by eye (and listed with the standard ``json`` / ``yaml`` modules), then counted:

- events: one per distinct ``message.id`` of the assistant lines (lines sharing an id are
  one API message), one per user line holding text, one per ``tool_use`` block (its
  ``tool_result`` line joins it), one per ``tool_result`` whose ``tool_use_id`` names no
  ``tool_use`` in the file, one per SDK ``result`` message. Not events: ``summary`` lines
  and SDK ``system`` init (trace metadata), ``task_started`` and ``control_request`` hook
  callbacks (attributes of the tool call they name), ``control_response``;
- tool_calls: the ``tool_use`` blocks plus the unknown ``tool_result`` ids;
- errors: ``tool_result`` blocks with ``is_error: true``, ``result`` messages with
  ``is_error: true`` (none in this corpus);
- parented (causal parents, not the ``parentUuid`` thread): a tool call always (under the
  assistant turn that asked for it, or, for a result whose call is not in the file, the
  line's own ``parentUuid``); an assistant turn after a user prompt of its agent (under
  that prompt); anything in a sub-agent (under its prompt, else the Task call that
  started it). A main-thread user prompt is a root. Orphans: the parents that name no
  line of the file;
- one ``agent`` event more per Task / Agent call whose result names its ``agentId``
  (the sub-agent's run, under the call; the sub-agent's events under the run);
- traces: distinct ``sessionId`` / ``session_id``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import counts, orphans, read
from workbench.formats import open_source
from workbench.formats.agents import CLAUDE_CODE
from workbench.ingest import detect
from workbench.model import FLAGS_KEY

# file -> (events, tool_calls, errors, parented, orphans, traces)
EXPECTED: dict[str, tuple[int, int, int, int, int, int]] = {
    # 12 lines: 4 user texts, 5 assistant messages, 2 tool_use/tool_result pairs
    # (tool_001 Edit, tool_002 Bash), 1 summary; the 5 turns each follow a prompt (their
    # parent), the 2 tool calls hang off their turns, the 4 prompts are roots
    "claude-code-log/representative_messages.jsonl": (11, 2, 0, 7, 0, 1),
    # 6 lines: a main-thread Task tool_use and its result; two sidechain lines of one
    # message (msg_017zj75d…: text + a Grep tool_use never answered); a sidechain result
    # for toolu_011V1het…, a call not in the file; a closing assistant message.
    # 3 llm_calls + Task + its run (agentId e1c84ba5 on the result line) + Grep + the
    # unknown result = 7; parented: Task (its turn), the run (Task), the sub-agent's turn
    # (the run), Grep (that turn), the unknown result (its line's parentUuid 718670f5…,
    # not in the file: 1 orphan); the two main-thread turns have no prompt in the file
    # and are roots (line 1's parentUuid 8ae40e91… is only the thread)
    "claude-code-log/sidechain_integrated.jsonl": (7, 3, 0, 5, 1, 1),
    # 12 lines: 2 user texts, 6 assistant messages, 3 TodoWrite pairs, 1 summary; the 6
    # turns under their prompt, the 3 tools under their turn; the 2 prompts are roots
    "claude-code-log/todowrite_examples.jsonl": (11, 3, 0, 9, 0, 1),
    # 9 messages: control_response, init, 2 assistant lines of msg_0127FHQ7… (thinking,
    # Bash tool_use), 2 hook callbacks, the tool_result, an assistant text, the result
    "openinference-claude-agent-sdk/test_client_tool_hooks_create_tool_spans.yaml":
        (4, 1, 0, 1, 0, 1),
    # 11 messages: control_response, init, 2 lines of msg_01Wamgik… (thinking, Agent
    # tool_use), task_started, the sub-agent's prompt, its Bash tool_use and result (all
    # with parent_tool_use_id = the Agent call), the Agent result, a text, the result:
    # 3 llm_calls, 2 tool calls, 1 message, 1 agent, and the sub-agent's run (the Agent
    # result's tool_use_result names agentId a7da442314ff745d1); parented: the 2 tool
    # calls, the run, the prompt (the run) and the sub-agent's turn (the prompt)
    "openinference-claude-agent-sdk/test_query_task_subagent_spans.yaml": (8, 2, 0, 5, 0, 1),
    # 6 messages: control_response, init, a Bash tool_use, its result, a text, the result
    "openinference-claude-agent-sdk/test_query_tool_spans_from_messages.yaml":
        (4, 1, 0, 1, 0, 1),
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_counts(corpus: Path, name: str) -> None:
    n, tools, errors, parented, orphaned, traces = EXPECTED[name]
    events, _ = read(CLAUDE_CODE, corpus / name)
    assert counts(events) == (n, tools, errors, parented, traces)
    assert len({e.event_id for e in events}) == n
    assert orphans(events) == orphaned


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_detection(corpus: Path, name: str) -> None:
    assert detect(open_source(corpus / name)).name == "claude-code"


def test_the_folders_hold_exactly_these_files(corpus: Path) -> None:
    found = sorted(str(p.relative_to(corpus)) for folder in ("claude-code-log",
                   "openinference-claude-agent-sdk") for p in (corpus / folder).iterdir()
                   if p.suffix in (".jsonl", ".yaml"))
    assert found == sorted(EXPECTED)


def test_sidechain_file_keeps_its_quirks(corpus: Path) -> None:
    events, [info] = read(CLAUDE_CODE, corpus / "claude-code-log/sidechain_integrated.jsonl")
    by_id = {e.event_id: e for e in events}
    task = by_id["toolu_01JA2mLseQCAW3MdwPE4qWEk"]
    assert (task.name, task.parent_id) == ("Task", "83a7cabd-3642-45d6-ba73-9b9f843b9ab1")
    assert task.result == "Perfect! Now I have a complete understanding. Let ..."
    # the sub-agent's first message starts inside the Task call: a child of its run
    run = by_id["agent-e1c84ba5"]
    assert (run.kind, run.parent_id) == ("agent", task.event_id)
    sub = by_id["b674eedd-0d9d-49e7-8116-1f092cd750ed"]
    assert sub.parent_id == run.event_id and sub.attrs["claude_code.is_sidechain"] is True
    assert sub.attrs["claude_code.uuids"] == ["b674eedd-0d9d-49e7-8116-1f092cd750ed",
                                              "3c78114e-3de3-471e-b80f-0c86adb361c4"]
    assert by_id["toolu_01BWgwmyj8gGuqFNHMPqqtN2"].attrs[FLAGS_KEY] == ["unanswered"]
    stray = by_id["toolu_011V1hetiJ3pC79EoLTY53Ni"]
    assert stray.attrs[FLAGS_KEY] == ["unmatched"]
    assert stray.parent_id == "718670f5-3e6b-4b3e-9a70-bc3e5ac90f92"
    assert "3130\u00e2\u2020\u2019" in stray.result  # the upstream mojibake, as stored
    # the closing turn follows the Task result line (parentUuid), but that is the thread:
    # no prompt of the main conversation is in the file, so it is a root
    assert by_id["91c82c1c-29b0-4149-a261-e5582d944ac6"].parent_id is None
    assert info.versions == {"claude_code": "2.0.46"}


def test_sdk_init_and_result(corpus: Path) -> None:
    events, [info] = read(CLAUDE_CODE, corpus / "openinference-claude-agent-sdk/"
                          "test_query_task_subagent_spans.yaml")
    assert info.trace_id == "05555ce4-068a-4334-a6e3-b5bea2e8cc2e"
    assert len(info.tools) == 18 and {"name": "Agent"} in info.tools
    assert info.versions == {"claude_code": "2.1.63", "model": "claude-sonnet-4-6"}
    agent_call = next(e for e in events if e.name == "Agent")
    assert agent_call.attrs["claude_code.task"]["task_id"] == "a7da442314ff745d1"
    bash = next(e for e in events if e.name == "Bash")
    assert bash.parent_id == "908c0ee3-20ad-4151-82c4-0d87ead4e1d6"
    assert bash.attrs["claude_code.is_sidechain"] is True
    sub_run, run = [e for e in events if e.kind == "agent"]
    assert (sub_run.event_id, sub_run.parent_id) == ("agent-a7da442314ff745d1",
                                                     agent_call.event_id)
    assert run.attrs["claude_code.total_cost_usd"] == pytest.approx(0.041163)
    assert run.attrs["claude_code.num_turns"] == 2


def test_hook_callbacks_mark_their_tool_call(corpus: Path) -> None:
    events, _ = read(CLAUDE_CODE, corpus / "openinference-claude-agent-sdk/"
                     "test_client_tool_hooks_create_tool_spans.yaml")
    [bash] = [e for e in events if e.kind == "tool_call"]
    assert bash.attrs["claude_code.control"] == ["hook_callback:PreToolUse",
                                                 "hook_callback:PostToolUse"]
