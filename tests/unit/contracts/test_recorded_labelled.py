"""``contract diff --recorded`` holds every pair of ``recorded_labelled.py`` to its label,
against one store ingested from the set's traces (refs inferred by the real ingest), and
reports the classification figures docs/contracts.md quotes ("The labelled set against
recorded traffic")."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from tests.unit.contracts.recorded_labelled import PAIRS, TRACES
from workbench.cli import main
from workbench.contracts import ToolSet, Traffic, descriptor_from_dict, diff_tools, judge_recorded
from workbench.store import Store

_EVIDENCE = ("refused", "flowed", "branched", "retried", "reach")


@pytest.fixture(scope="module")
def traffic(tmp_path_factory):
    root = tmp_path_factory.mktemp("recorded-labelled")
    path = root / "traffic.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in TRACES))
    assert main(["ingest", str(path), "--store", str(root / "store"), "--no-redact"]) == 0
    return Traffic.load(Store(root / "store"))


def _set(tools):
    return ToolSet([descriptor_from_dict({"version": 1, **d}) for d in tools.values()])


def judged(pair, traffic):
    old, new = (_set(s) for s in pair.sides())
    result = judge_recorded(diff_tools(old, new), old, new, traffic)
    return [(c.tool, c.kind, c.path, c.severity, c.reason,
             tuple(k for k in _EVIDENCE if k in (c.recorded or {}))) for c in result.changes]


def test_the_set_is_large_and_goes_both_ways():
    assert len(PAIRS) >= 40
    assert sum(p.name.startswith("look-alike") for p in PAIRS) >= 15
    assert sum(p.reverse for p in PAIRS) >= 3
    labels = [label for p in PAIRS for label in p.expected]
    assert {k for *_, ev in labels for k in ev} == set(_EVIDENCE)
    assert sum(not ev for *_, ev in labels) >= 15  # changes that must touch nothing recorded


@pytest.mark.parametrize("pair", PAIRS, ids=[p.name for p in PAIRS])
def test_each_pair_is_classified_as_labelled(pair, traffic):
    assert sorted(judged(pair, traffic)) == sorted(pair.expected)


def figures(traffic):
    """How the set is classified: per change, touches recorded traffic or not, and the
    verdict, against the labels."""
    n = Counter()
    for pair in PAIRS:
        got = {c[:3]: c for c in judged(pair, traffic)}
        for label in pair.expected:
            c = got.get(label[:3])
            touches, said = bool(label[5]), bool(c and c[5])
            n["tp" if touches and said else "fn" if touches else "fp" if said else "tn"] += 1
            n["severity_ok"] += bool(c and c[3] == label[3])
            n["raised"] += bool(c and c[4] in ("recorded", "reach"))
        n["pairs"] += 1
        n["changes"] += len(pair.expected)
    return n


def test_classification_figures(traffic):
    n = figures(traffic)
    assert n["fp"] == n["fn"] == 0
    assert n["severity_ok"] == n["changes"]
    print(f"\n{n['pairs']} pairs, {n['changes']} changes: touches recorded traffic "
          f"tp {n['tp']} fp {n['fp']} fn {n['fn']} tn {n['tn']}; verdict as labelled "
          f"{n['severity_ok']}/{n['changes']}; raised by the traffic {n['raised']}")
