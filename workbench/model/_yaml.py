"""YAML read within limits: the safe loader, bounded in depth, alias expansion and
integer width.

PyYAML's safe loader builds only plain data, but it composes nested nodes on the
interpreter's stack (a document nested a few hundred levels deep is a
``RecursionError``), shares an aliased node wherever it is named (a "billion laughs"
document of a few hundred bytes names a billion nodes, and whatever walks the data
afterwards walks them all) and turns any run of digits into an ``int`` (Python refuses
more than 4,300 decimal digits with a ``ValueError``). ``LimitedLoader`` refuses each
of these with ``LimitExceededError`` naming the source, the line and the limit,
before the document is built.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import yaml

from ._limits import LIMITS, Limit

__all__ = ["LimitedLoader"]


class LimitedLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` within ``depth``, ``aliases`` (how many nodes the aliases of
    the document may repeat in all) and ``integer_digits``; ``scalar`` (when set) bounds
    the length of any scalar. ``source`` names the document in errors."""

    depth: Limit = LIMITS["yaml_depth"]
    aliases: Limit = LIMITS["yaml_alias_nodes"]
    scalar: Limit | None = None

    def __init__(self, stream: str | bytes, source: str = "YAML") -> None:
        super().__init__(stream)
        self.source = source
        self._depth = 0
        self._repeated = 0
        self._sizes: dict[int, int] = {}
        self._open: set[str] = set()

    def _where(self, mark: Any) -> tuple[str, int | None]:
        line = mark.line + 1 if mark is not None else None
        return (f"{self.source} line {line}" if line else self.source), line

    def breach(self, limit: Limit, mark: Any, found: int | None = None) -> Exception:
        where, line = self._where(mark)
        return limit.breach(where, found, file=self.source, line=line)

    def _peek(self) -> Any:
        return self.peek_event()  # type: ignore[no-untyped-call]

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        event = self._peek()
        if isinstance(event, yaml.AliasEvent):
            target = self.anchors.get(event.anchor)
            if target is not None:
                if event.anchor in self._open:
                    where, line = self._where(event.start_mark)
                    raise self.aliases.breach(f"{where}: the alias *{event.anchor} names "
                                              "a node that holds it", file=self.source,
                                              line=line)
                self._repeated += self._size(target)
                if self._repeated > self.aliases.value:
                    raise self.breach(self.aliases, event.start_mark, self._repeated)
            return super().compose_node(parent, index)
        self._depth += 1
        if self._depth > self.depth.value:
            raise self.breach(self.depth, event.start_mark)
        try:
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def compose_sequence_node(self, anchor: Any) -> yaml.SequenceNode:
        with self._opened(anchor):
            return super().compose_sequence_node(anchor)

    def compose_mapping_node(self, anchor: Any) -> yaml.MappingNode:
        with self._opened(anchor):
            return super().compose_mapping_node(anchor)

    @contextmanager
    def _opened(self, anchor: str | None) -> Iterator[None]:
        # an anchored collection is open while its items are composed: an alias to it
        # from inside would make the data hold itself
        if anchor is not None:
            self._open.add(anchor)
        try:
            yield
        finally:
            self._open.discard(anchor or "")

    def compose_scalar_node(self, anchor: Any) -> yaml.ScalarNode:
        event = self._peek()
        if self.scalar is not None and len(event.value) > self.scalar.value:
            raise self.breach(self.scalar, event.start_mark, len(event.value))
        return super().compose_scalar_node(anchor)

    def _size(self, node: yaml.Node) -> int:
        """How many nodes ``node`` stands for, aliases inside it expanded."""
        key = id(node)
        size = self._sizes.get(key)
        if size is None:
            size = 1
            if isinstance(node, yaml.SequenceNode):
                size += sum(self._size(n) for n in node.value)
            elif isinstance(node, yaml.MappingNode):
                size += sum(self._size(k) + self._size(v) for k, v in node.value)
            self._sizes[key] = size
        return size

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        digits = len(str(node.value).lstrip("+-").replace("_", ""))
        if digits > LIMITS["integer_digits"].value:
            raise self.breach(LIMITS["integer_digits"], node.start_mark, digits)
        return super().construct_yaml_int(node)


LimitedLoader.add_constructor("tag:yaml.org,2002:int", LimitedLoader.construct_yaml_int)
