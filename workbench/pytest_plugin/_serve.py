"""Decision tests: the ``contract_server`` fixture (docs/serve.md).

``contract_server(SCENARIO, failures=[...])`` starts ``workbench serve`` for the test —
a real process on 127.0.0.1, on a free port, recording to a store of the test's own —
and returns a ``ContractServer``: its ``url``, the ``requests()`` recorded so far,
``assert_sequence`` (the exact requests, in order), ``check(RULES)`` (the rules run on
the recorded trace) and a ``canary`` credential to hand the agent instead of a real one.
When the test ends the server is stopped (its trace committed), and the test fails if
the canary appears anywhere it should not: in a recorded request other than the
credential headers, in an answer, or in a text given to ``assert_no_canary`` (prompts,
tool results, error texts the test collected from the agent).
"""

from __future__ import annotations

import os
import secrets
import selectors
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from ..model import dumps, loads
from ..redact import TOKEN_RE, Redactor
from ..rules import CheckResult, check, load_rules
from ..store import Store

__all__ = ["CANARY_HEADERS", "ContractServer", "ServePlugin", "start_server"]

#: where a credential legitimately travels: the canary is not looked for there
CANARY_HEADERS = ("authorization", "x-api-key", "api-key", "proxy-authorization")
_START_TIMEOUT = 120.0  # far above a normal start: only a hang trips it


class ContractServer:
    """A running ``workbench serve`` process and what it recorded."""

    def __init__(self, proc: subprocess.Popen[bytes], doc: dict[str, Any], store: Path,
                 canary: str) -> None:
        self.proc, self.store, self.canary = proc, store, canary
        self.url: str = doc["url"]
        self.trace_id: str = doc["trace_id"]
        self.journal = Path(doc["journal"])
        self.scenario: str = doc["scenario"]
        self.stderr = ""

    # -- what was recorded ------------------------------------------------------------
    def requests(self) -> list[dict[str, Any]]:
        """The recorded requests in arrival order: ``method``, ``path``, ``query``,
        ``headers``, ``body`` (when sent), ``status`` (None when held unanswered),
        ``exchange`` (None when unmatched) and ``failure``. Redacted, as stored."""
        return [_request(ev) for ev in self._events()]

    def sequence(self) -> list[str]:
        """``METHOD /path`` of each recorded request."""
        return [f"{r['method']} {r['path']}" for r in self.requests()]

    def assert_sequence(self, expected: Sequence[str | dict[str, Any]]) -> None:
        """The agent sent exactly these requests, in this order. An item is
        ``"METHOD /path"`` or a mapping whose keys (``method``, ``path``, ``query``,
        ``headers``, ``body``, ``status`` …) must equal the recorded request's."""
        got = self.requests()
        lines = "\n".join(f"  {i}: {r['method']} {r['path']} {dumps(r.get('query') or {})}"
                          for i, r in enumerate(got))
        if len(got) != len(expected):
            raise AssertionError(f"expected {len(expected)} request(s), the agent sent "
                                 f"{len(got)}:\n{lines}")
        for i, (want, have) in enumerate(zip(expected, got, strict=True)):
            if isinstance(want, str):
                if want != f"{have['method']} {have['path']}":
                    raise AssertionError(f"request {i}: expected {want}, got "
                                         f"{have['method']} {have['path']}\n{lines}")
                continue
            for key, value in want.items():
                actual = (have["headers"].get(key[8:].lower()) if key.startswith("headers.")
                          else have.get(key))
                if actual != value:
                    raise AssertionError(f"request {i}: {key} is {actual!r}, expected "
                                         f"{value!r}\n{lines}")

    def check(self, rules: str | os.PathLike[str]) -> CheckResult:
        """Stop the server (committing its trace) and run ``rules`` on the trace."""
        self.stop()
        return check(Store(self.store), load_rules(Path(rules)), trace_ids=[self.trace_id],
                     record=False)

    def assert_no_canary(self, *texts: Any) -> None:
        """The canary appears in none of ``texts`` (prompts, tool results, error texts:
        any JSON value) nor in what the server recorded, credential headers aside."""
        needles = self._needles()
        for i, text in enumerate(texts):
            blob = text if isinstance(text, str) else dumps(text)
            if any(n in blob for n in needles):
                raise AssertionError(f"the canary credential leaked into text {i} given to "
                                     "assert_no_canary")
        for r in self.requests():
            shown = dict(r, headers={k: v for k, v in r["headers"].items()
                                     if k not in CANARY_HEADERS})
            blob = dumps(shown)
            if any(n in blob for n in needles):
                raise AssertionError(f"the canary credential leaked into the recorded "
                                     f"request {r['method']} {r['path']} (outside the "
                                     f"credential headers {', '.join(CANARY_HEADERS)})")

    # -- the process ----------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> int:
        """SIGTERM, wait for the commit; the server's exit status."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            _, err = self.proc.communicate(timeout=_START_TIMEOUT)
        except ValueError:  # already collected
            err = b""
        self.stderr += (err or b"").decode("utf-8", "replace")
        return self.proc.wait()

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def _events(self) -> list[dict[str, Any]]:
        if self.journal.exists():
            lines = self.journal.read_bytes().splitlines()
            return [loads(x) for x in lines[1:] if x.endswith(b"}")]
        store = Store(self.store)
        if self.trace_id not in store.trace_ids():
            return []
        return [{"args": e.args, "result": e.result, "attrs": e.attrs}
                for e in store.trace(self.trace_id).events]

    def _needles(self) -> list[str]:
        red = Redactor(Store(self.store).redaction_key())
        token = red.value({"api_key": self.canary}).get("api_key", "")
        found = TOKEN_RE.search(token) if isinstance(token, str) else None
        return [self.canary] + ([found.group(0).split(":")[-1].rstrip("»")] if found else [])


def _request(ev: dict[str, Any]) -> dict[str, Any]:
    args = ev.get("args") or {}
    result = ev.get("result")
    attrs = ev.get("attrs") or {}
    out = {"method": args.get("method"), "path": args.get("path"),
           "query": args.get("query") or {}, "headers": args.get("headers") or {},
           "status": result.get("status") if isinstance(result, dict) else None,
           "response": result.get("body") if isinstance(result, dict) else None,
           "exchange": attrs.get("serve.exchange"), "failure": attrs.get("serve.failure")}
    if "body" in args:
        out["body"] = args["body"]
    return out


def start_server(sources: Sequence[str | os.PathLike[str]], *, store: str | os.PathLike[str],
                 failures: Sequence[str] = (), canary: str | None = None,
                 options: Sequence[str] = ()) -> ContractServer:
    """Start ``workbench serve`` on a free loopback port and wait until it listens."""
    cmd = [sys.executable, "-m", "workbench", "serve", *map(str, sources), "--port", "0",
           "--json", "--store", str(store), *options]
    for f in failures:
        cmd += ["--failure", f]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    line = _first_line(proc)
    doc = loads(line) if line.strip() else None
    if not isinstance(doc, dict) or "url" not in doc:
        proc.kill()
        _, err = proc.communicate()
        raise pytest.UsageError(f"workbench serve did not start: "
                                f"{err.decode('utf-8', 'replace').strip()}")
    return ContractServer(proc, doc, Path(store),
                          canary or f"wbcanary_{secrets.token_hex(16)}")


def _first_line(proc: subprocess.Popen[bytes]) -> bytes:
    assert proc.stdout is not None
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ)
    try:
        if not sel.select(_START_TIMEOUT):
            return b""
        return proc.stdout.readline()
    finally:
        sel.close()


class ServePlugin:
    """Registers the ``contract_server`` fixture."""

    def __init__(self, canary: str | None) -> None:
        self.canary = canary

    @pytest.fixture
    def contract_server(self, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
        """A factory: ``contract_server(SCENARIO..., failures=(), store=None)`` starts a
        contract server for this test and returns its ``ContractServer``."""
        started: list[ContractServer] = []

        def start(*sources: str | os.PathLike[str], failures: Sequence[str] = (),
                  store: str | os.PathLike[str] | None = None,
                  options: Sequence[str] = ()) -> ContractServer:
            where = store or tmp_path_factory.mktemp("contract-server") / "store"
            server = start_server(sources, store=where, failures=failures,
                                  canary=self.canary, options=options)
            started.append(server)
            return server

        yield start
        for server in started:
            server.stop()
        for server in started:
            server.assert_no_canary()
