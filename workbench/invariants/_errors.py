"""The errors of contract invariants and probing, each with a stable code::

    WorkbenchError
    ├── InputError (ValueError)
    │   ├── OpenAPIError            OPENAPI_INVALID, OPENAPI_REF, OPENAPI_REF_CYCLE
    │   └── NoHTTPEventsError       NO_HTTP_EVENTS
    └── UsageError (ValueError)
        ├── UnknownInvariantError   UNKNOWN_INVARIANT
        └── ProbeRefusedError       PROBE_TARGET_REFUSED, PROBE_WRITES_REFUSED,
                                    PROBE_UNAVAILABLE
"""

from __future__ import annotations

from ..model import InputError, UsageError

__all__ = ["NoHTTPEventsError", "OpenAPIError", "ProbeRefusedError", "UnknownInvariantError"]


class OpenAPIError(InputError):
    """An OpenAPI document that cannot be judged against: not OpenAPI 3.0/3.1, a ``$ref``
    that resolves to nothing or points outside the document (``OPENAPI_REF``), a ``$ref``
    cycle with no way out (``OPENAPI_REF_CYCLE``)."""

    code = "OPENAPI_INVALID"
    default_hint = "docs/invariants.md says what the document needs (OpenAPI 3.0 or 3.1)"


class NoHTTPEventsError(InputError):
    code = "NO_HTTP_EVENTS"
    default_hint = ("ingest HTTP recordings first (HAR, VCR, Pact, OTel HTTP spans) or name "
                    "traces that hold `http` events with --trace")


class UnknownInvariantError(UsageError):
    code = "UNKNOWN_INVARIANT"
    default_hint = ("the invariants are status_declared, shape, no_server_error, "
                    "clean_refusal, idempotent_retry, pagination, refuses_unknown_caller, "
                    "read_your_write")


class ProbeRefusedError(UsageError):
    """A probe that would reach past what the user named: a target that is not loopback,
    or a write without ``--writes``."""

    code = "PROBE_TARGET_REFUSED"
    default_hint = "probe only a loopback target you run yourself (http://127.0.0.1:PORT)"
