"""``traces.env`` (``ingest --env``) and a store written before it; the ``replays``
table and each finding's ``finding_id``; a group's status from its replays."""

from __future__ import annotations

import datetime as dt

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.support import EXAMPLES
from workbench.ingest import ingest
from workbench.model import REPLAYS, UsageError
from workbench.rules import check, load_rules
from workbench.store import FIXED_AFTER, Store

INCIDENT = EXAMPLES / "archive-incident.otlp.json"


def _again(tmp_path, n: int = 5):
    """The incident recorded again: another trace id."""
    other = tmp_path / f"again-{n}.otlp.json"
    other.write_text(INCIDENT.read_text().replace("4bf92f3577b34da6", f"{n}bf92f3577b34da6"))
    return other


def test_ingest_labels_traces_with_their_environment(tmp_path):
    store = Store(tmp_path / "s")
    ingest([INCIDENT], store, env="staging")
    assert store.sql("SELECT env FROM traces").to_pylist() == [{"env": "staging"}]
    with pytest.raises(UsageError) as e:
        ingest([_again(tmp_path)], store, env="no such")
    assert e.value.code == "ENV_INVALID"


def test_a_store_written_before_the_env_column_reads_default(tmp_path):
    store = Store(tmp_path / "s")
    ingest([INCIDENT], store)
    (path,) = store.files("traces")
    old = pq.read_table(path)
    pq.write_table(old.drop_columns(["env"]), path)
    assert "env" not in pq.read_schema(path).names
    assert store.sql("SELECT env FROM traces").to_pylist() == [{"env": "default"}]
    # and beside a newer batch that has it
    ingest([_again(tmp_path)], store, env="prod")
    assert sorted(r["env"] for r in store.sql("SELECT env FROM traces").to_pylist()) == [
        "default", "prod"]


def _rows(sig: str, outcomes: list[str], env: str = "default", start: int = 0,
          finding_env: str = "default", at: dt.datetime | None = None) -> pa.Table:
    t0 = at or dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
    step = dt.timedelta(microseconds=1) if at else dt.timedelta(minutes=1)
    return pa.Table.from_pylist([{
        "replay_id": f"r{start}", "attempt": n + 1,
        "started_at": t0 + step * (start + n), "finding": "f", "signature": sig,
        "rule": "r", "finding_env": finding_env, "env": env, "target": "http://127.0.0.1:1",
        "source_trace": "t", "outcome": o,
        "reproduced": None if o in ("error", "diverged") else o == "reproduced", "steps": 2,
        "steps_run": 2, "observed_signature": None, "trace_id": None, "error_code": None,
        "error_message": None, "seconds": 0.1} for n, o in enumerate(outcomes)],
        schema=REPLAYS)


@pytest.fixture
def found(tmp_path):
    store = Store(tmp_path / "s")
    ingest([INCIDENT], store)
    check(store, load_rules(EXAMPLES / "archive-incident.rules.yaml"))
    sig = store.sql("SELECT signature FROM finding_groups ORDER BY signature LIMIT 1"
                    ).column(0)[0].as_py()
    return store, sig


def _status(store: Store, sig: str) -> str:
    return store.sql("SELECT status FROM finding_groups WHERE signature = ?",
                     [sig]).column(0)[0].as_py()


@pytest.mark.parametrize(("history", "status"), [
    ([], "open"),
    ([("clean", "clean")], "open"),                       # two are not enough
    ([("clean", "clean", "clean")], "fixed"),
    ([("reproduced", "reproduced", "reproduced")], "open"),
    ([("reproduced", "clean", "clean")], "flaky"),
    ([("reproduced",), ("clean", "clean", "clean")], "fixed"),   # the last three count
    ([("clean", "clean", "clean"), ("reproduced",)], "flaky"),
    ([("clean", "clean"), ("error", "error")], "open"),  # errors observe nothing
    ([("clean", "clean"), ("error",), ("clean",)], "fixed"),
    # steps that did not land observe nothing either (docs/replay.md, Did the steps land?)
    ([("diverged", "diverged", "diverged")], "open"),
    ([("clean", "clean"), ("diverged",) * 3], "open"),
    ([("clean", "clean"), ("diverged",), ("clean",)], "fixed"),
    ([("reproduced",), ("diverged",) * 3], "open"),
    ([("clean",)], "open"),                               # --attempts 1: still three
    # --attempts 5: the last five count, not three
    ([("clean",) * 3, ("reproduced", "clean", "clean", "clean", "clean")], "flaky"),
    ([("reproduced",) * 2, ("clean",) * 5], "fixed"),
    ([("reproduced",) * 2, ("clean",) * 4], "fixed"),     # a run of 4: its 4, all clean
])
def test_the_status_of_a_group_follows_its_last_replays(found, history, status):
    store, sig = found
    start = 0
    for outcomes in history:
        store.append("replays", _rows(sig, list(outcomes), start=start))
        start += 10
    assert FIXED_AFTER == 3
    assert _status(store, sig) == status


def test_replays_in_another_environment_do_not_close_a_group(found):
    store, sig = found
    store.append("replays", _rows(sig, ["clean"] * 3, env="staging"))
    assert _status(store, sig) == "open"
    group = store.sql("SELECT * FROM finding_groups WHERE signature = ?", [sig]).to_pylist()[0]
    assert (group["last_replay"], group["last_replay_env"], group["replays"]) == (
        "clean", "staging", 3)


def test_a_finding_recorded_after_the_fix_reopens_it_and_a_recheck_does_not(found, tmp_path):
    store, sig = found
    store.append("replays", _rows(sig, ["clean"] * 3, at=dt.datetime.now(dt.UTC)))
    assert _status(store, sig) == "fixed"
    check(store, load_rules(EXAMPLES / "archive-incident.rules.yaml"))  # the old trace
    assert _status(store, sig) == "fixed"
    ingest([_again(tmp_path)], store)  # the incident recorded again, later
    check(store, load_rules(EXAMPLES / "archive-incident.rules.yaml"))
    assert _status(store, sig) == "open"


def test_each_finding_has_a_stable_id(found):
    store, _ = found
    a = store.sql("SELECT finding_id FROM findings ORDER BY finding_id").column(0).to_pylist()
    b = store.sql("SELECT finding_id FROM findings ORDER BY finding_id").column(0).to_pylist()
    assert a == b and len(set(a)) == len(a) and all(len(i) == 16 for i in a)


def test_a_store_written_before_divergences_were_kept_reads_them_as_null(found):
    store, sig = found
    store.append("replays", _rows(sig, ["clean"] * 3))
    (path,) = store.files("replays")
    old = pq.read_table(path).drop_columns(["diverged_step", "divergence"])
    pq.write_table(old, path)
    assert store.sql("SELECT outcome, diverged_step, divergence FROM replays").to_pylist() \
        == [{"outcome": "clean", "diverged_step": None, "divergence": None}] * 3
    assert _status(store, sig) == "fixed"
    row = {**_rows(sig, ["diverged"], start=10).to_pylist()[0], "diverged_step": 2,
           "divergence": "GET /v1/orders answered 404 where the recording had 200: is "
                         "--target's base path right?",
           "error_code": "REPLAY_DIVERGED", "error_message": None}
    store.append("replays", pa.Table.from_pylist([row], schema=REPLAYS))
    group = store.sql("SELECT status, last_replay, last_replay_note FROM finding_groups "
                      "WHERE signature = ?", [sig]).to_pylist()[0]
    assert group == {"status": "fixed", "last_replay": "diverged",
                     "last_replay_note": "step 2: GET /v1/orders answered 404 where the "
                                         "recording had 200: is --target's base path right?"}
    store.append("replays", _rows(sig, ["clean"], start=20))
    assert store.sql("SELECT last_replay_note FROM finding_groups WHERE signature = ?",
                     [sig]).to_pylist() == [{"last_replay_note": None}]
