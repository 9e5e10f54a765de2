"""A compiled prefilter in front of the redaction gate (``_encoded.gate``).

Of the distinct strings of a trace, about one in a hundred holds anything to redact;
the exact gate (``_detect.maybe``, ``_personal.maybe_personal`` and the encoded-text
checks) is a handful of Python regex searches per string. The prefilter is one
hyperscan database holding every anchor of those gates, generated from the gates'
own patterns (``_rewrite.superset_parts``: exact where hyperscan can, a superset where
a lookaround or a back-reference must go), so the two cannot drift. A string it does
not match cannot pass the exact gate; one it matches goes to the exact gate, which
decides. Strings that are not ASCII always go to the exact gate (the rewrite reasons
about ASCII text only), and so do strings longer than ``MAX_LENGTH`` (where the exact
gate is the faster of the two).

The database takes seconds to build, so it is built once and cached in the user cache
directory (``_cache.py``), under the SHA-256 of the gate's sources, the rewrite and the
hyperscan version: a changed pattern set gets a new file, and a file that fails to load
is rebuilt. Without hyperscan (no wheel for the platform) the exact gate runs alone,
with the same output.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
import time
from bisect import bisect_right
from pathlib import Path
from typing import Any

from ._cache import cache_dir, read_cached, write_cached

_hs: Any
try:
    import hyperscan as _hs
except ImportError:  # pragma: no cover - no wheel for this platform
    _hs = None

__all__ = ["Prefilter", "WordStarts", "batch_pattern", "prefilter", "word_starts"]

_FORMAT = "1"  # bump when the way patterns are written changes
#: longer strings go straight to the exact gate: on long text Python's regex engine,
#: skipping to the rare characters the gate's patterns start with, outruns a database
#: of several hundred patterns; on short ones the database saves the gate's calls
MAX_LENGTH = 256


def _sources() -> list[Any]:
    """What the exact gate is made of: its anchors, its regexes and the rules of the
    anchors that stand for token rules only (cheap to list; hashed for the cache)."""
    from . import _catalog, _detect, _encoded, _personal

    words = sorted(set(_catalog.LITERAL_ANCHORS) | set(_detect._STRUCT_ANCHORS))
    token_only = {w: [rule.regex for rule, _ in _detect._TOKEN_ONLY[w[::-1]]]
                  for w in words if w[::-1] in _detect._TOKEN_ONLY}
    return [words, token_only, _detect._STRUCT_ALTS, _detect._FWD, _personal._SHAPES,
            _personal._GATE_WORDS, _encoded._B64_JSON]


def gate_patterns(sources: list[Any] | None = None) -> list[tuple[str, bool]]:
    """``(pattern, case-insensitive)`` for every anchor of the exact gate, generated from
    the gates' own regexes and word lists; some pattern matches an ASCII string
    wherever the exact gate passes it."""
    from ._rewrite import superset_parts

    words, token_only, struct_alts, fwd, shapes, gate_words, b64 = sources or _sources()
    out: list[tuple[str, bool]] = []
    # _detect._GATE, read on the reversed text: its literal anchors (an anchor that
    # stands only for token rules counts where one of them matches: the rules take its
    # place), then each structural alternative (first character + rest) on its own
    for w in words:
        if w in token_only:
            out += [(p, False) for rx in token_only[w] for p in superset_parts(rx)]
        else:
            out.append((re.escape(w), False))
    for first, _kind, rest in struct_alts:
        alt = re.compile(re.escape(first) + rest)
        out += [(p, False) for p in superset_parts(alt, reverse=True)]
    # _detect._FWD and the personal-data shapes, on the text as it is
    out += [(p, False) for p in superset_parts(fwd)]
    out += [(p, False) for p in superset_parts(shapes)]
    # the personal-data words as the gates read them (where no shape stands, one of
    # them must), searched in the lower-cased text
    out += [(p, True) for p in superset_parts(gate_words, icase=True)]
    # _encoded.gate: percent-encoded text and base64 JSON openings
    out += [("%", False)]
    out += [(p, False) for p in superset_parts(b64)]
    return list(dict.fromkeys(out))


_SEP = "\x00"  # between the strings of a batch (a string holding it is asked alone)


def batch_pattern(pattern: str) -> str:
    """``pattern`` for a batch of strings joined by NUL: its ``^`` and ``$`` (the only
    anchors ``gate_patterns`` writes; escaped ``\\^`` and class members are not anchors)
    also hold at the separator, so wherever the pattern matches one string alone it
    matches the batch, ending in that string or on the separator right after it. NUL
    is no word character, as the edges of a text are not, so ``\\b`` is unchanged."""
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            out.append(pattern[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
        elif c == "^":
            c = "(?:^|\\x00)"
        elif c == "$":
            c = "(?:$|\\x00)"
        out.append(c)
        i += 1
    return "".join(out)


def _key(sources: list[Any]) -> str:
    """The cache key: the gate's sources, how they are rewritten, the engine's version."""
    def text(x: Any) -> Any:
        if isinstance(x, re.Pattern):
            return (x.pattern, x.flags)
        if isinstance(x, dict):
            return sorted((k, text(v)) for k, v in x.items())
        if isinstance(x, (list, tuple)):
            return [text(v) for v in x]
        return x
    rewrite = Path(__file__).with_name("_rewrite.py").read_bytes()
    digest = hashlib.sha256(repr((_FORMAT, getattr(_hs, "__version__", ""),
                                  text(sources))).encode())
    digest.update(rewrite)
    return digest.hexdigest()[:32]


class Prefilter:
    """One compiled database of the patterns ``gate_patterns(sources)`` writes;
    ``passes(s)`` is False only where none of them matches ``s``."""

    def __init__(self, sources: list[Any], directory: Path | None) -> None:
        if _hs is None:
            raise RuntimeError("hyperscan is not installed")
        self.sources = sources
        self.patterns: list[tuple[str, bool]] | None = None  # written when built
        self.key = _key(sources)
        self.path = None if directory is None else directory / f"prefilter-{self.key}.hsdb"
        self.build_seconds: float | None = None
        self.load_seconds: float | None = None
        self._db = self._load() or self._build()
        self._local = threading.local()
        self._batch_db: Any = None
        self._batch_lock = threading.Lock()

    def _load(self, path: Path | None = None) -> Any:
        path = path or self.path
        data = None if path is None else read_cached(path)
        if data is None:
            return None
        t0 = time.perf_counter()
        try:
            db = _hs.loadb(data, _hs.HS_MODE_BLOCK)
            # a corrupt file fails here at the latest
            db.scan(b"", match_event_handler=_stop, scratch=_hs.Scratch(db))
        except (OSError, _hs.error, ValueError, TypeError):
            return None  # corrupt or from another hyperscan build: rebuilt below
        self.load_seconds = time.perf_counter() - t0
        return db

    def _build(self, batch: bool = False) -> Any:
        t0 = time.perf_counter()
        if self.patterns is None:
            self.patterns = gate_patterns(self.sources)
        patterns = self.patterns
        db = _hs.Database(mode=_hs.HS_MODE_BLOCK)
        # a batch reports every match (a pattern may match in several of its strings)
        single = 0 if batch else _hs.HS_FLAG_SINGLEMATCH
        flags = [single | (_hs.HS_FLAG_CASELESS if icase else 0) for _, icase in patterns]
        db.compile(expressions=[(batch_pattern(p) if batch else p).encode()
                                for p, _ in patterns],
                   ids=list(range(len(patterns))), elements=len(patterns), flags=flags)
        self.build_seconds = time.perf_counter() - t0
        path = self._batch_path() if batch else self.path
        if path is not None:
            write_cached(path, _hs.dumpb(db))  # read-only: built again next time
        return db

    def _batch_path(self) -> Path | None:
        return None if self.path is None else self.path.with_name(
            f"prefilter-{self.key}-batch.hsdb")

    def passing(self, strings: list[str]) -> list[bool]:
        """``[self.passes(s) for s in strings]``, the strings scanned together: one call
        spreads the database's start of a scan (most of the cost of a short string)
        over all of them. A match is the string's where it ends, or where the
        separator it ends on follows."""
        out = [True] * len(strings)
        batch: list[str] = []
        where: list[int] = []
        for i, s in enumerate(strings):
            if s and len(s) <= MAX_LENGTH and s.isascii() and _SEP not in s:
                batch.append(s)
                where.append(i)
            else:
                out[i] = self.passes(s)
        if not batch:
            return out
        db = self._batch_db
        if db is None:
            with self._batch_lock:
                if self._batch_db is None:
                    self._batch_db = self._load(self._batch_path()) or self._build(batch=True)
                db = self._batch_db
        scratch = getattr(self._local, "batch_scratch", None)
        if scratch is None:
            scratch = self._local.batch_scratch = _hs.Scratch(db)
        starts: list[int] = []
        pos = 0
        for s in batch:
            starts.append(pos)
            pos += len(s) + 1
        ends: list[int] = []
        db.scan(_SEP.join(batch).encode(), match_event_handler=_end_of, context=ends,
                scratch=scratch)
        hit = [False] * len(batch)
        for end in set(ends):
            hit[bisect_right(starts, end - 1) - 1] = True
        for i, h in zip(where, hit, strict=True):
            out[i] = h
        return out

    def passes(self, s: str) -> bool:
        """Whether ``s`` must go to the exact gate."""
        if len(s) > MAX_LENGTH or not s.isascii():
            return True
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = _hs.Scratch(self._db)
        box = _Box()
        self._db.scan(s.encode(), match_event_handler=_found, context=box, scratch=scratch)
        return box.hit


class _Box:
    __slots__ = ("hit",)

    def __init__(self) -> None:
        self.hit = False


def _found(_id: int, _start: int, _end: int, _flags: int, box: _Box) -> bool:
    box.hit = True
    return False  # go on (stopping raises, which costs more than the rest of the scan)


def _end_of(_id: int, _start: int, end: int, _flags: int, ends: list[int]) -> bool:
    ends.append(end)
    return False


def _stop(*_args: Any) -> bool:
    return False


_LOCK = threading.Lock()
_STATE: list[Prefilter | None] = []


def prefilter() -> Prefilter | None:
    """The process's prefilter (built or loaded on first use), or None without
    hyperscan or with ``WORKBENCH_PREFILTER=0``."""
    if _STATE:
        return _STATE[0]
    with _LOCK:
        if not _STATE:
            got = None
            if _hs is not None and os.environ.get("WORKBENCH_PREFILTER", "1") != "0":
                got = Prefilter(_sources(), cache_dir())
            _STATE.append(got)
    return _STATE[0]


class WordStarts:
    """Where literal words start in ASCII text, ascending: one scan of a small hyperscan
    database (built in milliseconds, so never cached) instead of a regex trie tried at
    every position. A personal-data gate asks where the first of its words stands in
    text of hundreds of characters (code, prompts), where the regex costs ten times the
    scan."""

    def __init__(self, words: list[str]) -> None:
        if _hs is None:
            raise RuntimeError("hyperscan is not installed")
        self.words = sorted({w for w in words if w.isascii() and w})
        db = _hs.Database(mode=_hs.HS_MODE_BLOCK)
        db.compile(expressions=[re.escape(w).encode() for w in self.words],
                   ids=list(range(len(self.words))), elements=len(self.words),
                   flags=[_hs.HS_FLAG_SOM_LEFTMOST] * len(self.words))
        self._db = db
        self._local = threading.local()

    def __call__(self, text: str) -> list[int]:
        """The offsets where one of the words starts in ``text`` (ASCII), ascending and
        distinct."""
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = _hs.Scratch(self._db)
        found: list[int] = []
        self._db.scan(text.encode(), match_event_handler=_start_of, context=found,
                      scratch=scratch)
        return sorted(set(found)) if len(found) > 1 else found


def _start_of(_id: int, start: int, _end: int, _flags: int, found: list[int]) -> bool:
    found.append(start)
    return False


def word_starts(words: list[str]) -> WordStarts | None:
    """A ``WordStarts`` of ``words`` (only their ASCII ones can stand in ASCII text), or
    None without hyperscan or with ``WORKBENCH_PREFILTER=0``."""
    if _hs is None or os.environ.get("WORKBENCH_PREFILTER", "1") == "0":
        return None
    return WordStarts(words)
