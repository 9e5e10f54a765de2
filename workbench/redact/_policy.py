"""The promotion policy: what of a trace may leave the store inside a fixture.

A policy file (YAML) lists the paths kept verbatim and the id paths pseudonymized;
every other value is reduced to its shape::

    version: 1
    keep: [kind, name, status, args.state, result.status]   # verbatim (still scanned)
    pseudonymize: [args.project_id, "result.items[*].id"]   # same value -> same token

``apply_policy`` applies it to an events table, column by column:

- ``kind`` and ``status`` are closed vocabularies (they cannot carry data, and the
  schema requires them): always verbatim. Listing them under ``keep`` is allowed.
- ``trace_id``, ``event_id``, ``parent_id``, ``seq``, ``start_ns``, ``end_ns`` and
  ``refs`` are structure (who contains whom, what came first, where a value came
  from): always kept, so happens-before, data flow and minimization still work.
- ``name`` is data (``GET /v1/users/alice``): kept when listed (its text still goes
  through the detectors), pseudonymized when listed there, else its shape.
- ``args``, ``result``, ``error``, ``attrs``: the whole column first goes through the
  detectors (``Redactor.value``: secret-named keys, header pairs, JSON inside strings);
  then a listed kept path keeps that redacted value, a listed pseudonymized path turns
  every non-null scalar under it into ``Redactor.pseudonym`` of the value, and every
  other scalar becomes its shape: ``«str:N»`` (N characters), ``«int»``, ``«float»``,
  ``«bool»``; null stays null. Keys, types of containers and array lengths are kept.
  A key that holds a detector hit is rewritten like text (keys are kept, data is not).
- Pseudonymizing wins over keeping where both match.
- Pseudonyms are ``Redactor.pseudonym`` (keyed, the store's tokens) unless a
  ``FirstSeen`` numbering is passed: promote passes one, so a fixture's pseudonyms are
  ``«id:000000000001»``, ``«id:000000000002»``, … by first appearance (rows in order,
  then ``name``, ``args``, ``result``, ``error``, ``attrs``) — stable within the
  fixture, independent of the store's key, so the same incident promoted from two
  stores gives the same content.

Paths are the rules' paths (``docs/rules.md``): dotted, ``[n]``, ``[*]``, the first
name a column. A path that reaches nothing in an event simply keeps nothing there.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path as FsPath
from typing import Any, Protocol

import pyarrow as pa
import yaml

from ..config import ConfigError, ConfigFile
from ..model import (
    EVENTS,
    FLAGS_KEY,
    JSON_COLUMNS,
    Path,
    PathSyntaxError,
    dumps,
    format_path,
    loads,
    parse_path,
)

__all__ = ["STRUCTURE", "FirstSeen", "Policy", "PolicyError", "PolicyRedactor",
           "apply_policy", "load_policy", "parse_policy", "shape_of"]

#: columns that are always kept: the trace's structure
STRUCTURE = ("trace_id", "event_id", "parent_id", "seq", "start_ns", "end_ns", "refs")
_VOCABULARY = ("kind", "status")
_KEEP_ROOTS = ("kind", "name", "status", *JSON_COLUMNS)
_PSEUDO_ROOTS = ("name", *JSON_COLUMNS)


class PolicyError(ConfigError):
    code = "POLICY_INVALID"
    default_hint = ("a policy file is `version: 1` with `keep:` and `pseudonymize:` lists "
                    "of paths (docs/fixtures.md)")


class PolicyRedactor(Protocol):
    """What the policy needs of ``workbench.redact.Redactor``."""

    def value(self, v: Any) -> Any: ...
    def text(self, s: str) -> str: ...
    def pseudonym(self, value: Any) -> str: ...


class FirstSeen:
    """Pseudonyms numbered by first appearance: the n-th distinct value becomes
    ``«id:N»`` with N in 12 hex digits (the shape of a keyed token, so ``TOKEN_RE``
    knows it). ``17`` and ``"17"`` are one value, as for ``Redactor.pseudonym``; a
    token is a value like any other, so numbering a numbered fixture again gives the
    same pseudonyms (the n-th first appearance stays the n-th)."""

    def __init__(self) -> None:
        self._ids: dict[str, str] = {}

    def pseudonym(self, value: Any) -> str:
        k = value if type(value) is str else dumps(value)
        out = self._ids.get(k)
        if out is None:
            out = self._ids[k] = f"«id:{len(self._ids) + 1:012x}»"
        return out

    def __len__(self) -> int:
        return len(self._ids)


class Pseudonyms(Protocol):
    def pseudonym(self, value: Any) -> str: ...


@dataclass(frozen=True)
class Policy:
    """Paths kept verbatim and paths pseudonymized; the rest is reduced to shapes."""

    keep: tuple[str, ...] = ()
    pseudonymize: tuple[str, ...] = ()
    source: str | None = None  # the file, or a word for where it came from
    _keep: tuple[Path, ...] = field(default=(), init=False, repr=False, compare=False)
    _pseudo: tuple[Path, ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_keep", tuple(_checked(p, "keep", _KEEP_ROOTS)
                                                for p in self.keep))
        object.__setattr__(self, "_pseudo", tuple(_checked(p, "pseudonymize", _PSEUDO_ROOTS)
                                                  for p in self.pseudonymize))

    def to_dict(self) -> dict[str, Any]:
        """The policy as data (what a fixture's manifest records)."""
        return {"version": 1, "keep": list(self.keep), "pseudonymize": list(self.pseudonymize)}

    def to_yaml(self) -> str:
        """The policy as a file ``load_policy`` reads back."""
        return yaml.safe_dump(self.to_dict(), sort_keys=False, default_flow_style=None,
                              allow_unicode=True, width=100)

    def keeps(self, column: str) -> bool:
        return any(p.segments == (column,) for p in self._keep)

    def pseudonymizes(self, column: str) -> bool:
        return any(p.segments == (column,) for p in self._pseudo)

    def paths(self, column: str) -> tuple[list[Path], list[Path]]:
        """The keep and pseudonymize paths of one JSON column, relative to it."""
        return ([p.tail() for p in self._keep if p.root == column],
                [p.tail() for p in self._pseudo if p.root == column])


def _checked(text: Any, what: str, roots: tuple[str, ...]) -> Path:
    if not isinstance(text, str):
        raise PolicyError(f"{what}: a path is text, not {type(text).__name__}")
    try:
        p = parse_path(text)
    except PathSyntaxError as exc:
        raise PolicyError(f"{what}: {exc.message}") from None
    root = p.root
    if root in STRUCTURE:
        raise PolicyError(f"{what}: {text} is structure and always kept",
                          hint="list kind, name, status or paths into args, result, error, "
                               "attrs")
    if what == "pseudonymize" and root in _VOCABULARY:
        raise PolicyError(f"{what}: {text} is a closed vocabulary and always kept")
    if root not in roots:
        raise PolicyError(f"{what}: {text} does not start with a column "
                          f"({', '.join(roots)})")
    if len(p.segments) > 1 and root not in JSON_COLUMNS:
        raise PolicyError(f"{what}: {root} is not JSON, so {text} reaches nothing")
    return p


# -- the file -------------------------------------------------------------------------------

_FILE = ConfigFile("policy file", PolicyError, keys=("keep", "pseudonymize"),
                   shape="a policy is a mapping with `version: 1`, `keep:` and `pseudonymize:`",
                   yaml_code="POLICY_YAML", hint="check the path given with --policy")


def load_policy(path: str | os.PathLike[str]) -> Policy:
    """Read and check a policy file."""
    return parse_policy(_FILE.read(path), source=str(FsPath(path)))


def parse_policy(text: str, source: str = "<policy>") -> Policy:
    """Check a policy given as YAML text; errors name the file and the line."""
    doc = _FILE.parse(text, source)
    lists: dict[str, tuple[str, ...]] = {}
    for key, roots in (("keep", _KEEP_ROOTS), ("pseudonymize", _PSEUDO_ROOTS)):
        node = doc.get(key)
        if node is None or not node.value:
            lists[key] = ()
            continue
        if node.kind != "sequence":
            raise node.error(f"{key} is a list of paths")
        for item in node.items():
            try:
                _checked(item.value, key, roots)
            except PolicyError as exc:
                raise item.error(exc.message, hint=exc.hint) from None
        lists[key] = tuple(dict.fromkeys(node.value))
    return Policy(lists["keep"], lists["pseudonymize"], source)


# -- applying it ----------------------------------------------------------------------------

def shape_of(value: Any) -> Any:
    """A scalar's shape token (``«str:12»``, ``«int»``, ``«float»``, ``«bool»``; null
    stays null); containers keep their keys and lengths, their scalars become shapes
    (``rules.shape`` in its ``tokens`` spelling)."""
    from ..rules import shape  # the rules load when a policy is applied, not with redaction

    return shape(value, tokens=True)


Loc = tuple[str | int, ...]


class _Column:
    """One JSON value under the policy: which locations are kept, which pseudonymized."""

    def __init__(self, policy: _Applier, keep: set[Loc], pseudo: set[Loc]) -> None:
        self.p, self.keep, self.pseudo = policy, keep, pseudo

    def walk(self, orig: Any, red: Any, loc: Loc, kept: bool) -> Any:
        if loc in self.pseudo:
            return self.p.pseudonymized(orig)
        kept = kept or loc in self.keep
        if isinstance(red, dict) and isinstance(orig, dict):
            return {self.p.key(k): self.walk(orig.get(k), v, (*loc, k), kept)
                    for k, v in red.items()}
        if isinstance(red, list) and isinstance(orig, list) and len(orig) == len(red):
            return [self.walk(o, r, (*loc, i), kept)
                    for i, (o, r) in enumerate(zip(orig, red, strict=True))]
        if kept:
            return red
        if isinstance(red, dict | list):  # the redactor re-shaped it: shape what it wrote
            return shape_of(red)
        return shape_of(orig if not isinstance(orig, dict | list) else red)


class _Applier:
    def __init__(self, policy: Policy, redactor: PolicyRedactor,
                 pseudonyms: Pseudonyms | None) -> None:
        self.policy, self.r = policy, redactor
        self.ids: Pseudonyms = pseudonyms if pseudonyms is not None else redactor
        self.paths = {c: policy.paths(c) for c in JSON_COLUMNS}
        self._keys: dict[str, str] = {}

    def key(self, k: str) -> str:
        out = self._keys.get(k)
        if out is None:
            out = self._keys[k] = self.r.text(k) if isinstance(k, str) else k
        return out

    def pseudonymized(self, v: Any) -> Any:
        if isinstance(v, dict):
            return {self.key(k): self.pseudonymized(x) for k, x in v.items()}
        if isinstance(v, list):
            return [self.pseudonymized(x) for x in v]
        if v is None:
            return None
        if isinstance(v, float) and v.is_integer():
            v = int(v)  # 5 and 5.0 are the same value to the rules (`same`)
        return self.ids.pseudonym(v)

    def name(self, name: str) -> str:
        if self.policy.pseudonymizes("name"):
            return self.ids.pseudonym(name)
        if self.policy.keeps("name"):
            return self.r.text(name)
        return str(shape_of(name))

    def column(self, column: str, value: Any) -> Any:
        if value is None and column == "error":
            return None
        keep_paths, pseudo_paths = self.paths[column]
        red = self.r.value(value)
        keep = {loc for p in keep_paths for loc, _ in _find(p, red)}
        pseudo = {loc for p in pseudo_paths for loc, _ in _find(p, red)}
        if column == "attrs" and isinstance(red, dict) and FLAGS_KEY in red:
            keep.add((FLAGS_KEY,))  # the workbench's own notes (orphan, truncated)
        return _Column(self, keep, pseudo).walk(value, red, (), False)

    def ref_path(self, text: str) -> str:
        try:
            p = parse_path(text)
        except PathSyntaxError:
            return text
        segs = tuple(self.key(s) if isinstance(s, str) and i else s
                     for i, s in enumerate(p.segments))
        return text if segs == p.segments else format_path(segs)

    def row(self, row: dict[str, Any]) -> dict[str, Any]:
        out = dict(row)
        out["name"] = self.name(row["name"])
        for c in JSON_COLUMNS:
            raw = row.get(c)
            value = None if raw is None else loads(raw)
            new = self.column(c, value)
            out[c] = None if (c == "error" and new is None) else dumps(new)
        out["refs"] = [{"event_id": r["event_id"], "path": self.ref_path(r["path"]),
                        "from_path": self.ref_path(r["from_path"])}
                       for r in row.get("refs") or ()]
        return out


def _find(path: Path, value: Any) -> Iterable[tuple[Loc, Any]]:
    if not path.segments:
        return [((), value)]
    return path.find(value)


def apply_policy(events: pa.Table, policy: Policy, redactor: PolicyRedactor, *,
                 pseudonyms: Pseudonyms | None = None) -> pa.Table:
    """The events (the store's schema) as the policy lets them leave the store;
    pseudonyms from ``pseudonyms`` (e.g. a ``FirstSeen``), else the redactor's keyed
    ones."""
    applier = _Applier(policy, redactor, pseudonyms)
    rows = [applier.row(r) for r in events.select(EVENTS.names).to_pylist()]
    return pa.Table.from_pylist(rows, schema=EVENTS)
