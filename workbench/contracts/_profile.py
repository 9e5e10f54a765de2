"""What the provider profiles share: a problem, the report that collects them, the
profile itself, and walking a schema to rebuild it in a provider's terms.

A profile converts one descriptor to its provider's tool JSON and reports, on the way,
every constraint the provider would drop or reject (``Problem``), each with the JSON
path into the descriptor and what export does about it (``fix``):

- ``lossless``: export rewrites it without changing what the tool accepts (a ``$ref``
  inlined for Gemini, ``additionalProperties: false`` added for a strict mode);
- ``lossy``: export can only drop or weaken it, which changes the contract; it refuses
  unless ``--lossy``;
- ``none``: nothing export can do (a name the provider refuses, a recursive schema where
  recursion is not supported); it refuses;
- ``per-request``: a limit on what one request may carry (Anthropic's 20 strict tools);
  lint names it, export writes the tools and leaves the choice to the caller.

Only ``lossless`` needs nothing from a person (``Problem.decision`` is false): every other
fix asks someone to change the descriptor, accept a loss or pick what one request
carries. Each problem belongs to a rule, ``provider/keyword`` (``openai/required``), and
lint groups by rule and fix (``group_problems``).

Lint and export run the same conversion, so what lint names is exactly what export
would change. docs/contracts.md ("Provider profiles, lint and export") has the table.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ._descriptor import Descriptor
from .schema import LIST_KEYWORDS, MAP_KEYWORDS, SCHEMA_KEYWORDS

__all__ = ["FIXES", "SEVERITIES", "Problem", "ProblemGroup", "Profile", "Report", "ToolRules",
           "admits_null", "at_least", "declared", "each", "escape", "group_problems",
           "hoist_root", "is_object", "nullable", "rebuild", "says_object", "type_names"]

#: most severe first: ``reject`` (the provider refuses the tool), ``drop`` (it ignores it)
SEVERITIES = ("reject", "drop")
FIXES = ("lossless", "lossy", "none", "per-request")


@dataclass(frozen=True)
class Problem:
    """One constraint a provider would drop or reject, in one tool."""

    tool: str
    provider: str
    path: str        # JSON pointer into the descriptor: /input/properties/when/format
    keyword: str
    severity: str    # reject | drop
    fix: str         # lossless | lossy | none | per-request
    message: str

    @property
    def rule(self) -> str:
        """``provider/keyword``; every ``x-`` extension is one rule, ``x-*``."""
        return f"{self.provider}/{'x-*' if self.keyword.startswith('x-') else self.keyword}"

    @property
    def decision(self) -> bool:
        """Whether a person must act: everything but what export rewrites without loss."""
        return self.fix != "lossless"

    def to_dict(self) -> dict[str, Any]:
        return {"tool": self.tool, "provider": self.provider, "path": self.path,
                "keyword": self.keyword, "severity": self.severity, "fix": self.fix,
                "message": self.message, "rule": self.rule, "decision": self.decision}


def at_least(severity: str, threshold: str) -> bool:
    """Whether ``severity`` is ``threshold`` or more severe (``reject`` > ``drop``)."""
    return SEVERITIES.index(severity) <= SEVERITIES.index(threshold)


@dataclass(frozen=True)
class ProblemGroup:
    """The problems of one rule with one fix: how many, in how many tools, one example."""

    rule: str
    severity: str
    fix: str
    count: int
    tools: int
    example: Problem

    @property
    def decision(self) -> bool:
        return self.example.decision

    def to_dict(self) -> dict[str, Any]:
        return {"rule": self.rule, "provider": self.example.provider,
                "keyword": self.example.keyword, "severity": self.severity, "fix": self.fix,
                "decision": self.decision, "count": self.count, "tools": self.tools,
                "example": self.example.to_dict()}


def group_problems(problems: Iterable[Problem]) -> list[ProblemGroup]:
    """The problems grouped by rule, fix and severity (one pass): what needs a decision
    first, then the largest groups, each with its first problem as the example."""
    found: dict[tuple[str, str, str], tuple[Problem, list[int], set[str]]] = {}
    for p in problems:
        key = (p.rule, p.fix, p.severity)
        if key not in found:
            found[key] = (p, [0], set())
        _, n, tools = found[key]
        n[0] += 1
        tools.add(p.tool)
    groups = [ProblemGroup(rule, sev, fix, n[0], len(tools), first)
              for (rule, fix, sev), (first, n, tools) in found.items()]
    return sorted(groups, key=lambda g: (not g.decision, -g.count, g.rule, g.fix))


@dataclass
class Report:
    """The problems of one tool under one provider, as a conversion finds them."""

    tool: str
    provider: str
    problems: list[Problem] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)

    def __call__(self, path: str, keyword: str, severity: str, fix: str, message: str, *,
                 drop: bool = False) -> None:
        """One problem; ``drop``: export drops the keyword's value, subschemas and all."""
        self.problems.append(Problem(self.tool, self.provider, path, keyword, severity, fix,
                                     message))
        if drop:
            self.dropped.append(path + "/")

    def found(self) -> list[Problem]:
        """The problems, each once, none inside a subschema export drops anyway (each
        path's own prefixes looked up, so a schema with many drops stays linear)."""
        seen: set[tuple[str, str]] = set()
        dropped = set(self.dropped)
        out = []
        for p in self.problems:
            if (p.path, p.keyword) in seen or (dropped and _inside(p.path, dropped)):
                continue
            seen.add((p.path, p.keyword))
            out.append(p)
        return out


def _inside(path: str, prefixes: set[str]) -> bool:
    """Whether a prefix in ``prefixes`` (each ending in ``/``) starts ``path``."""
    at = path.find("/", 1)
    while at != -1:
        if path[:at + 1] in prefixes:
            return True
        at = path.find("/", at + 1)
    return False


@dataclass(frozen=True)
class Profile:
    """A provider: how a descriptor becomes its tool JSON, and how a list of those
    becomes the document its API takes."""

    name: str
    convert: Callable[[Descriptor, Report], dict[str, Any]]
    document: Callable[[list[dict[str, Any]]], Any]
    #: the descriptor fields its tool format carries; export lists the others as omitted
    carries: tuple[str, ...]
    #: problems of a whole set (per-request limits), given each tool's converted JSON
    check_set: Callable[[list[tuple[Descriptor, dict[str, Any]]]], list[Problem]] | None = None


def escape(name: str) -> str:
    """A JSON pointer segment."""
    return name.replace("~", "~0").replace("/", "~1")


Node = Callable[[Any, str], Any]


def rebuild(schema: Any, path: str, node: Node) -> Any:
    """``schema`` rebuilt bottom-up: every subschema's own subschemas first, then
    ``node(copy, path)`` on it, which returns what replaces it. Paths are the original
    schema's, so problems point at what the descriptor says."""
    if not isinstance(schema, dict):
        return node(schema, path)
    out: dict[str, Any] = {}
    for k, v in schema.items():
        if k in SCHEMA_KEYWORDS and isinstance(v, dict | bool):
            out[k] = rebuild(v, f"{path}/{k}", node)
        elif k in LIST_KEYWORDS and isinstance(v, list):
            out[k] = [rebuild(s, f"{path}/{k}/{i}", node) for i, s in enumerate(v)]
        elif k in MAP_KEYWORDS and isinstance(v, dict):
            out[k] = {n: rebuild(s, f"{path}/{k}/{escape(n)}", node) for n, s in v.items()}
        else:
            out[k] = v
    return node(out, path)


def type_names(schema: Any) -> list[str]:
    if not isinstance(schema, dict):
        return []
    kind = schema.get("type")
    return [kind] if isinstance(kind, str) else [t for t in kind if isinstance(t, str)] if (
        isinstance(kind, list)) else []


def is_object(schema: Any) -> bool:
    """Whether a schema describes objects (says so, or has properties and no type)."""
    kinds = type_names(schema)
    return "object" in kinds or (not kinds and isinstance(schema, dict)
                                 and "properties" in schema)


def says_object(schema: Any) -> bool:
    """Whether a schema's ``type`` names ``object``."""
    return "object" in type_names(schema)


@dataclass(frozen=True)
class ToolRules:
    """What a provider says of a tool's name and of its input's root, the checks every
    profile's conversion opens with, each worded in the provider's terms."""

    #: the names the provider takes
    names: re.Pattern[str]
    #: why a name ``names`` refuses is refused (nothing export can do)
    bad_name: str
    #: what export declares for an input the descriptor leaves unknown (lossy)
    unknown_input: str
    #: the input it declares then; None: the tool is written without one
    stand_in: dict[str, Any] | None
    #: why an input whose root is not an object is refused (nothing export can do)
    not_object: str
    #: whether a root counts as an object (by default: its ``type`` says ``object``)
    object_root: Callable[[Any], bool] = says_object

    def check(self, d: Descriptor, report: Report) -> tuple[Any, bool]:
        """``d``'s name and input root checked: the input schema export converts (the
        stand-in for an unknown one) and whether its root is an object."""
        if not self.names.match(d.tool):
            report("/tool", "name", "reject", "none", self.bad_name)
        schema = d.input
        if schema is None:
            report("/input", "input", "reject", "lossy", self.unknown_input)
            return copy.deepcopy(self.stand_in), self.stand_in is not None
        if not (isinstance(schema, dict) and self.object_root(schema)):
            report("/input", "type", "reject", "none", self.not_object)
            return schema, False
        return schema, True


def declared(d: Descriptor, *fields: str) -> dict[str, Any]:
    """A tool's JSON opened as every provider's is: ``name``, then each of ``fields``
    (``title``, ``description``) the descriptor states, under the same key."""
    out: dict[str, Any] = {"name": d.tool}
    for f in fields:
        value = getattr(d, f)
        if value is not None:
            out[f] = value
    return out


def admits_null(schema: Any) -> bool:
    """Whether ``null`` may be valid under ``schema`` as far as its own words show: a
    type naming null, an enum or const holding it, a branch that does, or no
    restriction at all."""
    if schema is True or schema == {}:
        return True
    if not isinstance(schema, dict):
        return False
    if "null" in type_names(schema) or None in (schema.get("enum") or []):
        return True
    if "const" in schema:
        return schema["const"] is None
    branches = [*(schema.get("anyOf") or []), *(schema.get("oneOf") or [])]
    if branches:
        return any(admits_null(b) for b in branches)
    return not (set(schema) & {"type", "enum", "$ref", "allOf", "not"})


def nullable(schema: Any) -> Any:
    """``schema`` that also admits null: itself when it does already, ``["T", "null"]``
    where a type says it (and ``null`` added to an enum), else ``anyOf: [schema,
    {type: null}]``."""
    if admits_null(schema):
        return schema
    kinds = type_names(schema)
    if kinds and isinstance(schema, dict) and "const" not in schema:
        out = {**schema, "type": [*kinds, "null"]}
        if isinstance(schema.get("enum"), list):
            out["enum"] = [*schema["enum"], None]
        return out
    return {"anyOf": [schema, {"type": "null"}]}


def each(schema: Any) -> Iterable[dict[str, Any]]:
    """Every subschema of ``schema`` (itself included) that is an object."""
    todo = [schema]
    while todo:
        s = todo.pop()
        if not isinstance(s, dict):
            continue
        yield s
        for k, v in s.items():
            if k in SCHEMA_KEYWORDS:
                todo.append(v)
            elif k in LIST_KEYWORDS and isinstance(v, list):
                todo.extend(v)
            elif k in MAP_KEYWORDS and isinstance(v, dict):
                todo.extend(v.values())


#: what may sit beside a root ``$ref`` and still be hoisted: definitions and words
_BESIDE_ROOT_REF = frozenset({"$ref", "$defs", "definitions", "$schema", "title",
                              "description", "$comment"})


def hoist_root(schema: Any) -> Any:
    """``schema`` with a root that only points into its own definitions
    (``{$ref: "#/$defs/X", $defs: {…}}``, as imported OpenAPI components are) replaced by
    what it points at, the definitions kept beside it for the references inside: the same
    schema, written as providers read it (a root ``type: object``). Anything else is
    returned as it is."""
    if not isinstance(schema, dict) or not set(schema) <= _BESIDE_ROOT_REF:
        return schema
    ref = schema.get("$ref")
    for key in ("$defs", "definitions"):
        prefix = f"#/{key}/"
        defs = schema.get(key)
        if not (isinstance(ref, str) and ref.startswith(prefix) and isinstance(defs, dict)):
            continue
        name = ref[len(prefix):]
        target = defs.get(name) if "/" not in name and "~" not in name else None
        if not isinstance(target, dict) or "$ref" in target or key in target:
            return schema
        words = {k: v for k, v in schema.items() if k not in ("$ref", key)}
        if any(k in target and target[k] != v for k, v in words.items()):
            return schema
        return {**words, **target, key: defs}
    return schema
