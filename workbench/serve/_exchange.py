"""Exchanges: one recorded request and the answer to give, read from a recording (HAR,
VCR, Pact, our JSONL, a promoted fixture's folder) or written inline in a scenario.

A recording is read through the ingest pipeline into a throwaway store
(``ingest.read_trace``, not redacted: the file is the caller's and nothing of it is
kept), so every format the workbench reads gives the same ``http`` event shape:
``args = {method, path, query, headers, body}`` and ``result = {status, headers, body}``.
Requests that got no answer in the recording are not served.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..fixtures import load_fixture
from ..ingest import read_trace
from ..model import Trace, WorkbenchError
from ._errors import RecordingError
from ._failures import Failure

__all__ = ["BODY_MODES", "Exchange", "Match", "exchanges_of", "read_recording"]

BODY_MODES = ("ignore", "exact", "shape")


@dataclass(frozen=True, slots=True)
class Match:
    """How a request is matched to an exchange: method and path always; the query when
    ``query``; the named request ``headers`` (lower-case); the body by ``body`` mode."""

    query: bool = True
    headers: tuple[str, ...] = ()
    body: str = "ignore"


@dataclass(slots=True)
class Exchange:
    """One recorded exchange and how to serve it."""

    id: str
    method: str
    path: str
    query: dict[str, Any]
    headers: dict[str, Any]
    body: Any
    status: int
    response_headers: dict[str, Any]
    response_body: Any
    source: str
    has_body: bool = False
    has_response_body: bool = False
    match: Match = field(default_factory=Match)
    failures: tuple[Failure, ...] = ()
    uses: int = 0  # requests it answered (or held) so far in this run

    @property
    def name(self) -> str:
        return f"{self.method} {self.path}"


def read_recording(path: str | os.PathLike[str]) -> list[Trace]:
    """The traces of a recording file, or of a fixture version folder."""
    p = Path(path)
    try:
        if p.is_dir():
            if not (p / "manifest.json").is_file():
                raise RecordingError(f"{p} is a folder but not a fixture version "
                                     "(no manifest.json)", file=str(p))
            return [load_fixture(p).trace]
        return read_trace(p)
    except RecordingError:
        raise
    except WorkbenchError as exc:
        if exc.code == "FILE_NOT_FOUND":
            raise RecordingError(f"no recording {p}", code="FILE_NOT_FOUND",
                                 hint="check the path", file=str(p)) from None
        raise RecordingError(f"cannot read the recording {p}: {exc.message}",
                             file=str(p), cause=exc.code) from None


def exchanges_of(traces: list[Trace], source: str, *, prefix: str, match: Match,
                 failures: tuple[Failure, ...] = ()) -> list[Exchange]:
    """Every answered ``http`` event of ``traces`` as an exchange, in recording order.
    Ids are ``PREFIX`` for a single exchange, else ``PREFIX#N`` (1-based)."""
    events = [e for t in traces for e in t.events
              if e.kind == "http" and type(e.args) is dict and type(e.result) is dict
              and isinstance(e.result.get("status"), int)]
    out: list[Exchange] = []
    for i, e in enumerate(events, 1):
        args, result = e.args, e.result
        query = args.get("query")
        out.append(Exchange(
            id=prefix if len(events) == 1 else f"{prefix}#{i}",
            method=str(args.get("method") or "GET").upper(),
            path=str(args.get("path") or "/"),
            query=query if type(query) is dict else {},
            headers=_dict(args.get("headers")),
            body=args.get("body"), has_body="body" in args,
            status=int(result["status"]),
            response_headers=_dict(result.get("headers")),
            response_body=result.get("body"), has_response_body="body" in result,
            source=source, match=match, failures=failures))
    return out


def _dict(v: Any) -> dict[str, Any]:
    return {str(k).lower(): x for k, x in v.items()} if type(v) is dict else {}
