"""Importing Gemini function declarations: a ``tools`` array ``[{functionDeclarations:
[…]}]``, one tool ``{functionDeclarations: […]}``, and a request body holding them in
``tools`` (camelCase or snake_case, as the REST API and the SDKs write them).

``name`` → ``tool``, ``description``; ``parameters`` (OpenAPI 3.0 subset: ``OBJECT``,
``nullable``, …) → ``input`` converted to JSON Schema (``schema.to_json_schema``), or
``parametersJsonSchema`` taken as is (a declaration without either takes no
arguments); ``response`` / ``responseJsonSchema`` → ``output`` the same way. Gemini says
nothing else a descriptor holds (no title, error envelope, side-effect class, timeout,
cancellation, auth, idempotency, deprecation or revision): they stay empty and are
listed in ``source.unknown``. Other tools (``googleSearch``, ``codeExecution``, …) are
the provider's, not contracts: skipped.
"""

from __future__ import annotations

import functools
from typing import Any

from .._descriptor import Descriptor
from .._errors import ContractError
from .._source import CONTRACT_FIELDS, Source, build, unique, where
from ..openai import no_parameters
from ..schema import to_json_schema

__all__ = ["SOURCE", "UNKNOWN"]

#: the descriptor fields a Gemini declaration cannot say
UNKNOWN = tuple(f for f in CONTRACT_FIELDS if f not in ("description", "input", "output"))


def _get(d: dict[str, Any], camel: str) -> Any:
    """``d[camel]``, or its snake_case spelling."""
    if camel in d:
        return d[camel]
    return d.get("".join(f"_{c.lower()}" if c.isupper() else c for c in camel))


def _declarations(tool: Any) -> list[Any] | None:
    return _get(tool, "functionDeclarations") if isinstance(tool, dict) else None


def _tools(value: Any) -> bool:
    return (isinstance(value, list) and any(isinstance(_declarations(t), list) for t in value)
            and all(isinstance(t, dict) for t in value))


def sniff(doc: Any) -> int:
    if _tools(doc):
        return 90
    if isinstance(doc, dict):
        if _tools(doc.get("tools")):
            return 90
        if isinstance(_declarations(doc), list):
            return 88
    return 0


def _schema(decl: dict[str, Any], name: str, file: str, at: str) -> Any:
    """The JSON Schema of ``parameters`` or ``response`` (``name``), from either field."""
    plain, as_json = _get(decl, name), _get(decl, f"{name}JsonSchema")
    if plain is not None and as_json is not None:
        raise ContractError(f"{where(file, at)}: `{name}` and `{name}JsonSchema` are both "
                            "set; a declaration has one of them", file=file, path=at)
    if as_json is not None:
        return as_json
    return None if plain is None else to_json_schema(plain, oas30=True, gemini=True)


def _descriptor(decl: Any, file: str, at: str) -> Descriptor:
    if not isinstance(decl, dict) or not isinstance(decl.get("name"), str):
        raise ContractError(f"{where(file, at)}: a function declaration has a string `name`",
                            file=file, path=at)
    params = _schema(decl, "parameters", file, at)
    output = _schema(decl, "response", file, at)
    unknown = UNKNOWN if output is not None else (*UNKNOWN, "output")
    return build("gemini", file, at, {
        "tool": decl["name"], "description": decl.get("description"),
        "input": no_parameters() if params is None else params, "output": output}, unknown)


def read(doc: Any, file: str) -> list[Descriptor]:
    if isinstance(doc, dict) and _tools(doc.get("tools")):
        tools, prefix = doc["tools"], "tools"
    elif isinstance(doc, dict):
        tools, prefix = [doc], None
    else:
        tools, prefix = doc, ""
    found = []
    for i, tool in enumerate(tools):
        decls = _declarations(tool)
        if not isinstance(decls, list):
            continue
        base = "" if prefix is None else f"{prefix}[{i}]."
        key = "functionDeclarations" if "functionDeclarations" in tool else (
            "function_declarations")
        for j, decl in enumerate(decls):
            at = f"{base}{key}[{j}]"
            found.append((at, functools.partial(_descriptor, decl, file, at)))
    return unique(found, file)


SOURCE: Source = ("gemini", sniff, read)
