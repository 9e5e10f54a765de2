"""What a key name says about its value: ``key_class`` and ``looks_secret``.

A name is normalized (case, ``-``/``_``/``.``/spaces, camelCase, a trailing version or
digit) into parts, and its *last* part decides, qualified by the one before it:
``client_secret`` and ``db_password`` end in a secret word; ``secret_name`` and
``password_policy`` do not. Three answers:

- ``"secret"``: any non-empty value under the name is a secret (``password``,
  ``authorization``, ``cookie``, ``api_key``, ``access_token``, ``private_key`` …);
- ``"maybe"``: a secret only if the value looks like one (``looks_secret``): ``token``,
  ``*_token``, ``key``, ``*_key``, ``signature``, ``sig``, ``session``, ``otp`` …;
- ``None``: an ordinary name, including the look-alikes that are counts or ids
  (``max_tokens``, ``token_type``, ``tokenizer``, ``key_id``, ``idempotency_key``,
  ``cache_key``, ``public_key``).

``looks_secret`` is the test for *maybe* names: long enough, not a placeholder, no
whitespace, not a number, date, UUID, hex digest, URL, path or email, not made of words,
and a Shannon entropy above a threshold calibrated in docs/redact-detectors.md.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

from ._hits import entropy, is_example, is_public
from ._lazyre import lazy

__all__ = ["ENDINGS", "KeyClass", "is_placeholder", "key_class", "key_parts", "looks_secret"]

KeyClass = Literal["secret", "maybe"]

_CAMEL = lazy(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_SPLIT = lazy(r"[^a-z0-9]+")
_VERSION_PART = lazy(r"v?\d+")
_TRAILING_DIGITS = lazy(r"(?<=[a-z])\d+$")

# last part -> class, whatever comes before it
_SECRET_LAST = frozenset({
    "password", "passwd", "passphrase", "passcode", "secret", "secrets",
    "credentials", "credential", "creds", "cookie", "cookies", "authorization", "dsn",
    "apikey", "privatekey", "mnemonic", "bearer",
})
# *_token that hold credentials by name (the brief's list and the common vendor words)
_SECRET_TOKEN_QUALIFIERS = frozenset({
    "access", "refresh", "id", "auth", "session", "security", "bearer", "oauth", "api",
    "private", "personal", "bot", "app", "user", "admin", "service", "deploy", "runner",
    "registration", "integration", "webhook", "x",
})
# *_token that are counts, cursors or model vocabulary, never credentials
_ORDINARY_TOKEN_QUALIFIERS = frozenset({
    "max", "min", "num", "total", "input", "output", "prompt", "completion", "cached",
    "cache", "reasoning", "thinking", "audio", "text", "image", "response", "request",
    "stop", "eos", "bos", "pad", "unk", "sep", "cls", "mask", "special", "start", "end",
    "page", "next", "continuation", "cancel", "cancellation", "sync", "resume", "cursor",
    "last", "first", "count", "used", "remaining", "per", "context", "tool",
})
# *_key that hold credentials by name
_SECRET_KEY_QUALIFIERS = frozenset({
    "api", "private", "secret", "subscription", "admin", "master", "signing", "encryption",
    "hmac", "jwt", "shared", "account", "server", "service", "license", "root",
    "personal", "deploy", "auth", "functions",
})
# *_key that are ids, lookups or data structure words: an idempotency key or a cache
# key is evidence (which request, which entry), not a credential
_ORDINARY_KEY_QUALIFIERS = frozenset({
    "idempotency", "public", "primary", "foreign", "partition", "sort", "cache", "object",
    "row", "hash", "range", "dedup", "dedupe", "deduplication", "routing", "message",
    "lookup", "sequence", "translation", "i18n", "label", "group", "map", "dict", "react",
    "unique", "composite", "natural", "surrogate", "index", "join", "shard", "sharding",
    "bucket", "state", "order", "ordering", "entity", "item", "record", "document", "doc",
    "file", "s3", "blob", "registry", "page", "pagination", "event", "metric", "tag",
    "column", "field", "attribute", "property", "prop", "config", "setting", "settings",
    "env", "variable", "var", "param", "parameter", "header", "query", "path", "route",
    "url", "resource", "node", "tree", "list", "array", "cluster", "region", "zone",
    "schema", "model", "prompt", "lock", "mutex", "queue", "topic", "stream", "channel",
    "room", "thread", "conversation", "chat", "trace", "span", "request", "response",
    "correlation", "tracking", "hot", "keyboard", "shortcut", "press", "up", "down",
    "left", "right", "grouping", "component", "ui", "widget", "cursor", "next", "start",
    "end", "first", "last", "parent", "child", "root_node",
    "idem", "i18n_key", "locale", "lang", "language", "name", "type", "kind", "dimension",
    "series", "bin", "legend", "color", "data_key", "value", "stripe_idempotency",
})
_PASS_QUALIFIERS = frozenset({
    "db", "database", "smtp", "mail", "email", "user", "admin", "root", "redis", "ftp",
    "sftp", "ssh", "proxy", "ldap", "mysql", "pg", "postgres", "postgresql", "mongo",
    "mongodb", "rabbit", "rabbitmq", "amqp", "api", "app", "vault", "sql", "mssql",
    "oracle", "wifi", "vpn", "basic", "http", "login", "account", "bind", "keystore",
    "truststore", "key", "sudo", "master", "service",
})
# "pwd" is a password in configs but the working directory in every env dump (PWD=…):
# a maybe name, so a path under it stays
_MAYBE_LAST = frozenset({"signature", "sig", "session", "sessionid", "otp", "totp", "hotp",
                         "salt", "pin", "jwt", "pwd"})
_SECRET_NAMES = frozenset({
    "auth", "basic_auth", "http_auth", "proxy_auth", "digest_auth", "x_amz_signature",
    "x_goog_signature", "x_goog_credential_secret", "connection_string", "conn_str",
    "connstr", "private_key_data", "seed_phrase", "recovery_codes", "backup_codes",
})
# names of encoded key material (kubeconfig ``client-key-data``): a secret only when the
# value looks like one, since ``KeyData`` also names a registry value, a flag or "01"
_MAYBE_NAMES = frozenset({"key_data", "client_key_data"})

#: every last part (lowercase, as the text spells it) that can make a name secret or
#: maybe; the detectors' gate looks for these right before an assignment (see _detect)
ENDINGS: tuple[str, ...] = tuple(sorted(
    _SECRET_LAST | _MAYBE_LAST | {"pass", "key", "token", "auth", "string", "str",
                                  "connstr", "data", "codes", "session_id",
                                  "session-id"}))


#: what every name of a class holds (lowercase): the secret and maybe last parts, the
#: words the other rules end in or need before them (``conn_str``, ``key_data``,
#: ``session_id``), and each special name's telling word. A name holding none of them
#: is no secret name, which one search tells.
_CLASS_WORDS = frozenset(_SECRET_LAST | _MAYBE_LAST | {
    "pass", "key", "token", "auth", "conn", "session", "phrase", "codes"})
assert all(any(w in n for w in _CLASS_WORDS) for n in _SECRET_NAMES | _MAYBE_NAMES)
_ANY_CLASS_WORD = lazy("|".join(sorted(map(re.escape, _CLASS_WORDS), key=len,
                                             reverse=True)))


def key_parts(name: str) -> tuple[str, ...]:
    """``name`` normalized to lowercase parts: ``"X-Api-Key"``, ``"xApiKey"`` and
    ``"X_API_KEY"`` are all ``("x", "api", "key")``; a trailing version part (``_v2``,
    ``_2``) and trailing digits (``password2``) are dropped."""
    parts = [p for p in _SPLIT.split(_CAMEL.sub("_", name).lower()) if p]
    while len(parts) > 1 and _VERSION_PART.fullmatch(parts[-1]):
        parts.pop()
    if parts:
        parts[-1] = _TRAILING_DIGITS.sub("", parts[-1])
    return tuple(parts)


@lru_cache(maxsize=8192)
def key_class(name: str) -> KeyClass | None:
    """``"secret"``, ``"maybe"`` or ``None`` for a key, header, env var, flag or query
    parameter name (see the module docstring)."""
    if len(name) > 80 or _ANY_CLASS_WORD.search(name.lower()) is None:
        return None
    return parts_class(key_parts(name))


def parts_class(parts: tuple[str, ...]) -> KeyClass | None:
    """``key_class`` of a name split by ``key_parts``."""
    if not parts:
        return None
    joined = "_".join(parts)
    if joined in _SECRET_NAMES:
        return "secret"
    if joined in _MAYBE_NAMES:
        return "maybe"
    last = parts[-1]
    prev = "_".join(parts[:-1])
    prev1 = parts[-2] if len(parts) > 1 else ""
    if last in _SECRET_LAST:
        return "secret"
    if last == "pass":
        return "secret" if not prev or prev1 in _PASS_QUALIFIERS else "maybe"
    if last == "key":
        return _key_class_key(parts, prev, prev1)
    if last == "token":
        if prev1 in _ORDINARY_TOKEN_QUALIFIERS:
            return None
        return "secret" if prev1 in _SECRET_TOKEN_QUALIFIERS else "maybe"
    if last == "auth":
        return "secret" if prev1 in ("", "basic", "http", "proxy", "digest") else "maybe"
    if last in ("string", "str") and prev1 in ("connection", "conn"):
        return "secret"
    if last == "data" and prev1 == "key":
        return "maybe"  # *_key_data: key material looks like it (base64 of a PEM key)
    if last == "id" and prev1 == "session":
        return "maybe"  # a web session id is a credential; an agent's (a UUID) stays
    if last in _MAYBE_LAST:
        return "maybe"
    return None


def _key_class_key(parts: tuple[str, ...], prev: str, prev1: str) -> KeyClass | None:
    if not prev1:
        return "maybe"  # "key" alone
    if prev1 in _ORDINARY_KEY_QUALIFIERS or prev in _ORDINARY_KEY_QUALIFIERS:
        return None
    if prev1 in _SECRET_KEY_QUALIFIERS or "secret" in parts[:-1]:
        return "secret"
    return "maybe"


# -- values ------------------------------------------------------------------------------

_PLACEHOLDER = lazy(
    r"""(?:
        (.)\1*                                   # one character repeated: ****, xxxx, 0000
      | \$\{[^}]*\}|\$\(?[A-Za-z_][A-Za-z0-9_]*\)?  # ${VAR} $VAR $(VAR)
      | \{\{.*\}\}|\{%.*%\}|<%.*%>|\#\{[^}]*\}   # {{ x }} {% x %} <%= x %> #{x}
      | %\(?[A-Za-z_][A-Za-z0-9_]*\)?[sd%]?      # %(x)s %VAR%
      | <[^<>]*>|\[[^\[\]]*\]|\{[A-Za-z_][A-Za-z0-9_.]*\}  # <your-key> [REDACTED] {token}
      | @[A-Za-z_]+@
      | (?i:(?:process\.env|os\.environ|os\.getenv|env|ENV|getenv|secrets|vars|settings)
             [.\[(][^\s]*)
      | (?i:(?:your|insert|enter|replace)[-_ ]?\S*)
      | (?i:redacted|filtered|hidden|masked|removed|omitted|null|none|nil|undefined|true
            |false|yes|no|on|off|changeme|change_me|change-me|changeit|secret|password
            |passwd|placeholder|example|sample|dummy|fake|test|testing|todo|tbd|xxx+|string
            |str|required|optional|empty|unset|default|token|apikey|api_key|value|n/a|na
            |\*+\w*\*+|[•●]+)
    )""", re.VERBOSE | re.DOTALL)


# lower-case words naming a dummy (test_openai_api_key, my-secret-token, fake_password)
_DUMMY_WORDS = lazy(
    r"[a-z]+(?:[_-][a-z]+)*", re.ASCII)
_DUMMY_MARK = lazy(r"(?:^|[_-])(?:test|dummy|fake|sample|example|mock|placeholder|your|my"
                         r"|foo|bar|xxx)(?:[_-]|$)|[_-](?:key|token|secret|password)$")


def is_placeholder(value: str) -> bool:
    """Whether ``value`` stands for a secret without being one: empty, a mask
    (``****``), a template or variable reference (``${DB_PASSWORD}``, ``{{ token }}``,
    ``<your-key>``, ``os.environ["X"]``), a word such as ``changeme`` or ``null``,
    words naming a dummy (``test_openai_api_key``) or a value elided with ``…``."""
    v = value.strip().strip("\"'`")
    if not v or v.endswith(("…", "...")):
        return True
    if _DUMMY_WORDS.fullmatch(v) and _DUMMY_MARK.search(v):
        return True
    return _PLACEHOLDER.fullmatch(v) is not None


_NUMBERISH = lazy(r"[+-]?[\d.,:;/ _+-]*\d[\d.,:;/ _+-]*(?:[eE][+-]?\d+)?[a-zA-Z%]{0,3}")
_UUID = lazy(r"[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?"
                   r"[0-9a-fA-F]{12}")
# hex digests and trace/span ids: 16 (span), 32 (trace, MD5), 40 (SHA-1, git), 64
# (SHA-256), 96, 128 digits
_HEX_DIGEST = lazy(r"(?:[0-9a-f]{16}|[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{64}|[0-9a-f]{96}"
                         r"|[0-9a-f]{128}|[0-9A-F]{16}|[0-9A-F]{32}|[0-9A-F]{40}|[0-9A-F]{64}"
                         r"|[0-9A-F]{128})")
_UUID_INSIDE = lazy(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-"
                          r"[0-9a-fA-F]{12}")
# ids that API responses hand out (OpenAI, Anthropic, Stripe objects …): evidence
_API_ID = lazy(r"(?:call|toolu|msg|req|resp|run|thread|asst|batch|evt|cus|ch|pi|prj|sub"
                     r"|fp|span|trace|step|job|task|item|order|file)[_-][A-Za-z0-9]|chatcmpl-")
_STRUCTURED = lazy(r"[\s{}\[\]\"'(),;|\\<>#&]")
_TIMESTAMP = lazy(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?"
                        r"(?:Z|[+-]\d{2}:?\d{2})?")
_NOT_OPAQUE = lazy(
    r"[A-Za-z][A-Za-z0-9+.-]*://\S*"             # a URL
    r"|[A-Za-z]:\\.*"                            # a Windows path
    r"|[^@\s]+@[^@\s]+\.[A-Za-z]{2,}"             # an email
    r"|(?:[A-Za-z_][A-Za-z0-9_]*\.){2,}[A-Za-z_][A-Za-z0-9_]*")  # a.dotted.name
# a part made of a word: lower, UPPER, Capitalized or camelCase letters, a number, or a
# short letters+digits tag (v2, x86_64, gpt4o, 3d)
_WORD_PART = lazy(
    r"[a-z]{1,24}|[A-Z]{1,24}|[A-Z]?[a-z]+(?:[A-Z][a-z]+)*[A-Z]?|\d+"
    r"|[A-Za-z]{1,12}\d{1,4}[a-z]{0,2}|\d{1,4}[A-Za-z]{1,3}")
_PART_SPLIT = lazy(r"[-_./:+, =@&]+")

#: looks_secret's entropy floors (bits per character), calibrated on the trace corpus
#: and on random tokens (docs/redact-detectors.md): opaque values of 8-11 characters
#: need letters and digits and ENTROPY_SHORT, longer ones ENTROPY_LONG
ENTROPY_SHORT = 2.75
ENTROPY_LONG = 3.0


def _is_path(v: str) -> bool:
    """``/usr/lib/x.so``, ``./a/b``, ``~/.config/c.json``: a path's segments are words
    (a random base64 value that happens to start with ``/`` has no such segments)."""
    if not v.startswith(("/", "./", "../", "~/")):
        return False
    segments = [p for p in re.split(r"[/._-]+", v) if p and p != "~"]
    return all(_WORD_PART.fullmatch(p) for p in segments)


def looks_secret(value: str) -> bool:
    """Whether a value under a *maybe* name is a secret: at least 8 characters, no
    whitespace, quotes, brackets or other structure, not a placeholder, number, date,
    UUID (or an id holding one), hex digest or trace/span id (16/32/40/64/96/128
    digits), an API object id (``call_…``, ``msg_…``), URL, path, email or dotted name,
    not made of words, and with enough entropy."""
    v = value.strip()
    n = len(v)
    if n < 8 or any(c.isspace() for c in v):
        return False
    if is_placeholder(v) or is_example(v) or is_public(v):
        return False
    if (_STRUCTURED.search(v) or _NUMBERISH.fullmatch(v) or _UUID.fullmatch(v)
            or _UUID_INSIDE.search(v) or _HEX_DIGEST.fullmatch(v) or _TIMESTAMP.fullmatch(v)
            or _NOT_OPAQUE.fullmatch(v) or _API_ID.match(v)):
        return False
    if _is_path(v) or all(_WORD_PART.fullmatch(p) for p in _PART_SPLIT.split(v) if p):
        return False
    h = entropy(v)
    if n < 12:
        return (h >= ENTROPY_SHORT and any(c.isdigit() for c in v)
                and any(c.isalpha() for c in v))
    return h >= ENTROPY_LONG
