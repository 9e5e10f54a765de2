"""Structural rules for free text: what vendor formats miss.

Headers, shell output, stack traces, curl commands, env dumps, config files and chat
text carry credentials by *structure*: a PEM block, a JWT, ``Authorization: Bearer X``,
``user:password@`` in a URL, ``NAME=value`` with a secret-named ``NAME``, a
``--password X`` flag. Every rule reports the credential only: the header name, the
scheme, the URL's user and host, the variable name stay, so the redacted text still
says what happened. ``find_assignments`` is driven by the gate's assignment anchors
(``_detect``); the other finders scan the text themselves and are only called when
the gate saw their anchor. docs/redact-detectors.md lists the decisions.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable

from ._catalog import context_rules_for
from ._hits import Hit, entropy, is_example, is_public
from ._keys import is_placeholder, key_class, looks_secret
from ._lazyre import lazy
from ._yamlblock import BLOCK_HEAD, BLOCK_INDICATOR, yaml_block

__all__ = ["STRUCT_KEYWORDS", "find_assignments", "find_auth_schemes", "find_cli",
           "find_jwts", "find_k8s_secrets", "find_private_keys", "find_url_passwords",
           "find_xml"]

#: literals (exact case) the gate must see before some finders of this module can hit
STRUCT_KEYWORDS = ("-----", "Private-Lines:", "eyJ", "ZXlK", "pass:", "@", "::")

# -- PEM private keys ---------------------------------------------------------------------

_PEM_HEAD = lazy(r"-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----")
_PEM_END = lazy(r"-----END[ A-Z0-9]{0,40}-----")
# a truncated block (no END line): base64, whitespace, \n escapes and "Name: value"
# header lines (Proc-Type, DEK-Info, Version, Comment)
_PEM_BODY = lazy(r"(?:[A-Za-z0-9+/=\s]|\\[nrt]|(?<![^\s\\])[A-Za-z-]+: [^\n\\]*)*")
_PEM_EDGE = lazy(r"^(?:\s|\\[nrt])+|(?:\s|\\[nrt])+$")
_PUTTY = lazy(r"Private-Lines: *(?P<n>\d{1,3}) *(?:\r?\n|\\r?\\n)")
_PUTTY_LINE = lazy(r"[A-Za-z0-9+/=]+(?:\r?\n|\\r?\\n)?")


def find_private_keys(text: str) -> list[Hit]:
    """The body of every PEM private key block (RSA, EC, DSA, OpenSSH, PKCS#8, encrypted,
    PGP), also inside JSON strings (``\\n`` escapes), indented YAML or a truncated log
    line; and the private lines of a PuTTY key file. The armour lines stay."""
    hits: list[Hit] = []
    for head in _PEM_HEAD.finditer(text):
        tail = _PEM_END.search(text, head.end(), head.end() + 65536)
        body = _PEM_BODY.match(text, head.end())  # matches, possibly empty
        stop = tail.start() if tail else body.end() if body else head.end()
        start, end = _trim(text, head.end(), stop)
        if end - start >= 16:
            hits.append(Hit(start, end, "private-key", "secret"))
    for m in _PUTTY.finditer(text):
        pos = m.end()
        for _ in range(int(m.group("n"))):  # the next N lines
            line = _PUTTY_LINE.match(text, pos)
            if line is None:
                break
            pos = line.end()
        start, end = _trim(text, m.end(), pos)
        if end > start:
            hits.append(Hit(start, end, "putty-private-key", "secret"))
    return hits


def _trim(text: str, start: int, end: int) -> tuple[int, int]:
    """``start, end`` without leading/trailing whitespace and ``\\n`` escapes."""
    body = text[start:end]
    lead = _PEM_EDGE.match(body)
    if lead:
        start += lead.end()
        body = body[lead.end():]
    tail = _PEM_EDGE.search(body)
    if tail and tail.start() > 0:
        end = start + tail.start()
    return start, end


# -- JWTs -----------------------------------------------------------------------------

_JWT = lazy(r"eyJ(?<![\x00A-Za-z0-9_-]eyJ)[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]{2,}){1,3}"
                  r"\.[A-Za-z0-9_-]*(?![\x00A-Za-z0-9_-])")
_JWT_B64 = lazy(r"ZXlK(?<![\x00A-Za-z0-9+/]ZXlK)[A-Za-z0-9+/]{40,}={0,2}"
                      r"(?![\x00A-Za-z0-9+/=])")


def _b64json(part: str) -> object:
    try:
        raw = base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
        return json.loads(raw)
    except (binascii.Error, ValueError):
        return None


def _jwt_ok(token: str) -> bool:
    """A JWS (3 parts) or JWE (5 parts) whose header decodes to a JSON object with
    ``alg`` (or, for JWE, ``enc``)."""
    parts = token.split(".")
    if len(parts) not in (3, 5):
        return False
    header = _b64json(parts[0])
    return isinstance(header, dict) and ("alg" in header or "enc" in header)


def find_jwts(text: str) -> list[Hit]:
    """JSON Web Tokens, and JWTs base64-encoded once more (``ZXlK…``)."""
    hits = [Hit(m.start(), m.end(), "jwt", "secret") for m in _JWT.finditer(text)
            if _jwt_ok(m.group()) and not is_example(m.group())]
    for m in _JWT_B64.finditer(text):
        try:
            inner = base64.b64decode(m.group() + "=" * (-len(m.group()) % 4)).decode("ascii")
        except (binascii.Error, ValueError):
            continue
        if _jwt_ok(inner.strip()):
            hits.append(Hit(m.start(), m.end(), "jwt-base64", "secret"))
    return hits


# -- URLs and DSNs --------------------------------------------------------------------

_USERINFO = lazy(r"://(?P<user>[^\s:/?#@\"'<>\\\x00]{0,256}):"
                       r"(?P<secret>[^\s/?#\"'<>\\\x00]{1,512})@(?=[A-Za-z0-9\[._-])")


def find_url_passwords(text: str) -> list[Hit]:
    """The password of ``scheme://user:password@host`` (the user stays): http(s), git,
    ftp, and every DSN (postgres, mysql, mongodb+srv, redis, amqp …)."""
    return [Hit(m.start("secret"), m.end("secret"), "url-password", "secret")
            for m in _USERINFO.finditer(text) if _real_value(m.group("secret"))]


# -- Authorization schemes ------------------------------------------------------------

_STANDALONE = lazy(
    "(?:" + "|".join(f"{w}(?<![\x00A-Za-z0-9_-]{w})" for w in ("Bearer", "bearer", "BEARER",
                                                          "Basic", "BASIC")) + ")"
    r"(?=[ \t]+(?P<secret>[A-Za-z0-9._~+/-]{6,}=*)(?![\x00A-Za-z0-9._~+/=-]))")
#: Authorization scheme -> detector of the credential after it
_SCHEMES = {"bearer": "bearer", "basic": "basic-auth", "bot": "discord-bot-token",
            "ssws": "okta-api-token"}


def _basic_ok(cred: str) -> bool:
    """Whether a Basic credential decodes to printable ``user:password``."""
    try:
        raw = base64.b64decode(cred + "=" * (-len(cred) % 4), validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return False
    return ":" in raw and raw.isprintable()


def _bearer_ok(cred: str) -> bool:
    """A credential after a bare ``Bearer`` (no header name to vouch for it): not a word
    of prose, so it has a digit or mixed case, and some entropy."""
    has_digit = any(c.isdigit() for c in cred)
    mixed = any(c.isupper() for c in cred) and any(c.islower() for c in cred)
    return (has_digit or mixed) and entropy(cred) >= 2.5 and _real_value(cred)


def find_auth_schemes(text: str) -> list[Hit]:
    """``Bearer X`` and ``Basic X`` wherever they appear (curl ``-H``, HAR, chat), with
    no header name in front: a Bearer credential must look like one, a Basic one must
    decode to ``user:password`` (and be written ``Basic``: "basic usage" is prose)."""
    hits: list[Hit] = []
    for m in _STANDALONE.finditer(text):
        cred = m.group("secret")
        bearer = text[m.start()] in "Bb" and text[m.start() + 1] in "Ee"
        if bearer and _bearer_ok(cred):
            hits.append(Hit(m.start("secret"), m.end("secret"), "bearer", "secret"))
        elif not bearer and _basic_ok(cred):
            hits.append(Hit(m.start("secret"), m.end("secret"), "basic-auth", "secret"))
    return hits


def _authorization(text: str, start: int, end: int) -> Iterable[Hit]:
    """The credential of an Authorization header value ``text[start:end]``: what
    follows the scheme (``Bearer``, ``Basic``, ``token``, ``Bot``, ``SSWS``, ``ApiKey``
    …), or the whole value when there is no scheme. Digest (a hash bound to a nonce)
    and multi-part schemes such as AWS SigV4 (whose key id the vendor rule finds) are
    left alone."""
    m = _SCHEME.match(text, start, end)
    scheme = m.group(1).lower() if m else ""
    cred_start = m.end() if m else start
    cred = text[cred_start:end].rstrip()
    if scheme == "digest" or not cred or " " in cred or not _real_value(cred):
        return
    if not scheme and cred.lower() in _SCHEME_WORDS:
        return  # a scheme whose credential is gone (already a token) or not given
    yield Hit(cred_start, cred_start + len(cred), _SCHEMES.get(scheme, "auth-header"),
              "secret")


_SCHEME = lazy(r"([A-Za-z][A-Za-z0-9_-]*)[ \t]+(?=\S)")
_SCHEME_WORDS = frozenset({"bearer", "basic", "token", "digest", "bot", "ssws", "apikey",
                           "negotiate", "ntlm", "hmac", "oauth"})


# -- assignments: NAME = value ----------------------------------------------------------

_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-$@")
# an unquoted value ends at a delimiter, or at "&" before another name= (a query)
_UNQUOTED = lazy(r"(?:[^\s\"'`,;<>{}\[\]()\\\x00&]|&(?![A-Za-z_][\w.\[\]-]*=))+")
_QUERY_VALUE = lazy(r"[^\s&#\"'<>\\\x00]+")
_REST_OF_LINE = lazy(r"[^\r\n\"'`\\\x00]+")
_COMPARE = ("==", "!=", ">=", "<=")
_IDENT = lazy(r"[A-Za-z_][A-Za-z0-9_]*")
_DOTTED = lazy(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_COOKIE_ATTRS = frozenset({"expires", "max-age", "domain", "path", "samesite", "priority",
                           "partitioned", "secure", "httponly", "version", "comment"})


def find_assignments(text: str, ops: Iterable[tuple[int, int]]) -> list[Hit]:
    """Values assigned to secret-named names: ``NAME=value`` (env, .env, shell, query
    strings), ``name: value`` (YAML, headers), ``"name": "value"`` (JSON in text),
    ``name = 'value'`` (TOML, Python), ``name := value``, ``'name' => 'value'``.
    ``ops`` are the operators' spans, from the gate's anchors."""
    hits: list[Hit] = []
    for op_start, op_end in ops:
        name_span = _name_before(text, op_start)
        if name_span is None:
            continue
        ns, ne = name_span
        name = text[ns:ne]
        hits.extend(_assigned(text, name, ns, op_end))
    return hits


def _name_before(text: str, op: int) -> tuple[int, int] | None:
    """The span of the name an operator at ``op`` assigns to (quotes, a closing
    bracket and escaped quotes skipped)."""
    i = op
    while i > 0 and text[i - 1] in " \t":
        i -= 1
    if i > 0 and text[i - 1] == "]":
        i -= 1
    while i > 0 and text[i - 1] in "\"'`\\":
        i -= 1
    end = i
    while i > 0 and text[i - 1] in _NAME_CHARS and end - i < 80:
        i -= 1
    return (i, end) if end > i else None


def _assigned(text: str, name: str, name_start: int, op_end: int) -> Iterable[Hit]:
    """The hit for ``name`` assigned the value that starts after ``op_end``."""
    op = text[op_end - 1]
    if text[op_end - 2:op_end] in _COMPARE or (
            text[op_end:op_end + 1] == "="
            and text[op_end + 1:op_end + 2] in (" ", "\t", "\"", "'")):
        return  # a comparison (a == b, a != b), not an assignment
    low = name.lower().lstrip("-$@").replace("_", "-")
    header = low in ("authorization", "proxy-authorization", "cookie", "set-cookie",
                     "cookies")
    head = BLOCK_HEAD.match(text, op_end) if op == ":" else None
    if head is not None:  # YAML `password: |`: the value is the lines below
        lead = text[text.rfind("\n", 0, name_start) + 1:name_start]
        span = yaml_block(text, head.end(), len(lead) - len(lead.lstrip(" -")))
        span = _trim(text, *span) if span is not None else None
    else:
        span = _value_span(text, op_end, query=_in_query(text, name_start) and op == "=",
                           line=header)
    if span is None:
        return
    start, end = span
    value = text[start:end]
    if low in ("authorization", "proxy-authorization"):
        yield from _authorization(text, start, end)
        return
    if header:
        yield from _cookies(text, start, end, set_cookie=low == "set-cookie")
        return
    for rule in context_rules_for(name):
        if rule.accepts(value):
            yield Hit(start, end, rule.id, "secret")
            return
    cls = key_class(name)
    quoted = start > 0 and text[start - 1] in "\"'`"
    if cls is None or not _real_value(value) or (
            not quoted and _looks_like_code(text, name, value, end)):
        return
    if cls == "maybe" and not looks_secret(value):
        return
    detector = "query-secret" if _in_query(text, name_start) else (
        "cli-secret" if name.startswith("--") else "named-secret")
    yield Hit(start, end, detector, "secret")


def _in_query(text: str, name_start: int) -> bool:
    return name_start > 0 and text[name_start - 1] in "?&"


def _value_span(text: str, pos: int, *, query: bool, line: bool = False
                ) -> tuple[int, int] | None:
    """The value after an operator: quoted (to the closing quote, escapes allowed,
    on one line) or unquoted (to a delimiter)."""
    n = len(text)
    while pos < n and text[pos] in " \t":
        pos += 1
    if pos >= n:
        return None
    quote = text[pos]
    esc = ""
    if quote == "\\" and text[pos + 1:pos + 2] in ('"', "'"):
        esc, quote = "\\", text[pos + 1]
        pos += 1
    if quote in "\"'`":
        close = esc + quote
        end = pos + 1
        limit = min(n, pos + 4096)
        while end < limit:
            j = text.find(close, end, limit)
            if j == -1 or "\n" in text[end:j]:
                return None
            if esc or text[j - 1] != "\\":
                return (pos + 1, j) if j > pos + 1 else None
            end = j + 1
        return None
    m = (_REST_OF_LINE if line else _QUERY_VALUE if query else _UNQUOTED).match(text, pos)
    if m is None:
        return None
    end = pos + len(m.group().rstrip())
    return (pos, end) if end > pos else None


def _real_value(value: str) -> bool:
    """A value that can be a credential: not a placeholder, an example, a publishable
    key, a nested structure or punctuation."""
    v = value.strip()
    return (bool(v) and not is_placeholder(v) and not is_example(v) and not is_public(v)
            and any(c.isalnum() for c in v) and not v.startswith(("{", "[", "«")))


def _looks_like_code(text: str, name: str, value: str, end: int) -> bool:
    """``password=self.password``, ``token=get_token()``, ``api_key=api_key``: code
    passing a variable along, not a literal secret; and ``Password: must be …``, prose."""
    bare = value.lstrip("$").lower().replace("-", "_")
    if bare == name.lower().lstrip("-$@").replace("-", "_"):
        return True
    if _DOTTED.fullmatch(value) and not (any(c.isdigit() for c in value)
                                         and value != value.lower() != value.upper()):
        return True  # settings.SECRET_KEY, self.password (a random key.part stays one)
    if _IDENT.fullmatch(value) and text[end:end + 1] in ("(", "["):
        return True
    if value.isalpha() and value.islower() and len(value) < 16:
        return re.match(r"[ \t]+[a-z]", text[end:end + 2]) is not None
    return False


def _cookies(text: str, start: int, end: int, *, set_cookie: bool) -> Iterable[Hit]:
    """Each cookie value of a Cookie header (the names stay); of a Set-Cookie, the
    first pair only (the rest are attributes)."""
    pos = start
    for piece in text[start:end].split(";"):
        name, eq, val = piece.partition("=")
        if eq and name.strip().lower() not in _COOKIE_ATTRS:
            v0 = pos + len(name) + 1
            core = val.strip()
            if core and _real_value(core):
                s = v0 + (len(val) - len(val.lstrip()))
                yield Hit(s, s + len(core), "cookie", "secret")
        pos += len(piece) + 1
        if set_cookie:
            break


# -- command lines ---------------------------------------------------------------------

_LONG_FLAG = lazy(r"(?P<name>--(?<![\x00\w-]--)[A-Za-z][A-Za-z0-9_-]{1,40})[ \t]+"
                        r"(?P<q>[\"']?)(?P<value>[^\s\"'\x00-][^\s\"'\x00]*)(?P=q)")
_CLI_SPECIAL = (
    lazy(r"curl\b[^\n]*?\s(?:-u|--user)[ =]?[\"']?[^\s:\"']*:(?P<secret>[^\s\"']+)"),
    lazy(r"mysql(?:dump|admin|sh)?\b[^\n]*?\s-p[\"']?(?P<secret>[^\s\"']+)"),
    lazy(r"sshpass[ \t]+-p[ \t]+[\"']?(?P<secret>[^\s\"']+)"),
    lazy(r"redis-cli\b[^\n]*?\s-a[ \t]+[\"']?(?P<secret>[^\s\"']+)"),
    lazy(r"-pass(?:in|out)?[ \t]+pass:(?P<secret>\S+)"))


def find_cli(text: str) -> list[Hit]:
    """Secrets on command lines: ``--password X``, ``--api-key X`` (any secret-named
    long flag, ``=`` forms are assignments), ``curl -u user:password`` (the password),
    ``mysql -pX``, ``sshpass -p X``, ``redis-cli -a X``, ``openssl -passin pass:X``."""
    hits: list[Hit] = []
    for m in _LONG_FLAG.finditer(text):
        name, value = m.group("name"), m.group("value")
        cls = key_class(name)
        if cls is None or not name.startswith("--") or not _real_value(value):
            continue
        if value.startswith("-") or (cls == "maybe" and not looks_secret(value)):
            continue
        hits.append(Hit(m.start("value"), m.end("value"), "cli-secret", "secret"))
    for rx in _CLI_SPECIAL:
        hits += [Hit(m.start("secret"), m.end("secret"), "cli-secret", "secret")
                 for m in rx.finditer(text) if _real_value(m.group("secret"))]
    return hits


# -- XML, key/value attribute pairs, netrc, Kubernetes Secrets ----------------------------------

_XML = lazy(r"<(?P<name>[A-Za-z_][\w:.-]{0,60})>(?P<value>[^<>\n]{1,1024})</(?P=name)>")
_KV_ATTRS = lazy(r"(?:key|name)\s*=\s*\"(?P<name>[^\"<>\n]{1,80})\"\s+value\s*=\s*"
                       r"\"(?P<value>[^\"<>\n]*)\"")
_PAIR = lazy(r"\"(?:name|key)\"\s*:\s*\"(?P<name>[^\"\n]{1,80})\"\s*,\s*\"value\"\s*:\s*"
                   r"\"(?P<value>(?:[^\"\\\n]|\\.){1,4096})\"")
_NETRC = lazy(r"machine[ \t]+\S+(?:[ \t\n]+(?:login|account)[ \t]+\S+)*[ \t\n]+"
                    r"password[ \t]+(?P<secret>\S+)")


def find_xml(text: str) -> list[Hit]:
    """``<password>X</password>`` elements, ``<add key="Password" value="X"/>``
    attribute pairs (.NET config, NuGet), ``{"name": "X-Api-Key", "value": "X"}``
    pairs printed in text (HAR, OTLP), and netrc ``password X``."""
    hits: list[Hit] = []
    for rx in (_XML, _KV_ATTRS, _PAIR):
        for m in rx.finditer(text):
            cls = key_class(m.group("name"))
            value = m.group("value")
            if cls is None or not _real_value(value) or (cls == "maybe"
                                                         and not looks_secret(value)):
                continue
            name = m.group("name").lower()
            if name in ("authorization", "proxy-authorization"):
                hits.extend(_authorization(text, m.start("value"), m.end("value")))
            elif rx is _XML:
                hits.append(Hit(m.start("value"), m.end("value"), "xml-secret", "secret"))
            else:
                hits.append(Hit(m.start("value"), m.end("value"), "named-secret", "secret"))
    hits += [Hit(m.start("secret"), m.end("secret"), "netrc-password", "secret")
             for m in _NETRC.finditer(text) if _real_value(m.group("secret"))]
    return hits


_K8S_KIND = lazy(r"kind[\"']?\s*:\s*[\"']?Secret\b")
_K8S_YAML_DATA = lazy(r"(?m)^(?P<ind>[ \t]*)(?:data|stringData):[ \t]*\r?$")
_K8S_YAML_ITEM = lazy(r"(?P<ind>[ \t]+)(?P<key>[\w.-]+):[ \t]*(?P<value>[^\n]*)")
_K8S_JSON_DATA = lazy(r"\"(?:data|stringData)\"\s*:\s*\{(?P<body>[^{}]{1,65536})\}")
_K8S_JSON_ITEM = lazy(r"\"[\w.-]+\"\s*:\s*\"(?P<value>(?:[^\"\\]|\\.)*)\"")


def find_k8s_secrets(text: str) -> list[Hit]:
    """Every value of the ``data``/``stringData`` of a Kubernetes ``kind: Secret``
    manifest, YAML or JSON (the keys stay: ``tls.key``, ``password`` …)."""
    if _K8S_KIND.search(text) is None:
        return []
    hits: list[Hit] = []
    for m in _K8S_YAML_DATA.finditer(text):
        hits += _k8s_yaml_block(text, m.end(), len(m.group("ind")))
    for m in _K8S_JSON_DATA.finditer(text):
        for item in _K8S_JSON_ITEM.finditer(m.group("body")):
            if _real_value(item.group("value")):
                off = m.start("body")
                hits.append(Hit(off + item.start("value"), off + item.end("value"),
                                "k8s-secret", "secret"))
    return hits


def _k8s_yaml_block(text: str, pos: int, indent: int) -> list[Hit]:
    hits: list[Hit] = []
    lines = text[pos:].split("\n")
    offset = pos + 1 if text[pos:pos + 1] == "\n" else pos
    if lines and lines[0] == "":
        lines = lines[1:]
    item_indent: int | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _K8S_YAML_ITEM.match(line)
        if not line.strip():
            offset += len(line) + 1
            i += 1
            continue
        if m is None or len(m.group("ind")) <= indent:
            break
        item_indent = item_indent or len(m.group("ind"))
        value = m.group("value").strip()
        start = offset + m.start("value")
        if BLOCK_INDICATOR.fullmatch(value):  # a block scalar: the lines below
            block = yaml_block(text, offset + len(line), item_indent)
            if block is not None and (block := _trim(text, *block))[1] > block[0]:
                hits.append(Hit(block[0], block[1], "k8s-secret", "secret"))
            j, off2 = i + 1, offset + len(line) + 1
            while j < len(lines) and (not lines[j].strip()
                                      or len(lines[j]) - len(lines[j].lstrip()) > item_indent):
                off2 += len(lines[j]) + 1
                j += 1
            offset = off2
            i = j
            continue
        core = value.strip("\"'")
        if core and _real_value(core):
            s = start + m.group("value").find(core)
            hits.append(Hit(s, s + len(core), "k8s-secret", "secret"))
        offset += len(line) + 1
        i += 1
    return hits

