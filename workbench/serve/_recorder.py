"""Recording: every request the server receives becomes an ``http`` event of the run's
trace, redacted with the store's key and appended to a store journal as it arrives (a
crash loses at most the request in flight). When the server stops, the journal is
ingested like any file of our JSONL (redacted again, which changes nothing) into one
batch, so ``check``, ``diff`` and ``contract check`` judge the run like any trace. A
journal a crashed run left is committed by the next ``serve`` on that store.

Everything of an event is redacted before its line is written — its name too — and the
values the request carried as credentials (``credentials_of``: credential headers,
cookies, query parameters and body fields whose names say secret, token, session, key,
password, auth …) are scrubbed wherever they reappear, whatever their shape: in the
answer recorded (the 501 for an unmatched request lists what it received), the URL, the
name, the error (``redact.Scrubber``, docs/serve.md).
"""

from __future__ import annotations

import datetime as dt
import time
import uuid
from typing import Any

from ..formats.jsonl import JSONL_HEADER
from ..ingest import ingest
from ..model import WorkbenchError, dumps_bytes
from ..redact import Redactor, Scrubber, key_class
from ..store import Store
from ._failures import Answer
from ._match import Request

__all__ = ["Recorder", "commit_orphans", "credentials_of", "new_trace_id"]

_MAX_FIELDS = 10_000  # body fields looked at for credentials


def credentials_of(req: Request) -> list[tuple[str, str]]:
    """``(name, value)`` of what a request carried as a credential: a header, a query
    parameter or a body field (at any depth) whose name the redactor calls secret or
    maybe-secret (``authorization``, ``cookie``, ``x-api-key``, ``access_token``,
    ``session``, ``key``, ``password`` …), whatever its value looks like."""
    out: list[tuple[str, str]] = []
    for where in (req.headers, req.query):
        for name, v in where.items():
            if key_class(name) is not None:
                out += [(name, str(x)) for x in (v if isinstance(v, list) else [v])
                        if isinstance(x, str) and x]
    stack: list[Any] = [req.body] if req.has_body else []
    seen = 0
    while stack and seen < _MAX_FIELDS:
        v = stack.pop()
        seen += 1
        if isinstance(v, dict):
            for k, x in v.items():
                if isinstance(x, str) and x and key_class(str(k)) is not None:
                    out.append((str(k), x))
                elif isinstance(x, dict | list):
                    stack.append(x)
        elif isinstance(v, list):
            stack.extend(x for x in v if isinstance(x, dict | list))
    return out


def new_trace_id() -> str:
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
    return f"serve-{stamp}-{uuid.uuid4().hex[:8]}"


class Recorder:
    """The journal of one server run."""

    def __init__(self, store: Store, trace_id: str, scenario: str) -> None:
        self.store, self.trace_id, self.scenario = store, trace_id, scenario
        self.key = store.redaction_key()
        self.redactor = Redactor(self.key)
        self.journal = store.journal(trace_id)
        self.journal.append(dumps_bytes(JSONL_HEADER) + b"\n")
        self.count = 0

    @property
    def path(self) -> str:
        return str(self.journal.path)

    def record(self, req: Request, url: str, answer: Answer | None, *,
               exchange: str | None, failure: str | None, start_ns: int) -> None:
        """One request (``answer`` None: held, never answered)."""
        scrub = Scrubber(self.key, credentials_of(req))
        red = self.redactor
        args: dict[str, Any] = {"method": req.method, "url": url, "path": req.path,
                                "query": req.query, "headers": req.headers}
        if req.has_body:
            args["body"] = req.body
        attrs: dict[str, Any] = {"serve.scenario": self.scenario,
                                 "serve.exchange": exchange, "serve.matched": exchange
                                 is not None}
        if failure:
            attrs["serve.failure"] = failure
        ev: dict[str, Any] = {"trace_id": self.trace_id, "event_id": f"r{self.count}",
                              "kind": "http",
                              "name": red.text(scrub.text(f"{req.method} {req.path}")),
                              "start_ns": start_ns, "end_ns": time.time_ns(),
                              "args": red.value(scrub.value(args)), "attrs": attrs}
        if answer is None:
            ev["status"] = "unset"
            ev["end_ns"] = None
            attrs["workbench.flags"] = ["unanswered"]
        else:
            result: dict[str, Any] = {"status": answer.status, "headers": answer.headers}
            if answer.has_body:
                result["body"] = answer.body
            ev["result"] = red.value(scrub.value(result))
            ev["status"] = "error" if answer.status >= 400 else "ok"
            if answer.status >= 400:
                ev["error"] = red.value(scrub.value({"code": f"HTTP_{answer.status}",
                                                     "message": _message(answer.body)}))
        self.redactor.hits.clear()
        self.journal.append(dumps_bytes(ev) + b"\n")
        self.count += 1

    def commit(self) -> int:
        """Ingest the journal into the store and remove it; the events committed."""
        self.journal.close()
        return _commit(self.store, self.journal.path, self.count)


def commit_orphans(store: Store) -> list[str]:
    """Commit the journals crashed runs left; the trace ids committed. Only the
    contract server's (``serve-*``): other writers' journals are theirs to commit."""
    done: list[str] = []
    for path in store.orphan_journals():
        if not path.name.startswith("serve-"):
            continue
        lines = path.read_bytes().count(b"\n")
        if _commit(store, path, lines - 1):
            done.append(path.stem)
    return done


def _commit(store: Store, path: Any, events: int) -> int:
    if events <= 0:
        store.drop_journal(path)
        return 0
    try:
        ingest([path], store, format="jsonl", workers=1, redact=True)
    except WorkbenchError as exc:
        if exc.code not in ("ALREADY_INGESTED", "TRACE_EXISTS"):
            raise
    store.drop_journal(path)
    return events


def _message(body: Any) -> str:
    if type(body) is dict and type(body.get("error")) is dict:
        return str(body["error"].get("message", ""))
    return ""
