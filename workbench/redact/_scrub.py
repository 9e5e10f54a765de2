"""Scrubbing exact values: what a command sent or received as a credential, replaced
wherever it reappears, whatever its shape (docs/redact.md, "Known credentials").

The detectors find secrets by shape or by the key they sit under; a service that echoes
the credential it was sent ("invalid key …", a ``caller`` field, a 501 listing what it
received) puts an unshaped one where no key says so. A command that *knows* the values
(``replay`` sent them from ``--auth-env``, ``serve`` received them as credential headers,
cookies and secret-named parameters) scrubs them before recording. The forms looked for,
from each ``(name, value)``:

* the value as sent, and its core: the token after a scheme word of an
  ``Authorization`` header (``Bearer x``, ``Basic x``), each cookie's value of a
  ``Cookie`` header;
* for ``Basic``, the decoded ``user:password`` and the password alone;
* each form URL-encoded (``quote``, ``quote_plus``) and as a JSON string spells it.

Each form of one credential becomes the keyed token the store's ``Redactor`` gives it
under its name (``«secret:<detector>:<hex>»``; the core as the token it gets inside the
value), so equal credentials stay equal tokens and data flow survives. A string equal to
a form is replaced whatever its length; inside other text only forms of ``MIN_FORM``
characters or more are (a password ``ab`` would rewrite every ``ab``).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, quote_plus

from ..model import dumps_bytes
from ..model import loads as json_loads
from ._tokens import TOKEN_RE
from ._walk import Redactor

__all__ = ["MIN_FORM", "Scrubber"]

#: forms shorter than this are replaced only where a string is exactly one
MIN_FORM = 4
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*) +(\S.*)$")
_DETECTOR = re.compile(r"«secret:([a-z0-9-]+):")


class Scrubber:
    """Replaces each form of the credentials ``creds`` (``(name, value)`` pairs: a
    header, a parameter, a field) by its keyed token under the store's ``key``."""

    def __init__(self, key: bytes, creds: Iterable[tuple[str, str]]) -> None:
        red = Redactor(key)
        forms: dict[str, str] = {}
        for name, value in creds:
            if not value:
                continue
            for form, token in _forms(red, name.lower(), value):
                for spelt in _spellings(form):
                    forms.setdefault(spelt, token)
        self.forms = forms
        alts = sorted((f for f in forms if len(f) >= MIN_FORM), key=len, reverse=True)
        self._re = re.compile("|".join(map(re.escape, alts))) if alts else None
        self._bre = (re.compile(b"|".join(re.escape(a.encode()) for a in alts))
                     if alts else None)

    def __bool__(self) -> bool:
        return bool(self.forms)

    def text(self, s: str) -> str:
        """``s`` with each form replaced (all of ``s`` when it is one)."""
        whole = self.forms.get(s)
        if whole is not None:
            return whole
        if self._re is None or not s:
            return s
        return self._re.sub(lambda m: self.forms[m.group(0)], s)

    def value(self, v: Any) -> Any:
        """A JSON value with every form replaced in its strings and keys."""
        if not self.forms:
            return v
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, dict):
            return {self.text(str(k)): self.value(x) for k, x in v.items()}
        if isinstance(v, list):
            return [self.value(x) for x in v]
        return v

    def raw(self, data: bytes) -> bytes:
        """Bytes: each form replaced as bytes; a JSON document that still holds one once
        parsed (a short one, one spelt with ``\\u`` escapes) is written again from its
        scrubbed value."""
        if not self.forms or not data:
            return data
        out = data if self._bre is None else self._bre.sub(
            lambda m: self.forms[m.group(0).decode()].encode(), data)
        try:
            doc = json_loads(out)
        except (ValueError, RecursionError):
            return out
        clean = self.value(doc)
        return out if clean == doc else dumps_bytes(clean)


def _forms(red: Redactor, header: str, value: str) -> list[tuple[str, str]]:
    """(form, replacement) pairs of one credential: the value as the store's redactor
    spells it under its name, each core as the token it gets there."""
    shown = red.value({header: value}).get(header)
    shown = shown if isinstance(shown, str) else value
    names = _DETECTOR.findall(shown)
    detector = str(names[0]) if len(names) == 1 else "secret-field"
    tokens = TOKEN_RE.findall(shown)
    out: list[tuple[str, str]] = []
    m = _SCHEME.match(value)
    if m is not None and header in ("authorization", "proxy-authorization"):
        scheme, core = m.group(1), m.group(2).strip()
        token = (tokens[0] if len(tokens) == 1 and shown == f"{scheme} {tokens[0]}"
                 else red.token("secret", core, detector))
        whole = shown if len(tokens) == 1 and shown == tokens[0] else f"{scheme} {token}"
        out += [(value, whole), (core, token)]
        if scheme.lower() == "basic":
            try:
                plain = base64.b64decode(core, validate=True).decode("utf-8")
            except (binascii.Error, UnicodeDecodeError, ValueError):
                plain = ""
            _, colon, password = plain.partition(":")
            out += [(plain, token)] if plain else []
            out += [(password, token)] if colon and password else []
    elif header == "cookie":
        for piece in value.split(";"):
            _, eq, val = piece.partition("=")
            if eq and val.strip():
                core = val.strip()
                out.append((core, _cookie_token(red, core)))
    if header == "cookie" and out:
        whole = value
        for core, token in sorted(out, key=lambda p: -len(p[0])):
            whole = whole.replace(core, token)
        out.append((value, whole))  # each cookie's value its token, as the store spells it
    out.append((value, shown if shown != value and len(tokens) == 1 and shown == tokens[0]
                else red.token("secret", value, detector)))
    return out


def _cookie_token(red: Redactor, core: str) -> str:
    """The token the store's redactor gives a cookie's value."""
    shown = red.value({"cookie": f"c={core}"}).get("cookie")
    tokens = TOKEN_RE.findall(shown) if isinstance(shown, str) else []
    return tokens[0] if len(tokens) == 1 else red.token("secret", core, "cookie")


def _spellings(form: str) -> list[str]:
    out = [form, quote(form, safe=""), quote_plus(form, safe=""), quote(form),
           json.dumps(form)[1:-1], json.dumps(form, ensure_ascii=False)[1:-1]]
    return list(dict.fromkeys(out))
