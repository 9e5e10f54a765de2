"""Is this a JSON Schema (2020-12)? Answered fast enough for thousands of tools.

``jsonschema`` checks a schema against the 2020-12 meta-schema, whose vocabularies are
joined by ``$dynamicRef``; resolving those costs tens of milliseconds per tool schema,
so importing a 2,000-operation API took minutes. Here the same meta-schema, as
``jsonschema_specifications`` ships it, is joined once into a single document whose
``$dynamicRef: "#meta"`` are plain ``$ref: "#"`` (what they resolve to when the
dialect is not extended), and compiled with ``fastjsonschema`` into Python code.
``is_schema`` answers from it; only a schema it refuses goes through ``jsonschema``
again, for the exact message. A property test holds both to the same verdicts.

The meta-schema's formats (``regex``, ``uri``, ``uri-reference``) are checked by
``jsonschema``'s own format checker, so both agree in every environment (without its
optional packages, ``jsonschema`` leaves URIs unchecked, and so does this).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

__all__ = ["DIALECT_2020_12", "is_schema"]

DIALECT_2020_12 = "https://json-schema.org/draft/2020-12/schema"
_VOCABS = ("core", "applicator", "unevaluated", "validation", "meta-data",
           "format-annotation", "content")
_LOCAL = re.compile(r"^(?:meta/([a-z-]+))?#/\$defs/(.+)$")


def _rewrite(node: Any, vocab: str) -> Any:
    """One vocabulary's node with its refs pointing into the joined document."""
    if isinstance(node, dict):
        if node.get("$dynamicRef") == "#meta":
            return {"$ref": "#"}
        out: dict[str, Any] = {}
        for k, v in node.items():
            if k in ("$id", "$schema", "$vocabulary", "$dynamicAnchor", "$comment", "title",
                     "deprecated", "default"):
                continue
            if k == "$ref" and isinstance(v, str):
                m = _LOCAL.match(v)
                if m is None:
                    raise RuntimeError(f"meta-schema $ref {v} is not joined")
                out[k] = f"#/definitions/{m.group(1) or vocab}.{m.group(2)}"
            else:
                out[k] = _rewrite(v, vocab)
        return out
    if isinstance(node, list):
        return [_rewrite(v, vocab) for v in node]
    return node


def _joined() -> dict[str, Any]:
    from jsonschema_specifications import REGISTRY

    properties: dict[str, Any] = {}
    definitions: dict[str, Any] = {}
    root = REGISTRY.contents(DIALECT_2020_12)
    for vocab, doc in [(v, REGISTRY.contents(f"https://json-schema.org/draft/2020-12/meta/{v}"))
                       for v in _VOCABS] + [("schema", root)]:
        for name, sub in (doc.get("$defs") or {}).items():
            definitions[f"{vocab}.{name}"] = _rewrite(sub, vocab)
        for name, sub in (doc.get("properties") or {}).items():
            if name in properties:
                raise RuntimeError(f"meta-schema keyword {name} in two vocabularies")
            properties[name] = _rewrite(sub, vocab)
    return {"type": ["object", "boolean"], "properties": properties,
            "definitions": definitions}


def _formats(doc: Any) -> set[str]:
    if isinstance(doc, dict):
        found = {doc["format"]} if isinstance(doc.get("format"), str) else set()
        return found.union(*(_formats(v) for v in doc.values()))
    if isinstance(doc, list):
        return set().union(*(_formats(v) for v in doc))
    return set()


@functools.lru_cache(maxsize=1)
def _validate() -> Callable[[Any], Any]:
    import fastjsonschema
    import jsonschema

    joined = _joined()
    checker = jsonschema.Draft202012Validator.FORMAT_CHECKER
    # the meta-schema's formats (regex, uri, uri-reference) checked as jsonschema checks
    # them here, with whichever optional packages this environment has
    formats = {f: functools.partial(checker.conforms, format=f) for f in _formats(joined)}
    return fastjsonschema.compile(
        joined, formats=formats, use_default=False)


def is_schema(schema: Any) -> bool:
    """Whether ``schema`` is valid under the 2020-12 meta-schema."""
    import fastjsonschema

    try:
        _validate()(schema)
    except fastjsonschema.JsonSchemaException:
        return False
    return True
