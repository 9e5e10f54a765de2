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


def schema_rules(tmp_path, schema):
    (tmp_path / "rules.yaml").write_text(
        "version: 1\nrules:\n  shape:\n    severity: error\n    every:\n"
        f"      event: {{tool: lookup}}\n      schema: {{args: {json.dumps(schema)}}}\n")


@pytest.mark.parametrize("engine", ["duckdb", "python"])
@pytest.mark.parametrize("schema, found", [
    ({"type": "object", "properties": {"q": {"type": "string", "pattern": "(a+)+$"}}},
     ["shape"]),
    ({"type": "object", "patternProperties": {"(a+)+$": {"type": "integer"}}}, []),
    ({"type": "object", "properties": {}, "patternProperties": {"(a+)+$": {}},
      "additionalProperties": False}, ["shape"]),
    ({"type": "object", "propertyNames": {"pattern": "(x+x+)+y"}}, ["shape"]),
], ids=["pattern", "patternProperties", "additionalProperties", "propertyNames"])
def test_a_catastrophic_schema_regex_finishes(tmp_path, engine, schema, found):
    """The value and a key are 40 ``a`` and a ``!``: no pattern matches them, and the
    answer comes at once (patternProperties then holds: no key it applies to)."""
    evil = "a" * 40 + "!"
    lines = [{"format": "workbench-events", "version": 1},
             {"trace_id": "rx", "event_id": "e0", "parent_id": None, "kind": "tool_call",
              "name": "lookup", "start_ns": 0, "end_ns": 5, "status": "ok",
              "args": {"q": evil, evil: "x"}, "result": None}]
    (tmp_path / "t.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    assert workbench("--store", "s", "ingest", "t.jsonl", "--no-redact",
                     cwd=tmp_path).returncode == 0
    schema_rules(tmp_path, schema)
    proc = workbench("--store", "s", "check", "rules.yaml", "--engine", engine, "--json",
                     cwd=tmp_path)
    assert proc.returncode == (1 if found else 0), proc.stderr
    assert [f["rule"] for f in json.loads(proc.stdout)["findings"]] == found


def test_schema_regexes_keep_their_answers():
    from workbench.model import Event, Trace
    from workbench.rules import check_trace, parse_rules
    rules = parse_rules(
        "version: 1\nrules:\n  ids:\n    every:\n      event: {tool: get}\n      schema:\n"
        "        args: {type: object, properties: {id: {pattern: '^p[0-9]+$'}},\n"
        "               patternProperties: {'^x-': {type: string}},\n"
        "               additionalProperties: {type: integer}}\n")
    def ev(i, args):
        return Event("t", f"e{i}", None, i, "tool_call", "get", None, None, "ok", args, {})
    events = [ev(0, {"id": "p17"}), ev(1, {"id": "P17"}), ev(2, {"x-a": "s", "n": 1}),
              ev(3, {"x-a": 1}), ev(4, {"other": "text"}), ev(5, {"id": "p1", "q": 2})]
    found = sorted(f.seq for f in check_trace(Trace.from_events(events), rules))
    assert found == [1, 3, 4]


@pytest.mark.parametrize("schema, why", [
    ({"pattern": "(?=x)"}, "invalid perl operator"),
    ({"properties": {"a": {"patternProperties": {"(a)\\1": {}}}}}, "invalid escape"),
])
def test_a_schema_regex_re2_cannot_run_is_refused_at_load(schema, why):
    with pytest.raises(Exception) as info:
        parse_rules("version: 1\nrules:\n  r:\n    every:\n      event: {tool: x}\n"
                    f"      schema: {{args: {json.dumps(schema)}}}\n")
    assert getattr(info.value, "code", None) == "RULES_INVALID"
    assert "cannot run on RE2" in str(info.value) and why in str(info.value)
