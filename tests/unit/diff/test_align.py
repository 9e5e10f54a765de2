"""Alignment: anchors on rare events, so insertions and deletions stay local."""

from workbench.diff._align import _dp, _lis, _walk, align, pair_moves


def one_level(a, b):
    return align([a, a], [b, b])


def test_identical_sequences_align_fully():
    a = list("abcabc")
    assert one_level(a, a) == [(i, i) for i in range(6)]


def test_an_insertion_shifts_nothing():
    a = [f"e{i}" for i in range(100)]
    b = [*a[:40], "new", *a[40:]]
    pairs = one_level(a, b)
    assert pairs == [(i, i if i < 40 else i + 1) for i in range(100)]


def test_common_keys_fall_back_to_the_kind_and_name_level():
    # exact tokens differ everywhere (every event changed); the name level aligns them
    exact_a = [("get", i) for i in range(5)]
    exact_b = [("get", 100 + i) for i in range(5)]
    names = ["get"] * 5
    assert align([exact_a, names], [exact_b, names]) == [(i, i) for i in range(5)]


def test_lis_and_dp_and_walk_known_answers():
    assert _lis([(0, 3), (1, 1), (2, 2), (3, 0), (4, 4)]) == [(1, 1), (2, 2), (4, 4)]
    # a longest common subsequence of the textbook pair has 4 items: here "bdab"
    assert _dp(list("abcbdab"), list("bdcaba"), 0, 7, 0, 6) == [(1, 0), (4, 1), (5, 3), (6, 4)]
    assert _walk(list("aaxaa"), list("aaaa"), 0, 5, 0, 4) == [(0, 0), (1, 1), (3, 2), (4, 3)]


def test_moves_pair_in_order():
    assert pair_moves([1, 5], [0, 7], ["x", "m", "y", "z", "w", "m"],
                      ["m", "q", "r", "s", "t", "u", "v", "m"]) == [(1, 0), (5, 7)]


def test_many_shared_keys_stay_fast_and_local():
    # 20k events cycling 3 names, all contents unique: no quadratic blow-up, insertion local
    a = [(("t", i % 3), i) for i in range(20_000)]
    b = [*a[:10_000], (("t", 0), -1), *a[10_000:]]
    pairs = align([a, [x for x, _ in a]], [b, [x for x, _ in b]])
    assert len(pairs) == 20_000 and (9_999, 9_999) in pairs and (10_000, 10_001) in pairs
