"""Lint and export: every provider profile, what each would drop or reject in a set of
descriptors, and the tool JSON each takes.

``lint`` runs each profile's conversion over each descriptor and collects the problems;
``export_tools`` runs one profile's, refuses (``ExportError``) when a problem's fix is
``none``, or ``lossy`` without ``lossy=True``, and otherwise returns the provider's
document with what was transformed, dropped and left out listed beside it.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ..store import output_path
from ._descriptor import Descriptor
from ._errors import ExportError
from ._profile import (
    SEVERITIES,
    Problem,
    ProblemGroup,
    Profile,
    Report,
    at_least,
    group_problems,
    hoist_root,
)
from ._read import read_tools
from ._source import CONTRACT_FIELDS
from .anthropic import PROFILE as ANTHROPIC
from .gemini import PROFILE as GEMINI
from .mcp import PROFILE as MCP
from .openai import PROFILE as OPENAI

__all__ = ["PROFILES", "PROVIDERS", "ExportResult", "LintResult", "export_paths", "export_tools",
           "lint", "lint_paths", "provider_json"]

PROFILES: dict[str, Profile] = {p.name: p for p in (OPENAI, ANTHROPIC, GEMINI, MCP)}
PROVIDERS: tuple[str, ...] = tuple(PROFILES)


def _convert(profile: Profile, tools: Sequence[Descriptor]
             ) -> tuple[list[dict[str, Any]], list[Problem]]:
    converted = []
    problems: list[Problem] = []
    for d in tools:
        report = Report(d.tool, profile.name)
        converted.append(profile.convert(_hoisted(d), report))
        problems += report.found()
    if profile.check_set is not None:
        problems += profile.check_set(list(zip(tools, converted, strict=True)))
    return converted, problems


def _hoisted(d: Descriptor) -> Descriptor:
    """``d`` with input and output roots that only point into their definitions hoisted
    (``hoist_root``): the same schemas, with the root type a provider checks."""
    schema_in, schema_out = hoist_root(d.input), hoist_root(d.output)
    if schema_in is d.input and schema_out is d.output:
        return d
    return dataclasses.replace(d, input=schema_in, output=schema_out)


def lint(tools: Iterable[Descriptor], providers: Sequence[str] = PROVIDERS) -> list[Problem]:
    """Every constraint each provider would drop or reject, tool by tool."""
    tools = list(tools)
    return [p for name in providers for p in _convert(PROFILES[name], tools)[1]]


@dataclass(frozen=True)
class ExportResult:
    """A provider's tool document, and what export changed on the way."""

    provider: str
    document: Any
    tools: tuple[str, ...]
    transformed: tuple[Problem, ...]  # rewritten without loss
    dropped: tuple[Problem, ...]      # lost, with --lossy
    limits: tuple[Problem, ...]       # per-request limits the caller must mind
    omitted: dict[str, tuple[str, ...]]  # tool -> descriptor fields the format cannot hold

    def to_dict(self, out: str | None = None) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "provider": self.provider, "tools": list(self.tools), "out": out,
            "transformed": [p.to_dict() for p in self.transformed],
            "dropped": [p.to_dict() for p in self.dropped],
            "limits": [p.to_dict() for p in self.limits],
            "omitted": [{"tool": t, "fields": list(f)} for t, f in self.omitted.items() if f]}
        if out is None:
            doc["document"] = self.document
        return doc


def _refuse(problems: list[Problem], provider: str, unsupported: bool) -> ExportError:
    shown = "; ".join(f"{p.tool} {p.path}: {p.message}" for p in problems[:5])
    more = f" (and {len(problems) - 5} more)" if len(problems) > 5 else ""
    if unsupported:
        return ExportError(f"{provider} cannot take {len(problems)} thing(s) in these "
                           f"descriptors: {shown}{more}", code="EXPORT_UNSUPPORTED",
                           hint="rename the tool or simplify the schema; `workbench contract "
                                f"lint --provider {provider}` lists each problem",
                           provider=provider, problems=[p.to_dict() for p in problems])
    return ExportError(f"exporting to {provider} would lose meaning in {len(problems)} "
                       f"place(s): {shown}{more}", provider=provider,
                       problems=[p.to_dict() for p in problems])


def export_tools(tools: Iterable[Descriptor], provider: str, *, lossy: bool = False
                 ) -> ExportResult:
    """The provider's tool document for ``tools``; ``ExportError`` (``EXPORT_LOSSY``,
    ``EXPORT_UNSUPPORTED``) listing what would be lost."""
    tools = list(tools)
    profile = PROFILES[provider]
    converted, problems = _convert(profile, tools)
    impossible = [p for p in problems if p.fix == "none"]
    if impossible:
        raise _refuse(impossible, provider, unsupported=True)
    lost = [p for p in problems if p.fix == "lossy"]
    if lost and not lossy:
        raise _refuse(lost, provider, unsupported=False)
    omitted = {}
    for d in tools:
        said = d.to_dict()
        omitted[d.tool] = tuple(f for f in CONTRACT_FIELDS
                                if f in said and f not in profile.carries)
    return ExportResult(
        provider, profile.document(converted), tuple(d.tool for d in tools),
        tuple(p for p in problems if p.fix == "lossless"), tuple(lost),
        tuple(p for p in problems if p.fix == "per-request"), omitted)


@dataclass(frozen=True)
class LintResult:
    """``contract lint``: the problems at ``severity`` or above, and how many less severe
    ones that filter left out (``hidden``)."""

    tools: tuple[str, ...]
    providers: tuple[str, ...]
    problems: tuple[Problem, ...]
    severity: str = SEVERITIES[-1]
    hidden: int = 0

    def groups(self) -> list[ProblemGroup]:
        return group_problems(self.problems)

    @property
    def decisions(self) -> int:
        """Problems a person must decide on (export cannot fix them without loss)."""
        return sum(p.decision for p in self.problems)

    @property
    def fixable(self) -> int:
        """Problems export rewrites without changing what the tool accepts."""
        return len(self.problems) - self.decisions

    def to_dict(self) -> dict[str, Any]:
        return {"problems": [p.to_dict() for p in self.problems], "tools": len(self.tools),
                "providers": list(self.providers),
                "groups": [g.to_dict() for g in self.groups()],
                "fixable": self.fixable, "decisions": self.decisions,
                "severity": self.severity, "hidden": self.hidden}


def lint_paths(paths: Sequence[str | os.PathLike[str]],
               providers: Sequence[str] = PROVIDERS, severity: str = SEVERITIES[-1]
               ) -> LintResult:
    """``contract lint``: the descriptors (or any tool list) in ``paths``, linted; only
    the problems at ``severity`` (``reject`` or ``drop``, the default) or above."""
    tools = read_tools(paths)
    providers = tuple(dict.fromkeys(providers)) or PROVIDERS
    found = lint(tools.values(), providers)
    shown = tuple(p for p in found if at_least(p.severity, severity))
    return LintResult(tuple(tools), providers, shown, severity, len(found) - len(shown))


def provider_json(document: Any) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def export_paths(paths: Sequence[str | os.PathLike[str]], provider: str, *,
                 lossy: bool = False, out: str | os.PathLike[str] | None = None
                 ) -> ExportResult:
    """``contract export``: the descriptors in ``paths`` as ``provider``'s tool JSON,
    written atomically to ``out`` when given (nothing is written when export refuses)."""
    result = export_tools(read_tools(paths).values(), provider, lossy=lossy)
    if out is not None:
        output_path("--out", out).write(provider_json(result.document).encode("utf-8"))
    return result
