"""Decision tests on live spans: the ``otlp_collector`` fixture (docs/collect.md).

``otlp_collector`` starts ``workbench collect`` for the test — a real process on
127.0.0.1, on a free port, storing into a store of the test's own — and points the
agent under test at it: ``OTEL_EXPORTER_OTLP_ENDPOINT`` (and the traces-only
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``) are set for the test with ``monkeypatch``, so an
agent started in the test (a subprocess inherits them) or an SDK exporter built in it
sends its spans there. ``check(RULES)`` stops the collector (every trace committed) and
runs the rules on the traces it received; ``traces()`` lists them. The collector is
stopped when the test ends. ``start_collector`` starts one with other options.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from ..model import loads
from ..rules import CheckResult, check, load_rules
from ..store import Store
from ._serve import _first_line as first_line

__all__ = ["CollectPlugin", "OtlpCollector", "start_collector"]

_STOP_TIMEOUT = 120.0  # far above a normal stop: only a hang trips it


class OtlpCollector:
    """A running ``workbench collect`` process and what it stored."""

    def __init__(self, proc: subprocess.Popen[bytes], doc: dict[str, Any], store: Path) -> None:
        self.proc, self.store = proc, store
        self.url: str = doc["url"]
        self.endpoint: str = doc["endpoint"]
        self.recovered: list[str] = list(doc.get("recovered") or [])
        self.summary: dict[str, Any] | None = None
        self.stderr = ""

    @property
    def running(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> dict[str, Any]:
        """SIGTERM, wait for every trace to be committed; the collector's summary
        (``spans``, ``refused_spans``, ``traces`` …, docs/collect.md)."""
        if self.summary is not None:
            return self.summary
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        out, err = self.proc.communicate(timeout=_STOP_TIMEOUT)
        self.stderr += err.decode("utf-8", "replace")
        lines = [x for x in out.splitlines() if x.strip()]
        doc = loads(lines[-1]) if lines else None
        if self.proc.returncode != 0 or not isinstance(doc, dict) or "traces" not in doc:
            raise AssertionError(f"workbench collect exited {self.proc.returncode}: "
                                 f"{self.stderr.strip()}")
        self.summary = doc
        return doc

    def kill(self) -> None:
        """SIGKILL: nothing committed; the journals stay for the next collector."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.communicate(timeout=_STOP_TIMEOUT)
        self.summary = {"traces": [], "killed": True}

    def traces(self) -> list[str]:
        """The trace ids this collector committed (it is stopped first)."""
        return list(self.stop()["traces"])

    def check(self, rules: str | os.PathLike[str]) -> CheckResult:
        """Stop the collector (committing every trace) and run ``rules`` on its traces."""
        ids = self.traces()
        return check(Store(self.store), load_rules(Path(rules)), trace_ids=ids,
                     record=False)


def start_collector(*, store: str | os.PathLike[str],
                    options: Sequence[str] = ()) -> OtlpCollector:
    """Start ``workbench collect`` on a free loopback port and wait until it listens."""
    cmd = [sys.executable, "-m", "workbench", "collect", "--port", "0", "--json",
           "--store", str(store), *options]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    line = first_line(proc)
    doc = loads(line) if line.strip() else None
    if not isinstance(doc, dict) or "endpoint" not in doc:
        proc.kill()
        _, err = proc.communicate()
        raise pytest.UsageError(f"workbench collect did not start: "
                                f"{err.decode('utf-8', 'replace').strip()}")
    return OtlpCollector(proc, doc, Path(store))


class CollectPlugin:
    """Registers the ``otlp_collector`` fixture."""

    @pytest.fixture
    def otlp_collector(self, tmp_path_factory: pytest.TempPathFactory,
                       monkeypatch: pytest.MonkeyPatch) -> Iterator[OtlpCollector]:
        """A collector started for this test, the OTLP endpoint variables pointing at it;
        stopped (every trace committed) when the test ends."""
        c = start_collector(store=tmp_path_factory.mktemp("otlp-collector") / "store")
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", c.url)
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", c.endpoint)
        try:
            yield c
        finally:
            if c.running:
                c.stop()
