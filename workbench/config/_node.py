"""A YAML document as a tree of nodes that each know their value and their line.

PyYAML composes a document into nodes that carry marks (line and column) and then
constructs plain Python values from them; a ``Node`` keeps both, so a loader can check
plain values and still name the line of any key, value or list item it refuses.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import yaml

from ..model import LIMITS, LimitedLoader

if TYPE_CHECKING:
    from ._file import ConfigError, ConfigFile

__all__ = ["ConfigLoader", "DuplicateKeyError", "Node"]


class Node:
    """One node of a document: ``value`` as ``yaml.safe_load`` builds it, ``line``
    (1-based) where it starts, ``kind`` (``mapping``, ``sequence`` or ``scalar``), and
    ``text``, a scalar as written (``1`` and ``"1"`` both read ``1``)."""

    def __init__(self, node: yaml.Node, doc: _Document, line: int | None = None) -> None:
        self._node, self._doc = node, doc
        self.value: Any = doc.construct(node)
        self.line: int = line or node.start_mark.line + 1
        self.kind: str = _KINDS.get(type(node), "scalar")
        self.text: str | None = node.value if self.kind == "scalar" else None

    @classmethod
    def compose(cls, text: str, file: ConfigFile[Any], source: str) -> Node | None:
        """The document in ``text`` (None when it holds none); ``yaml.YAMLError`` when it
        is not YAML."""
        loader = ConfigLoader(text, source)
        try:
            root = loader.get_single_node()
            return None if root is None else cls(root, _Document(loader, file, source))
        finally:
            loader.dispose()

    def entries(self) -> list[tuple[Node, Node]]:
        """A mapping's keys and values, in the file's order (empty for other kinds)."""
        if self.kind != "mapping":
            return []
        return [(Node(k, self._doc), Node(v, self._doc)) for k, v in self._node.value]

    def items(self) -> list[Node]:
        """A sequence's items (empty for other kinds)."""
        return [Node(n, self._doc) for n in self._node.value] if self.kind == "sequence" else []

    def get(self, key: Any) -> Node | None:
        """The value of a mapping's ``key``, or None. Its ``line`` is the key's."""
        for k, v in self.entries():
            if k.value == key and type(k.value) is type(key):
                return Node(v._node, self._doc, k.line)
        return None

    def error(self, message: str, *, part: str | None = None, **details: Any) -> ConfigError:
        """The file's error for this node: ``SOURCE line N: message``."""
        err: ConfigError = self._doc.file.error(self._doc.source, message, self.line,
                                                part=part, **details)
        return err


_KINDS: dict[type[yaml.Node], str] = {yaml.MappingNode: "mapping",
                                      yaml.SequenceNode: "sequence"}


class DuplicateKeyError(yaml.constructor.ConstructorError):
    """A mapping names a key twice (YAML keeps the last silently; a reviewer reads the
    first)."""

    def __init__(self, key: Any, first: yaml.Node, again: yaml.Node) -> None:
        super().__init__(None, None, f"duplicate key {key!r} (first on line "
                         f"{first.start_mark.line + 1})", again.start_mark)
        self.key, self.line = key, again.start_mark.line + 1


class ConfigLoader(LimitedLoader):
    """The safe loader within the limits of configuration files (a small alias budget,
    a bound on every value) that refuses a key given twice in one mapping."""

    aliases = LIMITS["config_alias_nodes"]
    scalar = LIMITS["config_scalar_chars"]

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, yaml.Node] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=deep)
            try:
                first = seen.setdefault(key, key_node)
            except TypeError:  # unhashable: the constructor says so
                continue
            if first is not key_node:
                raise DuplicateKeyError(key, first, key_node)
        return super().construct_mapping(node, deep=deep)


class _Document:
    """What the nodes of one document share: the constructor, the file and its name."""

    def __init__(self, loader: yaml.SafeLoader, file: ConfigFile[Any], source: str) -> None:
        self.loader, self.file, self.source = loader, file, source

    def construct(self, node: yaml.Node) -> Any:
        return self.loader.construct_object(node, deep=True)
