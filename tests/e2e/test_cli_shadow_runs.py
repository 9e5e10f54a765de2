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
