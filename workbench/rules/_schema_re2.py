"""JSON Schema validation for ``schema`` conditions with RE2 as its regex engine.

``jsonschema`` evaluates ``pattern``, ``patternProperties`` (and ``additionalProperties``
next to them) with Python's ``re``, which backtracks: a pattern such as ``(a+)+$`` in a
fixture's schema and a value from a trace could hang a check. The validator here
replaces those three keywords by the same logic over ``compile_regex`` (RE2, linear in
the text), as ``matches`` does; every other keyword is ``jsonschema``'s own.
``unevaluatedProperties`` beside ``patternProperties`` still uses ``jsonschema``'s
matching (docs/security.md).

Nothing is fetched: the validator's registry refuses every retrieval (a nested ``$ref``
to ``http://…`` or ``file://…`` would otherwise be fetched by ``jsonschema``, and hang
on a server that never answers), and the loader refuses a nested ``$ref`` that does not
point inside its schema (``#…``).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any

from ._conditions import compile_regex

__all__ = ["regex_problem", "schema_validator"]


def _refuse(uri: str) -> Any:
    from referencing.exceptions import NoSuchResource
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # attrs


def _search(pattern: str, text: str) -> bool:
    try:
        return compile_regex(pattern).search(text) is not None
    except UnicodeEncodeError:
        fixed = text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        return compile_regex(pattern).search(fixed) is not None


def _pattern(validator: Any, patrn: str, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError
    if validator.is_type(instance, "string") and not _search(patrn, instance):
        yield ValidationError(f"{instance!r} does not match {patrn!r}")


def _pattern_properties(validator: Any, pp: dict[str, Any], instance: Any,
                        schema: Any) -> Iterator[Any]:
    if not validator.is_type(instance, "object"):
        return
    for pattern, sub in pp.items():
        for k, v in instance.items():
            if _search(pattern, k):
                yield from validator.descend(v, sub, path=k, schema_path=pattern)


def _additional_properties(validator: Any, ap: Any, instance: Any,
                           schema: Any) -> Iterator[Any]:
    from jsonschema.exceptions import ValidationError
    if not validator.is_type(instance, "object"):
        return
    props, patterns = schema.get("properties", {}), list(schema.get("patternProperties", {}))
    extras = [k for k in instance
              if k not in props and not any(_search(p, k) for p in patterns)]
    if validator.is_type(ap, "object"):
        for k in extras:
            yield from validator.descend(instance[k], ap, path=k)
    elif not ap and extras:
        yield ValidationError("additional properties are not allowed "
                              f"({', '.join(repr(k) for k in sorted(extras))} unexpected)")


@functools.lru_cache(maxsize=16)
def _re2_class(base: type) -> Any:
    import jsonschema
    return jsonschema.validators.extend(base, {
        "pattern": _pattern, "patternProperties": _pattern_properties,
        "additionalProperties": _additional_properties})


def schema_validator(schema: Any) -> Any:
    """A validator of ``schema`` (its own draft) whose regexes run on RE2."""
    import jsonschema  # only rules with a `schema` condition pay for it
    import referencing
    return _re2_class(jsonschema.validators.validator_for(schema))(
        schema, registry=referencing.Registry(retrieve=_refuse))  # type: ignore[call-arg]


def _own_problem(node: dict[str, Any]) -> str | None:
    ref = node.get("$ref")
    if isinstance(ref, str) and not ref.startswith("#"):
        return (f"$ref {ref!r}: a reference inside a schema may only point inside it "
                "(#/…); nothing is fetched or read")
    found = [node["pattern"]] if isinstance(node.get("pattern"), str) else []
    if isinstance(node.get("patternProperties"), dict):
        found += list(node["patternProperties"])
    for p in found:
        try:
            compile_regex(p)
        except ValueError as exc:
            return f"regex {p!r} cannot run on RE2: {exc}"
    return None


def regex_problem(schema: Any) -> str | None:
    """The first ``pattern`` / ``patternProperties`` regex RE2 cannot run, or nested
    ``$ref`` that leaves the schema, with why."""
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            stack.extend(node)
            continue
        if not isinstance(node, dict):
            continue
        if (why := _own_problem(node)) is not None:
            return why
        for k, v in node.items():
            if k in ("properties", "patternProperties", "$defs", "definitions",
                     "dependentSchemas") and isinstance(v, dict):
                stack.extend(v.values())  # names there are property names, not keywords
            elif k not in ("const", "enum", "default", "examples"):
                stack.append(v)
    return None
