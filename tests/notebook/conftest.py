"""Fixtures of the notebook tests: a store holding the bundled incident, synthetic traces,
and the ``browser`` marker (the real-browser test; deselect it with ``-m 'not browser'``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import EXAMPLES
from workbench import Store
from workbench.ingest import ingest
from workbench.model import Event, Trace

INCIDENT = EXAMPLES / "archive-incident.otlp.json"
RULES = EXAMPLES / "archive-incident.rules.yaml"
TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
# event ids of the incident (OTLP span ids): steps 2, 7, 8 and 9
LIST_PROJECTS, ARCHIVE_P17, ARCHIVE_P18, ARCHIVE_P19 = (
    "0000000000000003", "0000000000000009", "000000000000000a", "000000000000000c")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "browser: drives JupyterLab in Debian's headless Chromium (CI runs it; "
        "deselect locally with -m 'not browser')")


@pytest.fixture
def store(tmp_path: Path) -> Store:
    s = Store(tmp_path / "store")
    ingest([INCIDENT], s)
    return s


def synthetic(n: int, trace_id: str = "synthetic", *, timed: bool = True) -> Trace:
    """An agent trace of ``n`` events: a root, then turns of one model call and nine
    tool calls under it; every 97th step fails; tool 2 of each turn uses a value of the
    turn's first tool result (a data-flow ref)."""
    from workbench.model import Ref

    ms = 1_000_000
    events = [Event(trace_id, "root", None, 0, "agent", "agent", 0 if timed else None,
                    n * ms if timed else None, "ok")]
    for i in range(1, n):
        turn = i - (i - 1) % 10
        kind = "llm_call" if i == turn else "tool_call"
        refs = (Ref(f"e{i - 1}", "args.id", "result.id"),) if i - turn == 2 else ()
        events.append(Event(trace_id, f"e{i}", "root" if i == turn else f"e{turn}", i, kind,
                            f"tool{i % 7}", i * ms if timed else None,
                            i * ms + ms // 2 if timed else None,
                            "error" if i % 97 == 0 else "ok", args={"id": f"x{i - 1}"},
                            result={"id": f"x{i}"}, refs=refs))
    return Trace.from_events(events)
