"""A Python regex rewritten for a multi-pattern engine, as a superset on ASCII text.

``superset(pattern)`` reads a compiled ``re`` pattern's parse tree and writes a pattern
that any engine with PCRE's core syntax (hyperscan, RE2) compiles: no lookarounds, no
back-references, no named groups, no inline flags, every character class spelled out
as the ASCII characters it holds. Wherever the text is ASCII, the rewrite matches
(somewhere) whenever the original does:

- a lookahead at the very end of the pattern is matched as ordinary text (``A(?=B)``
  becomes ``AB``), a lookbehind at its very start likewise; every other lookaround is
  dropped (a weaker pattern), and so are ``^``, ``$``, ``\\A`` and ``\\Z``;
- case-insensitive parts become classes (``[kK]``), with Python's own folding of the
  ASCII letters;
- ``\\d``, ``\\w``, ``\\s`` and ``.`` become the ASCII characters Python's Unicode
  classes hold; a part that only non-ASCII text can match makes its branch impossible
  (``None``), and a back-reference matches anything.

With ``reverse=True`` the rewrite reads the text from end to start: a pattern written
for ``text[::-1]`` becomes one for ``text`` (the gate's anchors are written reversed).
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

__all__ = ["superset", "superset_parts"]

_ASCII = [chr(i) for i in range(128)]
_MAXREPEAT = int(re._constants.MAXREPEAT)
_C = re._constants
_CATEGORIES = {
    _C.CATEGORY_DIGIT: re.compile(r"\d"), _C.CATEGORY_NOT_DIGIT: re.compile(r"\D"),
    _C.CATEGORY_WORD: re.compile(r"\w"), _C.CATEGORY_NOT_WORD: re.compile(r"\W"),
    _C.CATEGORY_SPACE: re.compile(r"\s"), _C.CATEGORY_NOT_SPACE: re.compile(r"\S"),
}
_Node = list[tuple[Any, Any]]


@cache
def _folds(ch: str) -> frozenset[str]:
    """The ASCII characters ``ch`` matches case-insensitively (and ``ch``)."""
    one = re.compile(re.escape(ch), re.IGNORECASE)
    return frozenset({ch, *(a for a in _ASCII if one.fullmatch(a))})


def _class(chars: set[str]) -> str | None:
    """A class of exactly these ASCII characters, in ranges (None when empty)."""
    codes = sorted(ord(c) for c in chars if ord(c) < 128)
    if not codes:
        return None
    runs: list[list[int]] = []
    for c in codes:
        if runs and c == runs[-1][1] + 1:
            runs[-1][1] = c
        else:
            runs.append([c, c])
    body = "".join(f"\\x{a:02x}" if a == b else f"\\x{a:02x}-\\x{b:02x}" for a, b in runs)
    return body if len(codes) == 1 else f"[{body}]"


def _members(items: list[tuple[Any, Any]], icase: bool) -> set[str]:
    """The ASCII characters a parsed ``[…]`` class matches."""
    negate = False
    tests: list[Any] = []
    for op, av in items:
        if op is _C.NEGATE:
            negate = True
        elif op is _C.LITERAL:
            tests.append(chr(av))
        elif op is _C.RANGE:
            tests.append((chr(av[0]), chr(av[1])))
        elif op is _C.CATEGORY:
            tests.append(_CATEGORIES[av])
        else:  # pragma: no cover - the parser emits no other member kind
            raise ValueError(f"unexpected class member {op}")

    def hit(a: str) -> bool:
        for t in tests:
            if isinstance(t, str):
                if a == t:
                    return True
            elif isinstance(t, tuple):
                if t[0] <= a <= t[1]:
                    return True
            elif t.match(a):
                return True
        return False

    out: set[str] = set()
    for a in _ASCII:
        variants = {a} | (_variants(a) if icase else set())
        inside = any(hit(v) for v in variants)
        if inside != negate or (icase and negate):
            out.add(a)  # a negated class under IGNORECASE: keep every character (superset)
    return out


@cache
def _variants(a: str) -> frozenset[str]:
    """Every character (ASCII or not) Python folds together with ASCII ``a``."""
    extra = {"k": "\u212a", "s": "\u017f", "i": "\u0130\u0131"}.get(a.lower(), "")
    return frozenset({a, a.lower(), a.upper(), *extra})


_AND = "AND"  # a pseudo-node: one character of both of two one-character items
_ONE_CHAR = (_C.LITERAL, _C.NOT_LITERAL, _C.ANY, _C.IN)


def _charset(op: Any, av: Any, flags: int) -> set[str] | None:
    """The ASCII characters a one-character item matches; None for other items."""
    icase = bool(flags & re.IGNORECASE)
    if op is _C.LITERAL:
        return set(_folds(chr(av))) if icase else {chr(av)}
    if op is _C.NOT_LITERAL:
        return set(_ASCII) - (set() if icase else {chr(av)})
    if op is _C.ANY:
        return set(_ASCII) - (set() if flags & re.DOTALL else {"\n"})
    if op is _C.IN:
        return _members(av, icase)
    return None


def _lookbehind_char(alt: Any) -> tuple[Any, Any] | None:
    """``(op, av)`` of ``X`` when an alternative starts with ``(?<=X)``, ``X`` one
    character."""
    if alt and alt[0][0] is _C.ASSERT and alt[0][1][0] == -1:
        inner = list(alt[0][1][1])
        if len(inner) == 1 and inner[0][0] in _ONE_CHAR:
            return inner[0][0], inner[0][1]
    return None


def _narrowed(node: _Node, flags: int) -> _Node:
    """``[abc](?:(?<=[a])x|(?<=[bc])y)`` as ``(?:[a]x|[bc]y)``: a one-character item
    followed by a group whose every branch starts by looking back at that character
    (``shapes_re`` writes its patterns so); the look-backs would otherwise be dropped."""
    out: _Node = []
    i = 0
    node = list(node)
    while i < len(node):
        op, av = node[i]
        nxt = node[i + 1] if i + 1 < len(node) else None
        branches = _branches(nxt) if op in _ONE_CHAR and nxt is not None else None
        if branches is not None and all(_lookbehind_char(a) for a in branches):
            alts = []
            for a in branches:
                other = _lookbehind_char(a)
                assert other is not None
                pair = ((op, av, flags), (other[0], other[1], flags))
                alts.append([(_AND, pair), *a[1:]])
            out.append((_C.BRANCH, (None, alts)))
            i += 2
            continue
        out.append((op, av))
        i += 1
    return out


def _bounded_start(node: _Node, flags: int) -> _Node:
    """``x(?<![C]x)…`` as ``(?<![C])x…`` (``words_re``'s bounded words check the
    character before a word after its first character): the look-back then stands at
    the start, where it is kept."""
    if len(node) < 2 or node[0][0] not in _ONE_CHAR or node[1][0] is not _C.ASSERT_NOT:
        return node
    direction, sub = node[1][1]
    sub = list(sub)
    if direction != -1 or len(sub) != 2 or any(op not in _ONE_CHAR for op, _ in sub):
        return node
    mine = _charset(node[0][0], node[0][1], flags) or set()
    if not mine <= (_charset(sub[1][0], sub[1][1], flags) or set()):
        return node
    return [(_C.ASSERT_NOT, (-1, [sub[0]])), node[0], *node[2:]]


def _branches(item: tuple[Any, Any]) -> list[_Node] | None:
    """The alternatives of ``a|b`` or of a flagless group ``(?:a|b)``, else None."""
    op, av = item
    if op is _C.BRANCH:
        return [list(a) for a in av[1]]
    if op is _C.SUBPATTERN:
        _group, add, drop, sub = av
        if not add and not drop and len(sub) == 1 and sub[0][0] is _C.BRANCH:
            return [list(a) for a in sub[0][1][1]]
    return None


def _tail_lookbehinds(item: tuple[Any, Any]) -> list[_Node] | None:
    """The contents of a look-back that ends a pattern (``(?<=B)``, or a group of
    look-backs only, ``(?:(?<=A)|(?<=B))``), else None."""
    op, av = item
    if op is _C.ASSERT and av[0] == -1:
        return [list(av[1])]
    alts = _branches(item)
    if alts and all(len(a) == 1 and a[0][0] is _C.ASSERT and a[0][1][0] == -1 for a in alts):
        return [list(a[0][1][1]) for a in alts]
    return None


class _Writer:
    def __init__(self, reverse: bool) -> None:
        self.reverse = reverse

    def seq(self, node: _Node, flags: int, head: bool, tail: bool) -> str | None:
        node = _narrowed(node, flags)
        if head:
            node = _bounded_start(node, flags)
        behind = _tail_lookbehinds(node[-1]) if tail and node else None
        if behind is not None:
            # ``P(?<=B)`` at the very end: wherever it matches, ``B`` ends there too
            # (and so does a negative look-ahead right before the look-back)
            ahead = node[-2:-1] if len(node) > 1 and node[-2][0] is _C.ASSERT_NOT else []
            alts = [self.seq(b + ahead, flags, False, True) for b in behind]
            kept = [a for a in alts if a is not None]
            return "(?:" + "|".join(kept) + ")" if kept else None
        parts: list[str] = []
        n = len(node)
        for i, (op, av) in enumerate(node):
            got = self.item(op, av, flags, head and i == 0, tail and i == n - 1)
            if got is None:
                return None
            parts.append(got)
        if self.reverse:
            parts.reverse()
        return "".join(parts)

    def item(self, op: Any, av: Any, flags: int, head: bool, tail: bool) -> str | None:
        chars = _charset(op, av, flags)
        if chars is not None:
            return _class(chars)
        if op is _AND:
            (op1, av1, f1), (op2, av2, f2) = av
            both = (_charset(op1, av1, f1) or set()) & (_charset(op2, av2, f2) or set())
            return _class(both)
        if op is _C.BRANCH:
            alts = [self.seq(b, flags, head, tail) for b in av[1]]
            kept = [a for a in alts if a is not None]
            return "(?:" + "|".join(kept) + ")" if kept else None
        if op is _C.SUBPATTERN:
            _group, add, drop, sub = av
            inner = self.seq(sub, (flags | add) & ~drop, head, tail)
            return None if inner is None else (f"(?:{inner})" if inner else "")
        if op is _C.ATOMIC_GROUP:
            inner = self.seq(av, flags, head, tail)
            return None if inner is None else (f"(?:{inner})" if inner else "")
        if op in (_C.MAX_REPEAT, _C.MIN_REPEAT, _C.POSSESSIVE_REPEAT):
            lo, hi, sub = av
            inner = self.seq(sub, flags, False, False)
            if inner is None or inner == "":
                return None if inner is None and lo > 0 else ""
            bound = f"{{{lo},}}" if hi == _MAXREPEAT else f"{{{lo},{hi}}}"
            return f"(?:{inner}){bound}"
        if op is _C.AT:
            if av in (_C.AT_BOUNDARY, _C.AT_NON_BOUNDARY):
                return r"\b" if av is _C.AT_BOUNDARY else r"\B"
            return ""  # ^ $ \A \Z: dropped
        if op is _C.ASSERT:
            direction, sub = av
            # inlined only where nothing follows (lookahead) or precedes (lookbehind)
            # in the whole pattern, in the pattern's own reading order
            if (direction == 1 and tail) or (direction == -1 and head):
                inner = self.seq(sub, flags, direction == -1, direction == 1)
                return None if inner is None else (f"(?:{inner})" if inner else "")
            return ""
        if op is _C.ASSERT_NOT:
            direction, sub = av
            sub = list(sub)
            # one character that must not stand at the very end (start) of the match:
            # the end (start) of the text, or any other character
            if len(sub) == 1 and ((direction == 1 and tail) or (direction == -1 and head)):
                chars = _charset(sub[0][0], sub[0][1], flags)
                if chars is not None:
                    other = _class(set(_ASCII) - chars)
                    at_end = (direction == 1) != self.reverse
                    if other is None:
                        return "$" if at_end else "^"
                    return f"(?:{other}|$)" if at_end else f"(?:^|{other})"
            return ""
        if op is _C.GROUPREF:
            return "[\\x00-\\x7f]*"
        if op is _C.GROUPREF_EXISTS:
            _group, yes, no = av
            alts = [self.seq(b, flags, head, tail) for b in (yes, no or [])]
            kept = [a for a in alts if a is not None]
            return "(?:" + "|".join(kept) + ")" if kept else None
        raise ValueError(f"cannot rewrite the regex construct {op}")


def superset(pattern: re.Pattern[str], reverse: bool = False, icase: bool = False
             ) -> str | None:
    """A PCRE-core pattern matching ASCII text wherever ``pattern`` does (on
    ``text[::-1]`` when ``reverse``; on ``text.lower()`` when ``icase``, to be
    matched case-insensitively); None when it can match no ASCII text."""
    tree = re._parser.parse(pattern.pattern, pattern.flags)
    flags = tree.state.flags | (re.IGNORECASE if icase else 0)
    return _Writer(reverse).seq(list(tree), flags, True, True)


def _split(node: _Node, flags: int) -> list[_Node]:
    """A sequence as the sequences of its alternatives: a top-level ``a|b`` and a
    trailing flagless group ``x(?:a|b)`` are distributed (``xa``, ``xb``)."""
    node = _narrowed(node, flags)
    alts = _branches(node[-1]) if node else None
    if alts is not None:
        return [node[:-1] + part for alt in alts for part in _split(alt, flags)]
    return [node]


def superset_parts(pattern: re.Pattern[str], reverse: bool = False, icase: bool = False
                   ) -> list[str]:
    """``superset`` as several patterns, one per alternative (an engine may refuse one
    pattern of tens of thousands of characters): some part matches wherever the
    pattern does. Alternatives that match no ASCII text are left out."""
    tree = re._parser.parse(pattern.pattern, pattern.flags)
    flags = tree.state.flags | (re.IGNORECASE if icase else 0)
    writer = _Writer(reverse)
    parts = (writer.seq(alt, flags, True, True) for alt in _split(list(tree), flags))
    return list(dict.fromkeys(p for p in parts if p is not None))
