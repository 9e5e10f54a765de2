"""Parents are causes on real recordings: the deepest parent chain per format of the
shared corpus, and a real Claude Code session with a sub-agent (``spotter-claude-code``,
kept here) whose finding minimizes to the few events it needs.

How the depths were taken: ``python scripts/parent_depth.py --tests`` (each folder
ingested whole, an event's depth = its number of ancestors), before and after parents
stopped following Claude Code's ``parentUuid`` thread; docs/formats.md ("Parents")
keeps both tables. Why each is what it is:

- ``claude-code`` 5: the SDK stream ``test_query_task_subagent_spans.yaml`` has no main
  prompt, so: the ``Agent`` call's turn (0), the call (1), the sub-agent's run (2), its
  prompt (3), its turn (4), its ``Bash`` call (5); before, the thread made
  ``todowrite_examples.jsonl`` 10 deep (12 lines, each the child of the one before);
- ``openhands``, ``swe-agent``, ``tau-bench`` 2: prompt, turn, tool call (before: 1,
  the turns were roots); ``inspect`` 2 and ``langfuse`` 3, ``otlp`` 6: the sources' own
  spans, unchanged; ``mcp`` 0: no request of the corpus is sent inside another's.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from workbench.ingest import ingest
from workbench.minimize import minimize
from workbench.model import Trace
from workbench.rules import load_rules
from workbench.store import Store

ROOT = Path(__file__).resolve().parents[2]
SPOTTER = Path(__file__).resolve().parent / "spotter-claude-code"
RULES = ROOT / "traces" / "examples" / "coding-agent.rules.yaml"
SESSION = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"

#: format -> deepest parent chain in the shared corpus
DEPTHS = {"claude-code": 5, "har": 0, "inspect": 2, "langfuse": 3, "mcp": 0,
          "openhands": 2, "otel-json": 0, "otlp": 6, "pact": 0, "swe-agent": 2,
          "tau-bench": 2, "vcr": 0}


def depths(trace: Trace) -> dict[str, int]:
    return {e.event_id: trace.depth(e) for e in trace.events}


def ingested(folder: Path, tmp_path: Path) -> Store:
    store = Store(tmp_path / "store")
    ingest([folder], store)
    return store


def test_deepest_parent_chain_per_format(corpus: Path, tmp_path: Path) -> None:
    store = Store(tmp_path / "store")
    ingest([d for d in sorted(corpus.iterdir()) if d.is_dir() and d.name != "secrets"],
           store)
    rows = store.sql("SELECT trace_id, source_format FROM traces").to_pylist()
    traces = store.traces([r["trace_id"] for r in rows])
    deepest: dict[str, int] = {}
    for r in rows:
        deep = max(depths(traces[r["trace_id"]]).values())
        deepest[r["source_format"]] = max(deep, deepest.get(r["source_format"], 0))
    assert deepest == DEPTHS


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Trace:
    tmp = tmp_path_factory.mktemp("spotter")
    store = ingested(SPOTTER, tmp)
    return store.traces([SESSION])[SESSION]


def test_a_session_with_a_sub_agent_file_nests_under_its_task_call(session: Trace) -> None:
    assert len(session) == 73 and not session.orphans()
    task = session["toolu_01Hf8v1Za7y4af8VUwSR4CXU"]
    run = session["agent-aac57f5"]
    prompt = session["f1eb9ac5-1928-4a73-b605-aaf2f3a24db9"]  # agent-aac57f5.jsonl, line 1
    assert (task.name, run.kind, run.name) == ("Task", "agent", "general-purpose")
    assert (run.parent_id, prompt.parent_id) == (task.event_id, run.event_id)
    # every event of the sub-agent's file is below its run: its prompt, 3 API messages
    # (turns) and 12 tool_use blocks (its 12 progress lines make no event)
    inside = [e for e in session.events if e.attrs.get("claude_code.is_sidechain")]
    assert len(inside) == 16
    assert all(run in session.ancestors(e) for e in inside if e is not run)
    # prompt 0, turn 1, Task 2, run 3, the sub-agent's prompt 4, its turn 5, its calls 6;
    # parentUuid threaded 47 deep before
    assert max(depths(session).values()) == 6


def test_edit_without_read_minimizes_to_its_turn(session: Trace) -> None:
    rules = load_rules(RULES)
    result = minimize(session, rules.get("read-before-edit"))
    kept = [session[i] for i in result.kept_event_ids]
    # the Edit, the turn that asked for it and that turn's prompt, and the earlier turn
    # whose Write named the same file_path (a data-flow ref); before, 20 of 72 events:
    # the whole thread back to the prompt, nine unrelated tool calls among them
    assert [(e.kind, e.name) for e in kept] == [
        ("message", "user"), ("llm_call", "claude-haiku-4-5-20251001"),
        ("llm_call", "claude-haiku-4-5-20251001"), ("tool_call", "Edit")]
    edit = kept[-1]
    assert (edit.parent_id, kept[2].parent_id) == (kept[2].event_id, kept[0].event_id)
    assert len(result.kept_event_ids) == 4 and result.one_minimal


def test_the_kept_files_are_what_source_md_says(tmp_path: Path) -> None:
    main = SPOTTER / f"{SESSION}.jsonl"
    sub = SPOTTER / SESSION / "subagents" / "agent-aac57f5.jsonl"
    assert (main.stat().st_size, len(main.read_bytes().splitlines())) == (165_477, 88)
    assert (sub.stat().st_size, len(sub.read_bytes().splitlines())) == (46_918, 40)
    # the sub-agent's file alone names a run that is not in it: flagged, not dropped
    shutil.copy(sub, tmp_path / sub.name)
    alone = ingested(tmp_path / sub.name, tmp_path)
    [tid] = [r["trace_id"] for r in alone.sql("SELECT trace_id FROM traces").to_pylist()]
    orphans = alone.traces([tid])[tid].orphans()
    assert [(e.event_id, e.parent_id) for e in orphans] == [
        ("f1eb9ac5-1928-4a73-b605-aaf2f3a24db9", "agent-aac57f5")]
