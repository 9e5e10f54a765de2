"""Flake quarantine: frozen tests never vote on the merge, still run somewhere, and are
reported when their witness went stale.

- ``--merge-gate``: every test ``flakes.lock`` lists is skipped, the reason and the
  lock line in the skip message.
- otherwise frozen tests run with a fixed seed (``--flake-seed``, default 0: the
  ``random`` module and Hypothesis), so a failure in the side job replays;
  ``--flakes-only`` selects just them — the side job.
- entries whose ``last_seen`` is older than ``--flakes-max-age`` days (default 30) are
  listed at the end of the run; ``--flakes-strict`` makes that fail the run.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from ._flakes import FlakeEntry, stale
from ._seed import pin_hypothesis, pin_random

__all__ = ["Quarantine"]


class Quarantine:
    """The hooks of flake quarantine for one session."""

    def __init__(self, entries: list[FlakeEntry], source: str, *, merge_gate: bool,
                 only: bool, seed: int, max_age: int, strict: bool,
                 today: dt.date | None = None) -> None:
        self.entries, self.source = entries, source
        self.merge_gate, self.only, self.seed = merge_gate, only, seed
        self.max_age, self.strict = max_age, strict
        self.today = today or dt.date.today()
        self.frozen: dict[str, FlakeEntry] = {}
        self.outcomes: dict[str, str] = {}

    def entry_for(self, nodeid: str) -> FlakeEntry | None:
        for e in self.entries:
            if e.covers(nodeid):
                return e
        return None

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config,
                                      items: list[pytest.Item]) -> None:
        keep: list[pytest.Item] = []
        drop: list[pytest.Item] = []
        for item in items:
            entry = self.entry_for(item.nodeid)
            if entry is None:
                (drop if self.only else keep).append(item)
                continue
            self.frozen[item.nodeid] = entry
            keep.append(item)
            if self.merge_gate:
                item.add_marker(pytest.mark.skip(
                    reason=f"quarantined by {self.source} line {entry.line}: {entry.reason} "
                           f"(last seen {entry.last_seen})"))
            else:
                pin_hypothesis(item, self.seed)
        if drop:
            config.hook.pytest_deselected(items=drop)
            items[:] = keep

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        if item.nodeid in self.frozen and not self.merge_gate:
            pin_random(self.seed)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if (report.nodeid in self.frozen and (report.when == "call" or report.failed)
                and self.outcomes.get(report.nodeid) != "failed"):
            self.outcomes[report.nodeid] = report.outcome

    def stale(self) -> list[FlakeEntry]:
        return stale(self.entries, self.today, self.max_age)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.strict and self.stale() and exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        tr = terminalreporter
        old = self.stale()
        if not self.frozen and not old:
            return
        tr.section("workbench flakes")
        if self.frozen:
            how = ("skipped (merge gate)" if self.merge_gate else
                   f"ran with seed {self.seed}")
            tr.write_line(f"{len(self.frozen)} quarantined test(s) {how}, from {self.source}")
            for nodeid, outcome in sorted(self.outcomes.items()):
                if outcome == "failed":
                    tr.write_line(f"  failed again: {nodeid} (set its last_seen to "
                                  f"{self.today.isoformat()})")
        for e in old:
            tr.write_line(f"stale: {e.nodeid} last seen {e.last_seen} ({e.age(self.today)} "
                          f"days > {self.max_age}), {self.source} line {e.line}: a dead "
                          "witness is worse than a missing one; fix or delete the test")
        unseen = [e for e in self.entries if not any(e.covers(n) for n in self.frozen)]
        for e in unseen:
            tr.write_line(f"not collected: {e.nodeid} ({self.source} line {e.line})")
