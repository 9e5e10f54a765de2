"""OpenAPI 3.x documents as tool contracts: one descriptor per operation, the components
its schemas use copied under their own ``$defs`` (``Components``)."""

from ._import import SOURCE
from ._refs import Components

__all__ = [
    "SOURCE",
    "Components",
]
