"""The hostile inputs: for each command that reads a file, what an attacker would feed
it, and the code it must end with (exit 2, nothing written). ``test_hostile.py`` runs
them; the classes are those of docs/cli.md, Limits."""

from __future__ import annotations

import json
from pathlib import Path
from typing import NamedTuple

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "traces" / "examples" / "archive-incident.otlp.json"

EVENT = {"trace_id": "h1", "event_id": "e1", "kind": "tool_call", "name": "x",
         "args": {"n": 12345}}
HUGE = "9" * 65_000  # digits: beyond integer_digits (and Python's own bound)


def jsonl(value: str, key: str = "args") -> str:
    """One JSONL event whose ``key`` holds ``value``, written as JSON text."""
    if key == "args":
        return json.dumps(EVENT).replace("12345", value) + "\n"
    return json.dumps({**EVENT, key: 12345}).replace("12345", value) + "\n"


def otlp_time(value: str) -> str:
    """The bundled OTLP example with its first start time replaced by ``value``."""
    text = EXAMPLE.read_text()
    start = text.index('"startTimeUnixNano"')
    end = text.index(",", start)
    return text[:start] + f'"startTimeUnixNano": {value}' + text[end:]


def laughs(levels: int = 9, first: str = "x-a") -> str:
    """A "billion laughs" YAML block: each anchor names nine of the one before."""
    lines = [f"{first}: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    for i in range(1, levels):
        lines.append(f"x-{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def deep_list(n: int) -> str:
    return "[" * n + "]" * n


def deep_object(n: int) -> str:
    return '{"a":' * n + "1" + "}" * n


class Case(NamedTuple):
    """A file to write (``name``, ``text``) and what ``ingest`` of it must end in."""

    id: str
    name: str
    text: str
    code: str
    args: tuple[str, ...] = ()


INGEST = [
    Case("jsonl-huge-integer", "t.jsonl", jsonl(HUGE), "LIMIT_EXCEEDED"),
    Case("jsonl-huge-negative", "t.jsonl", jsonl("-" + HUGE), "LIMIT_EXCEEDED"),
    Case("jsonl-seq-beyond-int64", "t.jsonl", jsonl("9" * 23, "seq"), "INVALID_TRACE"),
    Case("jsonl-seq-below-int64", "t.jsonl", jsonl(str(-(2**63) - 1), "seq"), "INVALID_TRACE"),
    Case("jsonl-start-beyond-int64", "t.jsonl", jsonl("9" * 23, "start_ns"), "INVALID_TRACE"),
    Case("jsonl-infinity", "t.jsonl", jsonl("Infinity"), "INVALID_JSON", ("--format", "jsonl")),
    Case("jsonl-nan", "t.jsonl", jsonl("NaN"), "INVALID_JSON", ("--format", "jsonl")),
    Case("jsonl-1e400", "t.jsonl", jsonl("1e400"), "INVALID_JSON", ("--format", "jsonl")),
    Case("jsonl-deep-list", "t.jsonl", jsonl(deep_list(100_000)), "LIMIT_EXCEEDED",
         ("--format", "jsonl")),
    Case("jsonl-deep-object", "t.jsonl", jsonl(deep_object(100_000)), "LIMIT_EXCEEDED",
         ("--format", "jsonl")),
    Case("jsonl-deep-wide-mix", "t.jsonl", jsonl('{"w": ' + "9" * 30 + ', "d": '
                                                 + deep_list(5_000) + "}"),
         "LIMIT_EXCEEDED", ("--format", "jsonl")),
    Case("jsonl-deeper-than-storable", "t.jsonl", jsonl(deep_list(1_000)), "LIMIT_EXCEEDED",
         ("--format", "jsonl", "--no-redact")),
    Case("jsonl-deeper-than-redactable", "t.jsonl", jsonl(deep_list(1_000)), "TOO_DEEP",
         ("--format", "jsonl")),
    Case("otlp-time-infinity", "t.otlp.json", otlp_time("Infinity"), "INVALID_JSON",
         ("--format", "otlp")),
    Case("otlp-time-1e400", "t.otlp.json", otlp_time("1e400"), "INVALID_JSON",
         ("--format", "otlp")),
    Case("otlp-huge-integer", "t.otlp.json", otlp_time(HUGE), "LIMIT_EXCEEDED",
         ("--format", "otlp")),
    Case("otel-json-deep-object", "t.json", '{"resourceSpans":' + deep_object(100_000) + "}",
         "LIMIT_EXCEEDED", ("--format", "otel-json")),
    Case("otel-json-concatenated-deep", "t.json", '{"a": 1} ' + deep_list(100_000),
         "LIMIT_EXCEEDED", ("--format", "otel-json")),
    Case("otel-json-concatenated-huge", "t.json", '{"a": 1} {"b": ' + HUGE + "}",
         "LIMIT_EXCEEDED", ("--format", "otel-json")),
    Case("vcr-deep-list", "t.yaml", "interactions: " + deep_list(100_000) + "\n",
         "LIMIT_EXCEEDED", ("--format", "vcr")),
    Case("vcr-deep-block", "t.yaml", "interactions:\n" + "".join(
        " " * i + "- \n" for i in range(300)), "LIMIT_EXCEEDED", ("--format", "vcr")),
    Case("vcr-billion-laughs", "t.yaml", laughs(first="a") + "interactions: *a8\n",
         "LIMIT_EXCEEDED", ("--format", "vcr")),
    Case("vcr-laughs-in-a-body", "t.yaml", laughs(first="a") + "interactions:\n- request: "
         "{uri: 'http://x/', method: GET, body: *a8}\n", "LIMIT_EXCEEDED", ("--format", "vcr")),
    Case("vcr-recursive-alias", "t.yaml", "interactions: &i [*i]\n", "LIMIT_EXCEEDED",
         ("--format", "vcr")),
    Case("vcr-huge-integer", "t.yaml", f"interactions: [{HUGE}]\n", "LIMIT_EXCEEDED",
         ("--format", "vcr")),
]


def rules(body: str) -> str:
    return f"version: 1\nrules:\n  r1:\n    every: {{event: {{tool: x}}, {body}}}\n"


def schema_rule(ref: str) -> str:
    return rules(f"schema: {{args: {{$ref: '{ref}'}}}}")


#: (id, rules text, extra files beside it {name: text}, code)
RULES = [
    ("deep-flow", rules("where: {args.n: " + deep_list(100_000) + "}"), {}, "LIMIT_EXCEEDED"),
    ("deep-block", "version: 1\nrules:\n" + "".join(" " * (2 * i + 2) + f"k{i}:\n"
                                                     for i in range(200)), {}, "LIMIT_EXCEEDED"),
    ("billion-laughs", "version: 1\n" + laughs() + "rules:\n  r1:\n    every: {event: "
     "{tool: x}, where: {args.n: {in: *a8}}}\n", {}, "LIMIT_EXCEEDED"),
    ("huge-integer", rules("where: {args.n: " + HUGE + "}"), {}, "LIMIT_EXCEEDED"),
    ("huge-string", rules("where: {args.n: {matches: '" + "a" * 70_000 + "'}}"), {},
     "LIMIT_EXCEEDED"),
    ("too-many-rules", "version: 1\nrules:\n" + "".join(
        f"  r{i}: {{exists: {{tool: x}}}}\n" for i in range(10_001)), {}, "LIMIT_EXCEEDED"),
    ("too-large", "version: 1\n" + "# padding\n" * 450_000 + rules("where: {args.n: 1}")[11:],
     {}, "LIMIT_EXCEEDED"),
    ("duplicate-rule-id", rules("where: {args.n: 1}") + "  r1:\n    exists: {tool: y}\n", {},
     "DUPLICATE_KEY"),
    ("duplicate-condition-key", rules("where: {args.n: 1, args.n: 2}"), {}, "DUPLICATE_KEY"),
    ("ref-file-url", schema_rule("file:///etc/passwd"), {}, "REF_OUTSIDE"),
    ("ref-absolute", schema_rule("/etc/passwd"), {}, "REF_OUTSIDE"),
    ("ref-dotdot", schema_rule("../outside.json"), {}, "REF_OUTSIDE"),
    ("ref-dotdot-inside-out", schema_rule("sub/../../outside.json"), {}, "REF_OUTSIDE"),
    ("ref-data-url", schema_rule("data:application/json,{}"), {}, "REF_OUTSIDE"),
    ("ref-nested-file-url", schema_rule("s.json"),
     {"s.json": '{"properties": {"a": {"$ref": "file:///etc/passwd"}}}'}, "REF_OUTSIDE"),
    ("ref-nested-sibling", schema_rule("s.json"),
     {"s.json": '{"properties": {"a": {"$ref": "t.json"}}}', "t.json": "{}"}, "REF_OUTSIDE"),
    ("ref-self", schema_rule("s.json"), {"s.json": '{"$ref": "#"}'}, "REF_CYCLE"),
    ("ref-loop-allof", schema_rule("s.json"), {"s.json": json.dumps(
        {"$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"$ref": "#/$defs/a"}},
         "$ref": "#/$defs/a"})}, "REF_CYCLE"),
    ("ref-inline-self", rules("schema: {args: {$ref: '#', type: object}}"), {}, "REF_CYCLE"),
    ("ref-dangling-pointer", schema_rule("s.json"), {"s.json": '{"$ref": "#/$defs/none"}'},
     "RULES_INVALID"),
    ("schema-huge-integer", schema_rule("s.json"), {"s.json": '{"maximum": ' + HUGE + "}"},
     "LIMIT_EXCEEDED"),
    ("schema-deep", schema_rule("s.json"), {"s.json": '{"not": ' * 2_000 + "{}" + "}" * 2_000},
     "LIMIT_EXCEEDED"),
]


#: (id, YAML text of a canon file or a policy, code)
CONFIG = [
    ("deep", "version: 1\ndrop: " + deep_list(100_000) + "\n", "LIMIT_EXCEEDED"),
    ("billion-laughs", "version: 1\n" + laughs() + "drop: *a8\n", "LIMIT_EXCEEDED"),
    ("huge-integer", f"version: {HUGE}\n", "LIMIT_EXCEEDED"),
    ("duplicate-key", "version: 1\nversion: 1\n", "DUPLICATE_KEY"),
]
