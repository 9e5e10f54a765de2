"""The projects API of openapi.yaml, on 127.0.0.1, with bugs to switch on (standard library
only).

    python traces/examples/projects-api/service.py --port 8080 [--bug NAME]... [--pid-file F]

It prints one line with its URL once it listens, and stops on Ctrl-C or SIGTERM. Every
call needs ``Authorization: Bearer TOKEN``, TOKEN being ``$API_TOKEN`` (with or without
its leading ``Bearer ``: the variable `workbench replay --auth-env API_TOKEN` sends is the
one the service reads) or, when that is unset, ``DEFAULT_TOKEN`` below. With no bug
switched on it keeps its contract: `workbench probe` finds nothing. The bugs, each one a
finding of the contract invariants (docs/invariants.md):

- ``double-write``: a retry of ``POST /v1/approvals`` under the same Idempotency-Key
  records a second approval (``idempotent_retry``);
- ``repeat-cursor``: a page after the first starts one item early, repeating the last
  item of the page before (``pagination``);
- ``ignore-auth``: the listing answers a call without a credential
  (``refuses_unknown_caller``).

The data is made up: the projects of the archive incident (p17 to p20) and a few more,
customer and team-lead contacts on ``.test`` domains.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import re
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

BUGS = ("double-write", "repeat-cursor", "ignore-auth")
DEFAULT_TOKEN = "tour-9Kq4Zr7Wm2"
ACTIONS = ("archive", "delete", "transfer")
LEADS = {
    "team-a": {"full_name": "Ines Marrowby", "email": "ines.marrowby@projects-api.test",
               "phone": "+49 1522 3489174"},
    "team-b": {"full_name": "Oskar Tindleby", "email": "oskar.tindleby@projects-api.test"},
    "team-c": {"full_name": "Priya Castellane", "email": "priya.castellane@projects-api.test"},
}
PLATFORM_LEAD = {"full_name": "Rafe Ollerton", "email": "rafe.ollerton@projects-api.test"}
CUSTOMER = {"full_name": "Marta Quillfeather",
            "email": "marta.quillfeather@fernhollow-outfitters.test",
            "phone": "+44 7700 183 594"}
PROJECTS = [
    {"id": "p17", "name": "billing-v1", "owner_id": "team-a", "stale": True,
     "customer": CUSTOMER},
    {"id": "p18", "name": "search-ui", "owner_id": "team-b", "stale": True},
    {"id": "p19", "name": "etl-nightly", "owner_id": "team-c", "stale": True},
    {"id": "p20", "name": "billing-v2", "owner_id": "team-a", "stale": False},
    {"id": "p21", "name": "ledger-sync", "owner_id": "team-a", "stale": True},
    {"id": "p22", "name": "invoice-export", "owner_id": "team-a", "stale": True},
    {"id": "p23", "name": "search-index", "owner_id": "team-b", "stale": False},
]
LOCKED = {"p19": "project p19 is locked by a running pipeline"}
_INT = re.compile(r"[1-9][0-9]{0,5}")
_CURSOR = re.compile(r"c([1-9][0-9]{0,5})")


class Api:
    """The service's state; one lock for all of it."""

    def __init__(self, token: str, bugs: set[str]) -> None:
        self.token, self.bugs, self.lock = token, bugs, threading.Lock()
        self.projects = [dict(p) for p in PROJECTS]
        self.approvals: dict[str, dict[str, Any]] = {}
        self.keys: dict[tuple[str, str], tuple[Any, int, dict[str, Any]]] = {}

    def listing(self, q: dict[str, list[str]]) -> tuple[int, Any]:
        if any(len(v) > 1 for k, v in q.items() if k in ("owner_id", "stale", "limit",
                                                           "cursor")):
            return _error(400, "bad_query", "a parameter is given more than once")
        one = {k: v[0] for k, v in q.items()}
        if "limit" in one and not (_INT.fullmatch(one["limit"]) and int(one["limit"]) <= 100):
            return _error(400, "bad_query", "limit is an integer from 1 to 100")
        if one.get("stale", "true") not in ("true", "false"):
            return _error(400, "bad_query", "stale is true or false")
        cursor = _CURSOR.fullmatch(one.get("cursor", "c0") or "") if "cursor" in one else None
        if "cursor" in one and not cursor:
            return _error(400, "bad_cursor", "cursor is a next_cursor this API returned")
        items = [p for p in self.projects
                 if one.get("owner_id", p["owner_id"]) == p["owner_id"]
                 and ("stale" not in one or p["stale"] == (one["stale"] == "true"))]
        start = int(cursor.group(1)) if cursor else 0
        if start and "repeat-cursor" in self.bugs:
            start -= 1
        limit = int(one.get("limit", "20"))
        end = start + limit
        return 200, {"items": items[start:end],
                     "next_cursor": f"c{end}" if end < len(items) else None}

    def approve(self, body: Any) -> tuple[int, Any]:
        if not isinstance(body, dict) or set(body) - {"project_id", "action", "reason"}:
            return _error(400, "invalid", "the body is {project_id, action[, reason]}")
        pid, action = body.get("project_id"), body.get("action")
        if not isinstance(pid, str) or not pid or action not in ACTIONS or not isinstance(
                body.get("reason", ""), str):
            return _error(400, "invalid", "project_id is a text, action one of "
                                          + ", ".join(ACTIONS))
        owner = next((p["owner_id"] for p in self.projects if p["id"] == pid), None)
        approval = {"approval_id": f"apr_{7731 + len(self.approvals)}", "project_id": pid,
                    "action": action, **({"reason": body["reason"]} if "reason" in body
                                         else {}),
                    "state": "approved", "approver": LEADS.get(owner or "", PLATFORM_LEAD)}
        self.approvals[approval["approval_id"]] = approval
        return 201, approval

    def archive(self, pid: str) -> tuple[int, Any]:
        project = next((p for p in self.projects if p["id"] == pid), None)
        if project is None:
            return _error(404, "not_found", "no such project")
        if pid in LOCKED:
            return _error(409, "locked", LOCKED[pid])
        project["archived"] = True
        return 200, {"project_id": pid, "state": "archived"}


def _error(status: int, code: str, message: str) -> tuple[int, Any]:
    return status, {"code": code, "message": message}


class Handler(BaseHTTPRequestHandler):
    server: Any

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def reply(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        if status == 201 and isinstance(body, dict) and "approval_id" in body:
            self.send_header("Location", f"/v1/approvals/{body['approval_id']}")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def authed(self, api: Api) -> bool:
        return self.headers.get("Authorization") == f"Bearer {api.token}"

    def do_GET(self) -> None:
        api: Api = self.server.api
        url = urlsplit(self.path)
        parts = url.path.split("/")
        if url.path == "/v1/projects":
            if not self.authed(api) and "ignore-auth" not in api.bugs:
                return self.reply(*_error(401, "unauthorized", "a bearer token is required"))
            with api.lock:
                return self.reply(*api.listing(parse_qs(url.query, keep_blank_values=True)))
        if len(parts) == 4 and parts[:3] == ["", "v1", "approvals"]:
            if not self.authed(api):
                return self.reply(*_error(401, "unauthorized", "a bearer token is required"))
            with api.lock:
                found = api.approvals.get(unquote(parts[3]))
            return self.reply(200, found) if found else self.reply(
                *_error(404, "not_found", "no such approval"))
        return self.reply(*_error(404, "no_route", "no such path"))

    def do_POST(self) -> None:
        api: Api = self.server.api
        path = urlsplit(self.path).path
        parts = path.split("/")
        length = self.headers.get("Content-Length") or "0"
        if not length.isdigit() or int(length) > 1 << 20:
            return self.reply(*_error(400, "bad_length", "Content-Length is up to 1 MiB"))
        raw = self.rfile.read(int(length))
        if path == "/v1/approvals":
            op, pid = "request_approval", ""
        elif len(parts) == 5 and parts[:3] == ["", "v1", "projects"] and parts[4] == "archive":
            op, pid = "archive_project", unquote(parts[3])
        else:
            return self.reply(*_error(404, "no_route", "no such path"))
        if not self.authed(api):
            return self.reply(*_error(401, "unauthorized", "a bearer token is required"))
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            return self.reply(*_error(400, "not_json", "the body is not JSON"))
        key = self.headers.get("Idempotency-Key")
        with api.lock:
            if key and (op, key) in api.keys:
                first, status, answer = api.keys[(op, key)]
                if first != (body, pid):
                    return self.reply(*_error(422, "key_reused",
                                              "this Idempotency-Key was used for another call"))
                if not (op == "request_approval" and "double-write" in api.bugs):
                    return self.reply(status, answer)
            status, answer = api.approve(body) if op == "request_approval" else api.archive(pid)
            if key and status < 500 and (op, key) not in api.keys:
                api.keys[(op, key)] = ((body, pid), status, answer)
        return self.reply(status, answer)


def serve(port: int, bugs: set[str], token: str) -> ThreadingHTTPServer:
    """The service bound on 127.0.0.1:``port`` (0: any free port), not yet serving. A
    port still held by a service just stopped is tried again for up to 5 seconds."""
    for attempt in range(50):
        try:
            server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
            break
        except OSError as exc:
            if exc.errno != errno.EADDRINUSE or attempt == 49:
                raise
            time.sleep(0.1)
    server.daemon_threads = True
    server.api = Api(token, set(bugs))  # type: ignore[attr-defined]
    return server


def _stop(*_: Any) -> None:
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=8080, help="0: any free port")
    parser.add_argument("--bug", action="append", choices=BUGS, default=[])
    parser.add_argument("--pid-file", help="write the process id here while it runs")
    args = parser.parse_args(argv)
    try:
        token = os.environ.get("API_TOKEN") or DEFAULT_TOKEN
        server = serve(args.port, set(args.bug), token.removeprefix("Bearer "))
    except OSError as exc:
        print(f"cannot listen on 127.0.0.1:{args.port}: {exc.strerror}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, _stop)
    if args.pid_file:
        with open(args.pid_file, "w") as f:
            f.write(f"{os.getpid()}\n")
    bugs = ", ".join(sorted(args.bug)) or "none"
    print(f"projects API on http://127.0.0.1:{server.server_address[1]} (bugs: {bugs})",
          flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
        if args.pid_file and os.path.exists(args.pid_file):
            os.remove(args.pid_file)
    return 0


if __name__ == "__main__":
    sys.exit(main())
