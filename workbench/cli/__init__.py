"""The ``workbench`` command line: thin wrappers around the library."""

from ._main import main

__all__ = ["main"]
