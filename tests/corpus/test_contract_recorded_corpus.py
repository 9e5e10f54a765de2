"""`contract infer`, `usage` and `diff --recorded` on real traces.

tau-bench's airline trajectories (``../shared/corpus/tau-bench``, 137 tool calls in the 20
of its 24 records that call tools): the agent looks a user up (``get_user_details``),
then acts on the reservations and payment methods that answer lists — values the store's
data-flow refs follow. Known by reading the file: 8 records (tasks 2-7, 17 and 22) look
the user up and then call ``update_reservation_flights`` 14 times in all; each of those
calls names a reservation the lookup listed (``OBUT9V`` in task 3, six times) or pays
with a payment method it listed (task 2's ``JG7FMM``, a six-letter id without a digit,
is not linked by value; its ``credit_card_…`` payment id is). The flight numbers booked
come from a flight search or the reservation's details. No result value there decides
the next call on its own (destinations and cabins vary with the task), so nothing is
inferred as a branch.

mini-swe-agent's trajectories (``tests/corpus/mini-swe-agent``, 48 ``bash`` calls in 3
traces, pinned in its ``pins.yaml``): every call sends ``command`` and no command
repeats a value an earlier output gave, so the inferred contract reads nothing.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.support import REPO, run

MINI = REPO / "tests" / "corpus" / "mini-swe-agent"


@pytest.fixture
def tau(capsys, corpus, store_dir):
    assert run(capsys, "ingest", corpus / "tau-bench", "--store", store_dir)[0] == 0
    return store_dir


def _infer(capsys, store):
    code, out, err = run(capsys, "contract", "infer", "--store", store, "--json")
    assert code == 0, err
    return {t["tool"]: t for t in json.loads(out)["tools"]}


def test_tau_bench_reads_the_ids_the_lookups_answer(capsys, tau):
    tools = _infer(capsys, tau)
    assert sum(t["calls"] for t in tools.values()) == 137
    user = {r["path"]: r for r in tools["get_user_details"]["reads"]}
    assert "get_reservation_details args.reservation_id" in \
        user["result.reservations[*]"]["into"]
    # a map keyed by payment-method ids reads as one path, not one per id
    assert "result.payment_methods[*].id" in user
    assert not any("credit_card_" in p for p in user)
    details = {r["path"] for r in tools["get_reservation_details"]["reads"]}
    assert {"result.flights[*].date", "result.flights[*].flight_number"} <= details
    assert all(t["branches_on"] == [] for t in tools.values())


def _descriptors(folder: Path, lists_reservations: str) -> Path:
    folder.mkdir()
    tools = [
        {"tool": "get_user_details", "side_effect": "read_only",
         "input": {"type": "object", "properties": {"user_id": {"type": "string"}}},
         "output": {"type": "object", "properties": {
             lists_reservations: {"type": "array", "items": {"type": "string"}}}}},
        {"tool": "update_reservation_flights", "side_effect": "destructive",
         "input": {"type": "object", "properties": {"reservation_id": {"type": "string"}}}},
    ]
    (folder / "tools.yaml").write_text(yaml.safe_dump({"version": 1, "tools": tools}))
    return folder


def test_tau_bench_a_renamed_lookup_field_is_gated_by_the_flight_change(capsys, tau, tmp_path):
    old = _descriptors(tmp_path / "old", "reservations")
    new = _descriptors(tmp_path / "new", "reservation_ids")
    code, out, err = run(capsys, "contract", "diff", old, new, "--recorded", "--store", tau,
                         "--json")
    assert code == 1, err
    [change] = json.loads(out)["changes"]
    assert (change["kind"], change["path"], change["severity"]) == (
        "field-renamed", "result.reservations", "error")
    flowed = change["recorded"]["flowed"]
    assert "get_reservation_details args.reservation_id" in flowed["into"]
    assert "update_reservation_flights args.reservation_id" in flowed["into"]
    [reach] = change["recorded"]["reach"]
    assert (reach["tool"], reach["count"], reach["traces"]) == (
        "update_reservation_flights", 14, 8)
    assert all(f["into"] == "update_reservation_flights" for f in reach["flows"])


def test_tau_bench_usage_counts_every_call(capsys, tau):
    code, out, _ = run(capsys, "contract", "usage", "--store", tau, "--json")
    doc = json.loads(out)
    assert code == 0 and doc["calls"] == 137 and doc["traces"] == 20
    assert doc["unused"] is None  # nothing to hold it against without descriptors


def test_mini_swe_agent_sends_commands_and_reads_nothing(capsys, store_dir):
    assert run(capsys, "ingest", MINI, "--store", store_dir)[0] == 0
    tools = _infer(capsys, store_dir)
    assert list(tools) == ["bash"]
    bash = tools["bash"]
    assert (bash["calls"], bash["traces"]) == (48, 3)
    assert [(s["path"], s["count"]) for s in bash["sends"]] == [("args.command", 48)]
    assert bash["reads"] == [] and bash["retries_on"] == [] and bash["paginates"] is None
