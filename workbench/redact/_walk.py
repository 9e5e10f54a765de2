"""Redacting JSON values: the detectors applied leaf by leaf, with what keys tell us.

A string leaf is redacted by what ``find`` reports in it, and also by the key it sits
under: any value of a *secret* key (``password``, ``authorization``, ``cookie`` …) is
a secret unless a hit already covers the secret part (``Bearer abc`` keeps ``Bearer``);
a value of a *maybe* key (``*_token``, ``session`` …) is one when it looks like one.
``{"name"|"key": K, "value": V}`` pairs (HAR headers, query strings, env lists, OTLP
attributes) put ``V`` under the key ``K``; OTLP's ``{"stringValue": …}`` wrappers and
lists pass their key down. A string holding a JSON document is decoded, redacted and
re-encoded (compact) only when something changed; ``a=b; c=d`` under a cookie key keeps
its cookie names. Numbers, booleans and nulls are never changed, and a key only when a
detector finds something in the key itself (a token used as an object key becomes its
token), so the structure (types, array lengths, ordinary keys) survives and rules still
select the same events. A URL-encoded secret (``%3Dghp_…``) is found in the decoded
text and replaced where it stands (``_encoded.py``).

``Redactor.value`` returns the very object it was given when nothing changed, so a
caller can tell "clean" from "redacted" by identity, at no cost.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..model import InputError, JSONDecodeError, dumps, format_path, loads
from ._detect import find
from ._encoded import disjoint, encoded_spans
from ._encoded import gate as _gate
from ._hits import EXAMPLE_VALUES, is_public
from ._keys import is_placeholder, key_class, looks_secret
from ._personal import field_hit, field_kind
from ._prefilter import MAX_LENGTH as _PRIME_LENGTH
from ._prefilter import prefilter
from ._tokens import CATEGORIES, KEY_BYTES, TOKEN_RE, token_hex

__all__ = ["COOKIE_DETECTOR", "FIELD_DETECTOR", "Redactor", "scan_value", "spans_of"]

#: detector ids of the key-based rules (the value itself matched no pattern)
FIELD_DETECTOR = "secret-field"
COOKIE_DETECTOR = "cookie"

# _PERSONAL: a key that names personal data (customer_name, ssn, date_of_birth …): its
# value is judged by ``_personal.field_hit``; below _MAYBE, so a secret class wins a max
_NONE, _PERSONAL, _MAYBE, _SECRET = 0, 1, 2, 3
_HIT_KEY = 4  # a flag beside the class: the key itself holds a secret or personal datum
_MASK = 3
_CLASSES = {None: _NONE, "maybe": _MAYBE, "secret": _SECRET}
_KEY_CACHE: dict[str, int] = {}
_MAX_CACHE = 1 << 16
_MAX_SEEN_CHARS = 8 << 20  # characters of remembered strings per Redactor
_MAX_SEEN_STRING = 1 << 16  # longer strings are not remembered

# OTLP AnyValue wrappers (proto JSON spells them both ways): their contents belong to
# the attribute's key, not to the wrapper's own key names.
_WRAPPERS = frozenset({"stringValue", "string_value", "bytesValue", "bytes_value",
                       "arrayValue", "array_value", "values"})
_PAIR_NAMES = ("name", "key", "Name", "Key", "field", "Field")
_PAIR_VALUES = ("value", "Value")
_COOKIE_ATTRS = frozenset({"expires", "max-age", "domain", "path", "samesite", "priority",
                           "partitioned", "secure", "httponly", "version", "comment"})
_CLEAN = (None, None)  # the memo of a string that needs nothing
_COOKIE_SPLIT = re.compile(r"([;\n])")
_NOT_JSON = object()

Span = tuple[int, int, str, str]  # start, end, category, detector


def _class(key: str) -> int:
    c = _KEY_CACHE.get(key)
    if c is None:
        c = _CLASSES[key_class(key)]
        if c != _SECRET and _is_cookie_key(key):
            c = _SECRET  # har.request.cookies, cookies, Set-Cookie: every value is one
        if c == _NONE and field_kind(key) is not None:
            c = _PERSONAL
        if _key_spans(key):
            c |= _HIT_KEY
        if len(_KEY_CACHE) >= _MAX_CACHE:
            _KEY_CACHE.clear()
        _KEY_CACHE[key] = c
    return c


def _key_spans(key: str) -> list[Span]:
    """What the detectors find in an object key itself."""
    if not _gate(key):
        return []
    return spans_of(key)


def spans_of(s: str) -> list[Span]:
    """The detectors' finds in a string, URL-encoded ones included (sorted, disjoint)."""
    hits: list[Span] = [(h.start, h.end, h.category, h.detector) for h in find(s)]
    encoded = encoded_spans(s)
    return disjoint(hits + encoded) if encoded else hits


def _pair_key(d: dict[str, Any]) -> str | None:
    """``K`` of a ``{name|key: K, value: V}`` pair, else None."""
    for vk in _PAIR_VALUES:
        if vk in d:
            for nk in _PAIR_NAMES:
                k = d.get(nk)
                if type(k) is str:
                    return k
    return None


def _entries(d: dict[str, Any], ctx: int, key: str | None
             ) -> Iterator[tuple[str, Any, int, str | None]]:
    """Each item of a dict with the key class and key name its value falls under."""
    pair = _pair_key(d)
    wrapper = ctx != _NONE and all(k in _WRAPPERS for k in d)
    for k, x in d.items():
        if wrapper:
            yield k, x, ctx, key
        elif pair is not None and k in _PAIR_VALUES:
            # a cookie list's {name, value} items are secret whatever the cookie's name
            yield k, x, max(_class(pair) & _MASK, _class(k) & _MASK, ctx), pair
        elif pair is not None and k in _PAIR_NAMES:
            yield k, x, _NONE, k  # the pair's key: never redacted as a value
        else:
            yield k, x, _class(k), k  # with its _HIT_KEY flag: the caller masks it


def _is_cookie_key(key: str | None) -> bool:
    return key is not None and key.lower().replace("_", "-").endswith(("cookie", "cookies"))


def _json_doc(s: str) -> Any:
    """The container a string holds as JSON text, else ``_NOT_JSON``."""
    head = s.lstrip()[:1]
    if head not in ("{", "[") or s.rstrip()[-1:] not in ("}", "]"):
        return _NOT_JSON
    try:
        doc = loads(s)
    except (*JSONDecodeError, ValueError, RecursionError):
        return _NOT_JSON
    return doc if type(doc) in (dict, list) else _NOT_JSON


# the promotion policy's shapes: what a fixture holds where a value was
_SHAPE = re.compile(r"«(?:str:\d+|int|float|bool)»")


def _real_secret(s: str) -> bool:
    """Whether a value under a secret key is one: not empty, not a placeholder, not a
    documented example key or a publishable key, not already (partly) redacted or
    reduced to its shape (``«str:12»``)."""
    return (not is_placeholder(s) and s not in EXAMPLE_VALUES and not is_public(s)
            and TOKEN_RE.search(s) is None and _SHAPE.fullmatch(s) is None)


def _cookie_spans(s: str) -> list[Span]:
    """The value of each ``name=value`` of a Cookie / Set-Cookie string (not attributes)."""
    spans: list[Span] = []
    pos = 0
    for piece in _COOKIE_SPLIT.split(s):
        name, eq, val = piece.partition("=")
        if eq and name.strip().lower() not in _COOKIE_ATTRS:
            lead = len(val) - len(val.lstrip())
            core = val.strip()
            if core and _real_secret(core):
                start = pos + len(name) + 1 + lead
                spans.append((start, start + len(core), "secret", COOKIE_DETECTOR))
        pos += len(piece)
    return spans


def _plan(s: str, ctx: int, key: str | None, gate: bool) -> list[Span]:
    """What to replace in a string that is not a JSON document (sorted, disjoint)."""
    hits: list[Span] = spans_of(s) if gate else []
    if ctx == _NONE:
        return hits
    if ctx == _PERSONAL:
        kind = field_kind(key) if key is not None else None
        got = field_hit(kind, s) if kind is not None and TOKEN_RE.search(s) is None else None
        if got is None:
            return hits
        start = len(s) - len(s.lstrip())
        whole: Span = (start, len(s.rstrip()), got[0], got[1])
        return _merge([whole], [h for h in hits if h[2] == "secret"])
    if _is_cookie_key(key) and "=" in s:
        cookies = _cookie_spans(s)
        if cookies:
            return _merge(cookies, hits)
    if not _real_secret(s) or any(c == "secret" for _, _, c, _ in hits):
        return hits
    if ctx == _SECRET or looks_secret(s):
        return [(0, len(s), "secret", FIELD_DETECTOR)]
    return hits


def _merge(whole: list[Span], hits: list[Span]) -> list[Span]:
    """Whole-value spans (cookie values) plus the hits outside them; a value that one
    hit covers exactly keeps that hit's detector."""
    exact = {(h[0], h[1]): h for h in hits}
    out = [exact.get((w[0], w[1]), w) for w in whole]
    out += [h for h in hits if not any(w[0] < h[1] and h[0] < w[1] for w in whole)]
    out.sort()
    return out


def _fresh_strings(values: Iterable[Any], seen: dict[Any, Any], out: dict[str, None]) -> None:
    """The strings in ``values`` (at any depth) that ``seen`` does not hold and the
    prefilter reads, into ``out``."""
    for v in values:
        t = type(v)
        if t is str:
            if v not in seen and len(v) <= _PRIME_LENGTH:
                out[v] = None
        elif t is dict:
            _fresh_strings(v.values(), seen, out)
        elif t is list:
            _fresh_strings(v, seen, out)


def _check_key(key: bytes) -> bytes:
    if not isinstance(key, bytes) or len(key) < 16:
        raise ValueError(f"a redaction key is {KEY_BYTES} bytes (at least 16)")
    return key


#: the most extra passes a string gets when one find makes another
_PASSES = 3


class Redactor:
    """Replaces what the detectors find by keyed tokens (docs/redact.md).

    ``hits`` counts replacements by detector id (a caller may swap in its own
    ``Counter`` to count per trace). Not thread-safe; cheap to create.
    """

    def __init__(self, key: bytes) -> None:
        self._key = _check_key(key)
        self.hits: Counter[str] = Counter()
        self._hex: dict[str, str] = {}
        # strings already seen: (redacted text or None if unchanged, hits), keyed by the
        # string (under an ordinary key) or by (string, key class, key)
        self._seen: dict[str | tuple[str, int, str | None],
                         tuple[str | None, dict[str, int] | None]] = {}
        self._seen_chars = 0

    def token(self, category: str, value: str, detector: str | None = None) -> str:
        """The token of ``value``: ``«secret:detector:hex»`` or ``«category:hex»``."""
        memo = f"{category}\0{value}"
        digest = self._hex.get(memo)
        if digest is None:
            if category not in CATEGORIES:
                raise ValueError(f"unknown redaction category {category!r}")
            digest = token_hex(self._key, category, value)
            if len(self._hex) >= _MAX_CACHE:
                self._hex.clear()
            self._hex[memo] = digest
        if category == "secret":
            return f"«secret:{detector or 'secret'}:{digest}»"
        return f"«{category}:{digest}»"

    def pseudonym(self, value: Any) -> str:
        """``«id:hex»`` for any JSON value (``17`` and ``"17"`` share one); a token
        stays as it is, so pseudonymizing twice changes nothing."""
        if type(value) is str:
            if TOKEN_RE.fullmatch(value):
                return value
            return self.token("id", value)
        return self.token("id", dumps(value))

    def text(self, s: str) -> str:
        """Free text with every ``find`` hit replaced by its token."""
        if not _gate(s):
            return s
        return self._settled(s, spans_of)

    def ident(self, s: str) -> str:
        """An id redacted like any text (a secret inside becomes its token), without
        counting in ``hits``: most ids were seen before, and are answered from memory."""
        memo = self._seen.get(s)
        if memo is not None:
            return s if memo[0] is None else memo[0]
        if not _gate(s):  # most ids are new and clean: no counter to swap
            self._remember(s, s, None, None)
            return s
        outer, self.hits = self.hits, Counter()
        try:
            return self._plain_string(s)
        finally:
            self.hits = outer

    def prime(self, values: Iterable[Any]) -> None:
        """Asks the compiled prefilter about the strings of ``values`` not seen yet, all
        in one scan, and remembers those it shuts on as clean; ``value`` and ``ident``
        then answer them from memory. Output does not change: a string the prefilter
        shuts on is one the gate shuts on. A caller about to redact many small values
        (a batch of events) spares the prefilter one call per new string. Without the
        prefilter it does nothing."""
        pf = prefilter()
        if pf is None:
            return
        fresh: dict[str, None] = {}
        _fresh_strings(values, self._seen, fresh)
        strings = list(fresh)
        for s, passes in zip(strings, pf.passing(strings), strict=True):
            if not passes:
                self._remember(s, s, None, None)

    def value(self, v: Any) -> Any:
        """A JSON value with its secrets and personal data replaced (the same object
        when nothing was)."""
        try:
            return self._walk(v, _NONE, None)
        except RecursionError:
            raise InputError("a value is nested too deeply to redact", code="TOO_DEEP",
                             hint="JSON nested several hundred levels deep cannot be "
                             "redacted; pass --no-redact if the file holds no secrets"
                             ) from None

    # -- the walk -----------------------------------------------------------------------
    def _walk(self, v: Any, ctx: int, key: str | None) -> Any:
        t = type(v)
        if t is str:
            return self._plain_string(v) if ctx == _NONE else self._string(v, ctx, key)
        if t is dict:
            if ctx == _NONE and "value" not in v and "Value" not in v:
                return self._plain_dict(v)
            out: dict[str, Any] | None = None
            rekey = False
            for k, x, c, kk in _entries(v, ctx, key):
                if c > _SECRET:
                    rekey, c = True, c & _MASK
                nx = self._walk(x, c, kk)
                if nx is not x:
                    if out is None:
                        out = dict(v)
                    out[k] = nx
            done = v if out is None else out
            return self._rekey(done) if rekey else done
        if t is list:
            items: list[Any] | None = None
            for i, x in enumerate(v):
                tx = type(x)
                if tx is not str and tx is not dict and tx is not list:
                    continue  # numbers, booleans, null: never changed
                nx = self._walk(x, ctx, key)
                if nx is not x:
                    if items is None:
                        items = list(v)
                    items[i] = nx
            return v if items is None else items
        return v

    def _plain_dict(self, d: dict[str, Any]) -> dict[str, Any]:
        """``_walk`` of the commonest node: an object that is no pair and inherits no key
        class (inlined: a trace has hundreds of thousands of them)."""
        out: dict[str, Any] | None = None
        classes, seen = _KEY_CACHE, self._seen
        rekey = False
        nx: Any
        for k, x in d.items():
            tx = type(x)
            c = classes.get(k)
            if c is None:
                c = _class(k)
            if c == _NONE:
                if tx is str:
                    if seen.get(x) is _CLEAN:
                        continue  # the commonest leaf of all: a string seen clean before
                    nx = self._plain_string(x)
                elif tx is dict:
                    nx = (self._plain_dict(x) if "value" not in x and "Value" not in x
                          else self._walk(x, _NONE, k))
                elif tx is list:
                    nx = self._walk(x, _NONE, k)
                else:
                    continue
            else:
                if c > _SECRET:
                    rekey, c = True, c & _MASK
                if tx is str:
                    nx = self._string(x, c, k)
                elif tx is dict or tx is list:
                    nx = self._walk(x, c, k)
                else:
                    continue
            if nx is not x:
                if out is None:
                    out = dict(d)
                out[k] = nx
        done = d if out is None else out
        return self._rekey(done) if rekey else done

    def _rekey(self, d: dict[str, Any]) -> dict[str, Any]:
        """``d`` with each key that holds a find replaced by its redacted text."""
        return {self._apply(k, _key_spans(k)) if _class(k) & _HIT_KEY else k: x
                for k, x in d.items()}

    def _string(self, s: str, ctx: int, key: str | None) -> str:
        if ctx == _NONE:
            return self._plain_string(s)
        # what a string under a classed key (name, contact, password …) becomes depends
        # on the string, the class and the key alone: remembered like the others
        memo_key = (s, ctx, key)
        memo = self._seen.get(memo_key)
        if memo is not None:
            out, hits = memo
            if hits:
                self.hits.update(hits)
            return s if out is None else out
        outer, self.hits = self.hits, Counter()
        try:
            doc = _json_doc(s)
            if doc is not _NOT_JSON:  # a document is judged by its values alone
                walked = self._walk(doc, ctx, key)
                new = s if walked is doc else dumps(walked)
            else:
                new = self._settled(s, lambda t: _plan(t, ctx, key, _gate(t)))
            found = dict(self.hits)
        finally:
            outer.update(self.hits)
            self.hits = outer
        self._remember(memo_key, s, None if new is s else new, found or None)
        return new

    def _plain_string(self, s: str) -> str:
        """A string under an ordinary key: what it becomes depends on the string alone,
        so it is remembered (traces repeat their prompts, tool descriptions and ids in
        every event; a dict lookup is cheaper than the gate's scan)."""
        memo = self._seen.get(s)
        if memo is not None:
            out, hits = memo
            if hits:
                self.hits.update(hits)
            return s if out is None else out
        if not _gate(s):
            self._remember(s, s, None, None)
            return s
        outer, self.hits = self.hits, Counter()
        try:
            doc = _json_doc(s)
            if doc is _NOT_JSON:
                new = self._settled(s, lambda t: _plan(t, _NONE, None, True))
            else:
                walked = self._walk(doc, _NONE, None)
                new = s if walked is doc else dumps(walked)
            found = dict(self.hits)
        finally:
            outer.update(self.hits)
            self.hits = outer
        self._remember(s, s, None if new is s else new, found or None)
        return new

    def _remember(self, memo_key: str | tuple[str, int, str | None], s: str, out: str | None,
                  hits: dict[str, int] | None) -> None:
        if len(s) > _MAX_SEEN_STRING:
            return
        size = self._seen_chars + len(s) + (len(out) if out is not None else 0)
        if size > _MAX_SEEN_CHARS or len(self._seen) >= _MAX_CACHE:
            self._seen.clear()
            size = len(s)
        self._seen_chars = size
        self._seen[memo_key] = _CLEAN if out is None and hits is None else (out, hits)

    def _settled(self, s: str, plan: Callable[[str], list[Span]]) -> str:
        """``s`` with what ``plan`` finds replaced, and again until nothing more is found:
        one find can make another (a name before an address reads as a person once the
        address is a token), and redacting twice must change nothing."""
        out = self._apply(s, plan(s))
        for _ in range(_PASSES):
            if out == s:
                break
            s, out = out, self._apply(out, plan(out))
        return out

    def _apply(self, s: str, spans: list[Span]) -> str:
        if not spans:
            return s
        parts: list[str] = []
        pos = 0
        hits = self.hits
        for start, end, category, detector in spans:
            parts.append(s[pos:start])
            parts.append(self.token(category, s[start:end], detector))
            hits[detector] += 1
            pos = end
        parts.append(s[pos:])
        return "".join(parts)


# -- scanning: what is left --------------------------------------------------------------

def scan_value(v: Any) -> list[tuple[str, str]]:
    """``(json path, detector)`` of every secret or personal datum left in a value,
    in document order; never the value itself. Secrets in keys are reported too (at
    ``PATH (key)``); a key that holds a hit is written as ``«detector»`` in paths so
    that no path repeats it."""
    out: list[tuple[str, str]] = []
    _scan(v, _NONE, None, (), out)
    return out


def _path(segments: tuple[str | int, ...]) -> str:
    return format_path(segments) if segments else "$"


def _safe_key(k: str) -> str:
    hits = _key_spans(k)
    return f"«{hits[0][3]}»" if hits else k


def _scan(v: Any, ctx: int, key: str | None, at: tuple[str | int, ...],
          out: list[tuple[str, str]]) -> None:
    t = type(v)
    if t is str:
        gate = _gate(v)
        if not gate and ctx == _NONE:
            return
        if gate or ctx != _NONE:
            doc = _json_doc(v)
            if doc is not _NOT_JSON:
                _scan(doc, ctx, key, at, out)
                return
        out.extend((_path(at), d) for _, _, _, d in _plan(v, ctx, key, gate))
    elif t is dict:
        for k, x, c, kk in _entries(v, ctx, key):
            seg = _safe_key(k)
            if seg != k:
                out.append((_path((*at, seg)) + " (key)", seg[1:-1]))
            _scan(x, c & _MASK, kk, (*at, seg), out)
    elif t is list:
        for i, x in enumerate(v):
            _scan(x, ctx, key, (*at, i), out)
