"""Importing OpenAPI 3.0 and 3.1 documents: one descriptor per operation.

- ``tool``: the ``operationId`` (one that is no tool name has each run of other
  characters made one ``_``, with a warning: ``find pet by id`` → ``find_pet_by_id``);
  without one, the method and the path, lower-case method first and every run of other
  characters than letters and digits made one ``_`` (``GET /orders/{id}`` →
  ``get_orders_id``).
- ``input``: ``{type: object, properties, required, additionalProperties: false}`` whose
  properties are the parameters (path, query, header, cookie; path and operation
  level, the operation's winning) by name, and ``body`` for the request body (its JSON
  media type's schema, else the first one's). Names two parameters share (a path ``id``
  and a query ``id``), or a parameter called ``body`` beside a request body, are
  spelled ``IN:NAME`` (``query:id``). ``Accept``, ``Content-Type`` and ``Authorization``
  headers are left out, as OpenAPI says.
- ``output``: the 2xx responses' schemas (one, or ``anyOf`` the distinct ones; a
  response without content is ``{type: null}``); ``errors.codes`` the 4xx and 5xx
  response codes.
- ``auth_scope``: every scope the operation's ``security`` (else the document's) names;
  ``idempotency``: an ``Idempotency-Key`` header parameter (required when it is);
  ``deprecated``; ``title`` and ``description`` from ``summary`` and ``description``;
  ``side_effect`` from the method (``SIDE_EFFECTS``).

Schemas are converted to JSON Schema 2020-12 (``schema.to_json_schema``) and the components they use
copied under their own ``$defs`` (``_refs``). docs/contracts.md ("Import").
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Any

from ...model import dumps
from .._descriptor import Descriptor
from .._errors import ContractError, DuplicateToolError, UnknownSourceError
from .._notes import attempt, warn
from .._source import Source, build, unique
from ._refs import Components, Origin

__all__ = ["SIDE_EFFECTS", "SOURCE", "tool_name"]

#: HTTP method → side-effect class (RFC 9110's safe methods read; PUT replaces, so a
#: repeat changes nothing more; POST and PATCH write; DELETE destroys)
SIDE_EFFECTS = {"get": "read_only", "head": "read_only", "options": "read_only",
                "trace": "read_only", "put": "idempotent_write", "post": "write",
                "patch": "write", "delete": "destructive"}
_IGNORED_HEADERS = frozenset({"accept", "content-type", "authorization"})
_OTHER = re.compile(r"[^A-Za-z0-9]+")
#: what descriptor.schema.json allows a tool name to be, and what it does not
_TOOL_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_./:-]*$")
_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9_./:-]+")


def tool_name(method: str, path: str) -> str:
    """The name of an operation without an ``operationId``."""
    return "_".join(p for p in (method.lower(), _OTHER.sub("_", path).strip("_")) if p)


def sniff(doc: Any) -> int:
    if not isinstance(doc, dict):
        return 0
    if isinstance(doc.get("openapi"), str) and isinstance(doc.get("paths"), dict):
        return 100
    return 60 if "swagger" in doc and "paths" in doc else 0


class _Doc:
    """One document being read: its file, its components, what operations share."""

    def __init__(self, doc: dict[str, Any], file: str) -> None:
        self.doc = doc
        self.file = file
        folder = Path(file).parent if not file.startswith("store:") else None
        self.comps = Components(doc, file, oas30=doc["openapi"].startswith("3.0"),
                                folder=folder)
        self.security = doc.get("security")

    def follow(self, node: Any, at: str, tool: str | None = None) -> tuple[Any, Origin]:
        return self.comps.follow(node, at, tool)

    def schema(self, node: Any, at: str, tool: str, refs: set[str],
               origin: Origin = None) -> Any:
        converted, names = self.comps.convert(node, at, tool, origin)
        refs |= names
        return converted

    def media_schema(self, content: Any, at: str, tool: str, refs: set[str],
                     origin: Origin = None) -> Any:
        """The schema of a ``content`` map: its JSON media type's, else the first's."""
        if not isinstance(content, dict) or not content:
            return None
        names = list(content)
        pick = next((n for n in names if n.split(";")[0].strip() == "application/json"),
                    None) or next((n for n in names if n.split(";")[0].endswith(
                        ("/json", "+json"))), names[0])
        media = content[pick]
        schema = media.get("schema", {}) if isinstance(media, dict) else {}
        return self.schema(schema, f"{at}.content.{pick}.schema", tool, refs, origin)


def _described(schema: Any, obj: dict[str, Any]) -> Any:
    """``schema`` with the parameter's (or body's) description and deprecation."""
    if not isinstance(schema, dict):
        schema = {} if schema is True else {"not": {}}
    extra = {}
    if isinstance(obj.get("description"), str) and "description" not in schema:
        extra["description"] = obj["description"]
    if obj.get("deprecated") is True:
        extra["deprecated"] = True
    return {**schema, **extra} if extra else schema


def _parameters(d: _Doc, item: dict[str, Any], op: dict[str, Any], at: str,
                tool: str) -> list[tuple[dict[str, Any], Origin]]:
    """The operation's parameters, path-level ones first, the operation's winning, each
    with the file it was found in."""
    merged: dict[tuple[str, str], tuple[dict[str, Any], Origin]] = {}
    base = at.rsplit(".", 1)[0]
    for level, params in ((base, item.get("parameters")), (at, op.get("parameters"))):
        for i, p in enumerate(params if isinstance(params, list) else []):
            where = f"{level}.parameters[{i}]"
            p, origin = d.follow(p, where, tool)
            if not (isinstance(p, dict) and isinstance(p.get("name"), str)
                    and isinstance(p.get("in"), str)):
                raise ContractError(f"{d.file}, {where}: a parameter has a string `name` and "
                                    "`in`", file=d.file, tool=tool, path=where)
            if p["in"] == "header" and p["name"].lower() in _IGNORED_HEADERS:
                continue
            merged[(p["in"], p["name"])] = (p, origin)
    return list(merged.values())


def _input(d: _Doc, item: dict[str, Any], op: dict[str, Any], at: str, tool: str,
           refs: set[str]) -> tuple[dict[str, Any], Any]:
    """The input schema (without ``$defs``) and the Idempotency-Key parameter, if any."""
    params = _parameters(d, item, op, at, tool)
    body, borigin = d.follow(op.get("requestBody"), f"{at}.requestBody", tool)
    names = [p["name"] for p, _ in params] + (["body"] if isinstance(body, dict) else [])
    clash = {n for n in names if names.count(n) > 1}
    props: dict[str, Any] = {}
    required: list[str] = []
    idem = None
    for p, origin in params:
        key = f"{p['in']}:{p['name']}" if p["name"] in clash else p["name"]
        if "schema" in p:
            schema = d.schema(p["schema"], f"{at}.parameters.{key}.schema", tool, refs, origin)
        else:
            schema = d.media_schema(p.get("content"), f"{at}.parameters.{key}", tool, refs,
                                    origin)
        props[key] = _described({} if schema is None else schema, p)
        if p.get("required") is True or p["in"] == "path":
            required.append(key)
        if p["in"] == "header" and p["name"].lower() == "idempotency-key":
            idem = {"key": f"header:{p['name']}", "required": key in required}
    if isinstance(body, dict):
        key = "requestBody:body" if "body" in clash else "body"
        schema = d.media_schema(body.get("content"), f"{at}.requestBody", tool, refs, borigin)
        props[key] = _described({} if schema is None else schema, body)
        if body.get("required") is True:
            required.append(key)
    out: dict[str, Any] = {"type": "object", "properties": props}
    if required:
        out["required"] = required
    out["additionalProperties"] = False
    return out, idem


def _responses(d: _Doc, op: dict[str, Any], at: str, tool: str,
               refs: set[str]) -> tuple[Any, list[str]]:
    """The output schema (None without a 2xx response) and the error codes."""
    responses = op.get("responses")
    outs: dict[str, Any] = {}
    errors = []
    for code, resp in (responses.items() if isinstance(responses, dict) else ()):
        code = str(code)
        if code[:1] in "45" and len(code) == 3:
            errors.append(code)
        elif code[:1] == "2" and len(code) == 3:
            resp, origin = d.follow(resp, f"{at}.responses.{code}", tool)
            content = resp.get("content") if isinstance(resp, dict) else None
            schema = d.media_schema(content, f"{at}.responses.{code}", tool, refs, origin)
            schema = {"type": "null"} if schema is None else schema
            outs.setdefault(dumps(schema), schema)
    if not outs:
        return None, errors
    found = list(outs.values())
    return (found[0] if len(found) == 1 else {"anyOf": found}), errors


def _scopes(security: Any) -> list[str] | None:
    if not isinstance(security, list):
        return None
    scopes = [s for req in security if isinstance(req, dict)
              for ss in req.values() if isinstance(ss, list) for s in ss if isinstance(s, str)]
    return list(dict.fromkeys(scopes))


def _with_defs(schema: Any, defs: dict[str, Any]) -> Any:
    if not defs or not isinstance(schema, dict):
        return schema
    return {**schema, "$defs": {**schema.get("$defs", {}), **defs}}


def _operation(d: _Doc, path: str, method: str, item: dict[str, Any],
               op: dict[str, Any], tool: str) -> Descriptor:
    at = f"paths.{path}.{method}"
    in_refs: set[str] = set()
    out_refs: set[str] = set()
    schema, idem = _input(d, item, op, at, tool, in_refs)
    output, errors = _responses(d, op, at, tool, out_refs)
    scope = _scopes(op.get("security", d.security))
    fields = {
        "tool": tool, "title": op.get("summary"), "description": op.get("description"),
        "input": _with_defs(schema, d.comps.closure(in_refs, tool)),
        "output": _with_defs(output, d.comps.closure(out_refs, tool)),
        "errors": {"codes": errors, "retryable": []} if errors else None,
        "side_effect": SIDE_EFFECTS[method], "auth_scope": scope, "idempotency": idem,
        "deprecated": {"since": None, "replacement": None} if op.get("deprecated") is True
        else None}
    unknown = ["revision", "timeout_s", "cancellable", "errors.retryable"]
    unknown += [f for f in ("output", "errors", "auth_scope") if fields[f] is None]
    return build("openapi", d.file, f"{method.upper()} {path}", fields, unknown)


def _tool(named: Any, method: str, path: str, file: str) -> str:
    """The operation's tool name: its ``operationId``, spelled as a tool name where it is
    not one (``find pet by id`` → ``find_pet_by_id``, with a warning), else
    ``tool_name``."""
    if not isinstance(named, str):
        return tool_name(method, path)
    if _TOOL_NAME.match(named):
        return named
    spelled = _NOT_IN_NAME.sub("_", named).strip("_") or tool_name(method, path)
    warn("operation-id-renamed", f"operationId {named!r} is no tool name; named {spelled!r}",
         file=file, tool=spelled, path=f"paths.{path}.{method}.operationId")
    return spelled


def _twice(file: str, tool: str, first: str, at: str) -> Descriptor:
    raise DuplicateToolError(f"{file}: tool {tool} is described twice ({first} and {at})",
                             file=file, tool=tool, path=at)


def _path_item(d: _Doc, raw: Any, at: str) -> Any:
    return d.follow(raw, at)[0]


def read(doc: Any, file: str) -> list[Descriptor]:
    """One descriptor per operation; an operation that cannot be used is refused on its
    own (``attempt``: listed with its code and path, the others imported) where the
    caller collects refusals, else raised."""
    if not isinstance(doc.get("openapi"), str):
        raise UnknownSourceError(f"{file}: Swagger 2.0 is not read; convert it to OpenAPI 3 "
                                 "first (swagger2openapi, or the editor's converter)", file=file)
    d = _Doc(doc, file)
    found = []
    seen: dict[str, str] = {}
    for path, raw in doc["paths"].items():
        item = attempt(functools.partial(_path_item, d, raw, f"paths.{path}"),
                       file=file, tool=None, path=f"paths.{path}")
        if not isinstance(item, dict):
            continue
        for method, op in item.items():
            if method in SIDE_EFFECTS and isinstance(op, dict):
                tool = _tool(op.get("operationId"), method, str(path), file)
                operation = f"{method.upper()} {path}"
                if tool in seen:  # refused before anything is converted
                    attempt(functools.partial(_twice, file, tool, seen[tool], operation),
                            file=file, tool=tool, path=f"paths.{path}.{method}",
                            operation=operation)
                    continue
                seen[tool] = operation
                got = attempt(functools.partial(_operation, d, str(path), method, item, op, tool),
                              file=file, tool=tool, path=f"paths.{path}.{method}",
                              operation=operation)
                if got is not None:
                    found.append((operation, got))
    return unique(found, file)


SOURCE: Source = ("openapi", sniff, read)
