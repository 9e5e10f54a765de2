"""shadow --runs: per changed field, how often each build's runs changed it from the old
build's reference run, compared by stats.compare_rates; known counts and verdicts."""

import json
import shlex
import sys

import pytest

from workbench.diff import Canon, field_rates, shadow_runs
from workbench.diff._builds import BuildRun
from workbench.diff._shadowruns import FAILED_PATH
from workbench.model import UsageError
from workbench.stats import compare_rates

PY = shlex.quote(sys.executable)


def ok(doc, exit_code=0):
    return BuildRun(exit_code, doc)


def failed():
    return BuildRun(1, failure="crashed", message="boom", stderr=b"Traceback ...")


REF = {"total": "0.3", "note": "a", "id": "r-0"}


def runs(n, **changed):
    """``n`` runs of the reference document, the first ``changed[key]`` of them with
    that key changed."""
    out = []
    for i in range(n):
        doc = dict(REF)
        for key, k in changed.items():
            if i < k:
                doc[key] = f"{key}-{i}"
        out.append(ok(doc))
    return out


def by_path(fields):
    return {f.path: f for f in fields}


def test_counts_per_field_and_the_verdicts_of_compare_rates():
    old = runs(20, note=2)
    new = runs(20, total=20, note=3)
    got = by_path(field_rates(ok(REF), old, new))
    assert list(got) == ["note", "total"]
    total, note = got["total"].comparison, got["note"].comparison
    assert (total.base.violations, total.base.runs, total.candidate.violations,
            total.candidate.runs) == (0, 20, 20, 20)
    assert got["total"].verdict == "REGRESSED" and total.p_value < 1e-6
    assert (note.base.violations, note.candidate.violations) == (2, 3)
    # the same comparison the statistics package gives for those counts (one place)
    assert note.to_dict() == compare_rates((2, 20), (3, 20), max_rate=0.0).to_dict()
    assert got["note"].verdict == "INCONCLUSIVE"
    # the example shown is a change a new run made
    assert got["total"].example.to_dict() == {"path": "total", "old": "0.3",
                                              "new": "total-0", "change": "changed"}
    # the old build changing it more often: IMPROVED
    got = by_path(field_rates(ok(REF), runs(30, note=30), runs(30)))
    assert got["note"].verdict == "IMPROVED"


def test_a_field_both_builds_change_alike_is_no_change_with_enough_runs():
    # the reference's random id differs in every run of both builds: noise, not a change
    got = by_path(field_rates(ok(REF), runs(40, id=40), runs(40, id=40)))
    d = got["id"].to_dict()
    assert d["old"] == {"changed": 40, "runs": 40, "rate": 1.0, "low": d["old"]["low"],
                        "high": 1.0, "confidence": 0.95, "interval": "clopper-pearson"}
    assert d["difference"] == 0 and d["p_value"] == 1 and d["verdict"] == "NO CHANGE"
    assert set(d) == {"path", "old", "new", "difference", "difference_low",
                      "difference_high", "difference_interval", "p_value", "test", "alpha",
                      "margin", "verdict", "example"}
    # ten runs cannot rule out a ten-point change
    got = by_path(field_rates(ok(REF), runs(10, id=10), runs(10, id=10)))
    assert got["id"].verdict == "INCONCLUSIVE"
    # a canon that symbolizes the id makes it no field at all
    assert field_rates(ok(REF), runs(10, id=10), runs(10, id=10),
                       Canon.of(symbolize=["id"])) == []


def test_failed_runs_count_under_failed_and_not_in_the_fields():
    old = runs(10)
    new = [failed()] * 6 + runs(4, total=4)
    got = by_path(field_rates(ok(REF), old, new))
    assert list(got) == [FAILED_PATH, "total"]
    f, t = got[FAILED_PATH].comparison, got["total"].comparison
    assert (f.base.violations, f.base.runs, f.candidate.violations, f.candidate.runs) == (
        0, 10, 6, 10)
    assert (t.base.violations, t.base.runs, t.candidate.violations, t.candidate.runs) == (
        0, 10, 4, 4)
    assert got[FAILED_PATH].example is None
    # an exit status that differs is the field $exit
    got = by_path(field_rates(ok(REF), runs(5), [ok(REF, 3)] * 5))
    assert list(got) == ["$exit"]
    with pytest.raises(UsageError):
        field_rates(failed(), old, new)


# Each build counts its own runs per order (a file beside it) and says whether the count
# is odd: a field that changes in every other run of both builds, deterministically.
FLAKY = """
import json, pathlib, sys
order = json.load(open(sys.argv[1]))
count = pathlib.Path(__file__ + "-" + order["id"])
n = int(count.read_text()) if count.exists() else 0
count.write_text(str(n + 1))
total = sum(order["lines"]) if %s else round(sum(order["lines"]), 2)
print(json.dumps({"order": order["id"], "total": total, "odd": n %% 2 == 1}))
"""


@pytest.fixture
def setup(tmp_path):
    fx = tmp_path / "fixtures"
    fx.mkdir()
    (fx / "a.json").write_text(json.dumps({"id": "a", "lines": [0.1, 0.2]}))
    (fx / "b.json").write_text(json.dumps({"id": "b", "lines": [1.5]}))
    old, new = tmp_path / "old.py", tmp_path / "new.py"
    old.write_text(FLAKY % "False")
    new.write_text(FLAKY % "True")
    return fx, f"{PY} {old} {{fixture}}", f"{PY} {new} {{fixture}}"


@pytest.mark.slow
def test_shadow_runs_over_fixtures(setup, tmp_path):
    fx, old, new = setup
    out = tmp_path / "out"
    result = shadow_runs(old, new, fx, runs=12, out=out, jobs=2)
    assert result.runs == 12 and [r.fixture for r in result.results] == ["a.json", "b.json"]
    a, b = result.results
    # 0.1 + 0.2 rounded by the old build, not by the new one: every new run changes it
    total = by_path(a.fields)["total"]
    assert total.verdict == "REGRESSED"
    assert (total.comparison.base.violations, total.comparison.candidate.violations) == (
        0, 12)
    # 1.5 sums alike; "odd" changes in every other run of both builds: 6 of 12 each
    assert list(by_path(a.fields)) == ["odd", "total"] and list(by_path(b.fields)) == ["odd"]
    odd = by_path(b.fields)["odd"]
    assert (odd.comparison.base.violations, odd.comparison.candidate.violations) == (6, 6)
    assert odd.verdict == "INCONCLUSIVE" and odd.comparison.p_value > 0.5
    assert sorted(p.name for p in out.iterdir()) == ["a.json.new", "a.json.old"]
    assert json.loads((out / "a.json.new").read_text())["total"] == 0.30000000000000004
    doc = result.to_dict()
    assert (doc["runs"], doc["fixtures"], doc["same"]) == (12, 2, 0)
    assert doc["verdicts"] == {"INCONCLUSIVE": 2, "REGRESSED": 1}
    assert result.failing() and not shadow_runs(old, old, fx, runs=2).failing()
    # nothing is written under the fixtures folder (the counters live beside the builds)
    assert sorted(p.name for p in fx.iterdir()) == ["a.json", "b.json"]


def test_bad_runs_and_rates_are_refused_before_anything_runs(setup):
    fx, old, new = setup
    for kwargs in ({"runs": 1}, {"runs": 1001}, {"runs": 5, "alpha": 1.0},
                   {"runs": 5, "margin": 1.5}):
        with pytest.raises(UsageError):
            shadow_runs(old, new, fx, **kwargs)


def test_a_trace_diff_as_changed_fields():
    from workbench.diff import EventChange, EventRef, PathChange, Reorder, TraceDiff, diff_fields

    def ev(seq, name, kind="tool_call"):
        return EventRef(f"e{seq}", seq, kind, name)

    d = TraceDiff("A", "B", added=[ev(5, "archive_project")],
                  removed=[ev(1, "request_approval"), ev(2, "request_approval")],
                  changed=[EventChange(ev(0, "list_projects"), ev(0, "list_projects"), (
                      PathChange("args.owner", None, "team-a", "added"),
                      PathChange("result.items[1]", 1, 2)))],
                  reordered=[Reorder(ev(3, "notify"), ev(4, "notify"), (ev(2, "x"),),
                                     "unchecked", ())])
    got = diff_fields(d)
    assert list(got) == ["tool_call list_projects: args.owner",
                         "tool_call list_projects: result.items[1]",
                         "+ tool_call archive_project", "- tool_call request_approval",
                         "↕ tool_call notify"]
    # one key per event name: two removed approvals are one field, the first kept
    assert got["- tool_call request_approval"].old == {"seq": 1, "event_id": "e1"}
    assert got["↕ tool_call notify"].to_dict() == {
        "path": "↕ tool_call notify", "old": 3, "new": 4, "change": "changed"}
    assert got["tool_call list_projects: args.owner"].change == "added"


def test_inconclusive_fails_only_when_asked():
    from workbench.diff import FixtureRates, ShadowRunsResult

    fields = field_rates(ok(REF), runs(10, id=10), runs(10, id=10))
    result = ShadowRunsResult([FixtureRates("x.json", "changed", ok(REF), fields)], 10,
                              0.05, 0.10)
    assert [f.verdict for f in fields] == ["INCONCLUSIVE"]
    assert not result.failing() and result.failing(fail_inconclusive=True)
    assert result.to_dict()["verdicts"] == {"INCONCLUSIVE": 1}
    broken = ShadowRunsResult([FixtureRates("y.json", "failed", failed())], 10, 0.05,
                              0.10)
    assert broken.failing()
