"""What a replay starts from: the finding a ref names (a finding id, or a group's
signature and then its representative), the steps to replay (its minimized trace where
one is stored) and the judge that decides whether the failure came back."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..invariants import INVARIANTS, Spec, judge_trace, load_spec
from ..minimize import pick_rule, stored_minimization
from ..model import Trace, WorkbenchError
from ..rules import Finding, check_trace, load_rules
from ..store import Store, to_rows
from ._errors import FindingNotFoundError, ReplayInputError

__all__ = ["Judge", "Picked", "judge_for", "pick", "spec_for"]

Judge = Callable[[Trace], list[Finding]]
_PROBE = re.compile(r"^(.*) \(probe seed -?\d+\)$")


@dataclass(frozen=True)
class Picked:
    """The finding replayed, and what was asked for (``kind``: finding or group)."""

    kind: str
    finding: dict[str, Any]
    env: str
    source_trace: str

    @property
    def finding_id(self) -> str:
        return str(self.finding["finding_id"])

    @property
    def signature(self) -> str:
        return str(self.finding["signature"])

    @property
    def rule(self) -> str:
        return str(self.finding["rule"])


def pick(store: Store, ref: str) -> Picked:
    """``ref``: a finding id or a group's signature (or a unique prefix of 4 or more
    characters). A group is replayed through its most recent finding (the latest run,
    then the earliest step), on that finding's minimized trace where one is stored."""
    ref = ref.strip().lower()
    if len(ref) < 4 or not all(c in "0123456789abcdef" for c in ref):
        raise FindingNotFoundError(f"no finding or group {ref!r}: a finding id or a "
                                   "signature is hex, 4 to 16 digits")
    rows = to_rows(store.sql(
        "SELECT f.*, coalesce(t.env, 'default') AS env FROM findings f "
        "LEFT JOIN traces t USING (trace_id) "
        "WHERE starts_with(f.finding_id, ?) OR starts_with(f.signature, ?) "
        "ORDER BY f.checked_at DESC, f.seq NULLS LAST, f.finding_id", [ref, ref]))
    ids = {r["finding_id"] for r in rows if r["finding_id"].startswith(ref)}
    sigs = {r["signature"] for r in rows if r["signature"].startswith(ref)}
    if len(ids) + len(sigs) > 1:
        raise FindingNotFoundError(
            f"{ref!r} names {len(ids)} finding(s) and {len(sigs)} group(s)",
            code="AMBIGUOUS_FINDING", hint="give more digits of the id")
    if not rows:
        raise FindingNotFoundError(f"no finding or group {ref!r} in {store.root}")
    kind = "finding" if ids else "group"
    row = next(r for r in rows if (r["finding_id"] in ids if ids else r["signature"] in sigs))
    minimized = stored_minimization(store, row["trace_id"], row["rule"], row["signature"],
                                    row["seq"], row["event_ids"])
    source = minimized or row["trace_id"]
    return Picked(kind, row, row["env"], source)


def judge_for(picked: Picked, *, invariants: str | None = None,
              rules: str | None = None) -> Judge:
    """The same rule or invariant that found it: from ``invariants`` (an OpenAPI
    document) or ``rules`` (a rules file), else from the finding's ``rules_source``."""
    rule = picked.rule
    source = picked.finding.get("rules_source") or ""
    m = _PROBE.match(source)
    source = m.group(1) if m else source
    if rule in INVARIANTS and rules is None:
        doc = invariants or source
        if not doc or not Path(doc).is_file():
            raise ReplayInputError(
                f"the invariant {rule} is judged against its OpenAPI document, and "
                f"{doc or 'none'!r} is not a file here", code="REPLAY_JUDGE_MISSING",
                hint="name it with --invariants OPENAPI")
        spec = load_spec(doc)
        return lambda t: judge_trace(t, spec, [rule])
    path = rules or source
    if not path or not Path(path).is_file():
        raise ReplayInputError(f"the rule {rule} is in {path or 'no file'!r}, which is not "
                               "a file here", code="REPLAY_JUDGE_MISSING",
                               hint="name the rules file with --rules RULES.yaml")
    chosen = pick_rule(load_rules(path), rule)
    return lambda t: check_trace(t, [chosen])


def spec_for(picked: Picked, invariants: str | None = None) -> Spec | None:
    """The OpenAPI document a probe drew the finding's values from: ``--invariants``, else
    the one the finding was judged against; None when neither is an OpenAPI file here."""
    source = picked.finding.get("rules_source") or ""
    m = _PROBE.match(source)
    doc = invariants or (m.group(1) if m else source)
    if not doc or not Path(doc).is_file():
        return None
    try:
        return load_spec(doc)
    except WorkbenchError:
        return None
