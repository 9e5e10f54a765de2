"""Keyed tokens: what a redacted value becomes.

``«secret:<detector>:<hex>»`` for secrets, ``«<category>:<hex>»`` for personal data
(``email``, ``phone``, ``card``, ``iban``, ``ip``, ``person``, ``national-id``,
``address``, ``birth-date``) and ``«id:<hex>»`` for the promotion
policy's pseudonyms. ``hex`` is the first ``HEX_DIGITS`` hex digits of
HMAC-SHA256(key, category + NUL + value): the same value gives the same token under one
key (so equality, data-flow refs and diffs survive redaction), and nobody without the
key can test a guess (a phone number or a card has few enough values to enumerate, so
a plain hash would not do). docs/redact.md gives the collision arithmetic behind
``HEX_DIGITS``.
"""

from __future__ import annotations

import hashlib
import hmac
import re

__all__ = ["CATEGORIES", "HEX_DIGITS", "KEY_BYTES", "TOKEN_RE", "make_token", "token_hex"]

#: 48 bits: one false equality among a million distinct values of one category has a
#: probability of about 0.2 %, among the values of one trace about 1e-7.
HEX_DIGITS = 12
KEY_BYTES = 32
CATEGORIES = ("secret", "email", "phone", "card", "iban", "ip", "person", "national-id",
              "address", "birth-date", "id")

#: any token this package writes (a detector id is kebab-case)
TOKEN_RE = re.compile(
    r"«(?:secret:[a-z0-9]+(?:-[a-z0-9]+)*|email|phone|card|iban|ip|person|national-id|address|birth-date|id):[0-9a-f]{"
    + str(HEX_DIGITS) + "}»")


def token_hex(key: bytes, category: str, value: str) -> str:
    """The keyed digest prefix of ``value`` in ``category``."""
    data = category.encode() + b"\0" + value.encode("utf-8", "surrogatepass")
    return hmac.new(key, data, hashlib.sha256).hexdigest()[:HEX_DIGITS]


def make_token(key: bytes, category: str, value: str, detector: str | None = None) -> str:
    """``«secret:detector:hex»`` (a secret), else ``«category:hex»``."""
    if category not in CATEGORIES:
        raise ValueError(f"unknown redaction category {category!r}")
    digest = token_hex(key, category, value)
    if category == "secret":
        return f"«secret:{detector or 'secret'}:{digest}»"
    return f"«{category}:{digest}»"
