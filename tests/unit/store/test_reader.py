"""``Store.sql`` keeps its connection while the visible commit records are the same: a
commit shows at once, a statement other than one SELECT cannot change what later
queries see, and a Store still travels to other processes."""

from __future__ import annotations

import pickle

import pyarrow as pa
import pytest

from tests.support import EXAMPLES
from workbench.ingest import ingest
from workbench.model import QueryError
from workbench.store import Store

INCIDENT = EXAMPLES / "archive-incident.otlp.json"


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "s")
    ingest([INCIDENT], s)
    return s


def _count(store: Store, table: str = "events") -> int:
    return store.sql(f"SELECT count(*) AS n FROM {table}").column(0)[0].as_py()


def test_selects_share_a_connection_until_a_commit_changes_what_is_visible(store, tmp_path):
    events = _count(store)
    kept = store._reader._kept
    assert kept is not None and _count(store) == events
    assert store._reader._kept is kept  # the same connection and views
    other = tmp_path / "again.otlp.json"
    other.write_text(INCIDENT.read_text().replace("4bf92f3577b34da6", "5bf92f3577b34da6"))
    ingest([other], Store(store.root))  # another Store commits
    assert _count(store) == 2 * events  # seen at once: the records changed
    assert store._reader._kept is not kept


@pytest.mark.parametrize("statement", [
    "DROP VIEW events",
    "CREATE OR REPLACE VIEW events AS SELECT 1 AS n",
    "SELECT 1; DROP VIEW events",
    "SET threads = 1; SELECT 1",
])
def test_other_statements_run_on_a_connection_of_their_own(store, statement):
    events = _count(store)
    store.sql(statement)
    assert _count(store) == events


def test_a_failed_query_leaves_later_queries_working(store):
    events = _count(store)
    with pytest.raises(QueryError):
        store.sql("SELECT no_such_column FROM events")
    assert _count(store) == events


def test_a_store_pickles_without_its_connection(store):
    _count(store)
    copy = pickle.loads(pickle.dumps(store))
    assert copy.root == store.root and copy._reader._kept is None
    assert _count(copy) == _count(store)
    assert isinstance(copy.sql("SELECT * FROM traces"), pa.Table)
