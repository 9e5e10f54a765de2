"""Values a schema allows, drawn by Hypothesis from JSON-schema strategies
(``hypothesis-jsonschema``), reproduced from a seed and a step index: the same seed and
step give the same value, so a finding keeps the seed, never the body.

Objects are composed here (``fixed_dictionaries`` of each property's strategy, the
required ones always, the others sometimes): hypothesis-jsonschema 0.23's object
strategy uses a Hypothesis internal that newer Hypothesis releases changed. Every other
schema (scalars, formats, enums, ``anyOf``, arrays of scalars) is the package's own.
"""

from __future__ import annotations

from typing import Any

from ._errors import ProbeRefusedError

__all__ = ["Generator"]


def _require() -> Any:
    try:
        import hypothesis
        import hypothesis_jsonschema
    except ImportError:
        raise ProbeRefusedError("probing needs hypothesis and hypothesis-jsonschema",
                                code="PROBE_UNAVAILABLE",
                                hint="install the `probe` extra: pip install "
                                     "'trace-workbench[probe]'") from None
    return hypothesis, hypothesis_jsonschema


class Generator:
    """Draws values for schemas, one seeded draw per (seed, step)."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.hyp, self.hj = _require()
        self._cache: dict[str, Any] = {}

    def strategy(self, schema: Any, defs: dict[str, Any] | None = None) -> Any:
        st = self.hyp.strategies
        if not isinstance(schema, dict):
            return st.just(None) if schema is False else self.hj.from_schema({})
        defs = {**(defs or {}), **(schema.get("$defs") or {})}
        ref = schema.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            target = defs.get(ref.split("/", 2)[2])
            if target is not None:
                return self.strategy(target, defs)
        kind = schema.get("type")
        props = schema.get("properties")
        if kind == "object" or isinstance(props, dict):
            return self._object(schema, props if isinstance(props, dict) else {}, defs)
        items = schema.get("items")
        if kind == "array" and isinstance(items, dict):
            return st.lists(self.strategy(items, defs), min_size=int(schema.get("minItems", 0)),
                            max_size=int(schema.get("maxItems", 4)))
        clean = {k: v for k, v in schema.items() if k != "$defs"}
        bits = {"int32": 31, "int64": 63}.get(str(clean.get("format")))
        if bits is not None:  # formats the package leaves to the caller: bounds say it
            clean.setdefault("minimum", -(2 ** bits))
            clean.setdefault("maximum", 2 ** bits - 1)
        if defs and "$ref" in str(clean):
            clean["$defs"] = defs
        return self.hj.from_schema(clean, custom_formats={
            "uuid": st.uuids().map(str), "int32": st.just(""), "int64": st.just("")})

    def _object(self, schema: dict[str, Any], props: dict[str, Any],
                defs: dict[str, Any]) -> Any:
        st = self.hyp.strategies
        extra = schema.get("additionalProperties", True)
        other = (self.strategy(extra, defs) if isinstance(extra, dict) else
                 st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=8)))
        required = [k for k in schema.get("required") or () if isinstance(k, str)]
        obj = st.fixed_dictionaries(
            {k: self.strategy(props[k], defs) if k in props else other for k in required},
            optional={k: self.strategy(v, defs) for k, v in props.items()
                      if k not in required})
        if props or extra is False:
            return obj
        names = st.text(min_size=1, max_size=8).filter(lambda n: n not in required)
        more = st.dictionaries(names, other, max_size=3)
        return st.tuples(obj, more).map(lambda t: {**t[1], **t[0]})

    def draw(self, schema: Any, step: int) -> Any:
        """One value ``schema`` allows, the same for the same seed and step."""
        from ..model import dumps

        key = dumps(schema)
        strategy = self._cache.get(key)
        if strategy is None:
            strategy = self._cache[key] = self.strategy(schema)
        h = self.hyp
        out: list[Any] = []

        settings: Any = h.settings(max_examples=2, database=None, phases=[h.Phase.generate],
                                   deadline=None, suppress_health_check=list(h.HealthCheck),
                                   derandomize=False)

        def keep(v: Any) -> None:
            out.append(v)

        run: Any = settings(h.seed(self.seed * 100_003 + step)(h.given(strategy)(keep)))
        run()
        return out[-1]  # the first example is the simplest; the second a random one
