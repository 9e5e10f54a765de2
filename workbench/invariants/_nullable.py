"""``nullable: true`` in an OpenAPI 3.1 document, read as the author meant it.

3.1 dropped ``nullable`` (a schema says ``type: [T, "null"]``), yet documents that
declare 3.1 still write it — OpenAI's own says ``openapi: 3.1.0`` and marks 111 fields
``nullable: true``. JSON Schema 2020-12 ignores the unknown keyword, which would call
every ``null`` the author allowed a broken shape. A keyword 3.1 does not define has no
other meaning to lose, so before the schemas are read it is rewritten as 3.0 meant it:
``type`` gains ``"null"`` (and an ``enum`` gains ``null``), a ``$ref``, ``allOf`` or
``oneOf`` without a type becomes ``anyOf: [it, {type: null}]``, and an ``anyOf`` gains a
``{type: null}`` branch.
"""

from __future__ import annotations

from typing import Any

__all__ = ["nullable_31"]

_NULL = {"type": "null"}


def nullable_31(node: Any) -> Any:
    """``node`` (a document or any part of it) with each ``nullable: true`` rewritten."""
    if isinstance(node, list):
        return [nullable_31(v) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: nullable_31(v) for k, v in node.items()}
    if out.get("nullable") is not True:
        return out
    del out["nullable"]
    kind = out.get("type")
    if isinstance(kind, str):
        out["type"] = [kind, "null"] if kind != "null" else kind
    elif isinstance(kind, list):
        out["type"] = kind if "null" in kind else [*kind, "null"]
    elif isinstance(out.get("anyOf"), list):
        out["anyOf"] = [*out["anyOf"], _NULL]
        return out
    else:
        inner = {k: out.pop(k) for k in ("$ref", "allOf", "oneOf") if k in out}
        if inner:
            out["anyOf"] = [inner, _NULL]
        return out
    if isinstance(out.get("enum"), list) and None not in out["enum"]:
        out["enum"] = [*out["enum"], None]
    return out
