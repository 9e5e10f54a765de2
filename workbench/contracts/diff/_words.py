"""How each change is worded: what it does to an agent that calls the tool, in the
operational language a reviewer acts on ("list_projects no longer returns
items[*].owner; an agent selecting by owner now sees none")."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from ._schema import SchemaChange

__all__ = ["words"]

_DOES = {"read_only": "only reads", "idempotent_write": "writes (idempotently)",
         "write": "writes", "external_send": "sends outside", "destructive": "destroys"}


def _v(value: Any) -> str:
    return json.dumps(value, default=str) if not isinstance(value, str) else repr(value)


def _rel(path: tuple[Any, ...]) -> str:
    from ...model import format_path
    return format_path(path[1:]) if len(path) > 1 else "the whole " + (
        "arguments" if path and path[0] == "args" else "result")


def _name(path: tuple[Any, ...]) -> str:
    names = [p for p in path[1:] if isinstance(p, str)]
    return names[-1] if names else _rel(path)


def _side(direction: str) -> str:
    return "arguments" if direction == "input" else "result"


def _tool_words(tool: str, c: SchemaChange) -> str | None:
    k = c.kind
    if k == "tool-removed":
        return (f"{tool} is gone: an agent that calls it gets an unknown-tool error, and a "
                "model may pick a near neighbour instead")
    if k == "tool-added":
        does = _DOES.get(c.new or "", "may do anything (side effect unknown)")
        return f"{tool} is new and {does}: a model may now pick it"
    if k == "description-changed" and c.path == ("description",):
        return (f"{tool}'s description was rewritten: the model picks tools and fills "
                "their arguments by it, so which calls it makes may change")
    if k == "side-effect-changed":
        return (f"{tool}'s side effect went from {c.old or 'unknown'} to {c.new or 'unknown'}"
                + (": an agent that calls it without approval now "
                   + _DOES.get(c.new or "", "may do anything") if c.sense == "up" else
                   ": a plan that gated it on approval may now skip the gate"))
    if k == "auth-scope-changed":
        gained = sorted(set(c.new or ()) - set(c.old or ()))
        if gained:
            return (f"{tool} now needs scope {', '.join(gained)}: a call with a token "
                    "without it is refused")
        return f"{tool} needs fewer scopes ({', '.join(c.new or ()) or 'none'})"
    if k == "idempotency-changed":
        return _idempotency(tool, c)
    if k == "timeout-changed":
        if c.sense in ("up", "down"):
            verb = "fell" if c.sense == "down" else "rose"
            tail = (": a call that took longer now times out, and an agent may retry it"
                    if c.sense == "down" else "")
            return f"{tool}'s timeout {verb} from {c.old:g} s to {c.new:g} s{tail}"
        return f"{tool}'s timeout is now {'unknown' if c.new is None else f'{c.new:g} s'}"
    if k == "deprecated" and c.path == ("deprecated",):
        if c.sense == "set":
            repl = f"; use {c.new}" if isinstance(c.new, str) else ""
            return f"{tool} is deprecated{repl}: agents keep calling it until their tools change"
        return f"{tool} is no longer deprecated"
    return None


def _idempotency(tool: str, c: SchemaChange) -> str:
    s = c.sense
    if s == "moved":
        return (f"{tool}'s idempotency key moved from {c.old} to {c.new}: a retry that "
                "sends it the old way is not recognised and may run twice")
    if s == "required":
        return f"{tool} now requires its idempotency key {c.new}: a call without it is refused"
    if s == "removed":
        return (f"{tool} no longer takes an idempotency key ({c.old}): a retried call may "
                "run twice")
    if s == "optional":
        return f"{tool}'s idempotency key {c.new} is no longer required"
    return f"{tool} now takes an idempotency key {c.new}"


def _errors(tool: str, c: SchemaChange, writes: bool) -> str | None:
    code = c.path[-1] if c.path else "?"
    if c.kind == "error-code-added" and c.keyword == "retryable":
        again = ", and each retry may write again" if writes else ""
        return f"{tool} now marks {code} retryable: an agent will retry it{again}"
    if c.kind == "error-code-added":
        return (f"{tool} may now fail with the error code {code}: an agent has no handling "
                "for it (a new code often reads as \"retry allowed\")")
    if c.kind == "error-code-removed" and c.keyword == "retryable":
        return (f"{tool} no longer marks {code} retryable: an agent that retries it repeats "
                "a call the tool says will fail again")
    if c.kind == "error-code-removed":
        return (f"{tool} no longer returns the error code {code}: a retry or branch on it "
                "never fires")
    return None


#: what a call that still sends a removed argument does, by the tool's side effect
_WITHOUT = {
    "read_only": "the read runs without it and may return something else",
    "idempotent_write": "the write goes ahead without {name}",
    "write": "the write goes ahead without {name}",
    "external_send": "the call goes ahead, and what it writes or sends goes out without "
                     "{name}",
    "destructive": "the destructive call goes ahead without it: if {name} narrowed what "
                   "is destroyed, more is destroyed now",
}
_UNKNOWN = ("the call goes ahead without it, and what the tool then does is unknown (it "
            "has no side-effect class)")
#: what an agent misses when a result field it reads is gone, by the side effect
_UNREAD = {
    "read_only": "an agent selecting by {name} now sees none",
    "destructive": "an agent that reads {name} to learn what was destroyed finds nothing "
                   "there",
}
_UNREAD_WRITE = ("an agent that reads {name} to confirm the write or to make its next call "
                 "finds nothing there, and may take the write as failed and repeat it")
_UNREAD_UNKNOWN = "an agent reading {name} finds nothing there"


def _field(tool: str, c: SchemaChange, d: str, path: tuple[Any, ...],
           effect: str | None, role: str | None) -> str:
    rel, name, inp = _rel(path), _name(path), d == "input"
    k = c.kind
    if k == "field-removed" or k == "field-renamed":
        what = ("argument" if role != "filter" else "option" if c.old == "boolean" else
                "filter")
        gone = (f"renamed the {what} {rel} to {_rel((*path[:-1], c.to))}" if inp else
                f"renamed {rel} to {_rel((*path[:-1], c.to))}") if k == "field-renamed" else (
            f"no longer takes the {what} {rel}" if inp else f"no longer returns {rel}")
        if not inp:
            unread = _UNREAD.get(effect or "", _UNREAD_WRITE if effect else _UNREAD_UNKNOWN)
            return f"{tool} {gone} in its result; {unread.format(name=name)}"
        if c.closed:
            fate = "refused: the arguments are closed"
        elif role == "filter" and c.old == "boolean":  # a switch, not a narrowing
            fate = f"silently ignored: the read runs as if {name} were not set"
        elif role == "filter":
            fate = (f"silently ignored, so a filter on {name} now filters by nothing: the "
                    "read returns what it would without it")
        else:
            fate = "silently ignored, so " + _WITHOUT.get(effect or "", _UNKNOWN).format(
                name=name)
        return f"{tool} {gone}: an agent that still sends {name} is {fate}"
    if k == "field-added":
        if inp:
            req = " (required)" if c.keyword == "required" else ""
            return f"{tool} takes a new argument {rel}{req}"
        return f"{tool} now also returns {rel}"
    if k == "required-added":
        return (f"{tool} now requires {rel}: a call that omits it is refused" if inp
                else f"{tool} now always returns {rel}")
    if k == "required-removed":
        return (f"{tool} no longer requires {rel}" if inp else
                f"{tool} may now leave out {rel}: an agent reading it may find nothing there")
    return _value(tool, c, d, path, effect)


def _value(tool: str, c: SchemaChange, d: str, path: tuple[Any, ...],
           effect: str | None) -> str:
    rel, name, inp, k = _rel(path), _name(path), d == "input", c.kind
    if k == "type-changed":
        return _type(tool, c, inp, rel)
    if k == "enum-value-added":
        return (f"{tool} accepts a new value {_v(c.new)} for {rel}" if inp else
                f"{tool} may now return {rel} = {_v(c.new)}: an agent that branches on "
                f"{name} has no branch for it (a new value often reads as \"retry allowed\" "
                "or \"done\")")
    if k == "enum-value-removed":
        return (f"{tool} no longer accepts {_v(c.old)} for {rel}: a call that sends it is "
                "refused" if inp else
                f"{tool} no longer returns {_v(c.old)} for {rel}: a branch on it never fires")
    if k == "default-changed":
        return _default(tool, c, inp, name, effect)
    if k in ("constraint-narrowed", "constraint-widened"):
        return _constraint(tool, c, inp, rel)
    if k == "additional-properties-closed":
        where = "" if len(path) == 1 else f" in {rel}"
        return (f"{tool} now refuses fields it does not declare{where}: an extra or "
                "misspelled argument is refused instead of ignored" if inp else
                f"{tool} no longer returns fields it does not declare{where}")
    if k == "description-changed":
        return (f"the description of {rel} in {tool}'s {_side(d)} was rewritten: the model "
                f"{'fills' if inp else 'reads'} it by that text")
    if k == "deprecated":
        return (f"{rel} in {tool}'s {_side(d)} is deprecated" if c.sense == "set"
                else f"{rel} in {tool}'s {_side(d)} is no longer deprecated")
    raise ValueError(f"no words for {k}")


def _type(tool: str, c: SchemaChange, inp: bool, rel: str) -> str:
    d = "input" if inp else "output"
    if c.keyword == "anyOf":
        member = c.new if c.sense == "widen" else c.old
        verb = ("now also accepts" if inp else "may now return") if c.sense == "widen" else \
            ("no longer accepts" if inp else "no longer returns")
        return f"{tool} {verb} {rel} as {member} (an anyOf/oneOf member)"
    if c.keyword == "nullable":
        if c.sense == "widen":
            return (f"{tool} accepts null for {rel}" if inp else
                    f"{tool} may now return null for {rel}: an agent may read none where it "
                    "expected a value")
        return (f"{tool} no longer accepts null for {rel}: a call that sends null is refused"
                if inp else f"{tool} no longer returns null for {rel}")
    tail = ("" if c.sense == ("widen" if inp else "narrow") else
            ": a call that sends the old type is refused or misread" if inp else
            f": an agent expecting {c.old} may now read {c.new}")
    return f"{rel} in {tool}'s {_side(d)} went from {c.old} to {c.new}{tail}"


#: what the same call does after a default changed, by the tool's side effect
_NOW = {"read_only": "reads with", "idempotent_write": "writes with", "write": "writes with",
        "external_send": "sends with", "destructive": "destroys with"}


def _default(tool: str, c: SchemaChange, inp: bool, name: str, effect: str | None) -> str:
    if c.sense == "set":
        head = f"{tool} now defaults {name} to {_v(c.new)}"
    elif c.sense == "unset":
        head = f"{tool} no longer defaults {name} (was {_v(c.old)})"
    else:
        verb = "changed"
        if isinstance(c.old, int | float) and isinstance(c.new, int | float) \
                and not isinstance(c.old, bool) and not isinstance(c.new, bool):
            verb = "rose" if c.new > c.old else "fell"
        head = f"{tool}'s default for {name} {verb} from {_v(c.old)} to {_v(c.new)}"
    if not inp:
        return head + " (in its result schema)"
    verb = _NOW.get(effect or "", "runs with")
    now = (f"{verb} {name}={_v(c.new)}" if c.sense != "unset" else
           f"{verb.split()[0]} without it")
    return f"{head}: a call that omits {name} now {now}"


def _constraint(tool: str, c: SchemaChange, inp: bool, rel: str) -> str:
    kw = c.keyword or "constraint"
    if c.old is None:
        change = f"set {kw} {_v(c.new)} on {rel}"
    elif c.new is None:
        change = f"dropped {kw} {_v(c.old)} from {rel}"
    elif isinstance(c.old, int | float) and isinstance(c.new, int | float):
        change = f"{'raised' if c.new > c.old else 'lowered'} {kw} of {rel} from {_v(c.old)} " \
                 f"to {_v(c.new)}"
    else:
        change = f"changed {kw} of {rel} from {_v(c.old)} to {_v(c.new)}"
    if c.kind == "constraint-narrowed":
        tail = ": a call that was valid may now be refused" if inp else ": fewer values to handle"
    else:
        tail = "" if inp else ": an agent may now read values it never saw"
    return f"{tool} {change}{tail}"


def words(tool: str, c: SchemaChange, direction: str, writes: bool,
          path: tuple[Any, ...], *, effect: str | None = None, role: str | None = None
          ) -> str:
    """The message of one change to ``tool`` (``path``: the full path, ``args`` or
    ``result`` first for a schema change), worded by what the field is (``role``:
    ``filter``, ``input``, ``output``) and by what the tool does (``effect``, its
    side-effect class; None: unknown)."""
    fns: tuple[Callable[[], str | None], ...] = (
        lambda: _tool_words(tool, c), lambda: _errors(tool, c, writes))
    for fn in fns:
        text = fn()
        if text is not None:
            return text
    return _field(tool, c, direction, path, effect, role)
