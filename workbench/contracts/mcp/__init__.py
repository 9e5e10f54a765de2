"""MCP tools (``tools/list`` results and recordings): the importer (``SOURCE``), the
provider profile (``PROFILE``: lint and export) and the side effect an MCP tool's
annotations state (``side_effect_of``, ``annotations_for``)."""

from ._import import (
    SOURCE,
    annotations_for,
    side_effect_of,
)
from ._profile import PROFILE

__all__ = [
    "PROFILE",
    "SOURCE",
    "annotations_for",
    "side_effect_of",
]
