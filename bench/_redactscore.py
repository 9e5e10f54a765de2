"""How ``bench/redact.py`` judges one redacted output, and the per-type scores.

A secret counts as caught when its bytes, and every substring of it of ``WINDOW``
characters or more, are gone from the output (substrings that also occur outside the
secret in the input do not count); a negative is touched when the output differs from
the input. Scanners that only report are judged by line: a finding on one of the
secret's lines. ``KEY`` is the one redaction key every measurement uses.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterator
from typing import Any

KEY = b"bench-redact-key-0123456789abcdef"
WINDOW = 8


# --- checking an output -----------------------------------------------------------------

def payload_text(rec: dict[str, Any]) -> str:
    """The bytes a file or a scanner sees: the text, or the compact JSON of a value."""
    p = rec["payload"]
    return p if rec["container"] == "text" else json.dumps(p, ensure_ascii=False)


def _strings(v: Any) -> Iterator[str]:
    """Every string in a JSON value (keys too), and those of JSON nested in strings."""
    if isinstance(v, str):
        yield v
        if v[:1] in "{[":
            try:
                inner = json.loads(v)
            except ValueError:
                return
            yield from _strings(inner)
    elif isinstance(v, dict):
        for k, x in v.items():
            yield k
            yield from _strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from _strings(x)


def _windows(secret: str) -> set[str]:
    n = min(WINDOW, len(secret))
    return {secret[i:i + n] for i in range(len(secret) - n + 1)}


def must_go(rec: dict[str, Any]) -> set[str]:
    """The windows of the secret that must be absent from the output: those that do not
    also occur in the input outside the secret (a DSN's user name, a header's prefix)."""
    rest = payload_text(rec)
    for line in rec["secret"].split("\n"):
        if line:
            rest = rest.replace(line, "\x00")
    return {w for w in _windows(rec["secret"]) if w not in rest}


def output_blob(rec: dict[str, Any], out: Any) -> str:
    if rec["container"] == "text":
        return str(out)
    return json.dumps(out, ensure_ascii=False) + "\x00" + "\x00".join(_strings(out))


def caught(rec: dict[str, Any], out: Any) -> bool:
    from workbench.redact import TOKEN_RE
    # a token names its detector ("«secret:rubygems-api-key:…»"): not a leak of "rubygems"
    blob = TOKEN_RE.sub("\x00", output_blob(rec, out))
    return not any(w in blob for w in must_go(rec))


def touched(rec: dict[str, Any], out: Any) -> bool:
    return output_blob(rec, out).split("\x00", 1)[0] != payload_text(rec)


def secret_lines(text: str, secret: str) -> set[int]:
    """1-based numbers of the lines of ``text`` holding part of the secret; for a
    multi-line secret (a PEM body) also the line before it (its BEGIN line, where
    scanners report a key block)."""
    wins = _windows(secret)
    lines = {i for i, line in enumerate(text.split("\n"), 1) if any(w in line for w in wins)}
    if "\n" in secret and lines:
        lines.add(min(lines) - 1)
    return lines


def lines_of_values(text: str, values: list[str]) -> set[int]:
    """Lines holding a value an engine reported (engines number lines differently)."""
    out: set[int] = set()
    for i, line in enumerate(text.split("\n"), 1):
        if any(v and (v in line or any(p and p in line for p in v.split("\n"))) for v in values):
            out.add(i)
    return out


# --- scoring ----------------------------------------------------------------------------

def score(records: list[dict[str, Any]], outs: list[Any],
          ds: list[list[tuple[int, str]]] | None, texts: list[str]) -> dict[str, Any]:
    """Per type and per context: recall (positives) or touched (negatives), both sides."""
    types: dict[str, dict[str, Any]] = {}
    contexts: dict[str, Counter[str]] = defaultdict(Counter)
    misses: list[dict[str, str]] = []
    for i, (rec, out) in enumerate(zip(records, outs, strict=True)):
        t = types.setdefault(rec["type"], {"type": rec["type"], "kind": rec["kind"],
                                           "category": rec["category"], "n": 0, "ours": 0,
                                           "detect_secrets": 0 if ds is not None else None})
        t["n"] += 1
        positive = rec["kind"] == "positive"
        ok = caught(rec, out) if positive else touched(rec, out)
        t["ours"] += ok
        if positive:
            contexts[rec["context"]]["n"] += 1
            contexts[rec["context"]]["caught"] += ok
        if ok != positive:
            misses.append({"id": rec["id"], "type": rec["type"], "context": rec["context"],
                           "what": "missed" if positive else "touched"})
        if ds is not None:
            if positive:
                hit = bool(secret_lines(texts[i], rec["secret"]) & {ln for ln, _ in ds[i]})
            else:
                hit = bool(ds[i])
            t["detect_secrets"] += hit
    return {"types": list(types.values()), "contexts": {c: dict(v) for c, v in
                                                        sorted(contexts.items())},
            "misses": misses}


def summary(types: list[dict[str, Any]], side: str) -> dict[str, float | None]:
    def frac(rows: list[dict[str, Any]]) -> float | None:
        n = sum(r["n"] for r in rows)
        if not n or any(r[side] is None for r in rows):
            return None
        return sum(r[side] for r in rows) / n
    pos = [t for t in types if t["kind"] == "positive"]
    return {"secret_recall": frac([t for t in pos if t["category"] == "secret"]),
            "pii_recall": frac([t for t in pos if t["category"] != "secret"])
            if side == "ours" else None,
            "negatives_touched": frac([t for t in types if t["kind"] == "negative"])}

