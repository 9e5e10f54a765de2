"""``to_rows``: Arrow rows as Python values, timestamps converted without pandas."""

from datetime import UTC, datetime

import pyarrow as pa
from hypothesis import given
from hypothesis import strategies as st

from workbench.store import to_rows

MICROS = st.integers(min_value=-(2**50), max_value=2**50)


@given(st.lists(st.none() | MICROS, max_size=8))
def test_zoned_microseconds_match_pyarrow(values):
    table = pa.table({"at": pa.array(values, pa.timestamp("us", tz="UTC")),
                      "n": pa.array(range(len(values)), pa.int64())})
    assert to_rows(table) == table.to_pylist()


def test_units_and_naive_columns():
    table = pa.table({
        "s": pa.array([1], pa.timestamp("s", tz="UTC")),
        "ms": pa.array([1_500], pa.timestamp("ms")),
        "ns": pa.array([1_700_000_000_123_456_789], pa.timestamp("ns", tz="UTC")),
        "x": ["kept"]})
    assert to_rows(table) == [{
        "s": datetime(1970, 1, 1, 0, 0, 1, tzinfo=UTC),
        "ms": datetime(1970, 1, 1, 0, 0, 1, 500_000),
        "ns": datetime(2023, 11, 14, 22, 13, 20, 123_456, tzinfo=UTC),  # to microseconds
        "x": "kept"}]


def test_column_order_is_kept_and_tables_without_timestamps_pass_through():
    table = pa.table({"b": [1], "a": pa.array([0], pa.timestamp("us", tz="UTC")), "c": [2]})
    assert list(to_rows(table)[0]) == ["b", "a", "c"]
    assert to_rows(pa.table({"x": [1, None]})) == [{"x": 1}, {"x": None}]
