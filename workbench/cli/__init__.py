"""The ``workbench`` command line: thin wrappers around the library."""

from ._main import main, run

__all__ = ["main", "run"]
