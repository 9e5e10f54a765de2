"""``bench/redact.py``'s gitleaks column: one sample per rule of ``gitleaks.toml``, made
by Hypothesis ``from_regex`` from the rule's regex (keywords, entropy and allowlists
respected), through ``Redactor.text`` as the regex makes it and as a ``RULE_ID="secret"``
line: how many rules our detectors catch. The rules' RE2 (Go) syntax is translated to
Python's here.
"""

from __future__ import annotations

import math
import os
import re
import warnings
from collections import Counter
from pathlib import Path
from random import Random
from typing import Any

from _redactscore import KEY, WINDOW, caught

REPO = Path(__file__).resolve().parents[1]


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
