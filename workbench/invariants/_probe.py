"""Probing: the traffic the invariants need, generated against a loopback target the
user names, recorded as HAR entries and judged (docs/invariants.md, "Probing").

The plan, operation by operation (sorted by method and path), within ``max_requests``
and ``max_seconds``: a valid request from the schemas; the same call without its
credential (operations that declare security); a write sent with an Idempotency-Key,
retried with it, and sent with it and another body; a cursor walk with a small limit
next to one larger page; a create followed by a read of the id it returned; requests
made invalid one field at a time (a required field dropped, a wrong type, a value out
of range or outside an enum, a property a closed model refuses). Writes (and operations
marked ``x-dangerous``) only with ``writes``. Values are drawn per (seed, step).
"""

from __future__ import annotations

import http.client
import ipaddress
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

from ..model import dumps
from ..model import loads as json_loads
from ._errors import ProbeRefusedError
from ._generate import Generator
from ._http import Exchange, har_entry
from ._judge import Matched, request_complaints
from ._openapi import Operation, Spec

__all__ = ["DRAWS_FIELD", "Probe", "check_target", "header_text", "path_value", "probe"]

#: the HAR entry field (a custom field: HAR 1.2 allows ``_`` names) recording the draws a
#: request was built from; ``ingest`` keeps it as the event's ``attrs["har._workbench"]``
DRAWS_FIELD = "_workbench"

_CANDIDATES: tuple[Any, ...] = ("not-a-number", 123456789, True, [], {"x": 1}, None)


def check_target(url: str) -> tuple[str, int, str]:
    """(host, port, base path) of a loopback ``http://`` target; else refused."""
    try:
        parts = urlsplit(url)
        port = parts.port or 80
    except ValueError:
        parts, port = None, 0
    host = parts.hostname if parts is not None else None
    if parts is not None and (parts.username is not None or parts.password is not None):
        # said without the URL: it holds the credential
        raise ProbeRefusedError("--target carries credentials (user:password@); they are "
                                "never taken from a URL, which is printed and recorded",
                                code="PROBE_TARGET_CREDENTIALS",
                                hint="pass the credential with --auth-env VAR and name "
                                     "the target without it")
    ok = parts is not None and parts.scheme == "http" and host is not None
    if ok and host != "localhost":
        try:
            ok = ipaddress.ip_address(host or "").is_loopback
        except ValueError:
            ok = False
    if not ok or parts is None or host is None:
        raise ProbeRefusedError(f"--target {url!r} is not a loopback http:// URL; probing "
                                "sends generated requests, so only a service on this machine "
                                "is probed", target=url)
    return host, port, parts.path.rstrip("/")


class _Budget(Exception):
    pass


@dataclass
class Probe:
    """What a probe sent and got back: HAR entries and the same as exchanges."""

    target: str
    seed: int
    entries: list[dict[str, Any]] = field(default_factory=list)
    exchanges: list[Exchange] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    def har(self) -> dict[str, Any]:
        return {"log": {"version": "1.2", "creator": {"name": "workbench probe",
                                                      "version": str(self.seed)},
                        "comment": f"probe seed {self.seed}", "entries": self.entries}}


class _Prober:
    def __init__(self, spec: Spec, target: str, seed: int, max_requests: int,
                 max_seconds: float, writes: bool, auth: str | None) -> None:
        self.spec = spec
        self.host, self.port, base = check_target(target)
        self.base = base + (spec.bases[0] if spec.bases else "")
        self.gen = Generator(seed)
        self.out = Probe(target, seed)
        self.max_requests = max_requests
        self.deadline = time.monotonic() + max_seconds
        self.writes = writes
        self.auth = auth
        self.step = 0
        #: the draws of the request ``valid`` built last: [where, name, step] each
        self.drawn: list[list[Any]] = []

    # one request ---------------------------------------------------------------
    def send(self, op: Operation, path: dict[str, Any], query: dict[str, Any],
             headers: dict[str, str], body: Any = None, has_body: bool = False,
             credential: bool = True, draws: list[list[Any]] | None = None) -> Exchange:
        if len(self.out.exchanges) >= self.max_requests or time.monotonic() > self.deadline:
            raise _Budget
        url_path = self.base + op.template
        for k, v in path.items():
            url_path = url_path.replace("{" + k + "}", quote(_text(v), safe=""))
        qs = urlencode([(k, _text(i)) for k, v in query.items()
                        for i in (v if isinstance(v, list) else [v]) if v is not None])
        target = url_path + ("?" + qs if qs else "")
        hdrs = {"accept": "application/json", "user-agent": "workbench-probe", **headers}
        if credential and self.auth:
            hdrs["authorization"] = self.auth
        data = None
        if has_body:
            data = dumps(body).encode()
            hdrs["content-type"] = "application/json"
        started = time.time_ns()
        conn = http.client.HTTPConnection(self.host, self.port, timeout=10)
        try:
            conn.request(op.method, target, body=data, headers=hdrs)
            resp = conn.getresponse()
            raw = resp.read()
            status: int | None = resp.status
            rheaders = {k.lower(): v for k, v in resp.getheaders()}
        except (OSError, ValueError, http.client.HTTPException):
            status, raw, rheaders = None, b"", {}
        finally:
            conn.close()
        ended = time.time_ns()
        try:
            rbody = json_loads(raw) if raw else None
        except ValueError:
            rbody = raw.decode("utf-8", "replace")
        shown = {**hdrs, **({"authorization": "«credential»"} if "authorization" in hdrs
                            else {})}
        x = Exchange("probe", f"probe-{len(self.out.exchanges)}", len(self.out.exchanges),
                     op.method, url_path, {k: _text(v) for k, v in query.items()
                                           if v is not None}, shown, body, has_body, status,
                     rheaders, rbody, bool(raw), started, ended)
        self.out.exchanges.append(x)
        entry = har_entry(x, f"http://{self.host}:{self.port}{target}", raw,
                          dumps(x.body) if x.has_body else None)
        if draws:  # what regenerates the values from the seed (docs/replay.md)
            entry[DRAWS_FIELD] = {"probe": {"seed": self.gen.seed, "operation": op.name,
                                            "draws": [list(d) for d in draws]}}
        self.out.entries.append(entry)
        return x

    def draw(self, schema: Any, where: str = "body", name: str | None = None) -> Any:
        self.step += 1
        self.drawn.append([where, name, self.step])
        return self.gen.draw(schema, self.step)

    # valid requests --------------------------------------------------------------
    def valid(self, op: Operation) -> tuple[dict[str, Any], dict[str, Any], dict[str, str],
                                             Any, bool]:
        path, query, headers = {}, {}, {}
        self.drawn = []
        for p in op.params:
            if p.where == "cookie" or (not p.required and p.where == "header"):
                continue
            if p.name == "idempotency-key":
                continue
            if not p.required and (p.where != "query" or self.step % 2):
                continue
            v = self.draw(p.schema, p.where, p.name)
            if p.where == "path":
                path[p.name] = path_value(v)
            elif p.where == "query":
                query[p.name] = v
            else:
                headers[p.name] = header_text(v)
        has_body = op.body is not None
        body = self.draw(op.body) if has_body else None
        return path, query, headers, body, has_body

    def allowed(self, op: Operation) -> bool:
        return self.writes or not (op.writes or op.dangerous)

    def run(self, operations: list[Operation]) -> Probe:
        phases = (self.plain, self.unknown_caller, self.retries, self.walks,
                  self.read_after_create, self.invalid)
        try:
            for phase in phases:
                for op in operations:
                    if self.allowed(op):
                        phase(op)
        except _Budget:
            pass
        for op in operations:
            if not self.allowed(op):
                self.out.skipped.append(op.name)
        return self.out

    def plain(self, op: Operation) -> None:
        req = self.valid(op)
        self.send(op, *req, draws=self.drawn)

    def unknown_caller(self, op: Operation) -> None:
        if op.secured:
            req = self.valid(op)
            self.send(op, *req, credential=False, draws=self.drawn)

    def retries(self, op: Operation) -> None:
        if op.method != "POST" or op.body is None:
            return
        path, query, headers, body, _ = self.valid(op)
        drawn = self.drawn
        key = {**headers, op.idempotency: f"probe-{self.gen.seed}-{self.step}"}
        self.send(op, path, query, key, body, True, draws=drawn)
        self.send(op, path, query, key, body, True, draws=drawn)
        other = body
        for _ in range(5):
            other = self.draw(op.body)
            if dumps(other) != dumps(body):
                break
        if dumps(other) != dumps(body):
            self.send(op, path, query, key, other, True,
                      draws=[d for d in drawn if d[0] != "body"] + [self.drawn[-1]])

    def walks(self, op: Operation) -> None:
        paging = op.paging
        if paging is None or op.method != "GET":
            return
        limit = paging.limit or next((p.name for p in op.params if p.name == "limit"), None)
        schema = next((p.schema for p in op.params if p.name == limit), None)
        lo, hi = _bounds(schema)
        small, big = max(lo, 2), min(hi, 100)
        first = self.send(op, {}, {limit: small} if limit else {}, {})
        cursor, seen = _next_of(first, paging.next), 0
        while cursor is not None and seen < 20:
            page = self.send(op, {}, {paging.cursor: cursor, **({limit: small} if limit
                                                               else {})}, {})
            cursor, seen = _next_of(page, paging.next), seen + 1
        if limit and big > small:
            self.send(op, {}, {limit: big}, {})

    def read_after_create(self, op: Operation) -> None:
        if op.method != "POST" or op.body is None:
            return
        reads = [o for o in self.spec.operations if o.method == "GET"
                 and o.template.startswith(op.template.rstrip("/") + "/{")
                 and o.template.count("/") == op.template.rstrip("/").count("/") + 1]
        if not reads:
            return
        req = self.valid(op)
        made = self.send(op, *req, draws=self.drawn)
        body = made.resp_body
        rid = body.get("id") if isinstance(body, dict) else None
        if made.status is not None and 200 <= made.status < 300 and rid is not None:
            read = reads[0]
            name = read.template.rsplit("{", 1)[1].rstrip("}")
            self.send(read, {name: rid}, {}, {})

    def invalid(self, op: Operation) -> None:
        path, query, headers, body, has_body = self.valid(op)
        drawn = self.drawn
        for variant in _mutations(op, query, body):
            q, b = variant
            m = Matched(Exchange("probe", "", 0, op.method, "", {
                k: _text(v) for k, v in q.items()}, headers, b, has_body), op, {
                    k: _text(v) for k, v in path.items()})
            if request_complaints(m):  # the fields not made invalid are the draw's
                self.send(op, path, q, headers, b, has_body, draws=drawn)


def _mutations(op: Operation, query: dict[str, Any], body: Any
               ) -> Iterator[tuple[dict[str, Any], Any]]:
    for p in op.params:
        if p.where != "query":
            continue
        lo, hi = _bounds(p.schema)
        for bad in ("not-a-number", "not-in-the-enum", lo - 1, hi + 1):
            yield {**query, p.name: bad}, body
    schema = op.body
    if isinstance(schema, dict) and isinstance(body, dict):
        target = _deref(schema)
        props = target.get("properties") or {}
        for k in target.get("required") or ():
            yield query, {n: v for n, v in body.items() if n != k}
        for k, sub in props.items():
            for bad in _CANDIDATES:
                yield query, {**body, k: bad}
            lo, hi = _bounds(_deref(sub, schema.get("$defs")))
            yield query, {**body, k: lo - 1}
            yield query, {**body, k: hi + 1}
        if target.get("additionalProperties") is False:
            yield query, {**body, "unexpected_field": 1}


def _deref(schema: Any, defs: Any = None) -> dict[str, Any]:
    if not isinstance(schema, dict):
        return {}
    defs = {**(defs or {}), **(schema.get("$defs") or {})}
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] in defs:
        return _deref(defs[ref[8:]], defs)
    return schema


def _bounds(schema: Any) -> tuple[int, int]:
    s = _deref(schema)
    lo, hi = s.get("minimum"), s.get("maximum")
    return (int(lo) if isinstance(lo, int | float) else 1,
            int(hi) if isinstance(hi, int | float) else 1000)


def _next_of(x: Exchange, name: str | None) -> str | None:
    body = x.resp_body
    if not isinstance(body, dict) or x.status is None or not 200 <= x.status < 300:
        return None
    for k in ([name] if name else []) + ["next_cursor", "nextCursor", "next"]:
        v = body.get(k)
        if isinstance(v, str) and v:
            return v
    return None


def path_value(v: Any) -> Any:
    """What a drawn path parameter becomes (an empty value would drop the segment)."""
    return v if v not in ("", None) else "x"


def header_text(v: Any) -> str:
    """What a drawn header value becomes: printable ASCII, never empty."""
    text = _text(v).encode("ascii", "replace").decode()
    return "".join(c for c in text if " " <= c < "\x7f") or "x"


def _text(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return ""
    if isinstance(v, str):
        return v
    return dumps(v) if isinstance(v, dict | list) else str(v)


def probe(spec: Spec, target: str, *, seed: int = 1, max_requests: int = 300,
          max_seconds: float = 120.0, writes: bool = False, auth: str | None = None,
          operations: list[str] | None = None) -> Probe:
    """Probe ``target`` (loopback only) with generated traffic; nothing is judged or
    stored here (``check_invariants`` / ``judge`` on ``Probe.exchanges``)."""
    ops = sorted(spec.operations, key=lambda o: (o.template, o.method))
    if operations:
        wanted = set(operations)
        ops = [o for o in ops if o.name in wanted or o.op_id in wanted]
        refused = [o.name for o in ops if (o.writes or o.dangerous) and not writes]
        if refused:
            raise ProbeRefusedError(f"{refused[0]} writes (or is marked x-dangerous); it is "
                                    "probed only with --writes", code="PROBE_WRITES_REFUSED",
                                    hint="add --writes, against a service whose data may "
                                         "change", operation=refused[0])
    prober = _Prober(spec, target, seed, max_requests, max_seconds, writes, auth)
    return prober.run(ops)
