"""A small deterministic ops agent (no model): it lists its team's projects, plans to
archive the stale ones, archives them, and charges invoices. It is the agent under test
of this example's decision tests (test_decisions.py), pointed at `workbench serve`.

It trusts the API the way agents do: it filters the listing with `?owner=TEAM` and
plans from whatever comes back. When the API renamed that filter (listing v2), the old
one was silently ignored and every team's projects came back: the decision test must
catch the widened plan before any archive is sent.
"""

from __future__ import annotations

import json
import socket
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any


class ToolError(Exception):
    """The API answered with an error (even under a 200): the agent stops."""


@dataclass
class OpsAgent:
    base_url: str
    api_key: str
    team: str
    timeout: float = 2.0
    transcript: list[str] = field(default_factory=list)  # what the agent "says"

    def _call(self, method: str, path: str, body: Any = None,
              headers: dict[str, str] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base_url + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.api_key}")
        req.add_header("Accept", "application/json")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                doc = json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as exc:
            raise ToolError(f"{method} {path}: HTTP {exc.code}") from None
        if isinstance(doc, dict) and doc.get("error"):
            self.transcript.append(f"the API said: {doc['error'].get('message')}")
            raise ToolError(f"{method} {path}: {doc['error'].get('code')}")
        return doc

    def list_projects(self) -> list[dict[str, Any]]:
        doc = self._call("GET", f"/v1/projects?owner={self.team}")
        return list(doc["items"])

    def plan_archive(self, projects: list[dict[str, Any]]) -> list[str]:
        """The projects to archive: every stale one the listing returned."""
        plan = [p["id"] for p in projects if p.get("state") == "stale"]
        self.transcript.append(f"I will archive {', '.join(plan) or 'nothing'}")
        return plan

    def archive(self, plan: list[str]) -> list[dict[str, Any]]:
        return [self._call("POST", f"/v1/projects/{pid}/archive") for pid in plan]

    def charge(self, invoice_id: str, amount_cents: int) -> Any:
        """Charge once: the same idempotency key on the retry after a timeout."""
        key = f"charge-{invoice_id}"
        body = {"invoice_id": invoice_id, "amount_cents": amount_cents}
        for attempt in (1, 2):
            try:
                return self._call("POST", "/v1/charges", body, {"Idempotency-Key": key})
            except (TimeoutError, socket.timeout, urllib.error.URLError) as exc:
                if attempt == 2 or not _timed_out(exc):
                    raise
                self.transcript.append("the charge timed out; retrying with the same key")
        raise AssertionError("unreachable")


def _timed_out(exc: BaseException) -> bool:
    reason = getattr(exc, "reason", exc)
    return isinstance(reason, TimeoutError | socket.timeout)
