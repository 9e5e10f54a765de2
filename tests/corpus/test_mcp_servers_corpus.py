"""Real MCP servers' ``tools/list``, kept under ``tests/corpus/mcp-*/`` (each folder's
SOURCE.md says where from), pinned to what ``contract import``, ``lint`` and ``diff``
make of them.

How the answers were taken: each file was opened and its tools counted by hand, their
annotations read against the mapping in docs/contracts.md ("MCP annotations"); the lint
counts of the small files were worked out by hand from the profiles' tables (the fetch
server: `format: uri` and `minLength` for OpenAI; four numeric and length bounds for
Anthropic; `format` and the two exclusive bounds for Gemini; three optional arguments
and one open object rewritten without loss), the larger ones checked group by group;
the GitHub server's diff against what changed in its snapshots between the two commits
(22 tools gone, `create_issue` without `assignees`, `labels`, `milestone` and `type`,
`create_repository`'s `private` now defaulting to true).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.support import run
from workbench.contracts import diff_contracts, lint, read_tools
from workbench.contracts._profile import group_problems

HERE = Path(__file__).parent
GITHUB_JAN = HERE / "mcp-github-server" / "tools-2026-01-27.json"
GITHUB_AUG = HERE / "mcp-github-server" / "tools-2026-08-06.json"
EVERYTHING = (HERE / "mcp-interviewer-everything" / "everything-2025-09-11.json",
              HERE / "mcp-interviewer-everything" / "everything-2025-10-11.json")

#: file -> (tools, {side effect: tools}), None for an unknown class
IMPORTED: dict[str, tuple[int, dict[str | None, int]]] = {
    "mcp-github-server/tools-2026-01-27.json": (101, {"read_only": 64, "destructive": 5,
                                                      None: 32}),
    "mcp-github-server/tools-2026-08-06.json": (115, {"read_only": 57, "external_send": 24,
                                                      "destructive": 7, None: 27}),
    "mcp-interviewer-everything/everything-2025-09-11.json": (11, {None: 11}),
    "mcp-interviewer-everything/everything-2025-10-11.json": (12, {None: 12}),
    "mcp-proxy-snapshots/server-filesystem.json": (14, {"read_only": 10, "destructive": 2,
                                                        "idempotent_write": 1, "write": 1}),
    "mcp-proxy-snapshots/server-memory.json": (9, {None: 9}),
    "mcp-proxy-snapshots/mcp-server-fetch.json": (1, {None: 1}),
    "mcp-proxy-snapshots/server-puppeteer.json": (7, {None: 7}),
    "mcp-proxy-snapshots/server-github.json": (26, {None: 26}),
    "mcp-proxy-snapshots/cloudflare-browser.json": (5, {None: 5}),
    "mcp-proxy-snapshots/cloudflare-radar.json": (19, {None: 19}),
    "mcp-proxy-snapshots/cloudflare-docs.json": (2, {None: 2}),
}

#: file -> (problems needing a decision, problems export fixes without loss,
#:          {"rule fix": count})
LINTED: dict[str, tuple[int, int, dict[str, int]]] = {
    "mcp-github-server/tools-2026-01-27.json": (78, 456, {
        "anthropic/minimum lossy": 47, "anthropic/maximum lossy": 25,
        "gemini/properties none": 4, "anthropic/required per-request": 1,
        "anthropic/strict per-request": 1, "openai/required lossless": 240,
        "anthropic/additionalProperties lossless": 108,
        "openai/additionalProperties lossless": 108}),
    "mcp-github-server/tools-2026-08-06.json": (151, 563, {
        "anthropic/minimum lossy": 80, "anthropic/maximum lossy": 28,
        "gemini/additionalProperties lossy": 8, "anthropic/maxLength lossy": 6,
        "openai/maxLength lossy": 6, "anthropic/oneOf lossy": 4, "gemini/oneOf lossy": 4,
        "openai/oneOf lossy": 4, "gemini/properties none": 3, "anthropic/minLength lossy": 2,
        "openai/minLength lossy": 2, "anthropic/required per-request": 1,
        "anthropic/strict per-request": 1, "gemini/enum lossy": 1, "openai/required lossy": 1,
        "openai/required lossless": 314, "anthropic/additionalProperties lossless": 124,
        "openai/additionalProperties lossless": 124, "gemini/type lossless": 1}),
    "mcp-interviewer-everything/everything-2025-09-11.json": (15, 5, {
        "gemini/additionalProperties lossy": 9, "anthropic/maximum lossy": 2,
        "anthropic/minimum lossy": 2, "anthropic/minLength lossy": 1,
        "openai/minLength lossy": 1, "openai/required lossless": 5}),
    "mcp-interviewer-everything/everything-2025-10-11.json": (15, 5, {
        "gemini/additionalProperties lossy": 9, "anthropic/maximum lossy": 2,
        "anthropic/minimum lossy": 2, "anthropic/minLength lossy": 1,
        "openai/minLength lossy": 1, "openai/required lossless": 5}),
    "mcp-proxy-snapshots/server-filesystem.json": (15, 38, {
        "gemini/additionalProperties lossy": 15, "anthropic/additionalProperties lossless": 15,
        "openai/additionalProperties lossless": 15, "openai/required lossless": 8}),
    "mcp-proxy-snapshots/server-memory.json": (31, 0, {"gemini/additionalProperties lossy": 31}),
    "mcp-proxy-snapshots/mcp-server-fetch.json": (9, 5, {
        "anthropic/exclusiveMaximum lossy": 1, "anthropic/exclusiveMinimum lossy": 1,
        "anthropic/minLength lossy": 1, "anthropic/minimum lossy": 1,
        "gemini/exclusiveMaximum lossy": 1, "gemini/exclusiveMinimum lossy": 1,
        "gemini/format lossy": 1, "openai/format lossy": 1, "openai/minLength lossy": 1,
        "openai/required lossless": 3, "anthropic/additionalProperties lossless": 1,
        "openai/additionalProperties lossless": 1}),
    "mcp-proxy-snapshots/server-puppeteer.json": (1, 22, {
        "gemini/properties none": 1, "anthropic/additionalProperties lossless": 8,
        "openai/additionalProperties lossless": 8, "openai/required lossless": 6}),
    "mcp-proxy-snapshots/server-github.json": (40, 56, {
        "gemini/additionalProperties lossy": 29, "anthropic/minimum lossy": 6,
        "anthropic/maximum lossy": 3, "anthropic/required per-request": 1,
        "anthropic/strict per-request": 1, "openai/required lossless": 56}),
    "mcp-proxy-snapshots/cloudflare-browser.json": (11, 3, {
        "gemini/additionalProperties lossy": 5, "gemini/format lossy": 3,
        "openai/format lossy": 3, "openai/required lossless": 3}),
    "mcp-proxy-snapshots/cloudflare-radar.json": (30, 66, {
        "gemini/additionalProperties lossy": 18, "gemini/format lossy": 6,
        "anthropic/exclusiveMinimum lossy": 2, "gemini/exclusiveMinimum lossy": 2,
        "anthropic/required per-request": 1, "openai/format lossy": 1,
        "openai/required lossless": 66}),
    "mcp-proxy-snapshots/cloudflare-docs.json": (1, 0, {"gemini/additionalProperties lossy": 1}),
}


def test_every_mcp_file_is_pinned():
    found = {str(p.relative_to(HERE)) for p in HERE.glob("mcp-*/*.json")}
    assert found == set(IMPORTED) == set(LINTED)


@pytest.mark.parametrize("name", sorted(IMPORTED))
def test_import(name):
    tools = read_tools([HERE / name])
    count, effects = IMPORTED[name]
    assert len(tools) == count
    assert Counter(d.side_effect for d in tools.values()) == effects
    assert all(d.source is not None and d.source.format == "mcp" for d in tools.values())


@pytest.mark.parametrize("name", sorted(LINTED))
def test_lint_groups(name):
    problems = lint(read_tools([HERE / name]).values())
    decisions, fixable, groups = LINTED[name]
    assert (sum(p.decision for p in problems), sum(not p.decision for p in problems)) == (
        decisions, fixable)
    assert {f"{g.rule} {g.fix}": g.count for g in group_problems(problems)} == groups


def test_github_lint_reads_as_groups_and_exits_1_only_for_decisions(capsys):
    """714 problems, 563 of which export rewrites without loss; the 151 others (bounds
    Anthropic's strict mode drops, objects Gemini cannot name, 115 tools in one strict
    request) are why it exits 1. The same server linted for OpenAI alone still has 13
    decisions; the filesystem server for OpenAI has none, and exits 0."""
    code, out, _ = run(capsys, "contract", "lint", GITHUB_AUG)
    assert code == 1
    lines = out.splitlines()
    assert lines[0] == "needs a decision: 151 problem(s)"
    assert lines[1] == "  anthropic/minimum  reject, export: lossy  80 in 53 tool(s)"
    assert "export fixes without loss: 563 problem(s)" in lines
    assert lines[-1] == ("714 problems in 115 of 115 tools (openai, anthropic, gemini, mcp): "
                         "151 need a decision, 563 export fixes without loss")
    assert len(lines) == 2 + 2 * 19 + 1  # two headings, two lines a group, the summary
    code, out, _ = run(capsys, "contract", "lint", GITHUB_AUG, "--json")
    doc = json.loads(out)
    assert (len(doc["problems"]), doc["fixable"], doc["decisions"]) == (714, 563, 151)
    assert sum(g["count"] for g in doc["groups"]) == 714
    code, out, _ = run(capsys, "contract", "lint", GITHUB_AUG, "--provider", "openai")
    assert code == 1 and out.splitlines()[-1].endswith(
        "(openai): 13 need a decision, 438 export fixes without loss")
    code, out, _ = run(capsys, "contract", "lint", HERE / "mcp-proxy-snapshots" /
                       "server-filesystem.json", "--provider", "openai")
    assert code == 0 and out.splitlines()[-1] == (
        "23 problems in 14 of 14 tools (openai): 0 need a decision, 23 export fixes without "
        "loss")


def test_github_diff_january_to_august():
    r = diff_contracts(GITHUB_JAN, GITHUB_AUG)
    assert (r.tools_old, r.tools_new, len(r.changes)) == (101, 115, 166)
    # the 13 rewordings of read-only tools' descriptions add no cue: info
    assert r.counts() == {"error": 91, "warn": 0, "info": 75}
    assert Counter((c.kind, c.severity) for c in r.changes) == Counter({
        ("tool-removed", "error"): 22, ("tool-added", "error"): 6, ("tool-added", "info"): 30,
        ("description-changed", "error"): 24, ("description-changed", "info"): 13,
        ("field-added", "error"): 16, ("field-added", "info"): 25,
        ("field-removed", "error"): 5, ("enum-value-added", "error"): 6,
        ("enum-value-added", "info"): 5, ("additional-properties-closed", "error"): 2,
        ("required-added", "error"): 2, ("required-removed", "error"): 2,
        ("required-removed", "info"): 2, ("side-effect-changed", "error"): 2,
        ("type-changed", "error"): 2, ("constraint-narrowed", "error"): 1,
        ("default-changed", "error"): 1})
    assert sorted(c.tool for c in r.changes if c.kind == "tool-removed") == [
        "add_project_item", "cancel_workflow_run", "delete_project_item",
        "delete_workflow_run_logs", "download_workflow_run_artifact", "get_project",
        "get_project_field", "get_project_item", "get_workflow_run", "get_workflow_run_logs",
        "get_workflow_run_usage", "list_project_fields", "list_project_items", "list_projects",
        "list_workflow_jobs", "list_workflow_run_artifacts", "list_workflow_runs",
        "list_workflows", "rerun_failed_jobs", "rerun_workflow_run", "run_workflow",
        "update_project_item"]
    by = {(c.tool, c.kind, c.path): c for c in r.changes}
    assignees = by["create_issue", "field-removed", "args.assignees"]
    assert (assignees.severity, assignees.role, assignees.side_effect) == (
        "error", "input", "external_send")
    assert assignees.message.startswith(
        "create_issue no longer takes the argument assignees: an agent that still sends "
        "assignees is silently ignored, so the call goes ahead, and what it writes or sends "
        "goes out without assignees")
    assert "filter" not in assignees.message
    private = by["create_repository", "default-changed", "args.private"]
    assert (private.severity, private.old, private.new, private.reason) == (
        "error", None, True, "fail-closed")
    assert private.message.startswith("create_repository now defaults private to true: a call "
                                      "that omits private now runs with private=true")
    diff = by["get_commit", "field-removed", "args.include_diff"]
    assert (diff.role, diff.side_effect) == ("filter", "read_only")
    assert diff.message == (
        "get_commit no longer takes the option include_diff: an agent that still sends "
        "include_diff is silently ignored: the read runs as if include_diff were not set")
    assert Counter(c.role for c in r.changes) == {None: 68, "input": 66, "filter": 32}


def test_everything_server_september_to_october():
    """One tool added, `listRoots`; the server sets no annotations, so its side effect is
    unknown and the gate fails closed. The other tools are the same, in another order."""
    r = diff_contracts(*EVERYTHING)
    assert [(c.tool, c.kind, c.severity, c.reason) for c in r.changes] == [
        ("listRoots", "tool-added", "error", "fail-closed")]
    assert (r.tools_old, r.tools_new) == (11, 12)
