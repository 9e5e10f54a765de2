"""``shadow_compare``: two builds' stored runs of each scenario, changed fields by rate,
answering the ``workbench shadow --compare --json`` document (docs/statistics.md).

Only the store is read: the tool runs no build (``shadow --old/--new`` runs commands,
which the server never starts for an agent).
"""

from __future__ import annotations

from typing import Any

from ..diff import Canon, load_canon, shadow_builds
from ..model import NotFoundError
from ._schemas import ID, PATH, nullable, obj
from ._tool import Tool, ToolContext

__all__ = ["SHADOW_COMPARE"]

_NUM = {"type": "number"}
_SIDE = obj({"changed": {"type": "integer"}, "runs": {"type": "integer"},
             "rate": nullable("number"), "low": _NUM, "high": _NUM},
            ("changed", "runs", "rate", "low", "high"))
_FIELD = obj({
    "path": {"type": "string"}, "base": _SIDE, "candidate": _SIDE,
    "difference": nullable("number"), "difference_low": _NUM, "difference_high": _NUM,
    "p_value": nullable("number"),
    "verdict": {"enum": ["REGRESSED", "IMPROVED", "NO CHANGE", "INCONCLUSIVE"]},
    "example": {"type": "object"}}, ("path", "base", "candidate", "difference", "p_value",
                                     "verdict"))


def shadow_compare(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    store = ctx.store()
    if not store.exists:
        raise NotFoundError(f"no store at {ctx.shown(store.root)}", code="STORE_NOT_FOUND",
                            hint="ingest the runs with their scenario and build first")
    canon = load_canon(ctx.file(args["canon"])) if "canon" in args else Canon()
    result = shadow_builds(store, args["compare"], canon=canon,
                           scenario=args.get("scenario"), reference=args.get("reference"),
                           alpha=args.get("alpha", 0.05), margin=args.get("margin", 0.10))
    return result.to_dict()


SHADOW_COMPARE = Tool(
    "shadow_compare",
    "Compare two builds' stored runs of each scenario field by field (traces labelled by "
    "`ingest --scenario --build`): per scenario every run is diffed against the base "
    "build's first run (or `reference`, a golden trace id) as `workbench diff` does "
    "(`canon`: a canon file), and per changed field (`tool_call NAME: path`, `+ kind "
    "name` an added event, `- …` a removed one, `↕ …` a moved one) the answer gives how "
    "many runs of each build changed it, the difference with its Newcombe interval, "
    "Boschloo's p-value and REGRESSED / IMPROVED / NO CHANGE / INCONCLUSIVE (`alpha` "
    "default 0.05, `margin` default 0.10). Answers the `workbench shadow --compare "
    "--json` document; reads the store only.",
    obj({"compare": {**ID, "description": "BASE..CANDIDATE: two builds, e.g. 1.4.2..1.5.0"},
         "scenario": ID, "reference": ID, "canon": PATH,
         "alpha": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1,
                   "default": 0.05},
         "margin": {"type": "number", "minimum": 0, "maximum": 1, "default": 0.10}},
        ("compare",), closed=True),
    obj({"compare": {"type": "string"}, "base": {"type": "string"},
         "candidate": {"type": "string"}, "alpha": _NUM, "margin": _NUM,
         "verdicts": {"type": "object"},
         "scenarios": {"type": "array", "items": obj({
             "scenario": {"type": "string"}, "reference": nullable("string"),
             "base_runs": {"type": "integer"}, "candidate_runs": {"type": "integer"},
             "fields": {"type": "array", "items": _FIELD}, "problem": {"type": "string"}},
             ("scenario", "reference", "base_runs", "candidate_runs", "fields"))}},
        ("compare", "base", "candidate", "alpha", "margin", "verdicts", "scenarios")),
    shadow_compare, read_only=True)
