"""Rules travel pickled (the Spark engine ships them to its executors): every bundled rule
comes back equal, and the DuckDB engine compiles it to the same queries with the same
parameters, finding the same violations. A path's ``[*]`` once came back as a key named
"STAR" after a round trip, silently."""

from __future__ import annotations

import copy
import pickle
from pathlib import Path
from typing import Any

import pytest

from workbench.ingest import ingest
from workbench.model import STAR, parse_path
from workbench.rules import RuleSet, _sqlcond, load_rules
from workbench.rules._sql import sql_violations
from workbench.store import Store

REPO = Path(__file__).resolve().parents[3]
TRACES = REPO / "traces"
EXAMPLES = TRACES / "examples"
RULE_FILES = sorted({*TRACES.glob("**/rules.yaml"), *TRACES.glob("**/*.rules.yaml")})


def test_star_is_itself_after_a_round_trip() -> None:
    for protocol in range(2, pickle.HIGHEST_PROTOCOL + 1):
        assert pickle.loads(pickle.dumps(STAR, protocol=protocol)) is STAR
    assert copy.deepcopy(STAR) is STAR and copy.copy(STAR) is STAR
    path = parse_path("items[*].id")
    back = pickle.loads(pickle.dumps(path))
    assert back == path and back.has_star and back.segments[1] is STAR
    assert back.values({"items": [{"id": 1}, {"id": 2}]}) == [1, 2]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    s = Store(tmp_path_factory.mktemp("pickle") / "store")
    ingest([EXAMPLES / "archive-incident.otlp.json"], s)
    for d in sorted(p for p in (EXAMPLES / "rules").iterdir() if p.is_dir()):
        ingest(sorted(d.glob("*.jsonl")), s)
    return s


def _compiled(store: Store, rules: RuleSet,
              monkeypatch: pytest.MonkeyPatch) -> tuple[list[tuple[str, Any]], list[Any]]:
    """Every query the DuckDB engine sends for ``rules`` (text and bound values), and
    what it finds."""
    sent: list[tuple[str, Any]] = []
    original = _sqlcond.Query.run

    def recording(self: _sqlcond.Query, con: Any, sql: str) -> list[tuple[Any, ...]]:
        sent.append((sql, repr(sorted(self.args(sql).items()))))
        return original(self, con, sql)

    with monkeypatch.context() as m:
        m.setattr(_sqlcond.Query, "run", recording)
        con = store.connect()
        try:
            found = sql_violations(con, rules, None)
        finally:
            con.close()
    return sent, found


def test_the_bundled_rules_files_are_many() -> None:
    names = {p.relative_to(TRACES).as_posix() for p in RULE_FILES}
    assert {"examples/archive-incident.rules.yaml", "examples/rules/rules.yaml",
            "examples/coding-agent.rules.yaml"} <= names
    assert len(RULE_FILES) >= 12


@pytest.mark.parametrize("rules_file", RULE_FILES,
                         ids=lambda p: p.relative_to(TRACES).as_posix())
def test_every_bundled_rule_round_trips(store: Store, rules_file: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    rules = load_rules(rules_file)
    back = pickle.loads(pickle.dumps(rules))
    for rule, again in zip(rules, back, strict=True):
        assert again == rule, rule.id
    want_sql, want = _compiled(store, rules, monkeypatch)
    got_sql, got = _compiled(store, back, monkeypatch)
    assert want_sql
    assert got_sql == want_sql
    assert got == want
