"""Every pair of the labelled set is classified exactly as labelled, every change kind,
direction and side-effect class is in the set, and docs/contracts.md shows its table."""

from pathlib import Path

import pytest
import yaml

from tests.unit.contracts.labelled import PAIRS, table
from workbench.contracts import (
    CHANGE_KINDS,
    SIDE_EFFECTS,
    ToolSet,
    descriptor_from_dict,
    diff_tools,
    parse_consumer,
)

DOCS = Path(__file__).resolve().parents[3] / "docs" / "contracts.md"


def tools(docs):
    return ToolSet(descriptor_from_dict({"version": 1, **d}, "labelled") for d in docs)


def run(pair):
    old, new = tools(pair.old), tools(pair.new)
    consumers = []
    if pair.consumer is not None:
        text = yaml.safe_dump({"version": 1, "consumer": "workflow",
                               "tools": {"projects.list": pair.consumer}})
        consumers.append(parse_consumer(text, "workflow.yaml", old))
    return diff_tools(old, new, consumers)


@pytest.mark.parametrize("pair", PAIRS, ids=[p.name for p in PAIRS])
def test_each_pair_is_classified_as_labelled(pair):
    got = [(c.kind, c.direction, c.severity, c.path) for c in run(pair).changes]
    assert sorted(got) == sorted(pair.expected)


def test_the_set_covers_every_kind_direction_and_side_effect_class():
    assert len(PAIRS) >= 40
    kinds = {k for p in PAIRS for k, *_ in p.expected}
    assert kinds == set(CHANGE_KINDS)
    assert {d for p in PAIRS for _, d, *_ in p.expected} == {"input", "output"}
    classes = {t.get("side_effect") for p in PAIRS for t in [*p.old, *p.new]}
    assert set(SIDE_EFFECTS) <= classes and None in classes
    assert sum(1 for p in PAIRS if not p.expected) >= 8  # look-alikes


def test_consumer_pairs_name_the_consumer_on_what_it_touches():
    for pair in PAIRS:
        if pair.consumer is None:
            continue
        for c in run(pair).changes:
            named = c.consumers == ("workflow",)
            assert named == (c.reason in ("consumer", "relaxes")), c


def test_the_docs_show_the_table_of_the_labelled_set():
    text = DOCS.read_text(encoding="utf-8")
    assert table() in text, "docs/contracts.md is behind tests/unit/contracts/labelled.py: " \
        "paste labelled.table() under Diff"
