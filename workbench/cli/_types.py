"""The argparse types every command's options are read with, one per kind of value, so
a bad value is a usage error (exit 2, ``error[USAGE]`` and a hint) before any work is
done, never a crash later:

- ``seconds(maximum=..)``: a finite number of seconds above 0 (or 0 too with
  ``zero=True``) and at most ``maximum`` — ``nan``, ``inf``, ``1e308`` and negative
  values are refused;
- ``integer(minimum, maximum)``: a whole number in a range (a port, a count, a seed);
- ``text``: any other value, refused when it holds a control character (CR, LF, NUL,
  ESC …: a header value, a file name or a line of output must not carry one). The
  ``Parser`` of ``_main`` reads every option declared without a type with it, so a new
  option is covered without a word;
- ``multiline_text``: the same, but tab and line breaks are allowed (a SQL query).
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable

__all__ = ["DAY", "PORT", "integer", "multiline_text", "rate_type", "seconds", "text"]

#: the longest time any option may name (a day): more is a typo, not a budget
DAY = 86_400.0
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_CONTROL_BUT_LINES = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def _shown(value: str) -> str:
    """``value`` quoted with its control characters escaped (never echoed raw)."""
    shown = value if len(value) <= 40 else value[:40] + "…"
    return ascii(shown) if _CONTROL.search(shown) else repr(shown)


def seconds(*, maximum: float = DAY, zero: bool = False) -> Callable[[str], float]:
    """A type reading a finite number of seconds in ``(0, maximum]`` (``[0, maximum]``
    with ``zero``)."""
    lowest = "from 0" if zero else "above 0"

    def read(value: str) -> float:
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not math.isfinite(number) or number > maximum or number < 0 or (
                number == 0 and not zero):
            raise argparse.ArgumentTypeError(
                f"{_shown(value)} is not a number of seconds {lowest} and at most {maximum:g}")
        return number

    read.__name__ = "seconds"
    return read


def integer(minimum: int, maximum: int) -> Callable[[str], int]:
    """A type reading a whole number in ``[minimum, maximum]``."""

    def read(value: str) -> int:
        try:
            number = int(value.strip()) if len(value) <= 40 else None
        except ValueError:
            number = None
        if number is None or not minimum <= number <= maximum:
            raise argparse.ArgumentTypeError(
                f"{_shown(value)} is not a whole number from {minimum} to {maximum}")
        return number

    read.__name__ = "integer"
    return read


#: a TCP port (0: the system picks a free one, where a command allows it)
PORT = integer(0, 65_535)


def text(value: str) -> str:
    """``value`` unchanged, unless it holds a control character."""
    if _CONTROL.search(value):
        raise argparse.ArgumentTypeError(
            f"{_shown(value)} holds a control character (CR, LF, tab, NUL, ESC …): "
            "give the value without it")
    return value


def multiline_text(value: str) -> str:
    """``value`` unchanged, unless it holds a control character other than a tab or a
    line break."""
    if _CONTROL_BUT_LINES.search(value):
        raise argparse.ArgumentTypeError(
            f"{_shown(value)} holds a control character (NUL, ESC …): give the value "
            "without it")
    return value


def rate_type(text: str) -> float:
    """A rate option: a number from 0 to 1."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a rate from 0 to 1")
    return value
