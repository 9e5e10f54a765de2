"""YAML block scalars in text: ``password: |`` and the lines indented below it hold
the value, which a ``name: value`` finder must read there and not on the key's line."""

from __future__ import annotations

import re

__all__ = ["BLOCK_HEAD", "BLOCK_INDICATOR", "yaml_block"]

#: a block scalar's header: ``|`` or ``>``, a chomping and an indentation indicator
BLOCK_INDICATOR = re.compile(r"[|>](?:[+-]?[1-9]?|[1-9][+-])")
#: the header right after a key's ``:``, alone on its line
BLOCK_HEAD = re.compile(r"[ \t]*" + BLOCK_INDICATOR.pattern + r"[ \t]*(?=\r?\n)")


def yaml_block(text: str, line_end: int, indent: int) -> tuple[int, int] | None:
    """The span of the block scalar whose header line ends at ``line_end`` (its key
    indented by ``indent``): the lines below indented deeper; None when there are none."""
    if text[line_end:line_end + 1] not in ("\n", "\r"):
        return None
    pos = text.index("\n", line_end) + 1
    start, end = pos, pos
    while pos < len(text):
        nl = text.find("\n", pos)
        stop = len(text) if nl < 0 else nl
        line = text[pos:stop]
        if line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        end = stop
        pos = stop + 1
    return (start, end) if end > start else None
