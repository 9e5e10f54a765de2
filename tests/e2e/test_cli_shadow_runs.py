"""`workbench shadow --runs N` end to end over the bundled receipt app: each changed field
with both builds' rates, the difference, the exact test and the verdict, in text and
JSON; the rate options without --runs refused."""

import json

import pytest

from tests.support import EXAMPLES, run

EX = EXAMPLES / "shadow"


def argv(tmp_path, *more):
    return ["shadow", "--old", f"python {EX / 'app-1.4.py'} {{fixture}}",
            "--new", f"python {EX / 'app.py'} {{fixture}}", EX / "fixtures",
            "--glob", "*refund.json", "--out", tmp_path / "out", *more]


@pytest.mark.slow
def test_the_float_total_regressed_and_the_noise_did_not(capsys, tmp_path):
    code, out, err = run(capsys, *argv(tmp_path, "--runs", "6", "--json"))
    assert code == 1, err
    doc = json.loads(out)
    assert (doc["fixtures"], doc["runs"], doc["same"], doc["alpha"], doc["margin"]) == (
        1, 6, 0, 0.05, 0.1)
    (res,) = doc["results"]
    assert res["fixture"] == "orders/refund.json" and res["status"] == "changed"
    fields = {f["path"]: f for f in res["fields"]}
    # without a canon, the receipt's time and random id differ in every run of both
    # builds: no REGRESSED there; the float total differs in every new run only
    assert sorted(fields) == ["generated_at", "receipt_id", "total"]
    total = fields["total"]
    assert (total["old"]["changed"], total["old"]["runs"], total["new"]["changed"],
            total["new"]["runs"]) == (0, 6, 6, 6)
    assert total["verdict"] == "REGRESSED" and total["p_value"] < 0.05
    assert total["test"] == "boschloo" and total["difference"] == 1
    assert total["example"] == {"path": "total", "old": 0.3, "new": 0.30000000000000004,
                                "change": "changed"}
    for noise in ("generated_at", "receipt_id"):
        f = fields[noise]
        assert (f["old"]["changed"], f["new"]["changed"]) == (6, 6)
        assert f["verdict"] == "INCONCLUSIVE"  # six runs cannot show "no change"
    assert doc["verdicts"] == {"INCONCLUSIVE": 2, "REGRESSED": 1}
    assert sorted(p.name for p in (tmp_path / "out" / "orders").iterdir()) == [
        "refund.json.new", "refund.json.old"]
    # with the canon, the noise is gone and the text names the field
    code, out, _ = run(capsys, *argv(tmp_path, "--runs", "3", "--canon", EX / "canon.yaml"))
    assert code == 1
    assert out.splitlines() == [
        "shadow: 1 fixture(s), 3 run(s) per build after the old build's reference run: "
        "0 same, 1 changed, 0 failed",
        "changed  orders/refund.json",
        "  REGRESSED    total  old 0/3 = 0.0% [0.0%, 70.8%]  new 3/3 = 100.0% [29.2%, "
        "100.0%]  difference +100.0% [+20.6%, +100.0%]  p=0.0313",
        "      e.g. 0.3 → 0.30000000000000004",
        "    written: " + ", ".join(str(tmp_path / "out" / "orders" / f"refund.json.{s}")
                                    for s in ("old", "new")),
        "fields: 1 REGRESSED"]


@pytest.mark.parametrize(("more", "code"), [
    (["--alpha", "0.01"], "USAGE"),
    (["--margin", "0.2"], "USAGE"),
    (["--fail-inconclusive"], "USAGE"),
    (["--runs", "1"], "USAGE"),
    (["--runs", "5", "--alpha", "1"], "RATE_INVALID"),
])
def test_rate_options_need_runs(capsys, tmp_path, more, code):
    got, _out, err = run(capsys, *argv(tmp_path, *more))
    assert got == 2 and f"error[{code}]: " in err and "hint:" in err, err
    assert not (tmp_path / "out").exists()


def ingest_runs(capsys, tmp_path, build, name, runs, violations, scenario="refund"):
    from tests.e2e.test_cli_rates import write_runs
    folder = write_runs(tmp_path / f"{name}-runs", name, runs, violations)
    code, _, err = run(capsys, "ingest", folder, "--store", tmp_path / "store",
                       "--scenario", scenario, "--build", build)
    assert code == 0, err


def test_compare_reads_stored_runs_of_two_builds(capsys, tmp_path):
    # 40 runs of 1.4.2, all asking for approval; 40 of 1.5.0, 12 archiving without it
    ingest_runs(capsys, tmp_path, "1.4.2", "base", 40, 0)
    ingest_runs(capsys, tmp_path, "1.5.0", "cand", 40, 12)
    code, out, err = run(capsys, "shadow", "--compare", "1.4.2..1.5.0", "--store",
                         tmp_path / "store", "--json")
    assert code == 1, err  # a field REGRESSED
    doc = json.loads(out)
    assert (doc["compare"], doc["base"], doc["candidate"]) == ("1.4.2..1.5.0", "1.4.2",
                                                               "1.5.0")
    (sc,) = doc["scenarios"]
    # the reference is the base build's first run; the other 39 and all 40 are diffed
    assert (sc["scenario"], sc["reference"], sc["base_runs"], sc["candidate_runs"]) == (
        "refund", "base-000", 39, 40)
    fields = {f["path"]: f for f in sc["fields"]}
    assert sorted(fields) == ["- tool_call request_approval",
                              "tool_call archive_project: args.project_id",
                              "tool_call request_approval: args.project_id"]
    gone = fields["- tool_call request_approval"]
    assert (gone["base"]["changed"], gone["base"]["runs"], gone["candidate"]["changed"],
            gone["candidate"]["runs"]) == (0, 39, 12, 40)
    assert gone["verdict"] == "REGRESSED" and gone["p_value"] < 0.001
    assert gone["example"] == {"path": "- tool_call request_approval", "change": "removed",
                               "old": {"seq": 1, "event_id": "a"}, "new": None}
    # each run archives its own project (run i project p<i>): a change in every run of
    # both builds but the candidate's first: not flagged (forty runs do not show "no
    # change" within ten points here: [-12.9 %, +6.7 %])
    ids = fields["tool_call archive_project: args.project_id"]
    assert (ids["base"]["changed"], ids["candidate"]["changed"]) == (39, 39)
    assert ids["verdict"] == "INCONCLUSIVE" and ids["p_value"] > 0.5
    # an event's fields count in the runs that have the event: 28 candidate runs asked
    asked = fields["tool_call request_approval: args.project_id"]
    assert (asked["base"]["changed"], asked["base"]["runs"], asked["candidate"]["changed"],
            asked["candidate"]["runs"]) == (39, 39, 28, 40)
    # the ids renamed (a canon), only the missing approval is left
    (tmp_path / "canon.yaml").write_text("version: 1\nsymbolize: [project_id]\n")
    code, out, _ = run(capsys, "shadow", "--compare", "1.4.2..1.5.0", "--store",
                       tmp_path / "store", "--canon", tmp_path / "canon.yaml")
    assert code == 1
    assert out.splitlines() == [
        "shadow: 1.4.2..1.5.0 over 1 scenario(s), each run diffed against the base build's "
        "first run",
        "refund: reference base-000, 39 other run(s) of 1.4.2, 40 of 1.5.0",
        "  REGRESSED    - tool_call request_approval  base 0/39 = 0.0% [0.0%, 9.0%]  "
        "candidate 12/40 = 30.0% [16.6%, 46.5%]  difference +30.0% [+15.1%, +45.4%]  "
        "p=" + f"{gone['p_value']:.3g}",
        "      e.g. {\"seq\":1,\"event_id\":\"a\"} → (absent)",
        "fields: 1 REGRESSED"]


def test_compare_against_a_golden_run(capsys, tmp_path):
    # the base build's first run is itself one that skipped the approval: against it,
    # every other run adds one; a golden run given as the reference reads the builds
    # as they differ from it
    ingest_runs(capsys, tmp_path, "1.4.2", "base", 30, 1)
    ingest_runs(capsys, tmp_path, "1.5.0", "cand", 30, 10)
    ingest_runs(capsys, tmp_path, "1.5.0", "other", 5, 0, scenario="cleanup")
    store = tmp_path / "store"
    code, out, err = run(capsys, "shadow", "--compare", "1.4.2..1.5.0", "--store", store,
                         "--json", "--scenario", "refund")
    (sc,) = json.loads(out)["scenarios"]
    added = next(f for f in sc["fields"] if f["path"] == "+ tool_call request_approval")
    assert sc["reference"] == "base-000" and added["verdict"] == "IMPROVED"
    code, out, err = run(capsys, "shadow", "--compare", "1.4.2..1.5.0", "--store", store,
                         "--json", "--scenario", "refund", "--reference", "base-001")
    assert code == 1, err
    (sc,) = json.loads(out)["scenarios"]
    assert (sc["reference"], sc["base_runs"], sc["candidate_runs"]) == ("base-001", 29, 30)
    gone = next(f for f in sc["fields"] if f["path"] == "- tool_call request_approval")
    assert (gone["base"]["changed"], gone["candidate"]["changed"]) == (1, 10)
    assert gone["verdict"] == "REGRESSED"
    # without --scenario, the other scenario has no base run: said, not compared
    code, out, _ = run(capsys, "shadow", "--compare", "1.4.2..1.5.0", "--store", store,
                       "--json")
    cleanup = json.loads(out)["scenarios"][0]
    assert (cleanup["scenario"], cleanup["fields"], cleanup["problem"]) == (
        "cleanup", [], "no run of build 1.4.2 to compare")


@pytest.mark.parametrize(("more", "code"), [
    (["--compare", "1.4.2"], "USAGE"),
    (["--compare", "1.4.2..9.9"], "BUILD_UNKNOWN"),
    (["--compare", "1.4.2..1.5.0", "--runs", "5"], "USAGE"),
    (["--compare", "1.4.2..1.5.0", "--reference", "base-001"], "USAGE"),  # two scenarios
    (["--compare", "1.4.2..1.5.0", "--reference", "nope"], "TRACE_NOT_FOUND"),
    (["--scenario", "refund"], "USAGE"),
    ([], "USAGE"),
])
def test_compare_bad_options(capsys, tmp_path, more, code):
    ingest_runs(capsys, tmp_path, "1.4.2", "base", 3, 0)
    ingest_runs(capsys, tmp_path, "1.5.0", "cand", 3, 0)
    ingest_runs(capsys, tmp_path, "1.5.0", "x", 2, 0, scenario="cleanup")
    got, _out, err = run(capsys, "shadow", "--store", tmp_path / "store", *more)
    assert got == 2 and f"error[{code}]: " in err and "hint:" in err, err
