"""Did a replayed step land? A step landed when the target answered it on the operation
it was recorded against: an answer came back, and it is not one that says the request
reached no operation there where the recording had another answer. Only an attempt whose
steps all landed can be evidence that a failure is gone (docs/replay.md, "Did the steps
land?").

A step **did not land** when the target is a ``workbench serve`` contract server: its
``501`` "no matching exchange" says the request matched nothing there, and any other
answer of its (marked by its ``x-workbench-served`` header) is a recording answering,
not the service — a recording replayed against itself shows neither a bug nor its fix.
Otherwise a step did not land when its answer's status differs from the recorded one
and:

* the target answered ``404``, ``405`` or ``501``: no such route or method there (the
  contract server's ``501`` names the closest recorded exchange);
* it answered ``502``, ``503`` or ``504``: a gateway answered for a service it could
  not reach;
* it answered a redirect (``3xx``) where the recording had none: the request was sent
  elsewhere;
* no answer came at all (the attempt's ``error``: refused, dropped, timed out) or the
  step could not be sent (a credential no ``--auth-env`` gives), or a credential sent
  was refused (``401``/``403``).

Any other answer landed, whatever its class: a ``4xx`` where the recording had ``201``
may be the fix (a request now refused as it should be), a ``201`` where it had ``500``
too. The rule or invariant judges those.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..invariants import Exchange
from ..serve import SERVED_HEADER

__all__ = ["Divergence", "divergences", "stopped_at"]

#: answers that say the request reached no operation there
_NO_ROUTE = frozenset({404, 405, 501})
_NO_UPSTREAM = frozenset({502, 503, 504})
_BASE = "is --target's base path right?"


@dataclass(frozen=True)
class Divergence:
    """The first step of an attempt that did not land, and the likely cause."""

    step: int                 # 1-based, among the steps to send
    method: str
    path: str                 # as sent: under the target's base path
    recorded: int | None      # the recorded answer's status (None: none recorded)
    answered: int | None      # the replay's (None: no answer)
    message: str              # what happened and the likely cause, in one sentence

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "method": self.method, "path": self.path,
                "recorded": self.recorded, "answered": self.answered,
                "message": self.message}


def divergences(recorded: Sequence[Exchange], answered: Sequence[Exchange]
                ) -> list[Divergence]:
    """Every answered step that did not land, in step order (``answered[i]`` is the
    replay of ``recorded[i]``)."""
    out = []
    for i, (old, new) in enumerate(zip(recorded, answered, strict=False)):
        why = _cause(old, new)
        if why is not None:
            had = "no answer" if old.status is None else str(old.status)
            out.append(Divergence(i + 1, new.method, new.path, old.status, new.status,
                                  f"{new.method} {new.path} answered {new.status} where "
                                  f"the recording had {had}{why}"))
    return out


def stopped_at(step: int, old: Exchange, new: Exchange | None, message: str) -> Divergence:
    """The step at which an attempt stopped without an answer it could use (its
    ``error``): ``message`` is the attempt's error message."""
    return Divergence(step, old.method, new.path if new is not None else old.path,
                      old.status, None if new is None else new.status, message)


def _cause(old: Exchange, new: Exchange) -> str | None:
    """`` (detail): likely cause`` when ``new`` did not land, else None."""
    a, r = new.status, old.status
    note, fields = _contract_miss(new.resp_body) if a == 501 else ("", [])
    if a is not None and not note and new.header(SERVED_HEADER, response=True):
        return (" from a recording (a `workbench serve` contract server), not from the "
                "service: a recording cannot show the bug or its fix; is --target the "
                "service itself?")
    if a is None or (a == r and not note):
        return None
    if a in _NO_ROUTE:
        if fields and "path" not in fields and "method" not in fields:
            return f"{note}: does the contract server hold the recording these steps came from?"
        return f"{note}: {_BASE}"
    if a in _NO_UPSTREAM:
        return (": the target answered for a service it could not reach; is that service "
                "up, and is --target the service itself?")
    if 300 <= a < 400 and not (r is not None and 300 <= r < 400):
        to = new.header("location", response=True)
        return (f" (a redirect{f' to {to}' if to else ''}): is --target's scheme, host and "
                "base path right?")
    return None


def _contract_miss(body: Any) -> tuple[str, list[str]]:
    """What a contract server's ``501`` says: a note, and the fields in which the closest
    recorded exchange differs (none when the answer is not a contract server's miss)."""
    err = body.get("error") if isinstance(body, dict) else None
    if not isinstance(err, dict) or err.get("code") != "no_matching_exchange":
        return "", []
    closest = err.get("closest")
    if not isinstance(closest, dict):
        closest = {}
    fields = [str(d.get("field")) for d in closest.get("differences") or ()
              if isinstance(d, dict)]
    near = closest.get("request")
    if not near or not fields:
        return " (the contract server holds no recorded exchange for it)", fields
    return (f" (the contract server holds no recorded exchange for it; the closest, "
            f"{near}, differs in {', '.join(fields[:4])})", fields)
