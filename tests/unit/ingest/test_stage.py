"""The stager's data-flow keys: packed as unsigned 32-bit integers in the staged files,
the same keys ``model.result_keys`` and ``model.sent_keys`` give, read back by
finalize as the integers they were."""

from __future__ import annotations

from array import array

import pyarrow.parquet as pq

from workbench.formats import RawEvent
from workbench.ingest._stage import KEY_CODE, Stager
from workbench.model import result_keys, sent_keys
from workbench.store import Scratch

RESULT = {"items": [{"id": "p2978", "size": 52311}, {"id": "p2978"}], "n": 7, "w": 4 << 31}
PROMPT = {"messages": [{"role": "user", "content": "archive project p2978, job 4711"}]}


def _staged(tmp_path):
    scratch = Scratch(tmp_path / "stage")
    scratch.path.mkdir()
    stager = Stager(scratch)
    stager.add(RawEvent(trace_id="t", event_id="e1", parent_id=None, kind="tool_call",
                        name="list", args={"owner": "team-a"}, result=RESULT), 0)
    stager.add(RawEvent(trace_id="t", event_id="e2", parent_id=None, kind="llm_call",
                        name="chat", args=PROMPT, result=None), 0)
    stager.flush()
    (path,) = stager.files[0]
    return pq.read_table(path).to_pydict()


def test_staged_keys_are_the_model_keys(tmp_path):
    rows = _staged(tmp_path)
    unpack = [sorted(array(KEY_CODE, b)) if b is not None else None
              for b in rows["result_keys"]]
    assert unpack == [sorted(result_keys(RESULT)), []]
    assert len(unpack[0]) == 3  # "p2978" once, 52311 and 4 << 31; not 7
    sent = [sorted(array(KEY_CODE, b)) if b is not None else None for b in rows["sent_keys"]]
    assert sent == [None, sorted(sent_keys(PROMPT))]  # a tool call's arguments are linked
    assert all(0 <= k < 1 << 32 for k in unpack[0] + sent[1])
