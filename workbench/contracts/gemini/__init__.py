"""Gemini function declarations: the importer (``SOURCE``) and the provider profile
(``PROFILE``: lint and export)."""

from ._import import SOURCE
from ._profile import PROFILE

__all__ = [
    "PROFILE",
    "SOURCE",
]
