"""The errors of ``replay``, each with a stable code::

    WorkbenchError
    ├── NotFoundError (LookupError)
    │   └── FindingNotFoundError    FINDING_NOT_FOUND, AMBIGUOUS_FINDING
    └── UsageError (ValueError)
        ├── ReplayTargetError       REPLAY_TARGET_INVALID, REPLAY_TARGET_REFUSED
        ├── AuthEnvError            AUTH_ENV_UNSET, AUTH_ENV_INVALID
        └── ReplayInputError        REPLAY_NEEDS_ORACLE, REPLAY_JUDGE_MISSING,
                                    REPLAY_NO_STEPS

What an attempt could not observe is not raised but recorded as its outcome ``error``
(or ``diverged``: ``REPLAY_DIVERGED``) with one of ``OUTCOME_CODES`` (docs/replay.md).
"""

from __future__ import annotations

from ..model import NotFoundError, UsageError

__all__ = ["OUTCOME_CODES", "AuthEnvError", "FindingNotFoundError", "ReplayInputError",
           "ReplayTargetError"]

#: why an attempt observed nothing (``replays.error_code``; never raised)
OUTCOME_CODES: dict[str, str] = {
    "CREDENTIAL_MISSING": "a recorded credential header is redacted and no --auth-env "
                          "names a variable for it",
    "REPLAY_UNAUTHORIZED": "the target answered 401 or 403 to a step sent with a credential",
    "REPLAY_UNREACHABLE": "the target refused or dropped the connection",
    "REPLAY_TIMEOUT": "the target did not answer within --timeout",
    "ORACLE_UNRESOLVED": "--oracle-cmd exited with neither 0 nor 1, or timed out",
    "LIMIT_EXCEEDED": "an answer was larger than the limit answer_bytes (docs/cli.md)",
    "REPLAY_DIVERGED": "a step did not land on the operation it was recorded against (a "
                       "404, 405 or 501, a redirect or a gateway's 502-504 where the "
                       "recording had another answer): the attempt says nothing about the "
                       "finding (docs/replay.md, Did the steps land?)",
    "TOKENS_SENT": "the attempt came back clean but sent redaction tokens where values were "
                   "recorded (not drawn again from a probe's seed): a clean answer to other "
                   "inputs says nothing about the bug (docs/replay.md, Generated inputs)",
}


class FindingNotFoundError(NotFoundError):
    code = "FINDING_NOT_FOUND"
    default_hint = ("`workbench findings --json` lists finding ids (finding_id); "
                    "`workbench findings --group` the signatures")


class ReplayTargetError(UsageError):
    """A target that is not an http(s) URL, or one the writes allow-list refuses."""

    code = "REPLAY_TARGET_INVALID"
    default_hint = "name the service with --target http://HOST:PORT[/base]"


class AuthEnvError(UsageError):
    code = "AUTH_ENV_UNSET"
    default_hint = ("export the variable first; --auth-env VAR fills Authorization, "
                    "--auth-env HEADER=VAR another header")


class ReplayInputError(UsageError):
    code = "REPLAY_NEEDS_ORACLE"
    default_hint = "docs/replay.md says what each kind of step needs"
