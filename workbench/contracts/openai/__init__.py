"""OpenAI function tools: the importer (``SOURCE``) and the provider profile (``PROFILE``:
lint and export)."""

from ._import import (
    SOURCE,
    no_parameters,
)
from ._profile import PROFILE

__all__ = [
    "PROFILE",
    "SOURCE",
    "no_parameters",
]
