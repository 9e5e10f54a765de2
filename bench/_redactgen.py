"""A labeled corpus for ``bench/redact.py``: secrets, personal data and look-alikes that
must stay, each embedded in the places agent traces carry them.

    python bench/_redactgen.py [--seed 0] [--per-type 30] [--out FILE.jsonl]

Every value is made here from the provider's documented shape (prefix, alphabet, length,
checksum where one is public: GitHub's and npm's CRC32 tail, Luhn for cards, ISO 7064
mod 97 for IBANs); nothing is copied from a scanner's rule set. Each record is
``{id, kind: positive|negative, type, category, container: text|json, context, payload,
secret}``: ``secret`` is the part that must be gone after redaction (a DSN's password,
not the whole URL; a PEM block's body, not its armour lines), or for a negative the
look-alike that must stay. The same ``--seed`` gives the same corpus, and each type has
its own random stream, so adding a type does not change the others.

The families live beside this module: the secret formats in ``_redactgen_secrets.py``,
personal data and look-alikes in ``_redactgen_pii.py``, the contexts in
``_redactgen_contexts.py``, and what they share (alphabets, ``Kind``, the context sets)
in ``_redactgen_kind.py``; this one assembles the records.
"""

from __future__ import annotations

import argparse
import json
import sys
from random import Random
from typing import Any

from _redactgen_contexts import JSON_CONTEXTS, _json_ctx, _sa_ctx, _text_ctx, _tool_ctx
from _redactgen_kind import Kind
from _redactgen_pii import NEGATIVES, PERSONAL
from _redactgen_secrets import SECRETS

__all__ = ["KINDS", "Kind", "generate"]


KINDS: list[Kind] = SECRETS + PERSONAL + NEGATIVES


def _record(k: Kind, i: int, rng: Random) -> dict[str, Any]:
    ctxs = k.usable()
    ctx = ctxs[i % len(ctxs)]
    value = k.gen(rng)
    secret, shown = value if isinstance(value, tuple) else (value, value)
    if ctx.startswith("sa-"):
        container, payload = _sa_ctx(ctx, rng, shown)
    elif ctx.startswith("tool-") and k.type == "tool-call":
        container, payload = _tool_ctx(ctx, shown)
        secret = json.dumps(shown)
    elif ctx in JSON_CONTEXTS:
        container, payload = "json", _json_ctx(ctx, rng, k, shown)
    else:
        container, payload = "text", _text_ctx(ctx, rng, k, shown)
    return {"id": f"{k.type}-{i:03d}", "kind": k.kind, "type": k.type, "category": k.category,
            "container": container, "context": ctx, "payload": payload, "secret": secret}


def generate(seed: int = 0, per_type: int = 30) -> list[dict[str, Any]]:
    """The corpus: ``per_type`` records of every kind, contexts taken in turn."""
    out = []
    for k in KINDS:
        rng = Random(f"{seed}:{k.type}")
        out.extend(_record(k, i, rng) for i in range(per_type))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--per-type", type=int, default=30)
    ap.add_argument("--out", help="a JSONL file (default: stdout)")
    args = ap.parse_args(argv)
    recs = generate(args.seed, args.per_type)
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs)
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(lines)
    else:
        sys.stdout.write(lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
