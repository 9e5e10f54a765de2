"""Loading rules: every way a rules file can be wrong names the rule and the line."""

import json

import pytest

from workbench.rules import Before, Count, Every, Flow, Order, RulesError, parse_rules, sel, tool


def load(body: str, **kw):
    return parse_rules("version: 1\nrules:\n" + body, **kw)


def test_the_design_examples_load(tmp_path):
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "projects-list-v1.json").write_text(json.dumps(
        {"type": "object", "required": ["items"]}))
    text = (tmp_path / "rules.yaml")
    text.write_text('''version: 1
rules:
  approval-before-archive:
    description: an archive needs an approval that finished earlier, for the same project
    before: {first: {tool: request_approval}, then: {tool: archive_project}, same: [args.project_id]}
  no-retry-after-refusal:
    never: {event: {tool: retry_job}, after: {tool: get_job, where: {result.retry_allowed: false}}, same: [args.job_id]}
  one-charge-per-cart:
    count: {event: {tool: charge, where: {result.status: captured}}, per: [args.cart_id], max: 1}
  explicit-limit:
    every: {event: {kind: http, name: GET /projects}, where: {args.query.limit: {exists: true}}}
  known-job-status:
    every: {event: {tool: get_job}, where: {result.status: {in: [queued, running, succeeded, failed]}}}
  list-shape:
    every: {event: {tool: list_projects}, schema: {result: {$ref: schemas/projects-list-v1.json}}}
  fix-workflow:
    order: {steps: {s: {tool: search}, r: {tool: read_file}, p: {tool: apply_patch}, t: {tool: run_tests}},
            edges: [[s, r], [r, p], [p, t]]}
  archive-owned-only:
    flow: {event: {tool: archive_project}, value: args.project_id,
           from: {tool: list_projects}, from_value: "result.items[*].id", source_where: {owner: {in: [team-a]}}}
''')
    from workbench.rules import load_rules
    rs = load_rules(text)
    assert [r.kind for r in rs] == ["before", "never", "count", "every", "every", "every",
                                    "order", "flow"]
    assert [r.line for r in rs] == [3, 6, 8, 10, 12, 14, 16, 19]
    assert isinstance(rs.get("fix-workflow").body, Order)
    assert rs.get("list-shape").body.schema[0][1]["required"] == ["items"]


@pytest.mark.parametrize("body, line, fragment", [
    ("  a:\n    befor: {first: {tool: x}, then: {tool: y}}\n", 3, "unknown key 'befor'"),
    ("  a:\n    every: {event: {tool: x}, where: {args..id: 1}}\n", 3, "bad path"),
    ("  a:\n    every: {event: {tool: x}, where: {args.id: {matches: '(unclosed'}}}\n", 3,
     "bad regular expression"),
    ("  a:\n    every: {event: {tool: x}, where: {args.id: {matches: '(?=look)'}}}\n", 3,
     "RE2"),
    ("  a:\n    every: {event: {tool: x}, schema: {result: {$ref: missing.json}}}\n", 3,
     "not found"),
    ("  ok:\n    exists: {tool: x}\n  b:\n    count: {event: {tool: x}}\n", 5,
     "count needs min, max"),
    ("  a:\n    exists: {kind: banana}\n", 3, "unknown kind"),
    ("  a:\n    exists: {tool: x, name: y}\n", 3, "tool is kind tool_call"),
    ("  a:\n    exists: {}\n", 3, "empty selector"),
    ("  a:\n    order: {steps: {x: {tool: a}, y: {tool: b}}, edges: [[x, y], [y, x]]}\n", 3,
     "cycle"),
    ("  a:\n    order: {steps: {x: {tool: a}}, edges: [[x, z]]}\n", 3, "unknown step"),
    ("  a:\n    every: {event: {tool: x}, where: {args.id: [1, 2]}}\n", 3, "ambiguous"),
    ("  a:\n    every: {event: {tool: x}, where: {args.id: {between: 1}}}\n", 3,
     "unknown condition"),
    ("  a:\n    every: {event: {tool: x}, where: {id: 1}}\n", 3, "must start with an event"),
    ("  a:\n    severity: fatal\n    exists: {tool: x}\n", 3, "severity"),
    ("  a:\n    exists: {tool: x}\n    absent: {tool: y}\n", 3, "exactly one body"),
])
def test_bad_rules_name_rule_and_line(body, line, fragment):
    with pytest.raises(RulesError) as info:
        load(body, source="r.yaml")
    msg = info.value.message
    assert msg.startswith(f"r.yaml line {line}, rule "), msg
    assert fragment in msg
    assert info.value.code == "RULES_INVALID"


@pytest.mark.parametrize("text, code", [
    ("version: 1\nrules: {a: [unclosed\n", "RULES_YAML"),
    ("version: 2\nrules: {a: {exists: {tool: x}}}\n", "RULES_INVALID"),
    ("rules: {a: {exists: {tool: x}}}\n", "RULES_INVALID"),
    ("- just a list\n", "RULES_INVALID"),
    ("", "RULES_INVALID"),
])
def test_bad_files(text, code):
    with pytest.raises(RulesError) as info:
        parse_rules(text)
    assert info.value.code == code


def test_python_api_builds_the_same_objects():
    rs = load("  a:\n    before: {first: {tool: request_approval, where: {result.approved: true}},"
              " then: {tool: archive_project}, same: [args.project_id]}\n")
    body = rs.rules[0].body
    assert isinstance(body, Before)
    assert body.first == tool("request_approval", where={"result.approved": True})
    assert body.then == sel("tool_call", "archive_project")
    assert isinstance(load("  c:\n    count: {event: {tool: x}, max: 1}\n").rules[0].body, Count)
    assert isinstance(load("  e:\n    every: {event: {tool: x}, where: {a: 1}}\n".replace(
        "{a: 1}", "{args.a: 1}")).rules[0].body, Every)
    assert isinstance(load("  f:\n    flow: {event: {tool: a}, value: args.id, from: {tool: b},"
                           " from_value: 'result.items[*].id'}\n").rules[0].body, Flow)
