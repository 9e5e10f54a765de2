"""Replay: a finding's steps re-run against a target of the same contract, each attempt
recorded and judged again, appended to ``replays``; what closes (``fixed``) or reopens
a finding group. Also the live oracle ``minimize --target`` shrinks with. See
docs/replay.md."""

from ._errors import (
    OUTCOME_CODES,
    AuthEnvError,
    FindingNotFoundError,
    ReplayInputError,
    ReplayTargetError,
)
from ._find import Picked, pick
from ._oracle import ReplayOracle, minimize_live
from ._replay import ReplayResult, ReplayRun, run_replay
from ._target import Target, credentials, parse_target

__all__ = [
    "OUTCOME_CODES",
    "AuthEnvError",
    "FindingNotFoundError",
    "Picked",
    "ReplayInputError",
    "ReplayOracle",
    "ReplayResult",
    "ReplayRun",
    "ReplayTargetError",
    "Target",
    "credentials",
    "minimize_live",
    "parse_target",
    "pick",
    "run_replay",
]
