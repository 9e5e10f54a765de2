"""The named limits on what an input file may hold, and the error a breach raises.

A trace, a rules file or a fixture may come from anyone (a pull request, a shared
export), so every reader bounds what it accepts: how deep a value nests, how many
digits an integer has, how large a document is, how far YAML aliases expand, how many
rules a file holds and how many rows a fixture's trace has. A breach is
``LimitExceededError`` (``LIMIT_EXCEEDED``) naming the file, the line or path where
there is one, and the limit by its name and value, so it is refused before any work
starts, in bounded time and memory. docs/cli.md lists them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._errors import InputError

__all__ = ["LIMITS", "Limit", "LimitExceededError", "within_depth"]


@dataclass(frozen=True)
class Limit:
    """One limit: its stable ``name`` (messages and ``details.limit`` use it), its
    ``value`` and the ``unit`` it counts."""

    name: str
    value: int
    unit: str
    what: str

    def breach(self, where: str, found: int | str | None = None, *, file: str | None = None,
               line: int | None = None, **details: Any) -> LimitExceededError:
        """The error for a breach at ``where`` (``FILE line N`` or ``FILE: path``)."""
        seen = f" (found {found})" if found is not None else ""
        placed: dict[str, Any] = {k: v for k, v in (("file", file), ("line", line))
                                  if v is not None}
        return LimitExceededError(
            f"{where}: {self.what} exceeds the limit {self.name} = {self.value:,} "
            f"{self.unit}{seen}", **placed, limit=self.name, value=self.value, **details)


class LimitExceededError(InputError):
    code = "LIMIT_EXCEEDED"
    default_hint = ("the file is larger or deeper than any real one; if it is genuine, "
                    "split it (docs/cli.md lists the limits)")

    def at(self, file: str, line: int | None = None) -> LimitExceededError:
        """The same breach, found without knowing where (``model.loads``), placed in
        ``file`` (and ``line``)."""
        where = file + (f" line {line}" if line else "")
        details = {k: v for k, v in self.details.items() if k not in ("file", "line")}
        if line is not None:
            details["line"] = line
        return LimitExceededError(f"{where}: {self.message.split(': ', 1)[-1]}",
                                  file=file, **details)


_ALL = (
    Limit("json_depth", 1024, "levels", "JSON nesting"),
    Limit("yaml_depth", 128, "levels", "YAML nesting"),
    Limit("integer_digits", 4300, "digits", "an integer literal"),
    Limit("yaml_alias_nodes", 100_000, "nodes", "what YAML aliases repeat"),
    Limit("yaml_bytes", 64 << 20, "bytes", "a YAML trace document"),
    Limit("config_bytes", 4 << 20, "bytes", "a configuration or schema file"),
    Limit("contract_bytes", 64 << 20, "bytes", "a tool contract or API document"),
    Limit("contract_depth", 128, "levels", "a tool contract's nesting"),
    Limit("config_scalar_chars", 65_536, "characters", "a value in a configuration file"),
    Limit("config_alias_nodes", 1_000, "nodes", "what YAML aliases repeat"),
    Limit("rules_per_file", 10_000, "rules", "the number of rules"),
    Limit("fixture_rows", 50_000, "rows", "a fixture's trace"),
    Limit("fixture_bytes", 64 << 20, "bytes", "a fixture's trace, decoded"),
    Limit("answer_bytes", 64 << 20, "bytes", "an answer a replay reads"),
    Limit("protobuf_bytes", 256 << 20, "bytes", "an OTLP protobuf file or body, inflated"),
)
#: every limit by its name
LIMITS: dict[str, Limit] = {lim.name: lim for lim in _ALL}


def within_depth(value: Any, limit: Limit, where: str, *, repeats: Limit | None = None,
                 **details: Any) -> None:
    """``limit.breach`` when ``value`` (lists and mappings) nests deeper than ``limit``
    levels, or holds itself (a recursive YAML alias); with ``repeats``, its breach when
    shared containers (YAML aliases) would be walked more than ``repeats`` extra times
    (a "billion laughs"). Walked without recursion, each container once however often
    it is shared, so it is the check to make before any recursive walk of a document
    from outside."""
    if not isinstance(value, dict | list):
        return
    height: dict[int, int] = {}  # -1: entered, its subtree not done
    size: dict[int, int] = {}  # containers in the subtree, each share counted again
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        node, done = stack.pop()
        if not done and id(node) in height:
            continue
        kids = [c for c in (node.values() if isinstance(node, dict) else node)
                if isinstance(c, dict | list)]
        if done:
            h = 1 + max((height[id(c)] for c in kids), default=0)
            if h > limit.value:
                raise limit.breach(where, **details)
            height[id(node)] = h
            size[id(node)] = 1 + sum(size[id(c)] for c in kids)
            continue
        height[id(node)] = -1
        stack.append((node, True))
        for c in kids:
            seen = height.get(id(c))
            if seen == -1:
                raise limit.breach(where, "a value that holds itself", **details)
            if seen is None:
                stack.append((c, False))
    if repeats is not None and size[id(value)] - len(size) > repeats.value:
        raise repeats.breach(where, size[id(value)] - len(size), **details)
