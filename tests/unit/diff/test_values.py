"""Field diffs: strict equality, paths, list alignment, id pairing."""

from decimal import Decimal

from workbench.diff import diff_values, same_value
from workbench.diff._values import Pairing, Sym


def paths(old, new, pairing=None):
    return [(p.path, p.old, p.new, p.change) for p in diff_values(old, new, pairing)]


def test_types_matter():
    assert not same_value(1, 1.0) and not same_value(1, True) and not same_value("1", 1)
    assert not same_value(Decimal("0.3"), 0.3)
    assert same_value({"a": [1, {"b": None}]}, {"a": [1, {"b": None}]})
    assert paths({"total": 100}, {"total": 100.0}) == [("total", 100, 100.0, "changed")]


def test_added_removed_and_nested_paths():
    assert paths({"a": {"b": 1, "c": 2}}, {"a": {"b": 1, "d": 3}}) == [
        ("a.c", 2, None, "removed"), ("a.d", None, 3, "added")]
    assert paths({"x": {"y": [1, 2]}}, {"x": {"y": [1, 3]}}) == [("x.y[1]", 2, 3, "changed")]
    assert paths(1, 2) == [("$", 1, 2, "changed")]


def test_an_inserted_list_item_does_not_shift_the_rest():
    old = [{"id": i} for i in range(6)]
    new = [*old[:2], {"id": 99}, *old[2:]]
    assert paths(old, new) == [("[2]", None, {"id": 99}, "added")]


def test_symbols_pair_consistently():
    pairing = Pairing()
    assert paths({"id": Sym("p1")}, {"id": Sym("x1")}, pairing) == []
    assert paths({"id": Sym("p1")}, {"id": Sym("x1")}, pairing) == []
    # p1 already stands for x1; x2 is someone else
    assert [p[0] for p in paths({"id": Sym("p1")}, {"id": Sym("x2")}, pairing)] == ["id"]
    assert [p[0] for p in paths({"id": Sym("p9")}, {"id": Sym("x1")}, pairing)] == ["id"]
