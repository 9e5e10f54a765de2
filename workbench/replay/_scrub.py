"""What replay sent as a credential, scrubbed from everything it records.

A service may echo the credential it was sent ("invalid key …", a ``caller`` field, a
header): a value without a vendor's shape passes the detectors, so the store's redaction
alone would keep it. Replay knows the exact values it sent (``--auth-env``), so every
occurrence of them in what it records — answers' bodies and headers, the raw bytes the
HAR keeps, URLs, error and divergence messages — is replaced before anything is written
(docs/replay.md, "Credentials").

The forms looked for, from each credential header's value:

* the value as sent, and its core: the token after a scheme word (``Bearer x``,
  ``Token x``, ``Basic x``), each cookie's value of a ``Cookie`` header;
* for ``Basic``, the decoded ``user:password`` and the password alone;
* each form URL-encoded (``quote``, ``quote_plus``) and as a JSON string spells it.

Each form of one credential becomes the one keyed token of its core, the token the
store's ``Redactor`` gives it (``«secret:<detector>:<hex>»``, the detector the redactor
names for the header's value, else ``secret-field``), so equal credentials stay equal
tokens and data flow survives. A derived form shorter than ``MIN_FORM`` characters is
left alone (a password ``ab`` would rewrite every ``ab``); the value as sent is always
scrubbed. Idempotency keys are not credentials and are never touched.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any
from urllib.parse import quote, quote_plus

from ..invariants import Exchange
from ..model import dumps_bytes
from ..model import loads as json_loads
from ..redact import TOKEN_RE, Redactor
from ._send import Attempt

__all__ = ["MIN_FORM", "Scrub"]

#: derived forms shorter than this are not looked for
MIN_FORM = 4
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9_-]*) +(\S.*)$")
_DETECTOR = re.compile(r"«secret:([a-z0-9-]+):")


class Scrub:
    """Replaces each form of the credentials ``creds`` (header -> value sent) by its
    keyed token under the store's ``key``."""

    def __init__(self, creds: Mapping[str, str], key: bytes) -> None:
        red = Redactor(key)
        forms: dict[str, str] = {}
        for header, value in creds.items():
            for form, token in _forms(red, header.lower(), value):
                for spelt in _spellings(form):
                    if len(spelt) >= MIN_FORM or form == value:
                        forms.setdefault(spelt, token)
        self.forms = forms
        alts = sorted(forms, key=len, reverse=True)
        self._re = re.compile("|".join(map(re.escape, alts))) if alts else None
        self._bre = (re.compile(b"|".join(re.escape(a.encode()) for a in alts))
                     if alts else None)

    def __bool__(self) -> bool:
        return self._re is not None

    def text(self, s: str) -> str:
        if self._re is None or not s:
            return s
        return self._re.sub(lambda m: self.forms[m.group(0)], s)

    def value(self, v: Any) -> Any:
        """A JSON value with every form replaced in its strings and keys."""
        if isinstance(v, str):
            return self.text(v)
        if isinstance(v, dict):
            return {self.text(str(k)): self.value(x) for k, x in v.items()}
        if isinstance(v, list):
            return [self.value(x) for x in v]
        return v

    def raw(self, data: bytes) -> bytes:
        """An answer's bytes: each form replaced as bytes; a JSON document that still
        holds one once parsed (spelt with ``\\u`` escapes) is written again from its
        scrubbed value."""
        if self._bre is None or not data:
            return data
        out = self._bre.sub(lambda m: self.forms[m.group(0).decode()].encode(), data)
        try:
            doc = json_loads(out)
        except (ValueError, RecursionError):
            return out
        clean = self.value(doc)
        return out if clean == doc else dumps_bytes(clean)

    def exchange(self, x: Exchange) -> Exchange:
        return replace(x, path=self.text(x.path), query=self.value(x.query),
                       headers=self.value(x.headers), body=self.value(x.body),
                       resp_headers=self.value(x.resp_headers),
                       resp_body=self.value(x.resp_body))

    def attempt(self, a: Attempt) -> Attempt:
        """The attempt as it may be recorded."""
        if self._re is None:
            return a
        return replace(a, exchanges=[self.exchange(x) for x in a.exchanges],
                       raw=[self.raw(r) for r in a.raw], urls=[self.text(u) for u in a.urls],
                       error_message=None if a.error_message is None
                       else self.text(a.error_message))


def _forms(red: Redactor, header: str, value: str) -> list[tuple[str, str]]:
    """(form, replacement) pairs of one credential header's value: the value as the
    store's redactor spells it under its header, each core as the token it gets there."""
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
