"""An OpenAPI 3.0/3.1 document read as what the invariants need of it: operations by
method and path template, their parameters and request body, the schema of each
declared response, whether they declare security (and how a credential travels), the
idempotency-key header, pagination and the ``x-dangerous`` mark.

Schemas become JSON Schema 2020-12 with the components they use under ``$defs``
(the contracts importer's conversion: ``nullable``, exclusive bounds, ``example``).
``$ref`` is followed only inside the document (``#/…``); anything else is refused with
``OPENAPI_REF``, and a cycle of ``$ref``s that never reaches a value (``A: {$ref: B}``,
``B: {allOf: [{$ref: A}]}``) with ``OPENAPI_REF_CYCLE``.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..contracts import Components, ContractError, load_document, nullable_31
from ..model import json_pointer
from ._errors import OpenAPIError

__all__ = ["CURSOR_NAMES", "METHODS", "SEQUENCES", "Media", "Operation", "Paging", "Param",
           "Spec", "load_spec", "parse_spec"]

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
#: query parameters read as a cursor when the document gives no ``x-pagination``
CURSOR_NAMES = ("cursor", "page_token", "pageToken", "after", "starting_after",
                "continuation_token", "next_token", "nextToken", "page_cursor")
_NEXT_NAMES = ("next_cursor", "nextCursor", "next_page_token", "nextPageToken", "next",
               "cursor", "next_token", "nextToken", "after")
_ITEM_NAMES = ("items", "data", "results", "records", "entries", "values")
#: media types whose body is a sequence of items, each judged on its own
SEQUENCES = ("text/event-stream", "application/x-ndjson", "application/ndjson",
             "application/jsonl", "application/x-jsonlines", "application/json-seq")
_IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
_IN_PLACE = frozenset({"allOf", "anyOf", "oneOf"})
_IN_PLACE_ONE = frozenset({"not", "if", "then", "else"})


@dataclass(frozen=True)
class Param:
    name: str
    where: str  # path, query, header, cookie
    required: bool
    schema: Any


@dataclass(frozen=True)
class Paging:
    """How an operation pages: the query parameter carrying the cursor, the dotted path of
    the next cursor and of the items in an answer (None: found in the answer), the limit
    parameter, and whether the document said so (else it was inferred)."""

    cursor: str
    next: str | None = None
    items: str | None = None
    limit: str | None = None
    declared: bool = True


@dataclass(frozen=True)
class Media:
    """The schema an answer of one media type is held to. ``items``: the body is a
    sequence (``SEQUENCES``) and the schema is each item's — an SSE event's ``data``, an
    NDJSON line — whether it was given as ``schema`` or as OpenAPI 3.2's ``itemSchema``.
    ``event``: an SSE ``itemSchema``, which describes the whole event (``event``,
    ``data`` as text, ``id``, ``retry``); ``data`` is then the ``contentSchema`` of its
    ``data`` property, the schema of the decoded data, when it declares one."""

    schema: Any
    items: bool = False
    event: bool = False
    data: Any = None


@dataclass(frozen=True)
class Operation:
    method: str  # upper case
    template: str
    op_id: str
    params: tuple[Param, ...] = ()
    body: Any = None
    body_required: bool = False
    responses: Mapping[str, Any] = field(default_factory=dict)  # "200"/"4XX"/"default"
    secured: bool = False
    credentials: tuple[tuple[str, str], ...] = ()  # (where, lower-case name)
    idempotency: str = "idempotency-key"
    idempotency_declared: bool = False
    paging: Paging | None = None
    dangerous: bool = False
    #: per declared status (the keys of ``responses``): media type -> its schema
    media: Mapping[str, Mapping[str, Media]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.method} {self.template}"

    @property
    def writes(self) -> bool:
        return self.method not in ("GET", "HEAD", "OPTIONS", "TRACE")

    def response(self, status: int) -> tuple[bool, Any]:
        """Whether ``status`` is declared, and the schema of its JSON body (None: none)."""
        for key in (str(status), f"{str(status)[0]}XX", "default"):
            if key in self.responses:
                return True, self.responses[key]
        return False, None

    def declared_statuses(self) -> list[str]:
        return sorted(self.responses)

    def answer_media(self, status: int) -> Mapping[str, Media]:
        """The media types declared for ``status``, and their schemas."""
        for key in (str(status), f"{str(status)[0]}XX", "default"):
            if key in self.responses:
                return self.media.get(key, {})
        return {}


def _compile(template: str) -> tuple[re.Pattern[str], int]:
    out, literal = [], 0
    for seg in template.strip("/").split("/"):
        parts = re.split(r"(\{[^}/]+\})", seg)
        pat = ""
        for p in parts:
            if p.startswith("{") and p.endswith("}"):
                pat += f"(?P<{_group(p[1:-1])}>[^/]+)"
            else:
                pat += re.escape(p)
                literal += 1 if p else 0
        out.append(pat)
    return re.compile("^/" + "/".join(out) + "/?$"), literal


def _group(name: str) -> str:
    return "p_" + "".join(c if c.isalnum() else f"_{ord(c):x}_" for c in name)


def _ungroup(group: str) -> str:
    return re.sub(r"_([0-9a-f]+)_", lambda m: chr(int(m.group(1), 16)), group[2:])


class Spec:
    """The operations of one document, matched by method and path."""

    def __init__(self, operations: list[Operation], file: str, bases: tuple[str, ...] = ()):
        self.operations = operations
        self.file = file
        self.bases = tuple(b.rstrip("/") for b in bases if b.rstrip("/"))
        self._by_method: dict[str, list[tuple[int, int, re.Pattern[str], Operation]]] = {}
        for op in operations:
            rx, literal = _compile(op.template)
            segs = op.template.strip("/").count("/")
            self._by_method.setdefault(op.method, []).append((-literal, segs, rx, op))
        for v in self._by_method.values():
            v.sort(key=lambda t: (t[0], t[3].template))
        self._cache: dict[tuple[str, str], tuple[Operation, dict[str, str]] | None] = {}

    def __len__(self) -> int:
        return len(self.operations)

    def match(self, method: str, path: str) -> tuple[Operation, dict[str, str]] | None:
        """The operation a request is for (concrete paths before templated ones) and its
        path parameters, or None for an undocumented path."""
        key = (method.upper(), path)
        if key in self._cache:
            return self._cache[key]
        found = self._match(*key)
        if len(self._cache) > 200_000:
            self._cache.clear()
        self._cache[key] = found
        return found

    def _match(self, method: str, path: str) -> tuple[Operation, dict[str, str]] | None:
        from urllib.parse import unquote

        candidates = [path] + [path[len(b):] or "/" for b in self.bases if path.startswith(b)]
        for p in candidates:
            for _, _, rx, op in self._by_method.get(method, ()):
                m = rx.match(p)
                if m:
                    return op, {_ungroup(k): unquote(v) for k, v in m.groupdict().items()}
        return None


def load_spec(path: str | os.PathLike[str]) -> Spec:
    """Read and index an OpenAPI document (JSON or YAML)."""
    p = Path(path)
    try:
        doc = load_document(p)
    except ContractError as exc:
        raise OpenAPIError(exc.message, file=str(p)) from None
    return parse_spec(doc, str(p))


def parse_spec(doc: Any, file: str = "<document>") -> Spec:
    if not isinstance(doc, dict) or not isinstance(doc.get("openapi"), str) or not isinstance(
            doc.get("paths"), dict):
        what = "Swagger 2.0" if isinstance(doc, dict) and "swagger" in doc else "not OpenAPI 3"
        raise OpenAPIError(f"{file}: {what} (an `openapi: 3.x` field and `paths` are needed)",
                           file=file)
    if not doc["openapi"].startswith(("3.0", "3.1")):
        raise OpenAPIError(f"{file}: OpenAPI {doc['openapi']} is not read (3.0 and 3.1 are)",
                           file=file)
    if doc["openapi"].startswith("3.1"):
        doc = nullable_31(doc)
    reader = _Reader(doc, file)
    reader.check_cycles()
    ops = list(reader.operations())
    if not ops:
        raise OpenAPIError(f"{file}: the document describes no operation", file=file)
    servers: list[Any] = doc["servers"] if isinstance(doc.get("servers"), list) else []
    bases = tuple(urlsplit(s["url"]).path for s in servers
                  if isinstance(s, dict) and isinstance(s.get("url"), str))
    return Spec(ops, file, bases)


class _Reader:
    def __init__(self, doc: dict[str, Any], file: str) -> None:
        self.doc = doc
        self.file = file
        self.comps = Components(doc, file, oas30=doc["openapi"].startswith("3.0"))
        comps = doc.get("components")
        self.schemes: dict[str, Any] = (comps.get("securitySchemes") or {}) if isinstance(
            comps, dict) else {}

    def resolve(self, node: Any, at: str) -> Any:
        seen: set[str] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str):
            ref = node["$ref"]
            if not ref.startswith("#/"):
                raise OpenAPIError(f"{self.file}, {at}: $ref {ref!r} points outside the "
                                   "document (only `#/…` references are followed)",
                                   code="OPENAPI_REF", file=self.file, path=at,
                                   hint="bundle the document into one file first")
            if ref in seen:
                raise OpenAPIError(f"{self.file}, {at}: $ref {ref!r} is a cycle",
                                   code="OPENAPI_REF_CYCLE", file=self.file, path=at)
            seen.add(ref)
            try:
                node = json_pointer(self.doc, ref)
            except KeyError:
                raise OpenAPIError(f"{self.file}, {at}: $ref {ref!r} resolves to nothing",
                                   code="OPENAPI_REF", file=self.file, path=at) from None
        return node

    def schema(self, node: Any, at: str) -> Any:
        try:
            converted, names = self.comps.convert(node, at, at)
            defs = self.comps.closure(names, at)
        except ContractError as exc:
            code = "OPENAPI_REF_CYCLE" if "cycle" in exc.message else "OPENAPI_REF"
            raise OpenAPIError(exc.message, code=code, file=self.file, path=at) from None
        if defs and isinstance(converted, dict):
            return {**converted, "$defs": defs}
        return converted

    def check_cycles(self) -> None:
        """A component that reaches itself through in-place keywords only ($ref, allOf,
        anyOf, oneOf, not, if/then/else) can never be validated."""
        raw = self.comps.raw
        edges: dict[str, set[str]] = {}
        for name, schema in raw.items():
            edges[name] = set(_in_place_refs(schema))
        state: dict[str, int] = {}

        def visit(n: str, chain: list[str]) -> None:
            state[n] = 1
            for m in sorted(edges.get(n, ())):
                if m not in raw:
                    continue
                if state.get(m) == 1:
                    loop = " -> ".join([*chain[chain.index(m):], m])
                    raise OpenAPIError(f"{self.file}: $ref cycle with no way out: {loop}",
                                       code="OPENAPI_REF_CYCLE", file=self.file,
                                       hint="break the cycle with a property or an item "
                                            "(a tree's children), not a bare $ref")
                if m not in state:
                    visit(m, [*chain, m])
            state[n] = 2

        for n in sorted(raw):
            if n not in state:
                visit(n, [n])

    def media(self, content: Any, at: str) -> Any:
        if not isinstance(content, dict) or not content:
            return None
        names = list(content)
        pick = next((n for n in names if n.split(";")[0].strip() == "application/json"),
                    None) or next((n for n in names if n.split(";")[0].strip().endswith(
                        ("/json", "+json"))), None)
        if pick is None:
            return None
        media = content[pick]
        if not isinstance(media, dict) or "schema" not in media:
            return None
        return self.schema(media["schema"], f"{at} {pick}")

    def medias(self, content: Any, at: str) -> dict[str, Media]:
        """Each media type of a response's ``content`` that declares a schema."""
        out: dict[str, Media] = {}
        for name, media in (content.items() if isinstance(content, dict) else ()):
            essence = str(name).split(";")[0].strip().lower()
            if not isinstance(media, dict):
                continue
            where = f"{at} {name}"
            if essence in SEQUENCES and "itemSchema" in media:
                item = media["itemSchema"]
                data = _content_schema(item)
                out[essence] = Media(
                    _unrequire(self.schema(_without_content_schema(item), where), "writeOnly"),
                    True, essence == "text/event-stream",
                    None if data is None else _unrequire(self.schema(data, where),
                                                         "writeOnly"))
            elif "schema" in media:
                out[essence] = Media(_unrequire(self.schema(media["schema"], where),
                                                "writeOnly"), essence in SEQUENCES)
        return out

    def operations(self) -> Iterator[Operation]:
        for template, item in self.doc["paths"].items():
            item = self.resolve(item, f"paths {template}")
            if not isinstance(item, dict):
                continue
            for method in METHODS:
                op = item.get(method)
                if isinstance(op, dict):
                    yield self.operation(str(template), method, item, op)

    def params(self, item: dict[str, Any], op: dict[str, Any], at: str) -> list[Param]:
        merged: dict[tuple[str, str], Param] = {}
        for params in (item.get("parameters"), op.get("parameters")):
            for i, p in enumerate(params if isinstance(params, list) else []):
                p = self.resolve(p, f"{at} parameters[{i}]")
                if not (isinstance(p, dict) and isinstance(p.get("name"), str)
                        and p.get("in") in ("path", "query", "header", "cookie")):
                    raise OpenAPIError(f"{self.file}, {at} parameters[{i}]: a parameter has "
                                       "a string `name` and an `in` (path, query, header, "
                                       "cookie)", file=self.file, path=at)
                name = p["name"].lower() if p["in"] == "header" else p["name"]
                if p["in"] == "header" and name in _IGNORED_HEADERS:
                    continue
                schema = (self.schema(p["schema"], f"{at} parameter {name}")
                          if "schema" in p else self.media(p.get("content"), at))
                merged[(p["in"], name)] = Param(name, p["in"], p.get("required") is True
                                                or p["in"] == "path", schema)
        return list(merged.values())

    def operation(self, template: str, method: str, item: dict[str, Any],
                  op: dict[str, Any]) -> Operation:
        at = f"{method.upper()} {template}"
        params = self.params(item, op, at)
        body = self.resolve(op.get("requestBody"), f"{at} requestBody")
        body_schema = _unrequire(self.media(body.get("content"), f"{at} requestBody"),
                                 "readOnly") if isinstance(body, dict) else None
        responses: dict[str, Any] = {}
        media: dict[str, dict[str, Media]] = {}
        raw = op.get("responses")
        for code, resp in (raw.items() if isinstance(raw, dict) else ()):
            resp = self.resolve(resp, f"{at} responses {code}")
            content = resp.get("content") if isinstance(resp, dict) else None
            key = str(code).upper() if str(code) != "default" else "default"
            responses[key] = _unrequire(self.media(content, f"{at} responses {code}"),
                                        "writeOnly")
            media[key] = self.medias(content, f"{at} responses {code}")
        security = op.get("security", self.doc.get("security"))
        secured, creds = self.security(security)
        idem = next((p for p in params if p.where == "header"
                     and p.name == "idempotency-key"), None) or next(
            (p for p in params if p.where == "header" and "idempotency" in p.name), None)
        return Operation(
            method.upper(), template, str(op.get("operationId") or at), tuple(params),
            body_schema, isinstance(body, dict) and body.get("required") is True,
            responses, secured, creds, idem.name if idem else "idempotency-key",
            idem is not None,
            self.paging(method, op, params, responses),
            op.get("x-dangerous") is True or item.get("x-dangerous") is True, media)

    def security(self, security: Any) -> tuple[bool, tuple[tuple[str, str], ...]]:
        """Whether a credential is required (an empty requirement ``{}`` makes it
        optional), and where credentials travel."""
        if not isinstance(security, list) or not security:
            return False, ()
        if any(isinstance(r, dict) and not r for r in security):
            return False, ()
        creds: set[tuple[str, str]] = set()
        for req in security:
            for name in req if isinstance(req, dict) else ():
                s = self.resolve(self.schemes.get(name), f"securitySchemes {name}")
                if isinstance(s, dict) and s.get("type") == "apiKey" and isinstance(
                        s.get("name"), str):
                    where = str(s.get("in", "header"))
                    key = s["name"].lower() if where in ("header", "cookie") else s["name"]
                    creds.add((where, key))
                else:
                    creds.add(("header", "authorization"))
        return True, tuple(sorted(creds))

    def paging(self, method: str, op: dict[str, Any], params: list[Param],
               responses: dict[str, Any]) -> Paging | None:
        hint = op.get("x-pagination")
        if isinstance(hint, dict) and isinstance(hint.get("cursor"), str):
            return Paging(hint["cursor"], _str(hint.get("next")), _str(hint.get("items")),
                          _str(hint.get("limit")))
        if method != "get":
            return None
        query = {p.name for p in params if p.where == "query"}
        cursor = next((n for n in CURSOR_NAMES if n in query), None)
        if cursor is None:
            return None
        ok = next((s for c, s in sorted(responses.items()) if c.startswith("2")), None)
        props = ok.get("properties") if isinstance(ok, dict) else None
        props = props if isinstance(props, dict) else {}
        nxt = next((n for n in _NEXT_NAMES if n in props), None)
        items = next((n for n in _ITEM_NAMES if n in props), None)
        limit = next((n for n in ("limit", "page_size", "pageSize", "per_page", "size")
                      if n in query), None)
        return Paging(cursor, nxt, items, limit)


def _unrequire(schema: Any, flag: str) -> Any:
    """``schema`` with the properties marked ``flag`` (``readOnly`` in a request,
    ``writeOnly`` in an answer) no longer required, at every depth and in ``$defs``:
    OpenAPI says a read-only property is not sent and a write-only one not returned."""
    if isinstance(schema, list):
        return [_unrequire(v, flag) for v in schema]
    if not isinstance(schema, dict):
        return schema
    out = {k: _unrequire(v, flag) for k, v in schema.items()}
    props, required = schema.get("properties"), schema.get("required")
    if isinstance(props, dict) and isinstance(required, list):
        out["required"] = [r for r in required if not (
            isinstance(props.get(r), dict) and props[r].get(flag) is True)]
    return out


def _content_schema(item: Any) -> Any:
    """The ``contentSchema`` of an SSE item schema's ``data`` property, or None."""
    data = item.get("properties", {}).get("data") if isinstance(item, dict) and isinstance(
        item.get("properties"), dict) else None
    return data.get("contentSchema") if isinstance(data, dict) else None


def _without_content_schema(item: Any) -> Any:
    if _content_schema(item) is None:
        return item
    data = {k: v for k, v in item["properties"]["data"].items() if k != "contentSchema"}
    return {**item, "properties": {**item["properties"], "data": data}}


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _in_place_refs(schema: Any) -> Iterator[str]:
    if not isinstance(schema, dict):
        return
    ref = schema.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
        yield ref.split("/")[3].replace("~1", "/").replace("~0", "~")
    for k in _IN_PLACE:
        for s in schema.get(k) or () if isinstance(schema.get(k), list) else ():
            yield from _in_place_refs(s)
    for k in _IN_PLACE_ONE:
        yield from _in_place_refs(schema.get(k))
