"""shadow(): two builds over a fixture folder — the seeded Decimal→float change is found
in exactly its fixture and field; failing builds are reported per fixture."""

import json
import shlex
import sys
from decimal import Decimal

import pytest

from workbench.diff import Canon, shadow
from workbench.diff._builds import parse_output
from workbench.model import InputError, UsageError

PY = shlex.quote(sys.executable)

# The "released" build totals order lines with Decimal and prints the exact total; the
# candidate is the same program with one seeded change: it sums floats.
BUILD = """
import json, sys, time, uuid
from decimal import Decimal
order = json.load(open(sys.argv[1]))
total = sum((%s(x) for x in order["lines"]), %s(0))
print('{"order": %%s, "lines": %%d, "total": %%s, "generated_at": %%s, "request_id": "%%s"}' %% (
    json.dumps(order["id"]), len(order["lines"]), total, json.dumps(time.time()), uuid.uuid4()))
"""
ORDERS = {"a.json": ["1.5", "2.25"], "b.json": ["0.1", "0.2"], "c.json": ["10.5"],
          "sub/d.json": ["2.5", "2.5"]}
CANON = Canon.of(drop=["generated_at"], symbolize=["request_id"])


@pytest.fixture
def fixtures(tmp_path):
    root = tmp_path / "fixtures"
    for i, (name, lines) in enumerate(ORDERS.items()):
        p = root / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps({"id": f"o-{i}", "lines": lines}))
    return root


@pytest.fixture
def builds(tmp_path):
    old, new = tmp_path / "old.py", tmp_path / "new.py"
    old.write_text(BUILD % ("Decimal", "Decimal"))
    new.write_text(BUILD % ("float", "float"))
    return f"{PY} {old} {{fixture}}", f"{PY} {new} {{fixture}}"


def snapshot(root):
    return {p: p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_the_seeded_change_is_reported_in_exactly_that_fixture_and_field(fixtures, builds,
                                                                         tmp_path):
    before = snapshot(fixtures)
    out = tmp_path / "out"
    result = shadow(*builds, fixtures, canon=CANON, out=out, jobs=2)
    assert [r.fixture for r in result.results] == ["a.json", "b.json", "c.json", "sub/d.json"]
    assert [(r.fixture, r.status) for r in result.mismatches] == [("b.json", "changed")]
    [b] = result.mismatches
    assert [(p.path, p.old, p.new) for p in b.paths] == [
        ("total", Decimal("0.3"), Decimal("0.30000000000000004"))]
    assert b.old_digest != b.new_digest
    assert sorted(p.name for p in out.rglob("*") if p.is_file()) == ["b.json.new", "b.json.old"]
    assert json.loads((out / "b.json.old").read_text())["total"] == 0.3
    assert '"total": 0.30000000000000004' in (out / "b.json.new").read_text()
    assert '"request_id": "«id1»"' in (out / "b.json.old").read_text()
    assert snapshot(fixtures) == before  # fixtures are read-only inputs
    doc = result.to_dict()
    assert doc["fixtures"] == 4 and doc["same"] == 3
    assert doc["mismatches"][0]["paths"] == [
        {"path": "total", "old": 0.3, "new": 0.30000000000000004, "change": "changed"}]


def test_without_the_canon_every_fixture_differs_by_its_volatile_fields(fixtures, builds):
    result = shadow(*builds, fixtures)
    assert len(result.mismatches) == 4
    assert {p.path for p in result.mismatches[0].paths} == {"generated_at", "request_id"}


def test_the_same_build_twice_is_quiet_and_stale_evidence_is_removed(fixtures, builds,
                                                                     tmp_path):
    out = tmp_path / "out"
    shadow(*builds, fixtures, canon=CANON, out=out)
    assert (out / "b.json.old").exists()
    result = shadow(builds[0], builds[0], fixtures, canon=CANON, out=out)
    assert result.mismatches == [] and not (out / "b.json.old").exists()


@pytest.mark.parametrize(("script", "failure", "message"), [
    ("import sys; sys.exit(3)", "crashed", "printed nothing on stdout (exit status 3)"),
    ("print('hello')", "not_json", "stdout is not JSON"),
    ("pass", "no_output", "printed nothing"),
    ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", "crashed", "killed by signal 9"),
    ("import time; time.sleep(5)", "timeout", "no answer within 0.5 s"),
])
def test_a_failing_build_is_reported_for_its_fixture(fixtures, builds, tmp_path, script,
                                                     failure, message):
    bad = tmp_path / "bad.py"
    bad.write_text(script)
    out = tmp_path / "out"
    result = shadow(builds[0], f"{PY} {bad} {{fixture}}", fixtures, canon=CANON,
                    glob="a.json", timeout=0.5, out=out)
    [r] = result.mismatches
    assert (r.fixture, r.status, r.new.failure) == ("a.json", "failed", failure)
    assert message in r.new.message and r.old.ok and r.new_digest is None
    assert (out / "a.json.old").exists() and (out / "a.json.new.stderr").exists()


def test_a_build_that_writes_to_its_fixture_is_caught(fixtures, builds, tmp_path):
    evil = tmp_path / "evil.py"
    evil.write_text("import sys\nopen(sys.argv[1], 'a').write(' ')\nprint('{}')")
    result = shadow(builds[0], f"{PY} {evil} {{fixture}}", fixtures, glob="c.json")
    assert result.mismatches[0].problem.startswith("a build modified the fixture")


def test_exit_status_is_part_of_the_output(fixtures, tmp_path):
    p = tmp_path / "p.py"
    p.write_text("import sys\nprint('{\"ok\": true}')\nsys.exit(int(sys.argv[2]))")
    result = shadow(f"{PY} {p} {{fixture}} 0", f"{PY} {p} {{fixture}} 1", fixtures,
                    glob="a.json")
    assert [(x.path, x.old, x.new) for x in result.mismatches[0].paths] == [("$exit", 0, 1)]


def test_json_lines_output_is_read_as_a_list():
    assert parse_output(b'{"a": 1}\n{"a": 2.50}\n') == ([{"a": 1}, {"a": Decimal("2.50")}],
                                                        None)
    assert parse_output(b"\xff")[1].startswith("stdout is not UTF-8")


@pytest.mark.parametrize(("old", "code"), [
    ("python3 run.py", "USAGE"),              # no {fixture}
    ("no-such-build-xyz {fixture}", "COMMAND_NOT_FOUND"),
    ("'unbalanced {fixture}", "USAGE"),
    ("", "USAGE"),
])
def test_bad_commands_are_refused_before_anything_runs(fixtures, builds, tmp_path, old, code):
    with pytest.raises(UsageError) as err:
        shadow(old, builds[1], fixtures, out=tmp_path / "out")
    assert err.value.code == code and not (tmp_path / "out").exists()


def test_bad_folders_are_refused(fixtures, builds, tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError) as err:
        shadow(*builds, tmp_path / "empty")
    assert err.value.code == "NO_FIXTURES"
    with pytest.raises(InputError) as err:
        shadow(*builds, fixtures, glob="*.yaml")
    assert err.value.code == "NO_FIXTURES"
    with pytest.raises(UsageError) as err:
        shadow(*builds, fixtures, out=fixtures / "results")
    assert err.value.code == "OUT_INSIDE_FIXTURES" and not (fixtures / "results").exists()
