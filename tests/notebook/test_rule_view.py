"""RuleView without a browser: run, group by signature, highlight witnesses, edit and
pick rules, and show a broken rules file as an error instead of raising."""

from __future__ import annotations

import pytest

from tests.support import EXAMPLES
from workbench.notebook import RuleView, TraceView
from workbench.rules import load_rules

from .conftest import ARCHIVE_P18, ARCHIVE_P19, LIST_PROJECTS, RULES, TRACE

SIGS = {"approval-before-archive": "3a099b3e98e81f00", "archive-owned-only": "e3cd8e366278883f",
        "list-filters-by-owner-id": "c2b6622ff1d556fb"}


def test_findings_are_grouped_by_signature(store):
    view = RuleView(store, TRACE, rules=RULES)
    seen = []     # what the browser is sent while the run goes: at once, before the work
    view.run_button.observe(lambda c: seen.append((c["name"], c["new"], view.status_text)),
                            names=["disabled", "description"])
    found = view.run()
    assert seen[0] == ("disabled", True, "running 3 rule(s) over trace 4bf92f3577b3…")
    assert ("description", "running…", "running 3 rule(s) over trace 4bf92f3577b3…") in seen
    assert not view.run_button.disabled and view.run_button.description == "Run rules"
    assert len(found) == 5 and view.runs == 1 and view.error == ""
    assert [(g.rule, g.signature, len(g.findings)) for g in view.groups] == [
        ("approval-before-archive", SIGS["approval-before-archive"], 2),
        ("archive-owned-only", SIGS["archive-owned-only"], 2),
        ("list-filters-by-owner-id", SIGS["list-filters-by-owner-id"], 1)]
    assert view.status_text.startswith("5 finding(s): 4 error(s), 1 warning(s), 3 signature(s)")
    assert len(view.finding_list.options) == 5
    assert "3a099b3e" in view.groups_html.value


def test_a_run_shows_real_progress_rule_by_rule_and_finds_what_check_finds(store):
    from workbench.rules import check, load_rules

    view = RuleView(store, TRACE, rules=RULES)
    steps = []
    view.progress.observe(lambda c: steps.append((c["new"], view.progress_label.value)),
                          names=["value"])
    found = view.run()
    assert [v for v, _ in steps if v] == [1, 2, 3]
    assert steps[0][1] == "rule 1 of 3: approval-before-archive…"
    assert view.progress.bar_style == "success" and view.progress_label.value == \
        "done: 5 finding(s)"
    whole = check(store, load_rules(RULES), trace_ids=[TRACE], record=False).findings
    assert [f.key() for f in found] == [f.key() for f in whole]
    # a recorded run is one call: one run in the store
    before = store.sql("select count(distinct run_id) as n from findings").to_pylist()[0]["n"]
    recorded = RuleView(store, TRACE, rules=RULES, record=True)
    assert len(recorded.run()) == 5 and recorded.progress.value == 3
    after = store.sql("select count(distinct run_id) as n from findings").to_pylist()[0]["n"]
    assert after == before + 1


def test_selecting_a_finding_highlights_its_witnesses_in_the_timeline(store):
    timeline = TraceView(store, TRACE)
    view = RuleView(store, TRACE, rules=RULES, trace_view=timeline)
    view.run()
    n = next(i for i, f in enumerate(view.findings)
             if f.rule == "archive-owned-only" and f.seq == 8)
    view.finding_list.value = n   # what a click on the list's row does
    assert view.selected == n
    assert timeline.highlighted == [ARCHIVE_P18, LIST_PROJECTS]
    assert timeline.selected == ARCHIVE_P18
    assert "archive-owned-only: archive_project p18 at step 8 came from list_projects" in \
        timeline.header.value
    assert [b.description for b in view.witness_bar.children[1:]] == [
        "step 8 · archive_project", "step 2 · list_projects"]


def test_picking_rules_runs_only_those(store):
    view = RuleView(store, TRACE, rules=RULES)
    view.pick("approval-before-archive", "no-such-rule")
    assert view.picker.value == ("approval-before-archive",)
    found = view.run()
    assert [f.seq for f in found] == [8, 9]


def test_editing_the_rules_and_running_again(store):
    timeline = TraceView(store, TRACE)
    view = RuleView(store, TRACE, rules=RULES, trace_view=timeline)
    view.set_rules("version: 1\nrules:\n  no-failed-archive:\n    every:\n"
                   "      event: {tool: archive_project}\n      where: {status: ok}\n")
    assert view.picker.options == ("no-failed-archive",)
    found = view.run()
    assert [(f.rule, f.seq) for f in found] == [("no-failed-archive", 9)]
    view.select_finding(0)
    assert timeline.highlighted == [ARCHIVE_P19]


def test_a_broken_rules_text_is_shown_not_raised(store):
    view = RuleView(store, TRACE, rules=RULES)
    view.run()
    view.set_rules("version: 1\nrules:\n  x: {bogus: 1}\n")
    assert view.error.startswith("error[RULES_INVALID]: ")
    assert "(edited) line 3, rule x" in view.error
    assert view.run() == [] and "error[RULES_INVALID]" in view.status_text
    assert "hint: see docs/rules.md" in view.status_text
    view.set_rules("version: 1\nrules: [\n")
    assert view.error.startswith("error[RULES_YAML]: ")


def test_every_trace_of_the_store_and_the_record_flag(store):
    view = RuleView(store, rules=RULES, record=True)
    assert len(view.run()) == 5
    assert "every trace of the store" in view.status_text
    assert store.sql("select count(*) as n from findings").to_pylist() == [{"n": 5}]
    RuleView(store, TRACE, rules=RULES).run()   # record=False by default
    assert store.sql("select count(*) as n from findings").to_pylist() == [{"n": 5}]


def test_a_trace_in_memory_runs_the_python_engine(store):
    trace = store.trace(TRACE)
    view = RuleView(trace, rules=load_rules(RULES))
    assert [(f.rule, f.seq) for f in view.run()] == [
        ("approval-before-archive", 8), ("approval-before-archive", 9),
        ("archive-owned-only", 8), ("archive-owned-only", 9),
        ("list-filters-by-owner-id", 2)]


def test_bad_inputs(store, tmp_path):
    from workbench.model import WorkbenchError
    with pytest.raises(WorkbenchError) as e:
        RuleView(store, TRACE, rules=tmp_path / "missing.yaml")
    assert e.value.code == "FILE_NOT_FOUND"
    view = RuleView(store, TRACE, rules=RULES)
    view.run()
    with pytest.raises(IndexError):
        view.select_finding(5)


def test_contracts_run_beside_the_rules(store):
    """Given the projects contracts, a run lists the contract findings with the rule
    findings, grouped and selectable the same way (store-wide and for one trace)."""
    contracts = EXAMPLES / "contracts" / "projects-v2"
    view = RuleView(store, TRACE, rules=RULES, contracts=contracts)
    found = view.run()
    assert [f.rule for f in found if f.rule.startswith("contract/")] == [
        "contract/undeclared-argument"]
    assert "contract/undeclared-argument" in [g.rule for g in view.groups]
    in_memory = RuleView(store.trace(TRACE), rules=RULES, contracts=contracts)
    assert [f.key() for f in in_memory.run()] == [f.key() for f in found]


def test_a_finding_shows_its_witnesses_condition_and_offending_value(store):
    """Steps and names, not raw ids; the rule as written; the values the rule read, as
    the store holds them, with the offending one marked; a witness button shows it."""
    timeline = TraceView(store, TRACE)
    view = RuleView(store, TRACE, rules=RULES, trace_view=timeline)
    view.run()
    n = next(i for i, f in enumerate(view.findings)
             if f.rule == "archive-owned-only" and f.seq == 8)
    view.select_finding(n)
    facts = view.facts
    assert facts is not None
    assert [w.label for w in facts.witnesses] == ["step 8 · archive_project",
                                                  "step 2 · list_projects"]
    assert "source_where: {owner_id: {in: [team-a]}}" in facts.condition
    offending = [(v.seq, v.path, v.value) for v in facts.values if v.offending]
    assert (8, "args.project_id", "p18") in offending
    assert (2, "result.items[1].owner_id", "team-b") in offending
    assert (2, "result.items[0].owner_id", "team-a") not in offending
    assert "the rule's condition" in view.detail.value and "wb-offending" in view.detail.value
    assert "string(3)" not in view.detail.value           # no unlabelled shapes
    labels = [b.description for b in view.witness_bar.children[1:]]
    assert labels == ["step 8 · archive_project", "step 2 · list_projects"]
    view.witness_bar.children[2].click()
    assert timeline.selected == LIST_PROJECTS
    # a rule that tests presence shows the value it found missing: none, and says so
    m = next(i for i, f in enumerate(view.findings) if f.rule == "list-filters-by-owner-id")
    view.select_finding(m)
    assert view.facts is not None and "exists: true" in view.facts.condition


def test_long_finding_lists_are_filtered_and_paged():
    from .conftest import synthetic

    trace = synthetic(30_000)
    rules = ("version: 1\nrules:\n  no-failures:\n    every:\n      event: {kind: tool_call}\n"
             "      where: {status: ok}\n")
    view = RuleView(trace, rules=rules)
    found = view.run()
    failing = sum(1 for e in trace.events if e.status == "error" and e.kind == "tool_call")
    assert len(found) == failing > 200
    assert len(view.finding_list.options) == 100
    assert view.page_label.value == f"1–100 of {failing:,}"
    view.next_page.click()
    assert view.page == 1 and view.finding_list.options[0][1] == view.listed[100]
    view.set_page(10**6)
    assert view.next_page.disabled and len(view.finding_list.options) == failing - 100 * view.page
    view.filter_box.value = "Step  388"              # what a user types: one step
    assert view.page == 0 and len(view.listed) == 1
    assert view.findings[view.listed[0]].seq == 388
    assert "(filtered from" in view.page_label.value
    view.filter_box.value = "no such text"
    assert view.listed == [] and view.page_label.value == "no finding matches"
    view.filter_box.value = ""
    assert len(view.listed) == failing


def test_groups_show_their_status_and_last_replay(store):
    import sys

    from workbench.replay import run_replay

    view = RuleView(store, TRACE, rules=RULES, record=True)
    view.run()
    assert {g.status for g in view.groups} == {"open"}
    assert {g.last_replay for g in view.groups} == {""}
    assert "<td>open</td>" in view.groups_html.value
    # three clean replays (a command that runs the steps and passes) close one group
    clean = f"{sys.executable} -c 'import sys; sys.exit(0)' {{trace}}"
    done = run_replay(store, SIGS["archive-owned-only"], "http://127.0.0.1:9",
                      oracle_cmd=clean)
    assert done.status == "fixed" and [r.outcome for r in done.runs] == ["clean"] * 3
    view.run()
    by_sig = {g.signature: g for g in view.groups}
    fixed = by_sig[SIGS["archive-owned-only"]]
    assert fixed.status == "fixed"
    assert fixed.last_replay.startswith("clean ") and " in default (http://127.0.0.1:9)" in \
        fixed.last_replay
    assert by_sig[SIGS["approval-before-archive"]].status == "open"
    assert "<td>fixed</td>" in view.groups_html.value


def test_the_filter_keeps_the_users_selection(store):
    """Typing in the filter refills the list; it never picks a row for the user: the
    finding picked stays picked (and highlighted), listed or filtered out."""
    timeline = TraceView(store, TRACE)
    view = RuleView(store, TRACE, rules=RULES, trace_view=timeline)
    view.run()
    n = next(i for i, f in enumerate(view.findings)
             if f.rule == "archive-owned-only" and f.seq == 8)
    view.finding_list.value = n
    for typed in ("archive", "step 8", "list-filters", ""):
        view.filter_box.value = typed
        assert view.selected == n, typed
        assert timeline.highlighted == [ARCHIVE_P18, LIST_PROJECTS], typed
        shown = {v for _, v in view.finding_list.options}
        assert view.finding_list.value == (n if n in shown else None), typed
    # nothing picked: filtering picks nothing either
    fresh = RuleView(store, TRACE, rules=RULES)
    fresh.run()
    fresh.filter_box.value = "archive"
    assert fresh.selected is None and fresh.finding_list.value is None


def test_a_run_after_a_rules_error_clears_the_last_runs_highlights(store):
    timeline = TraceView(store, TRACE)
    view = RuleView(store, TRACE, rules=RULES, trace_view=timeline)
    view.run()
    view.select_finding(0)
    assert timeline.highlighted and timeline.note
    view.set_rules("version: 1\nrules:\n  x: {bogus: 1}\n")
    assert view.run() == [] and view.error.startswith("error[RULES_INVALID]")
    assert timeline.highlighted == [] and timeline.note == ""
    assert view.findings == [] and view.finding_list.options == ()
    assert view.witness_bar.children == () and view.groups_html.value == ""
    # a highlight another view made is not this view's to take away
    timeline.highlight([ARCHIVE_P19], note="kept by the minimizer")
    view.run()
    assert timeline.highlighted == [ARCHIVE_P19]
