"""Failure modes: the ways providers break during changes, injected into an answer.

Each mode is named on the command line (``--failure "missing-field items[*].owner"``)
or in a scenario, for every exchange or for one. docs/serve.md says which agent bug each
one exposes. A mode either changes the answer (``Answer``) or holds the request: it is
recorded and never answered (``timeout-after-record``; ``retry-then-ok`` on an
exchange's first attempt only).
"""

from __future__ import annotations

import copy
import http
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["MODES", "Answer", "Failure", "apply_failures", "holds", "parse_failure"]

#: mode -> the names of its arguments
MODES: dict[str, tuple[str, ...]] = {
    "missing-field": ("PATH",),
    "enum-member": ("PATH", "VALUE"),
    "empty-page-with-cursor": (),
    "content-type": ("TYPE",),
    "error-200": (),
    "timeout-after-record": (),
    "retry-then-ok": (),
    "status": ("CODE",),
}
_STEP = re.compile(r"([^.\[\]]+)|\[(\*|-?\d+)\]")
_LISTS = ("items", "data", "results", "projects", "entries", "records")
_CURSORS = ("next_cursor", "cursor", "next", "next_page_token", "nextPageToken")


@dataclass(frozen=True, slots=True)
class Failure:
    """One failure mode with its arguments, as written."""

    mode: str
    args: tuple[str, ...] = ()

    def __str__(self) -> str:
        return " ".join((self.mode, *self.args))


@dataclass(slots=True)
class Answer:
    """What is sent back: status, headers (lower-case names) and the body (a JSON value,
    or text when ``text``)."""

    status: int
    headers: dict[str, Any] = field(default_factory=dict)
    body: Any = None
    has_body: bool = True


def parse_failure(text: str) -> Failure | str:
    """A failure from ``MODE ARG...``; the reason as a string when it is not one."""
    parts = text.split(None, 2 if text.split(None, 1)[:1] == ["enum-member"] else -1)
    if not parts:
        return "an empty failure mode"
    mode, args = parts[0], tuple(parts[1:])
    if mode not in MODES:
        return f"unknown failure mode {mode!r} (modes: {', '.join(MODES)})"
    want = MODES[mode]
    if len(args) != len(want):
        usage = " ".join((mode, *want))
        return f"failure mode {mode} takes {len(want)} argument(s): `{usage}`"
    if mode in ("missing-field", "enum-member") and not _steps(args[0]):
        return f"{mode}: {args[0]!r} is not a path such as items[*].owner"
    if mode == "status" and not (args[0].isdigit() and 100 <= int(args[0]) <= 599):
        return f"status: {args[0]!r} is not an HTTP status code (100-599)"
    return Failure(mode, args)


def holds(failures: tuple[Failure, ...], attempt: int) -> str | None:
    """The mode that holds this request unanswered (``attempt`` is 1-based), or None."""
    for f in failures:
        if f.mode == "timeout-after-record" or (f.mode == "retry-then-ok" and attempt == 1):
            return f.mode
    return None


def apply_failures(answer: Answer, failures: tuple[Failure, ...]) -> Answer:
    """``answer`` changed by each failure in turn (the recorded one is left as it was)."""
    out = Answer(answer.status, dict(answer.headers), copy.deepcopy(answer.body),
                 answer.has_body)
    for f in failures:
        _APPLY.get(f.mode, _nothing)(out, f.args)
    return out


def _nothing(a: Answer, args: tuple[str, ...]) -> None:
    return None


def _missing_field(a: Answer, args: tuple[str, ...]) -> None:
    steps = _steps(args[0])
    for parent, key in _parents(a.body, steps):
        if type(parent) is dict:
            parent.pop(key, None)


def _enum_member(a: Answer, args: tuple[str, ...]) -> None:
    value: Any = args[1]
    for parent, key in _parents(a.body, _steps(args[0])):
        if _has(parent, key) or type(parent) is dict:
            parent[key] = value


def _empty_page(a: Answer, args: tuple[str, ...]) -> None:
    body = a.body
    if type(body) is list:
        a.body = {"items": [], "next_cursor": "cursor-after-empty-page"}
        return
    if type(body) is not dict:
        a.body = {"items": [], "next_cursor": "cursor-after-empty-page"}
        return
    key = next((k for k in _LISTS if type(body.get(k)) is list), None)
    key = key or next((k for k, v in body.items() if type(v) is list), "items")
    body[key] = []
    cursor = next((k for k in _CURSORS if k in body), "next_cursor")
    if not body.get(cursor):
        body[cursor] = "cursor-after-empty-page"
    a.has_body = True


def _content_type(a: Answer, args: tuple[str, ...]) -> None:
    a.headers["content-type"] = args[0]


def _error_200(a: Answer, args: tuple[str, ...]) -> None:
    a.status = 200
    a.headers["content-type"] = "application/json"
    a.body = {"error": {"code": "internal_error",
                        "message": "the request could not be completed"}}
    a.has_body = True


def _status(a: Answer, args: tuple[str, ...]) -> None:
    a.status = int(args[0])
    if a.status >= 400:
        try:
            reason = http.HTTPStatus(a.status).phrase
        except ValueError:
            reason = f"HTTP {a.status}"
        a.headers["content-type"] = "application/json"
        a.body = {"error": {"code": f"http_{a.status}", "message": reason}}
        a.has_body = True


_APPLY = {"missing-field": _missing_field, "enum-member": _enum_member,
          "empty-page-with-cursor": _empty_page, "content-type": _content_type,
          "error-200": _error_200, "status": _status}


def _steps(path: str) -> list[str | int | None]:
    """``items[*].owner`` -> ["items", None, "owner"] (None: every item); [] if invalid."""
    steps: list[str | int | None] = []
    pos = 0
    text = path[5:] if path.startswith("body.") else path
    for m in _STEP.finditer(text):
        dotted = pos > 0 and m.start() == pos + 1 and text[pos] == "."
        if m.start() != pos and not (dotted and m.group(1) is not None):
            return []
        pos = m.end()
        if m.group(1) is not None:
            steps.append(m.group(1))
        else:
            steps.append(None if m.group(2) == "*" else int(m.group(2)))
    return steps if pos == len(text) and steps else []


def _has(container: Any, key: str | int) -> bool:
    """``container[key]`` exists (a mapping's key, a list's index)."""
    if isinstance(key, int):
        return type(container) is list and -len(container) <= key < len(container)
    return type(container) is dict and key in container


def _parents(value: Any, steps: list[str | int | None]) -> list[tuple[Any, Any]]:
    """(container, key) of every place ``steps`` reaches, its last step not taken."""
    current: list[Any] = [value]
    for step in steps[:-1]:
        nxt: list[Any] = []
        for v in current:
            if step is None and type(v) is list:
                nxt.extend(v)
            elif step is not None and _has(v, step):
                nxt.append(v[step])
        current = nxt
    last = steps[-1]
    out: list[tuple[Any, Any]] = []
    for v in current:
        if last is None and type(v) is list:
            out.extend((v, i) for i in range(len(v)))
        elif last is not None:
            out.append((v, last))
    return out
