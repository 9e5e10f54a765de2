"""Configuration files: reading them, versioned YAML with a line for every node, and
errors that name the file and the line."""

from ._file import ConfigError, ConfigFile
from ._node import Node

__all__ = ["ConfigError", "ConfigFile", "Node"]
