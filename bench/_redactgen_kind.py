"""What the families of ``_redactgen.py`` share: the alphabets and random-string
primitives values are made from, the sets of contexts a type is embedded in, and
``Kind``, one labeled type.
"""

from __future__ import annotations

import base64
import string
from collections.abc import Callable
from dataclasses import dataclass
from random import Random
from typing import Any

B62 = string.digits + string.ascii_uppercase + string.ascii_lowercase
URLSAFE = B62 + "-_"
B64 = B62 + "+/"
HEX = "0123456789abcdef"
B32 = string.ascii_uppercase + "234567"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"


def _r(rng: Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _b64(data: bytes, url: bool = False, pad: bool = True) -> str:
    s = (base64.urlsafe_b64encode(data) if url else base64.b64encode(data)).decode()
    return s if pad else s.rstrip("=")


def _fixed(prefix: str, alphabet: str, n: int, suffix: str = "") -> Callable[[Random], str]:
    return lambda rng: prefix + _r(rng, alphabet, n) + suffix


# --- kinds ------------------------------------------------------------------------------

TOKEN = ("env-dump", "dotenv", "yaml", "toml", "json-field", "json-in-json", "tool-stdout",
         "python-traceback", "java-trace", "chat", "headers", "har", "curl", "http-raw",
         "url-query")
CONN = ("env-dump", "dotenv", "yaml", "toml", "json-field", "json-in-json", "tool-stdout",
        "python-traceback", "java-trace", "chat", "log")
PEM = ("pem-file", "yaml-block", "json-field", "json-in-json", "tool-stdout", "chat")
HEADER = ("headers", "har", "curl", "http-raw", "json-in-json", "chat")
FIELD = ("env-dump", "dotenv", "yaml", "toml", "json-field", "json-in-json", "tool-stdout",
         "python-traceback", "chat")
PII = ("chat", "json-field", "log")
CONFIG = ("env-dump", "dotenv", "yaml", "toml", "json-field", "chat")


@dataclass(frozen=True)
class Kind:
    """One labeled type: how to make a value and the contexts it is embedded in.

    ``gen`` returns the value, or ``(secret, shown)`` when what must disappear is only
    part of what the trace shows (a DSN's password). ``name`` is the env/config/field
    name it travels under; ``vendor`` says a reader can tell it apart with no name next
    to it (a prefix or a structure), so the free-text contexts may show it bare."""

    type: str
    category: str
    gen: Callable[[Random], Any]
    name: str
    header: tuple[str, str] | None = None
    url: str | None = None
    vendor: bool = True
    contexts: tuple[str, ...] = TOKEN
    kind: str = "positive"

    def usable(self) -> tuple[str, ...]:
        drop = {"headers", "har", "curl", "http-raw"} if self.header is None else set()
        if self.url is None:
            drop.add("url-query")
        return tuple(c for c in self.contexts if c not in drop)
