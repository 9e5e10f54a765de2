"""``matches`` is evaluated by RE2 in both engines: patterns that backtrack for ever in
Python's ``re`` (``(a+)+$`` against 40 ``a`` and a ``!``) finish, through the CLI in a
subprocess (the timeout only catches a hang; it is far above a normal run), and give the
same known answers as before for ordinary patterns."""

import json
import subprocess
import sys

import pytest

from workbench.rules import parse_rules

EVIL = [("(a+)+$", "a" * 40 + "!"), ("(x+x+)+y", "x" * 40), ("(a|aa)+$", "a" * 40 + "b"),
        ("^(([a-z])+.)+[A-Z]([a-z])+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!")]


def workbench(*args, cwd):
    return subprocess.run([sys.executable, "-m", "workbench", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=300)


def store_with(tmp_path, values):
    lines = [{"format": "workbench-events", "version": 1}] + [
        {"trace_id": "rx", "event_id": f"e{i}", "parent_id": None, "kind": "tool_call",
         "name": "lookup", "start_ns": 10 * i, "end_ns": 10 * i + 5, "status": "ok",
         "args": {"q": v}, "result": None} for i, v in enumerate(values)]
    (tmp_path / "t.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert workbench("--store", "s", "ingest", "t.jsonl", cwd=tmp_path).returncode == 0


def rules_file(tmp_path, pattern):
    (tmp_path / "rules.yaml").write_text(
        "version: 1\nrules:\n  shape:\n    severity: error\n    every:\n"
        f"      event: {{tool: lookup}}\n      where: {{args.q: {{matches: {json.dumps(pattern)}}}}}\n")


@pytest.mark.parametrize("engine", ["duckdb", "python"])
@pytest.mark.parametrize("pattern, value", EVIL)
def test_a_catastrophic_pattern_finishes_in_both_engines(tmp_path, engine, pattern, value):
    store_with(tmp_path, [value])
    rules_file(tmp_path, pattern)
    proc = workbench("--store", "s", "check", "rules.yaml", "--engine", engine, "--json",
                     cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    assert [(f["rule"], f["seq"]) for f in json.loads(proc.stdout)["findings"]] == [
        ("shape", 0)]


@pytest.mark.parametrize("engine", ["duckdb", "python"])
def test_ordinary_patterns_keep_their_answers(tmp_path, engine):
    values = ["p17", "P17", "p1x", "xp17", "p17\n", "p١٧", "", "p 17"]
    store_with(tmp_path, values)
    rules_file(tmp_path, "^p[0-9]+$")
    proc = workbench("--store", "s", "check", "rules.yaml", "--engine", engine, "--json",
                     cwd=tmp_path)
    bad = sorted(f["seq"] for f in json.loads(proc.stdout)["findings"])
    # only p17 matches: RE2 is case-sensitive, [0-9] is ASCII, $ is the end of the text
    assert bad == [1, 2, 3, 4, 5, 6, 7]


@pytest.mark.parametrize("pattern, why", [
    ("(?=x)", "invalid perl operator"), ("(a)\\1", "invalid escape sequence"),
    ("(a", "missing )")])
def test_what_re2_lacks_is_refused_at_load_with_its_reason(pattern, why):
    with pytest.raises(Exception) as info:
        parse_rules("version: 1\nrules:\n  r:\n    every:\n      event: {tool: x}\n"
                    f"      where: {{args.q: {{matches: {json.dumps(pattern)}}}}}\n")
    assert getattr(info.value, "code", None) == "RULES_INVALID"
    assert why in str(info.value)
