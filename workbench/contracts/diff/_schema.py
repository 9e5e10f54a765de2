"""Two JSON Schemas compared as what they accept: the changes from one to the other.

Both schemas are read through ``schema.shape`` (so ``$ref`` layout, nullable
spellings and key order are not changes) and walked together from the root: types and
nullability, enum values, defaults, bounds and other constraints, descriptions and
deprecation, then an object's properties (removed, added, renamed, required) and its
content model, an array's items, and the members of an ``anyOf`` / ``oneOf``. A
recursive schema is walked until the same pair of sub-schemas comes round again on the
way down, so the walk ends; a sub-schema reached by two routes is compared at both
paths (a consumer reading either must hear of it).

Each change says whether it widens or narrows what the schema accepts where that can be
known (``sense``); a change that cannot be placed (a new ``pattern``) counts as the worse
one for its direction: narrowing for what the agent sends, widening for what it reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...model import STAR
from ..schema import CLOSED, LOWER, OPEN, UPPER, Shape, same_json, shape, value_key

__all__ = ["SchemaChange", "Segment", "schema_changes", "type_name"]

Segment = Any  # a property name, STAR (every item / every map value) or an index


@dataclass(frozen=True)
class SchemaChange:
    """One change: its kind (docs/contracts.md), where (path segments under the schema
    root), the old and new value it concerns, and what else the judging needs."""

    kind: str
    path: tuple[Segment, ...] = ()
    old: Any = None
    new: Any = None
    keyword: str | None = None  # the constraint (maximum, pattern …), or nullable / anyOf
    sense: str | None = None    # widen | narrow | unknown; set | unset | change; up | down …
    closed: bool | None = None  # field gone: whether the new object refuses unknown fields
    to: str | None = None       # field-renamed: the new name
    #: whether the field (or a property above it) is optional: not in its object's
    #: ``required`` (the old schema's; the new one's for an added field)
    optional: bool = False


def type_name(sh: Shape) -> str:
    """``string``, ``integer|null``, ``any`` — a shape's types as words."""
    names = sorted(sh.types) if sh.types is not None else ["any"]
    if sh.nullable and sh.types is not None:
        names.append("null")
    return "|".join(names) or "nothing"


def _subset(x: frozenset[str] | None, xn: bool, y: frozenset[str] | None, yn: bool) -> bool:
    """Whether every value of types ``x`` (nullable ``xn``) is one of ``y``."""
    if y is None:
        return True
    if x is None or (xn and not yn):
        return False
    return all(t in y or (t == "integer" and "number" in y) for t in x)


def _sense(a: Shape, b: Shape, nulls: bool = True) -> str:
    an, bn = (a.nullable, b.nullable) if nulls else (False, False)
    wider = _subset(a.types, an, b.types, bn)
    narrower = _subset(b.types, bn, a.types, an)
    return "widen" if wider and not narrower else "narrow" if narrower and not wider \
        else "unknown"


def _trivial(raw: Any) -> bool:
    return raw is None or raw is True or raw == {}


class _Walk:
    def __init__(self, old_root: Any, new_root: Any, direction: str) -> None:
        self.old, self.new, self.direction = old_root, new_root, direction
        self.out: list[SchemaChange] = []
        self.stack: set[tuple[int, int]] = set()
        self.optional = False  # the field being walked is optional (or one above it)

    def emit(self, kind: str, path: tuple[Segment, ...], **kw: Any) -> None:
        kw.setdefault("optional", self.optional)
        self.out.append(SchemaChange(kind, path, **kw))

    def constraint(self, path: tuple[Segment, ...], keyword: str, old: Any, new: Any,
                   sense: str) -> None:
        if sense == "unknown":  # the worse one for the direction
            sense = "narrow" if self.direction == "input" else "widen"
        kind = "constraint-narrowed" if sense == "narrow" else "constraint-widened"
        self.emit(kind, path, old=old, new=new, keyword=keyword, sense=sense)

    def walk(self, a_raw: Any, b_raw: Any, path: tuple[Segment, ...],
             member: bool = False, optional: bool | None = None) -> None:
        key = (id(a_raw), id(b_raw))
        if key in self.stack or same_json(a_raw, b_raw, refs=False):  # came round, or equal
            return
        self.stack.add(key)
        outer = self.optional
        self.optional = outer if optional is None else optional
        try:
            a, b = shape(self.old, a_raw), shape(self.new, b_raw)
            if not member:
                self.notes(a, b, path)
            if a.union is not None or b.union is not None:
                self.union(a_raw, b_raw, a, b, path)
                return
            if not self.types(a, b, path, nulls=not member):
                return
            self.enum(a, b, path)
            self.bounds(a, b, path)
            self.other(a, b, path)
            if a.allows("object") and b.allows("object"):
                self.object(a, b, path)
            if a.allows("array") and b.allows("array"):
                self.array(a, b, path)
        finally:
            self.stack.discard(key)
            self.optional = outer

    def notes(self, a: Shape, b: Shape, path: tuple[Segment, ...]) -> None:
        if a.description != b.description:
            self.emit("description-changed", path, old=a.description, new=b.description)
        if a.deprecated != b.deprecated:
            self.emit("deprecated", path, old=a.deprecated, new=b.deprecated,
                      sense="set" if b.deprecated else "unset")
        if a.has_default != b.has_default or (
                a.has_default and value_key(a.default) != value_key(b.default)):
            sense = "change" if a.has_default and b.has_default else \
                "set" if b.has_default else "unset"
            self.emit("default-changed", path, old=a.default if a.has_default else None,
                      new=b.default if b.has_default else None, sense=sense)

    def types(self, a: Shape, b: Shape, path: tuple[Segment, ...], nulls: bool) -> bool:
        """Compare types (and nullability); False when the field is another thing now."""
        if a.types != b.types:
            sense = _sense(a, b, nulls)
            self.emit("type-changed", path, old=type_name(a), new=type_name(b),
                      keyword="type", sense=sense)
            return sense != "unknown"
        if nulls and a.nullable != b.nullable and (
                a.types is not None or a.enum is not None or b.enum is not None):
            self.emit("type-changed", path, old=type_name(a), new=type_name(b),
                      keyword="nullable", sense="widen" if b.nullable else "narrow")
        return True

    def enum(self, a: Shape, b: Shape, path: tuple[Segment, ...]) -> None:
        if a.enum is None and b.enum is None:
            return
        if a.enum is None or b.enum is None:
            self.constraint(path, "enum", None if a.enum is None else list(a.enum),
                            None if b.enum is None else list(b.enum),
                            "narrow" if a.enum is None else "widen")
            return
        old = {value_key(v) for v in a.enum}
        new = {value_key(v) for v in b.enum}
        for v in b.enum:
            if value_key(v) not in old:
                self.emit("enum-value-added", path, new=v, keyword="enum")
        for v in a.enum:
            if value_key(v) not in new:
                self.emit("enum-value-removed", path, old=v, keyword="enum")

    def bounds(self, a: Shape, b: Shape, path: tuple[Segment, ...]) -> None:
        for k in sorted(set(a.bounds) | set(b.bounds)):
            x, y = a.bounds.get(k), b.bounds.get(k)
            if value_key(x) == value_key(y):
                continue
            self.constraint(path, k, x, y, _bound_sense(k, x, y))

    def other(self, a: Shape, b: Shape, path: tuple[Segment, ...]) -> None:
        for k in sorted(set(a.other) | set(b.other)):
            x, y = a.other.get(k), b.other.get(k)
            if value_key(x) != value_key(y):
                sense = "narrow" if x is None else "widen" if y is None else "unknown"
                self.constraint(path, k, x, y, sense)

    def object(self, a: Shape, b: Shape, path: tuple[Segment, ...]) -> None:
        pa, pb = a.properties, b.properties
        removed = [k for k in pa if k not in pb]
        added = [k for k in pb if k not in pa]
        renamed = self.renames(pa, pb, removed, added)
        closed = b.additional == CLOSED
        was = {k: self.optional or k not in a.required for k in pa}  # optional in OLD
        for k in removed:
            if k in renamed:
                self.emit("field-renamed", (*path, k), old=k, new=renamed[k], to=renamed[k],
                          closed=closed, optional=was[k])
            else:
                self.emit("field-removed", (*path, k), old=type_name(shape(self.old, pa[k])),
                          closed=closed, optional=was[k])
        targets = set(renamed.values())
        for k in added:
            if k not in targets:
                self.emit("field-added", (*path, k), new=type_name(shape(self.new, pb[k])),
                          keyword="required" if k in b.required else None,
                          optional=self.optional or k not in b.required)
        for k in pa:
            if k in pb:
                self.walk(pa[k], pb[k], (*path, k), optional=was[k])
        for k in sorted(b.required - a.required):
            if k not in targets and (k not in added or self.direction == "input"):
                self.emit("required-added", (*path, k), optional=was.get(k, True))
        for k in sorted(a.required - b.required):
            if k not in removed:
                self.emit("required-removed", (*path, k), optional=was.get(k, True))
        self.content_model(a, b, path)

    def renames(self, pa: dict[str, Any], pb: dict[str, Any], removed: list[str],
                added: list[str]) -> dict[str, str]:
        """Removed -> added field taken as one renamed field: the same type, and the same
        position in the object, or the only field removed and the only one added."""
        if not removed or not added:
            return {}
        pos_a, pos_b = {k: i for i, k in enumerate(pa)}, {k: i for i, k in enumerate(pb)}
        sig_a = {k: type_name(shape(self.old, pa[k])) for k in removed}
        sig_b = {k: type_name(shape(self.new, pb[k])) for k in added}
        out: dict[str, str] = {}
        for r in removed:
            for x in added:
                if x not in out.values() and pos_a[r] == pos_b[x] and sig_a[r] == sig_b[x]:
                    out[r] = x
                    break
        if not out and len(removed) == 1 and len(added) == 1 and \
                sig_a[removed[0]] == sig_b[added[0]]:
            out[removed[0]] = added[0]
        return out

    def content_model(self, a: Shape, b: Shape, path: tuple[Segment, ...]) -> None:
        x, y = a.additional, b.additional
        if x == y and isinstance(x, str):
            return
        if y == CLOSED and x != CLOSED:
            self.emit("additional-properties-closed", path, old=_model(x), new=CLOSED,
                      keyword="additionalProperties", sense="narrow")
        elif x == OPEN and y != OPEN:
            self.constraint(path, "additionalProperties", OPEN, _model(y), "narrow")
        elif y == OPEN or x == CLOSED:
            self.constraint(path, "additionalProperties", _model(x), _model(y), "widen")
        else:
            self.walk(x, y, (*path, STAR))

    def array(self, a: Shape, b: Shape, path: tuple[Segment, ...]) -> None:
        x, y = (None if _trivial(a.items) else a.items), (None if _trivial(b.items) else b.items)
        if x is not None and y is not None:
            self.walk(x, y, (*path, STAR))
        elif x is not None or y is not None:
            self.constraint(path, "items", None if x is None else "schema",
                            None if y is None else "schema", "narrow" if x is None else "widen")
        for i, (p, q) in enumerate(zip(a.prefix, b.prefix, strict=False)):
            self.walk(p, q, (*path, i))
        if len(a.prefix) != len(b.prefix):
            self.constraint(path, "prefixItems", len(a.prefix), len(b.prefix),
                            "narrow" if len(b.prefix) > len(a.prefix) else "widen")

    def union(self, a_raw: Any, b_raw: Any, a: Shape, b: Shape,
              path: tuple[Segment, ...]) -> None:
        """anyOf / oneOf compared member by member (a plain schema on one side is a union
        of one): equal members first, then members of the same type, in order."""
        ma = list(a.union) if a.union is not None else [a_raw]
        mb = list(b.union) if b.union is not None else [b_raw]
        if a.nullable != b.nullable:
            self.emit("type-changed", path, old=type_name(a), new=type_name(b),
                      keyword="nullable", sense="widen" if b.nullable else "narrow")
        pairs: dict[int, int] = {}
        keys_b = [value_key(m) for m in mb]
        for i, m in enumerate(ma):
            k = value_key(m)
            j = next((j for j, kb in enumerate(keys_b) if kb == k and j not in pairs.values()),
                     None)
            if j is not None:
                pairs[i] = j
        sig_a = [type_name(shape(self.old, m)) for m in ma]
        sig_b = [type_name(shape(self.new, m)) for m in mb]
        for i in range(len(ma)):
            if i not in pairs:
                j = next((j for j in range(len(mb)) if j not in pairs.values()
                          and sig_b[j] == sig_a[i]), None)
                if j is not None:
                    pairs[i] = j
        for i, j in sorted(pairs.items()):
            self.walk(ma[i], mb[j], path, member=True)
        for i in range(len(ma)):
            if i not in pairs:
                self.emit("type-changed", path, old=sig_a[i], new=None, keyword="anyOf",
                          sense="narrow")
        for j in range(len(mb)):
            if j not in pairs.values():
                self.emit("type-changed", path, old=None, new=sig_b[j], keyword="anyOf",
                          sense="widen")


def _model(x: Any) -> str:
    return x if isinstance(x, str) else "schema"


def _bound_sense(k: str, x: Any, y: Any) -> str:
    if x is None:
        return "narrow"
    if y is None:
        return "widen"
    try:
        if k in LOWER:
            return "narrow" if y > x else "widen"
        if k in UPPER:
            return "narrow" if y < x else "widen"
        if k == "multipleOf":
            return "widen" if x % y == 0 else "narrow" if y % x == 0 else "unknown"
    except TypeError:
        return "unknown"
    return "unknown"


def schema_changes(old: Any, new: Any, direction: str) -> list[SchemaChange]:
    """Every change from schema ``old`` to ``new`` (each a whole document: its ``$ref``s
    resolve inside it), in walk order; ``direction`` is ``input`` or ``output``."""
    w = _Walk(old, new, direction)
    w.walk(old, new, ())
    return w.out
