"""Configuration files: reading them within limits, versioned YAML with a line for
every node, errors that name the file and the line, and the one check of a file named
from another (``resolve_ref``)."""

from ._file import ConfigError, ConfigFile, safe_load
from ._node import DuplicateKeyError, Node
from ._refs import RefError, resolve_ref

__all__ = [
    "ConfigError",
    "ConfigFile",
    "DuplicateKeyError",
    "Node",
    "RefError",
    "resolve_ref",
    "safe_load",
]
