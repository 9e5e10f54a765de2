"""Recall of ``find`` on gitleaks' default rule set (222 rules, MIT), rule by rule.

The rule file is read from the corpus (``secrets/gitleaks.toml``), never copied. For
each rule a small generator of our own draws secrets from the rule's own regex
(translated from Go's syntax: a mid-pattern ``(?i)``, ``\\z``, POSIX classes), with
uniformly random characters (real tokens are random, not Hypothesis' simplest
strings), the rule's entropy floor and allowlists respected. Each secret is placed
in realistic contexts and ``find`` must cover it in every one:

- an env dump line ``PROVIDER_API_KEY=…``, a JSON config ``{"api_key": "…"}``, an HTTP
  header ``X-Api-Key: …`` and a curl command ``-H 'Authorization: Bearer …'``;
- for a self-identifying format (the secret holds one of the rule's keywords, as
  ``ghp_…`` does), also a bare log line, where only the vendor rule can find it.

Negatives: the same contexts holding placeholders (``${PROVIDER_API_KEY}``, ``<your
key>``, ``****``, ``$TOKEN``) and, for a self-identifying format, a low-entropy
look-alike (``ghp_xxxx…``) must give no secret hit.

``SKIP`` lists the rules not tested, each with its reason. ``test_overall_recall``
prints the recall per rule (``pytest -s``) and requires 0.99 over the rules tested.
"""

from __future__ import annotations

import base64
import json
import math
import random
import re
import tomllib
from collections import Counter
from pathlib import Path
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser as P  # type: ignore[attr-defined]
from typing import Any

import pytest

from tests.conftest import CORPUS, corpus_params
from workbench.redact._detect import find

SAMPLES = 12

SKIP = {
    "pkcs12-file": "a file-name rule (*.p12, *.pfx): it matches paths, not content",
    "flutterwave-public-key": "a publishable key (FLWPUBK…), public by design: never a hit",
    "lob-pub-api-key": "a publishable key (live_pub_/test_pub_), public by design: never a hit",
    "mailgun-pub-key": "Mailgun's public validation key (pubkey-…), public by design",
    "mapbox-api-token": "a Mapbox public token (pk.…), public by design; sk. tokens are found",
}


# -- reading and translating the rules ------------------------------------------------------

def _rules_file() -> Path:
    return CORPUS / "secrets" / "gitleaks.toml"


def _rule_ids() -> list[object]:
    path = _rules_file()
    ids = [r["id"] for r in tomllib.loads(path.read_text())["rules"]] if path.is_file() else []
    return corpus_params(ids)


_POSIX = {"alnum": "A-Za-z0-9", "alpha": "A-Za-z", "digit": "0-9", "lower": "a-z",
          "upper": "A-Z", "space": r" \t\r\n\f\v", "xdigit": "0-9A-Fa-f", "word": r"\w"}


def translate(go: str) -> str:
    """A Go (RE2) regex as a Python one: a mid-pattern ``(?i)`` becomes a ``(?i:…)``
    group to the end of the group it stands in, ``\\z`` is ``\\Z``, ``[[:alnum:]]``
    a plain class."""
    go = re.sub(r"\[:(\w+):\]", lambda m: _POSIX[m.group(1)], go).replace(r"\z", r"\Z")
    out: list[str] = []
    closers: list[int] = []  # per open group: how many ")" to add when it closes
    extra = 0
    i = 0
    in_class = False
    while i < len(go):
        ch = go[i]
        if ch == "\\":
            out.append(go[i:i + 2])
            i += 2
            continue
        if in_class:
            in_class = ch != "]" or (i > 0 and go[i - 1] == "[")
            out.append(ch)
        elif ch == "[":
            in_class = True
            out.append(ch)
        elif go.startswith("(?i)", i) and i > 0:
            out.append("(?i:")
            if closers:
                closers[-1] += 1
            else:
                extra += 1
            i += 4
            continue
        elif ch == "(":
            closers.append(0)
            out.append(ch)
        elif ch == ")":
            out.append(")" * closers.pop() + ")")
        else:
            out.append(ch)
        i += 1
    return "".join(out) + ")" * extra


# -- sampling a regex -------------------------------------------------------------------

_CATEGORY = {
    C.CATEGORY_DIGIT: "0123456789",
    C.CATEGORY_WORD: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
    C.CATEGORY_SPACE: " ",
    C.CATEGORY_NOT_DIGIT: "abcdefghijklmnopqrstuvwxyz",
    C.CATEGORY_NOT_WORD: "-.:/",
    C.CATEGORY_NOT_SPACE: "abcdefghijklmnopqrstuvwxyz0123456789",
}
_PRINTABLE = [chr(c) for c in range(33, 127)]


class Sampler:
    """Random strings matching a regex: characters drawn uniformly from each class,
    repeat counts from ``min`` to ``min + 24`` (or ``max``), letters of a case-insensitive
    class in random case. Assertions are ignored (the caller re-checks with the regex)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.groups: dict[int, str] = {}

    def sample(self, pattern: str) -> str:
        self.groups = {}
        return self._seq(P.parse(pattern, re.ASCII), False)

    def _seq(self, seq: Any, icase: bool) -> str:
        return "".join(self._node(op, av, icase) for op, av in seq)

    def _node(self, op: Any, av: Any, icase: bool) -> str:
        rng = self.rng
        if op is C.LITERAL:
            return chr(av)
        if op is C.NOT_LITERAL:
            return rng.choice([c for c in "abcxyz019" if ord(c) != av])
        if op is C.ANY:
            return rng.choice("abcdefghijklmnopqrstuvwxyz0123456789")
        if op is C.IN:
            return self._class(av, icase)
        if op is C.BRANCH:
            return self._seq(rng.choice(av[1]), icase)
        if op is C.SUBPATTERN:
            group, add, dele, sub = av
            flags = (icase or bool(add & re.IGNORECASE)) and not dele & re.IGNORECASE
            text = self._seq(sub, flags)
            if group:
                self.groups[group] = text
            return text
        if op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            lo, hi, sub = av
            hi = min(hi, lo + 24) if hi != C.MAXREPEAT else lo + 24
            return "".join(self._seq(sub, icase) for _ in range(rng.randint(lo, hi)))
        if op is C.GROUPREF:
            return self.groups.get(av, "")
        if op is C.ATOMIC_GROUP:
            return self._seq(av, icase)
        return ""  # AT, ASSERT, ASSERT_NOT: no characters

    def _class(self, items: Any, icase: bool) -> str:
        chars: list[str] = []
        negate = False
        for op, av in items:
            if op is C.NEGATE:
                negate = True
            elif op is C.LITERAL:
                chars.append(chr(av))
            elif op is C.RANGE:
                chars += [chr(c) for c in range(av[0], av[1] + 1)]
            elif op is C.CATEGORY:
                chars += list(_CATEGORY[av])
        if negate:
            chars = [c for c in _PRINTABLE if c not in chars and c not in "\"'`\\"]
        ch = self.rng.choice(chars)
        if icase and ch.isalpha() and self.rng.random() < 0.5:
            ch = ch.swapcase()
        return ch


# -- one rule's samples ------------------------------------------------------------------

def shannon(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values()) if n else 0.0


class Rule:
    """A gitleaks rule compiled for Python, with its allowlists."""

    def __init__(self, raw: dict[str, Any], top: dict[str, Any]) -> None:
        self.id: str = raw["id"]
        self.raw = raw
        self.pattern = translate(raw.get("regex", "(?!)"))  # pkcs12-file: a path rule
        self.regex = re.compile(self.pattern, re.ASCII)
        self.entropy: float = raw.get("entropy", 0.0)
        self.keywords: list[str] = raw.get("keywords") or []
        self.group: int = raw.get("secretGroup", 0)
        glob = top.get("allowlist", {})
        self.allow = [re.compile(translate(x), re.ASCII) for x in glob.get("regexes", [])]
        self.stopwords = list(glob.get("stopwords", []))
        self.match_allow: list[re.Pattern[str]] = []
        for al in raw.get("allowlists", []):
            target = self.match_allow if al.get("regexTarget") == "match" else (
                None if al.get("regexTarget") == "line" or al.get("paths") else self.allow)
            if target is not None:
                target += [re.compile(translate(x), re.ASCII) for x in al.get("regexes", [])]
            if al.get("regexTarget") in (None, "secret") and not al.get("paths"):
                self.stopwords += al.get("stopwords", [])

    def secret_of(self, m: re.Match[str]) -> str:
        """gitleaks' secret: the secretGroup, else the first non-empty group, else the
        match (jwt-base64's groups only mark which JWT header field it starts with)."""
        if self.group:
            return m.group(self.group) or ""
        if self.id == "jwt-base64" or not any(m.groups()):
            # a rule without a secret group ends with its terminator character
            return re.sub(r"[^A-Za-z0-9+/=_.-]+$", "", m.group())
        return next(g for g in m.groups() if g)

    def allowed(self, secret: str, match: str) -> bool:
        return (any(a.search(secret) for a in self.allow)
                or any(a.search(match) for a in self.match_allow)
                or any(w.lower() in secret.lower() for w in self.stopwords))

    def samples(self, n: int, seed: str) -> list[str]:
        """``n`` secrets the rule reports (entropy and allowlists respected)."""
        rng = random.Random(seed)
        sampler = Sampler(rng)
        out: list[str] = []
        for _ in range(n * 200):
            custom = self.id in CUSTOM
            text = CUSTOM[self.id](rng) if custom else sampler.sample(self.pattern)
            m = self.regex.search(text)
            if m is None:
                continue
            secret = self.secret_of(m).strip("\"'")
            if (len(secret) < 4 or shannon(secret) < self.entropy
                    or self.allowed(secret, m.group())
                    or (not custom and re.search(r"[\s\"'`\\]", secret))):
                continue
            out.append(secret)
            if len(out) == n:
                break
        return out

    def self_identifying(self, secret: str) -> bool:
        """The secret shows who issued it (it holds a keyword: ghp_, xoxb-, AKIA …)."""
        return self.id != "generic-api-key" and any(
            k.lower() in secret.lower() for k in self.keywords)


# custom generators for rules whose regex describes structure a random string lacks

def _b64url(obj: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")


def _jwt(rng: random.Random) -> str:
    head = {"alg": rng.choice(["HS256", "RS256", "ES256"]), "typ": "JWT"}
    body = {"sub": "".join(rng.choices("0123456789abcdef", k=24)), "iat": rng.randint(1, 2**31)}
    sig = base64.urlsafe_b64encode(rng.randbytes(32)).decode().rstrip("=")
    return f"{_b64url(head)}.{_b64url(body)}.{sig}"


def _pem(rng: random.Random) -> str:
    body = base64.b64encode(rng.randbytes(rng.randint(64, 400))).decode()
    lines = "\n".join(body[i:i + 64] for i in range(0, len(body), 64))
    label = rng.choice(["RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY",
                        "OPENSSH PRIVATE KEY", "ENCRYPTED PRIVATE KEY"])
    return f"-----BEGIN {label}-----\n{lines}\n-----END {label}-----"


def _k8s(rng: random.Random) -> str:
    value = base64.b64encode(rng.randbytes(rng.randint(12, 40))).decode()
    key = rng.choice(["password", "token", "tls.key", "api-key", "config.json"])
    return (f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ntype: Opaque\n"
            f"data:\n  {key}: {value}\n")


def _curl_header(rng: random.Random) -> str:
    cred = "".join(rng.choices("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
                               k=rng.randint(16, 48)))
    header = rng.choice([f"Authorization: Bearer {cred}", f"Authorization: Token {cred}",
                         f"X-Api-Key: {cred}", f"Authorization: Basic {cred}"])
    return f'curl -s -H "{header}" https://api.example.com/v1/items'


def _curl_user(rng: random.Random) -> str:
    pw = "".join(rng.choices("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789",
                             k=rng.randint(10, 24)))
    return f"curl -u admin:{pw} https://api.example.com/v1/items"


CUSTOM = {"jwt": _jwt, "jwt-base64": lambda rng: base64.b64encode(_jwt(rng).encode()).decode(),
          "private-key": _pem, "kubernetes-secret-yaml": _k8s,
          "curl-auth-header": _curl_header, "curl-auth-user": _curl_user}


# -- contexts --------------------------------------------------------------------------

def provider(rule_id: str) -> str:
    return re.split(r"[-_]", rule_id)[0]


def contexts(rule: Rule, secret: str) -> dict[str, tuple[str, str]]:
    """name -> (text, the credential ``find`` must cover in it)."""
    p = provider(rule.id)
    cred = CREDENTIAL.get(rule.id, lambda s: s)(secret)
    if rule.id in ("private-key", "kubernetes-secret-yaml", "curl-auth-header",
                   "curl-auth-user"):
        return {"native": (NATIVE[rule.id](secret), cred)}
    out = {
        "env": (f"HOME=/home/app\nPATH=/usr/local/bin:/usr/bin\n{p.upper()}_API_KEY={secret}"
                "\nLANG=C.UTF-8\n", cred),
        "json": (json.dumps({"service": p, "config": {"api_key": secret, "region": "eu-west-1",
                                                      "timeout": 30}}), cred),
        "header": (f"GET /v1/me HTTP/1.1\r\nHost: api.{p}.example\r\nX-Api-Key: {secret}\r\n"
                   "Accept: */*\r\n", cred),
        "curl": (f"$ curl -sS -H 'Authorization: Bearer {secret}' https://api.{p}.example/v1/me",
                 cred),
    }
    if rule.self_identifying(secret):
        out["bare"] = (f"2026-05-01T12:00:01Z INFO upload: using {secret} for the {p} client\n",
                       cred)
    return out


def _after(marker: str) -> Any:
    return lambda s: s.split(marker, 1)[1] if marker in s else s


# the part of a secret that is the credential, where a rule's secret is a whole URL
CREDENTIAL = {
    "slack-webhook-url": lambda s: re.split(r"/(?:services|workflows|triggers)/", s)[1],
    "microsoft-teams-webhook": _after("/webhookb2/"),
    "curl-auth-user": lambda s: s.split(":", 1)[1],
    "private-key": lambda s: s.split("-----")[2].strip(),
    "kubernetes-secret-yaml": lambda s: s.split(":", 1)[1].strip(),
    "curl-auth-header": lambda s: s,
    "gitlab-session-cookie": _after("="),
}
NATIVE = {
    "private-key": lambda s: f"$ cat ~/.ssh/deploy_key\n{s}\n",
    "kubernetes-secret-yaml": lambda s: _k8s_doc(s),
    "curl-auth-header": lambda s: f'$ curl -s -H "Authorization: Bearer {s}" https://x.example',
    "curl-auth-user": lambda s: f"$ curl -u {s} https://api.example.com/v1/items",
}


def _k8s_doc(item: str) -> str:
    return f"apiVersion: v1\nkind: Secret\nmetadata:\n  name: app\ndata:\n  {item}\n"


def covered(text: str, cred: str) -> bool:
    start = text.find(cred)
    assert start != -1, (cred, text)
    end = start + len(cred)
    spans = [(h.start, h.end) for h in find(text) if h.category == "secret"]
    return all(any(s <= i < e for s, e in spans) for i in range(start, end))


# -- tests --------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def gitleaks(corpus: Path) -> dict[str, Rule]:
    top = tomllib.loads((corpus / "secrets" / "gitleaks.toml").read_text())
    return {r["id"]: Rule(r, top) for r in top["rules"]}


def _positives(rule: Rule) -> list[tuple[str, str, str]]:
    """(context name, text, credential) for every sample, or fail if none can be drawn."""
    secrets = rule.samples(SAMPLES, seed=rule.id)
    assert secrets, f"no sample could be drawn for {rule.id}"
    out = []
    for secret in secrets:
        for name, (text, cred) in contexts(rule, secret).items():
            out.append((name, text, cred))
    return out


def test_the_rule_file_is_the_default_set(gitleaks: dict[str, Rule]) -> None:
    assert len(gitleaks) == 222
    assert set(SKIP) <= set(gitleaks)


@pytest.mark.parametrize("rule_id", _rule_ids())
def test_rule_positives_are_found(gitleaks: dict[str, Rule], rule_id: str) -> None:
    if rule_id in SKIP:
        pytest.skip(SKIP[rule_id])
    rule = gitleaks[rule_id]
    missed = [(name, cred) for name, text, cred in _positives(rule) if not covered(text, cred)]
    assert not missed, f"{rule_id}: {len(missed)} missed, e.g. {missed[:3]}"


_PLACEHOLDERS = ["${{{P}_API_KEY}}", "<your-{p}-api-key>", "********", "$TOKEN", "changeme",
                 "{{{{ secrets.{P}_TOKEN }}}}", "xxxxxxxxxxxxxxxxxxxxxxxx"]


@pytest.mark.parametrize("rule_id", _rule_ids())
def test_rule_negatives_are_not_found(gitleaks: dict[str, Rule], rule_id: str) -> None:
    if rule_id in SKIP:
        pytest.skip(SKIP[rule_id])
    rule = gitleaks[rule_id]
    p = provider(rule_id)
    texts = []
    for ph in _PLACEHOLDERS:
        value = ph.format(p=p, P=p.upper())
        texts += [f"{p.upper()}_API_KEY={value}\n", json.dumps({"api_key": value}),
                  f"X-Api-Key: {value}\r\n", f"curl -H 'Authorization: Bearer {value}' x"]
    for secret in rule.samples(3, seed=rule_id + "/neg"):
        if rule.self_identifying(secret):
            texts.append(f"upload: using {_look_alike(rule, secret)} for the client\n")
    found = [(t, [t[h.start:h.end] for h in find(t) if h.category == "secret"]) for t in texts]
    assert not [f for f in found if f[1]], [f for f in found if f[1]][:3]


def _look_alike(rule: Rule, secret: str) -> str:
    """The secret with everything but its keyword flattened to x and 0: the shape of the
    token, none of its entropy (what documentation shows: ghp_xxxxxxxx…)."""
    low = secret.lower()
    kw = next(k for k in rule.keywords if k.lower() in low)
    at = low.index(kw.lower())
    keep = range(at, at + len(kw))
    return "".join(c if i in keep or not c.isalnum() else ("0" if c.isdigit() else "x")
                   for i, c in enumerate(secret))


def test_overall_recall(gitleaks: dict[str, Rule], capsys: pytest.CaptureFixture[str]) -> None:
    rows = []
    bare_rules = bare_found = placed = 0
    for rule_id, rule in gitleaks.items():
        if rule_id in SKIP:
            continue
        pos = _positives(rule)
        placed += len(pos)
        hits = sum(covered(text, cred) for _, text, cred in pos)
        rows.append((rule_id, hits / len(pos), len(pos)))
        bare = [covered(text, cred) for name, text, cred in pos if name == "bare"]
        bare_rules += bool(bare)
        bare_found += bool(bare) and all(bare)
    recalled = sum(r == 1.0 for _, r, _ in rows)
    with capsys.disabled():
        print(f"\ngitleaks rules: {len(gitleaks)}, skipped {len(SKIP)}, tested {len(rows)}, "
              f"fully recalled {recalled} ({recalled / len(rows):.3f}) over {placed} "
              f"placed secrets; self-identifying rules found bare (no name next to the "
              f"secret): {bare_found} of {bare_rules}")
        for rule_id, r, n in rows:
            if r < 1.0:
                print(f"  {rule_id:45s} recall {r:.2f} of {n} samples")
    assert recalled / len(rows) >= 0.99
