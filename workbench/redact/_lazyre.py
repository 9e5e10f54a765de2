"""A regex compiled on its first use.

Redaction holds several hundred regexes (a vendor rule each, word lists, postal and
national-id shapes); compiling them all took about a tenth of a second of every
process's start, and most are never used by a given trace: a vendor rule runs only where
its anchor occurs. A ``LazyPattern`` keeps the pattern's text (``pattern``, ``flags``:
what the prefilter's cache key and the rewrite read, without compiling) and compiles it
when one of its matching methods is first called. The matching methods have
``re.Pattern``'s signatures and answers.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator, Mapping
from typing import Any

__all__ = ["LazyPattern", "lazy"]


#: the matching methods: after the first call, the compiled pattern's own bound methods
#: stand in the instance, so a later call costs what a compiled pattern's does
_METHODS = ("search", "match", "fullmatch", "finditer", "findall", "split", "sub")


class LazyPattern:
    """``re.compile(pattern, flags)``, done when first needed."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.pattern = pattern
        self.flags = flags  # as given: inline flags stay in the text
        self._compiled: re.Pattern[str] | None = None

    def __repr__(self) -> str:  # also what the prefilter's cache key reads
        return f"lazy({self.pattern!r}, {self.flags})"

    @property
    def compiled(self) -> re.Pattern[str]:
        rx = self._compiled
        if rx is None:
            rx = re.compile(self.pattern, self.flags)
            self.__dict__.update({name: getattr(rx, name) for name in _METHODS})
            self._compiled = rx
        return rx

    @property
    def is_compiled(self) -> bool:
        return self._compiled is not None

    @property
    def groupindex(self) -> Mapping[str, int]:
        return self.compiled.groupindex

    # first calls only (see _METHODS)
    def search(self, string: str, pos: int = 0,
               endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.search(string, pos, endpos)

    def match(self, string: str, pos: int = 0,
              endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.match(string, pos, endpos)

    def fullmatch(self, string: str, pos: int = 0,
                  endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled.fullmatch(string, pos, endpos)

    def finditer(self, string: str, pos: int = 0,
                 endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        return self.compiled.finditer(string, pos, endpos)

    def findall(self, string: str, pos: int = 0, endpos: int = sys.maxsize) -> list[Any]:
        return self.compiled.findall(string, pos, endpos)

    def split(self, string: str, maxsplit: int = 0) -> list[str | Any]:
        return self.compiled.split(string, maxsplit)

    def sub(self, repl: str | Callable[[re.Match[str]], str], string: str,
            count: int = 0) -> str:
        return self.compiled.sub(repl, string, count)


def lazy(pattern: str, flags: int = 0) -> LazyPattern:
    """A ``LazyPattern``: ``re.compile``'s arguments, compiled on first use."""
    return LazyPattern(pattern, flags)
