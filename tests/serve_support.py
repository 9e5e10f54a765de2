"""Helpers of the contract server's tests: a plain HTTP client on a real socket."""

from __future__ import annotations

import http.client
import json
import socket
from typing import Any
from urllib.parse import urlsplit


def raw_socket(url: str) -> socket.socket:
    """A plain TCP connection to the server at ``url``, for bytes no client would send."""
    parts = urlsplit(url)
    return socket.create_connection((parts.hostname, parts.port), timeout=30)


def read_all(s: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (or resets it)."""
    out = b""
    try:
        while chunk := s.recv(65536):
            out += chunk
    except (ConnectionResetError, TimeoutError):
        pass
    return out


def call(url: str, method: str, path: str, body: Any = None,
         headers: dict[str, str] | None = None,
         timeout: float = 30.0) -> tuple[int, dict[str, str], Any]:
    """One request on a new connection: status, headers (lower-case), body (JSON when
    it parses, else text)."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        data = None if body is None else json.dumps(body).encode()
        hdrs = dict(headers or {})
        if data is not None:
            hdrs.setdefault("Content-Type", "application/json")
        conn.request(method, path, body=data, headers=hdrs)
        resp = conn.getresponse()
        raw = resp.read()
        try:
            doc: Any = json.loads(raw) if raw else None
        except ValueError:
            doc = raw.decode("utf-8", "replace")
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, doc
    finally:
        conn.close()


LISTING = {"items": [{"id": "p-1", "owner": "team-a", "state": "stale"},
                     {"id": "p-2", "owner": "team-a", "state": "active"}],
           "next_cursor": None}


def scenario(folder, text: str, name: str = "scenario.yaml"):
    """Write a scenario file into ``folder``; its path."""
    path = folder / name
    path.write_text(text)
    return path
