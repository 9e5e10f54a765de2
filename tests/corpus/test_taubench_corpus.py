"""The ``tau-bench`` corpus folder, read by the ``tau-bench`` adapter, against counts
taken from the file itself.

How the counts were taken: the file was loaded with the standard ``json`` module; it is
a list of 24 episode records whose ``traj`` lists hold 736 messages (24 system, 231
user, 344 assistant, 137 tool), the assistants' ``tool_calls`` 137 calls, and 14 tool
messages whose content starts ``Error:``; 5 records have reward 1.0, 19 reward 0.0.

- events: non-tool messages (599) + tool calls (137, each absorbing its tool message)
  + one ``reward`` receipt per record (24) = 760;
- tool_calls: 137; errors: the 14 ``Error:`` outputs; parented: the 137 tool calls
  (parent = the assistant turn that made them) + the 344 assistant turns, every one
  after a user message of its episode (parent = the latest one); traces: 24.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.support import counts, read
from workbench.formats import open_source
from workbench.formats.agents import TAU_BENCH
from workbench.ingest import detect

FILE = "tau-bench/gpt-4o-airline.first24.json"


def test_counts(corpus: Path) -> None:
    # 24 records / 736 messages / 137 tool calls, as SOURCE.md says
    events, infos = read(TAU_BENCH, corpus / FILE)
    assert counts(events) == (760, 137, 14, 481, 24)  # events, tools, errors, parented, traces
    assert len(infos) == 24
    assert sum(e.kind == "receipt" for e in events) == 24
    assert not any("workbench.flags" in e.attrs for e in events)  # all calls answered
    for tid in {e.trace_id for e in events}:
        ids = [e.event_id for e in events if e.trace_id == tid]
        assert len(ids) == len(set(ids))


def test_detection(corpus: Path) -> None:
    assert detect(open_source(corpus / FILE)).name == "tau-bench"


def test_reused_ids_pair_by_position(corpus: Path) -> None:
    """Each tool message's name and content land on the call it answers, also where an
    episode reuses a call id (5 records do)."""
    records = json.loads((corpus / FILE).read_text())
    events, infos = read(TAU_BENCH, corpus / FILE)
    reused = 0
    for record, info in zip(records, infos, strict=True):
        answers = [(m["name"], m["content"]) for m in record["traj"] if m["role"] == "tool"]
        calls = [e for e in events if e.trace_id == info.trace_id and e.kind == "tool_call"]
        assert [(e.name, e.result if isinstance(e.result, str) else None) for e in calls] \
            == [(n, c if not c.lstrip().startswith(("{", "[")) else None) for n, c in answers]
        ids = [e.attrs["tau_bench.tool_call_id"] for e in calls]
        reused += len(ids) != len(set(ids))
    assert reused == 5


def test_rewards_and_tasks(corpus: Path) -> None:
    events, infos = read(TAU_BENCH, corpus / FILE)
    rewards = [e.result["reward"] for e in events if e.kind == "receipt"]
    assert (rewards.count(1.0), rewards.count(0.0)) == (5, 19)
    assert [i.attrs["tau_bench"]["task_id"] for i in infos] == list(range(24))
    # the user simulator's instruction (one upstream record reads "You amelia_sanchez_...")
    assert all(i.root_task and i.root_task.startswith("You ") for i in infos)
    assert infos[0].root_task is not None and infos[0].root_task.startswith(
        "You are mia_li_3668.")
