"""What a probe sent, drawn again from its seed: the values of one recorded request as
the probe put them on the wire, from the draw record ``probe`` writes with each HAR
entry (``DRAWS_FIELD``: the seed, the operation and ``[where, name, step]`` per draw).
``replay`` proves each one against the recorded, redacted request before sending it
(docs/replay.md, "Generated inputs")."""

from __future__ import annotations

from typing import Any

from ..model import dumps
from ._generate import Generator
from ._openapi import Spec
from ._probe import DRAWS_FIELD, _text, header_text, path_value

__all__ = ["DRAWS_ATTR", "Redraw"]

#: where ``ingest`` keeps a HAR entry's draw record: the event's attrs
DRAWS_ATTR = f"har.{DRAWS_FIELD}"
#: at most this many draws are redone for one replay (each costs a Hypothesis run)
MAX_DRAWS = 2000


class Redraw:
    """Redraws requests' values against one OpenAPI document, each (seed, schema, step)
    drawn once."""

    def __init__(self, spec: Spec) -> None:
        self.ops = {op.name: op for op in spec.operations}
        self._gens: dict[int, Generator] = {}
        self._memo: dict[tuple[int, str, int], Any] = {}

    @property
    def draws(self) -> int:
        """How many values were drawn so far."""
        return len(self._memo)

    def values(self, attrs: Any) -> dict[tuple[str, str | None], Any] | None:
        """``(where, name)`` -> the value the probe sent there (``("body", None)``: the
        body; a path value as its segment's text before quoting; query and header values
        as text), from an event's attrs; None without a usable draw record."""
        rec = attrs.get(DRAWS_ATTR) if isinstance(attrs, dict) else None
        rec = rec.get("probe") if isinstance(rec, dict) else None
        if not isinstance(rec, dict):
            return None
        seed, op, draws = rec.get("seed"), self.ops.get(str(rec.get("operation"))), \
            rec.get("draws")
        if (not isinstance(seed, int) or isinstance(seed, bool) or op is None
                or not isinstance(draws, list)):
            return None
        out: dict[tuple[str, str | None], Any] = {}
        for d in draws:
            if not (isinstance(d, list) and len(d) == 3 and isinstance(d[2], int)):
                return None
            where, name, step = d
            if where == "body":
                schema: Any = op.body
            else:
                schema = next((p.schema for p in op.params
                               if p.where == where and p.name == name), None)
                if schema is None:
                    return None
            v = self._draw(seed, schema, step)
            if v is _BUDGET:
                return None
            if where == "path":
                out[(where, name)] = _text(path_value(v))
            elif where == "query":
                if v is not None:
                    out[(where, name)] = _text(v)
            elif where == "header":
                out[(where, str(name).lower())] = header_text(v)
            else:
                out[(where, None)] = v
        return out

    def _draw(self, seed: int, schema: Any, step: int) -> Any:
        key = (seed, dumps(schema), step)
        if key in self._memo:
            return self._memo[key]
        if len(self._memo) >= MAX_DRAWS:
            return _BUDGET
        gen = self._gens.get(seed)
        if gen is None:
            gen = self._gens[seed] = Generator(seed)
        v = self._memo[key] = gen.draw(schema, step)
        return v


_BUDGET = object()
