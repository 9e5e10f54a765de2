"""Configuration files: reading them, versioned YAML with a line for every node, and
errors that name the file and the line."""

from ._file import ConfigError, ConfigFile, safe_load
from ._node import DuplicateKeyError, Node

__all__ = ["ConfigError", "ConfigFile", "DuplicateKeyError", "Node", "safe_load"]
