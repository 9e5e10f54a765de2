"""The oracle runner: cache, repeats and votes, the budget, progress."""

import pytest

from tests.dags import agent_trace
from workbench.minimize import Graph, MinimizeProgress
from workbench.minimize._runner import BudgetSpent, OracleRunner
from workbench.model import UsageError

GRAPH = Graph(agent_trace(10, seed=0))


class Script:
    """Answers from a list, one per run, and counts runs."""

    def __init__(self, answers):
        self.answers, self.runs = list(answers), 0

    def __call__(self, trace):
        self.runs += 1
        return self.answers.pop(0)


def test_a_candidate_is_asked_once_and_the_empty_one_never():
    s = Script([True])
    t = OracleRunner(GRAPH, s)
    assert t.fails(0b111) and t.fails(0b111) and not t.fails(0)
    assert (s.runs, t.calls, t.candidates) == (1, 1, 1)


def test_any_vote_stops_at_the_first_failure():
    s = Script([False, False, True, True])
    t = OracleRunner(GRAPH, s, repeat=4, vote="any")
    assert t.fails(0b11) and s.runs == 3 and t.calls == 3


def test_any_vote_passes_only_after_every_run_passed():
    s = Script([False] * 3)
    assert not OracleRunner(GRAPH, s, repeat=3).fails(0b11) and s.runs == 3


def test_majority_vote_stops_once_decided():
    s = Script([True, False, True, False, False])
    t = OracleRunner(GRAPH, s, repeat=5, vote="majority")
    assert not t.fails(0b11) and s.runs == 5
    s = Script([True, True, True, False, False])
    t = OracleRunner(GRAPH, s, repeat=5, vote="majority")
    assert t.fails(0b11) and s.runs == 3


def test_retest_goes_past_the_cache():
    s = Script([True, False])
    t = OracleRunner(GRAPH, s)
    assert t.fails(0b1) and not t.retest(0b1) and t.calls == 2


def test_the_call_budget_stops_the_search():
    t = OracleRunner(GRAPH, Script([False] * 5), max_calls=2)
    t.fails(0b1)
    t.fails(0b11)
    with pytest.raises(BudgetSpent) as exc:
        t.fails(0b111)
    assert exc.value.reason == "max_calls" and t.calls == 2


def test_best_is_the_smallest_failing_candidate_and_progress_is_told():
    seen: list[MinimizeProgress] = []
    t = OracleRunner(GRAPH, lambda tr: len(tr) >= 2, progress=seen.append)
    t.fails(0b1111)
    t.fails(0b11)
    t.fails(0b1)
    assert t.best == 0b11
    assert [(p.calls, p.best, p.total) for p in seen] == [(1, 4, 10), (2, 2, 10), (3, 2, 10)]


@pytest.mark.parametrize("kwargs", [{"repeat": 0}, {"vote": "most"}, {"max_calls": 0},
                                    {"max_seconds": -1}])
def test_bad_settings_are_usage_errors(kwargs):
    with pytest.raises(UsageError):
        OracleRunner(GRAPH, lambda tr: True, **kwargs)
