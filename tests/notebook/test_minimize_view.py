"""MinimizeView without a browser: live progress, the kept events, the stored result,
the timeline's highlight, and errors shown in the view."""

from __future__ import annotations

from workbench.notebook import MinimizeView, TraceView

from .conftest import ARCHIVE_P18, LIST_PROJECTS, RULES, TRACE


def test_minimize_reports_progress_and_keeps_three_events(store):
    timeline = TraceView(store, TRACE)
    view = MinimizeView(store, TRACE, rules=RULES, rule="approval-before-archive",
                        trace_view=timeline)
    during = []   # what the user sees at each oracle call: the button, the bars
    view.observe(lambda _: during.append((view.run_button.disabled,
                                          view.run_button.description,
                                          view.size_bar.value, view.size_label.value)),
                 names=["calls"])
    result = view.run()
    assert result is not None and view.result is result and view.error == ""
    assert (len(result.kept_event_ids), result.oracle_calls, result.one_minimal) == (3, 3, True)
    assert [d[:2] for d in during] == [(True, "minimizing…")] * 3
    assert during[-1][2:] == (11, "11 of 14 events removed")
    assert not view.run_button.disabled and view.run_button.description == "Minimize"
    # one progress report per oracle call: calls counted up, the smallest failing size
    assert [c for c, _ in view.history] == [1, 2, 3]
    assert view.history[-1] == (3, 3) and (view.calls, view.best, view.total) == (3, 3, 14)
    # finished bars mean done: both full, green
    assert (view.calls_bar.value, view.calls_bar.max) == (3, 3)
    assert (view.size_bar.value, view.size_bar.max) == (11, 11)
    assert view.calls_bar.bar_style == view.size_bar.bar_style == "success"
    assert view.size_label.value == "done: 11 of 14 events removed, 3 kept"
    assert not view.running
    assert "minimized 4bf92f3577b3 from 14 to 3 events in 3 oracle calls, 1-minimal" in \
        view.summary_text
    assert [r for r in ("step", "0", "2", "8") if f"<td>{r}</td>" in view.kept.value or
            r == "step"] == ["step", "0", "2", "8"]
    assert set(timeline.highlighted) == {"0000000000000001", LIST_PROJECTS, ARCHIVE_P18}
    assert view.stored == result.trace_id and result.trace_id in store.trace_ids()
    again = view.run()          # the same result: stored once
    assert again is not None and again.trace_id == result.trace_id


def test_the_second_finding_and_no_saving(store):
    view = MinimizeView(store, TRACE, rules=RULES, rule="approval-before-archive", finding=2,
                        save=False)
    result = view.run()
    assert result is not None and result.finding is not None and result.finding.seq == 9
    assert view.stored is None and result.trace_id not in store.trace_ids()


def test_a_budget_too_small_is_reported_as_unproven(store):
    view = MinimizeView(store, TRACE, rules=RULES, rule="archive-owned-only", max_calls=1,
                        save=False)
    result = view.run()
    assert result is not None and not result.one_minimal and result.stopped == "max_calls"
    assert "NOT proven 1-minimal (max_calls)" in view.summary_text


def test_no_such_finding_is_shown_not_raised(store):
    view = MinimizeView(store, TRACE, rules=RULES, rule="list-filters-by-owner-id", finding=4)
    assert view.run() is None and view.result is None
    assert view.error.startswith("error[NO_FINDING]: ")
    assert "error[NO_FINDING]" in view.summary.value and not view.running
    assert not view.run_button.disabled and view.size_bar.bar_style == "danger"
