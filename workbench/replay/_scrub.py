"""What replay sent as a credential, scrubbed from everything an attempt records: the
answers' bodies and headers, the raw bytes the HAR keeps, URLs and the error message
(and so the divergences and the ``replays`` rows built from them), with
``redact.Scrubber`` over the ``--auth-env`` values (docs/replay.md, "Credentials")."""

from __future__ import annotations

from dataclasses import replace

from ..invariants import Exchange
from ..redact import Scrubber
from ._send import Attempt

__all__ = ["scrub_attempt"]


def _exchange(s: Scrubber, x: Exchange) -> Exchange:
    return replace(x, path=s.text(x.path), query=s.value(x.query), headers=s.value(x.headers),
                   body=s.value(x.body), resp_headers=s.value(x.resp_headers),
                   resp_body=s.value(x.resp_body))


def scrub_attempt(s: Scrubber, a: Attempt) -> Attempt:
    """The attempt as it may be recorded."""
    if not s:
        return a
    return replace(a, exchanges=[_exchange(s, x) for x in a.exchanges],
                   raw=[s.raw(r) for r in a.raw], urls=[s.text(u) for u in a.urls],
                   error_message=None if a.error_message is None else s.text(a.error_message))
