"""``replay``: a finding (or a group's latest) re-run against a target, each attempt
recorded and judged, answering the ``workbench replay --json`` document — what an agent
attaches to its pull request once a fix no longer reproduces the finding.

The tool takes no command to run (no ``--oracle-cmd``): an agent cannot make the server
start a process. Credentials come from the server's own environment variables named by
``auth_env``, never from the arguments' values or the store, and only from those the
operator allowed with ``workbench mcp --allow-auth-env VAR``; the target must lie under
a base URL the operator allowed with ``--allow-target URL`` (same scheme, host and port,
the path at or below the allowed one). Anything else is refused before a request is
sent (``AUTH_ENV_NOT_ALLOWED``, ``TARGET_NOT_ALLOWED``): a prompt-injected agent cannot
send the server's environment anywhere.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from ..model import REPLAY_OUTCOMES, UsageError
from ..replay import Target, parse_target, run_replay
from ._schemas import ID, PATH, REPRODUCTION, TEXT, nullable, obj
from ._tool import Tool, ToolContext

__all__ = ["REPLAY"]

_RUN = obj({
    "attempt": {"type": "integer"}, "outcome": {"enum": list(REPLAY_OUTCOMES)},
    "reproduced": nullable("boolean"), "steps_run": {"type": "integer"},
    "steps": {"type": "integer"}, "signature": nullable("string"),
    "trace_id": nullable("string"), "error": {"type": ["object", "null"]},
    "tokens_sent": {"type": "array", "items": {"type": "integer"},
                    "description": "steps (1-based) sent with a redaction token still in "
                                   "their path, query or body: not a faithful replay"},
    "divergence": {
        "type": ["object", "null"],
        "properties": {"step": {"type": "integer"}, "method": {"type": "string"},
                       "path": {"type": "string"}, "recorded": nullable("integer"),
                       "answered": nullable("integer"), "message": {"type": "string"}},
        "description": "the first step (1-based) that did not land on the operation it "
                       "was recorded against (a 404/405/501, a redirect or a 502-504 "
                       "where the recording had another answer), or at which the attempt "
                       "stopped (answered null): the path as sent, both statuses and the "
                       "likely cause; null when every step landed"},
}, ("attempt", "outcome", "reproduced", "steps_run", "signature"))


def _under(target: Target, base: Target) -> bool:
    """``target`` lies at or below the allowed base URL ``base``; a path with a dot
    segment or an encoded dot or slash (``/api/../admin``, ``/api/%2e%2e``) lies under
    nothing, since the service may resolve it elsewhere."""
    segments = unquote(target.base).split("/")
    if "." in segments or ".." in segments or "%2f" in target.base.lower():
        return False
    return ((target.scheme, target.host.lower(), target.port)
            == (base.scheme, base.host.lower(), base.port)
            and (target.base == base.base or target.base.startswith(base.base + "/")))


def _allowed(ctx: ToolContext, target: str, auth_env: list[str]) -> None:
    """Refuse a target or a credential the operator did not allow at start."""
    wanted = parse_target(target)
    if not any(_under(wanted, parse_target(base)) for base in ctx.allow_targets):
        where = ", ".join(ctx.allow_targets) or "none"
        raise UsageError(f"replay: target {target!r} is not allowed (allowed: {where})",
                         code="TARGET_NOT_ALLOWED", target=target,
                         hint="the server's operator allows targets when starting it: "
                              "`workbench mcp --allow-target URL`")
    for spec in auth_env:
        var = spec.rpartition("=")[2]
        if var not in ctx.allow_auth_env:
            where = ", ".join(sorted(ctx.allow_auth_env)) or "none"
            raise UsageError(f"replay: auth_env {var!r} is not allowed (allowed: {where})",
                             code="AUTH_ENV_NOT_ALLOWED", variable=var,
                             hint="the server's operator allows credentials when starting "
                                  "it: `workbench mcp --allow-auth-env VAR`")


def replay(ctx: ToolContext, args: dict[str, Any]) -> dict[str, Any]:
    _allowed(ctx, args["target"], list(args.get("auth_env", ())))
    if "invariants" in args and "rules" in args:
        raise UsageError("replay: give `invariants` or `rules`, not both",
                         hint="a finding is judged by the rule or invariant that found it")

    def judge(key: str) -> str | None:
        return str(ctx.file(args[key])) if key in args else None

    result = run_replay(ctx.store(), args["finding"], args["target"], env=args.get("env"),
                        attempts=args.get("attempts", 3), auth_env=args.get("auth_env", ()),
                        allow_writes=args.get("allow_writes", ()),
                        invariants=judge("invariants"), rules=judge("rules"),
                        timeout=args.get("timeout", 10.0),
                        fixed_below=args.get("fixed_below"))
    return result.to_json()


REPLAY = Tool(
    "replay",
    "Re-run a finding's steps (its minimized trace where one is stored) against `target`, "
    "`attempts` times: HTTP steps are sent with ids from earlier answers replaced by the "
    "new answers' ids, values a probe generated and the store redacted drawn again from "
    "its seed (each proved against its token; `runs[].tokens_sent` names steps sent "
    "with a token), each attempt is recorded as a trace in `env` (default: the "
    "finding's own) and judged by the same rule or invariant, and appended to the store's "
    "replays. An attempt is `clean` only when every step landed on the operation it was "
    "recorded against and the judge found nothing; a step answered 404/405/501 (a "
    "contract server's unmatched answer), a redirect or 502-504 where the recording had "
    "another answer makes it `diverged`, and `runs[].divergence` names that step and the "
    "likely cause (\"POST /v1/orders answered 404 where the recording had 201: is "
    "--target's base path right?\"); no answer at all is `error`. `reproduced`: true if "
    "any attempt found the same signature on steps that landed, false if every observed "
    "attempt was clean, null if none observed anything (`error` says why). "
    "`reproduction`: the reproduction rate over the observed attempts with its 95% "
    "Clopper-Pearson interval. `status`: the group's status after it — `fixed` only "
    "after 3 clean replays in the environment the finding came from (diverged and error "
    "attempts count for nothing); with `fixed_below` (a rate, as `replay --fixed-below`) "
    "`fixed` when the interval's upper bound is under it, `flaky` when the interval holds "
    "it, `open` when its lower bound is at or over it. "
    "`finding`: a finding id or a group's signature. "
    "`target` must lie under a base URL the server was started with (`workbench mcp "
    "--allow-target URL`: same scheme, host and port, the path at or below it; else "
    "TARGET_NOT_ALLOWED). Writing steps go only to a loopback target or a host named in "
    "`allow_writes`; credentials come from the server's environment variables named in "
    "`auth_env` (`VAR` for the Authorization header, `HEADER=VAR` for another), only "
    "those the server was started with (`--allow-auth-env VAR`; else "
    "AUTH_ENV_NOT_ALLOWED).",
    obj({"finding": ID, "target": {**TEXT, "minLength": 1, "maxLength": 2048},
         "env": ID, "attempts": {"type": "integer", "minimum": 1, "maximum": 100,
                                 "default": 3},
         "auth_env": {"type": "array", "items": ID, "maxItems": 20},
         "allow_writes": {"type": "array", "items": ID, "maxItems": 20},
         "invariants": PATH, "rules": PATH,
         "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": 600,
                     "default": 10},
         "fixed_below": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1,
                         "description": "read the group by this run's reproduction rate "
                                        "(docs/statistics.md)"}},
        ("finding", "target"), closed=True),
    obj({"finding": {"type": "string"}, "group": {"type": "string"},
         "env": {"type": "string"}, "target": {"type": "string"},
         "attempts": {"type": "integer"}, "runs": {"type": "array", "items": _RUN},
         "reproduced": nullable("boolean"), "status": {"type": "string"},
         "regenerated": {"type": "integer", "description": "generated values drawn again "
                         "from a probe's seed and proved against their redaction tokens"},
         "error": {"type": ["object", "null"]}, "reproduction": REPRODUCTION,
         "fixed_below": nullable("number")},
        ("finding", "group", "env", "target", "attempts", "runs", "reproduced", "status",
         "reproduction", "fixed_below")),
    replay, open_world=True)
