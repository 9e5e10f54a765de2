"""Scoring the personal-data corpus (``_redactgen_people.py``) for ``bench/redact.py``:
our Redactor and Presidio in the same run.

A positive counts as caught by ours when none of its parts (the name, the id) is left
in the output; by Presidio (a reporter) when its reported spans cover every part. A
negative is touched when our output differs from the input, or when Presidio reports
anything on it.
"""

from __future__ import annotations

import json
import logging
import time
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from _redactgen_people import generate
from _redactscore import KEY

__all__ = ["people_bench", "report_people"]


# -- the methods ------------------------------------------------------------------------

def _text(rec: dict[str, Any]) -> str:
    p = rec["payload"]
    return p if isinstance(p, str) else json.dumps(p, ensure_ascii=False)


def _strings(v: Any) -> list[str]:
    if isinstance(v, str):
        return [v]
    if isinstance(v, dict):
        return [s for x in v.values() for s in _strings(x)]
    if isinstance(v, list):
        return [s for x in v for s in _strings(x)]
    return []


def run_ours(records: list[dict[str, Any]]) -> tuple[list[bool], float]:
    """Per record: caught (positive) or touched (negative); seconds."""
    from workbench.redact import Redactor
    red = Redactor(KEY)
    t0 = time.perf_counter()
    outs = [red.value(r["payload"]) if r["container"] == "json" else red.text(r["payload"])
            for r in records]
    seconds = time.perf_counter() - t0
    res = []
    for r, o in zip(records, outs, strict=True):
        if r["kind"] == "positive":
            blob = json.dumps(o, ensure_ascii=False) + "\0" + "\0".join(_strings(o))
            res.append(not any(p in blob for p in r["parts"]))
        else:
            res.append(o != r["payload"])
    return res, seconds


def presidio_analyzer() -> tuple[Callable[[str], list[tuple[int, int]]], str] | None:
    """Presidio's analyzer with every predefined recognizer that runs in English, and the
    NER it could load (none here: no spaCy model is installable from the package index
    this machine reaches, so a blank spaCy pipeline gives tokens and no entities)."""
    try:
        import spacy
        from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
        from presidio_analyzer import predefined_recognizers as pr
        from presidio_analyzer.nlp_engine import SpacyNlpEngine
    except ImportError:
        return None
    logging.getLogger("tldextract").setLevel(logging.CRITICAL)
    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
    ner = "none (no spaCy model installed; blank English pipeline)"
    model = None
    for name in ("en_core_web_lg", "en_core_web_md", "en_core_web_sm"):
        try:
            model = spacy.load(name)
            ner = f"spaCy {name}"
            break
        except OSError:
            continue

    class _Engine(SpacyNlpEngine):
        def __init__(self) -> None:
            super().__init__(models=[{"lang_code": "en", "model_name": "loaded"}])
            self.nlp = {"en": model if model is not None else spacy.blank("en")}

        def load(self) -> None:
            pass
    engine = _Engine()
    registry = RecognizerRegistry()
    registry.load_predefined_recognizers(nlp_engine=engine)
    have = {r.name for r in registry.recognizers}
    for name in dir(pr):  # the country recognizers (ES_NIF, IT_FISCAL_CODE, IN_AADHAAR …)
        cls = getattr(pr, name)
        if isinstance(cls, type) and name.endswith("Recognizer") and name not in have:
            try:
                registry.add_recognizer(cls(supported_language="en"))
            except Exception:  # one that needs other arguments or a model
                continue
    analyzer = AnalyzerEngine(nlp_engine=engine, registry=registry,
                              supported_languages=["en"])

    def analyze(text: str) -> list[tuple[int, int]]:
        return [(r.start, r.end) for r in analyzer.analyze(text, language="en")]
    return analyze, ner


def run_presidio(analyze: Callable[[str], list[tuple[int, int]]],
                 records: list[dict[str, Any]]) -> tuple[list[bool], float]:
    texts = [_text(r) for r in records]
    t0 = time.perf_counter()
    found = [analyze(t) for t in texts]
    seconds = time.perf_counter() - t0
    res = []
    for r, t, spans in zip(records, texts, found, strict=True):
        if r["kind"] == "negative":
            res.append(bool(spans))
            continue
        ok = True
        for p in r["parts"]:
            needle = p if r["container"] == "text" else json.dumps(p, ensure_ascii=False)[1:-1]
            at = t.find(needle)
            covered = set()
            for s, e in spans:
                covered.update(range(s, e))
            ok = ok and at != -1 and all(i in covered for i in range(at, at + len(needle)))
        res.append(ok)
    return res, seconds


def people_bench(seed: int, per_type: int, presidio: bool = True) -> dict[str, Any]:
    """Per kind: n, ours, presidio (share caught / touched), and the summary."""
    records = generate(seed, per_type)
    ours, ours_s = run_ours(records)
    pres = presidio_analyzer() if presidio else None
    theirs, theirs_s, ner = None, None, "not installed (bench environment)"
    if pres is not None:
        theirs, theirs_s = run_presidio(pres[0], records)
        ner = pres[1]
    kinds: dict[str, dict[str, Any]] = defaultdict(lambda: {"n": 0, "ours": 0,
                                                            "presidio": 0})
    for i, r in enumerate(records):
        k = kinds[r["type"]]
        k.update(kind=r["kind"], category=r["category"])
        k["n"] += 1
        k["ours"] += ours[i]
        if theirs is not None:
            k["presidio"] += theirs[i]
    pos = [r for r in records if r["kind"] == "positive"]
    neg = [r for r in records if r["kind"] == "negative"]

    def share(res: list[bool] | None, kind: str) -> float | None:
        if res is None:
            return None
        sel = [x for x, r in zip(res, records, strict=True) if r["kind"] == kind]
        return sum(sel) / len(sel)
    misses = [r["id"] for r, x in zip(records, ours, strict=True)
              if (r["kind"] == "positive") != x]
    return {"records": len(records), "positives": len(pos), "negatives": len(neg),
            "seed": seed, "per_type": per_type,
            "kinds": {t: {**v, "ours": v["ours"] / v["n"],
                          "presidio": v["presidio"] / v["n"] if theirs is not None else None}
                      for t, v in kinds.items()},
            "ours": {"recall": share(ours, "positive"),
                     "kept": 1 - (share(ours, "negative") or 0), "seconds": ours_s},
            "presidio": {"recall": share(theirs, "positive"),
                         "kept": None if theirs is None else 1 - (share(theirs, "negative")
                                                                  or 0),
                         "seconds": theirs_s, "ner": ner},
            "misses": misses}


def report_people(p: dict[str, Any]) -> None:
    print(f"\npersonal data that is not machine-shaped: {p['records']} records "
          f"({p['positives']} positive, {p['negatives']} negative), seed {p['seed']}; "
          f"Presidio NER: {p['presidio']['ner']}")
    print(f"{'kind':<28} {'category':<12} {'n':>4} {'ours':>6} {'presidio':>9}")
    for side in ("positive", "negative"):
        if side == "negative":
            print("negatives (share touched)")
        for t, v in p["kinds"].items():
            if v["kind"] == side:
                pr = "—" if v["presidio"] is None else f"{v['presidio']:.2f}"
                print(f"{t:<28} {v['category']:<12} {v['n']:>4} {v['ours']:>6.2f} {pr:>9}")
    o, th = p["ours"], p["presidio"]

    def fmt(x: float | None) -> str:
        return "—" if x is None else f"{x:.3f}"
    print(f"PII recall (these kinds)  ours {fmt(o['recall'])}  presidio {fmt(th['recall'])}"
          f"   look-alikes kept  ours {fmt(o['kept'])}  presidio {fmt(th['kept'])}")
    if th["seconds"]:
        print(f"time  ours {o['seconds']:.3f} s  presidio {th['seconds']:.3f} s  "
              f"ratio {th['seconds'] / o['seconds']:.1f}x")
    if p["misses"]:
        print("ours missed or touched: " + ", ".join(p["misses"][:40]))
