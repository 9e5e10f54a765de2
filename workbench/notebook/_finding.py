"""What a triager needs to act on one finding: its witnesses as steps and names, the
rule's condition as written, and the values the rule read, as the store holds them.

The values are read from the witness events at the paths the rule reads (the same
paths promotion keeps, ``fixtures.rules_policy``); a value the finding's message quotes,
or a path the message names (``result.items[1]``), is marked as the offending one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import yaml

from ..fixtures import rules_policy
from ..model import Event, PathSyntaxError, WorkbenchError, dumps, format_path, parse_path
from ..rules import Finding, RuleSet
from ._html import esc

__all__ = ["FindingFacts", "Witness", "finding_facts", "rule_condition"]

_MAX_VALUES = 60   # rows of the values table; a path under [*] can reach many
_SKIP = ("kind", "name", "status")


@dataclass(frozen=True)
class Witness:
    event_id: str
    seq: int | None
    name: str

    @property
    def label(self) -> str:
        return f"step {self.seq} · {self.name}" if self.seq is not None else self.name


@dataclass(frozen=True)
class ValueRow:
    seq: int | None
    name: str
    path: str
    value: str       # compact JSON, as stored (redacted values are tokens)
    offending: bool


@dataclass(frozen=True)
class FindingFacts:
    witnesses: tuple[Witness, ...]
    condition: str               # the rule as written (YAML)
    values: tuple[ValueRow, ...]
    more: int                    # value rows not shown

    def html(self, f: Finding) -> str:
        rows = "".join(
            f"<tr{' class=wb-offending' if v.offending else ''}><td>{esc(v.seq)}</td>"
            f"<td>{esc(v.name)}</td><td>{esc(v.path)}</td><td>{esc(v.value)}</td></tr>"
            for v in self.values)
        values = ("<div class=wb-scroll><table class='wb wb-values'><tr><th>step</th>"
                  "<th>event</th><th>path</th><th>value (as stored)</th></tr>" + rows
                  + "</table></div>"
                  + (f"<div class=wb-muted>… {self.more} more</div>" if self.more else "")
                  if self.values else "<div class=wb-muted>the rule reads no value of the "
                  "witnesses (it tests their presence or order)</div>")
        return (f"<div class=wb-view><div><b>{esc(f.rule)}</b> ({esc(f.severity)}) · "
                f"step {esc(f.seq)} · {esc(f.operation)} · trace {esc(f.trace_id[:12])}</div>"
                f"<div>{esc(f.message)}</div>"
                f"<div class=wb-cols><div><b>the rule's condition</b><pre>"
                f"{esc(self.condition)}</pre></div>"
                f"<div><b>what the witnesses hold</b> <span class=wb-muted>(marked: the "
                f"offending value)</span>{values}</div></div>"
                f"<div class=wb-muted>signature {esc(f.signature)}</div></div>")


def rule_condition(rules_text: str, rule_id: str) -> str:
    """The rule as written in the rules text (its lines, as the user wrote them), else
    its body dumped as YAML, else its id alone."""
    lines = rules_text.splitlines()
    for i, line in enumerate(lines):
        if line.strip() in (f"{rule_id}:", f'"{rule_id}":', f"'{rule_id}':"):
            indent = len(line) - len(line.lstrip())
            out = [line[indent:]]
            for nxt in lines[i + 1:]:
                if nxt.strip() and len(nxt) - len(nxt.lstrip()) <= indent:
                    break
                out.append(nxt[indent:])
            return "\n".join(out).rstrip()
    try:
        doc = yaml.safe_load(rules_text)
        body = doc["rules"][rule_id]
    except (yaml.YAMLError, KeyError, TypeError):
        return rule_id
    return yaml.safe_dump({rule_id: body}, sort_keys=False, default_flow_style=None,
                          allow_unicode=True, width=80).rstrip()


def _read_paths(ruleset: RuleSet, rule_id: str) -> list[str]:
    try:
        policy = rules_policy(ruleset.only([rule_id]))
    except WorkbenchError:
        return []
    return [p for p in (*policy.keep, *policy.pseudonymize) if p not in _SKIP]


def finding_facts(f: Finding, ruleset: RuleSet, rules_text: str,
                  event: Callable[[str], Event | None]) -> FindingFacts:
    """Witnesses, condition and the values read, for ``f``; ``event`` fetches a witness
    (None when it is not there)."""
    events = [(eid, event(eid)) for eid in f.event_ids]
    witnesses = tuple(Witness(eid, e.seq if e else None, e.name if e else eid)
                      for eid, e in events)
    quoted = set(f.values)
    rows: list[ValueRow] = []
    for _, e in events:
        if e is None:
            continue
        for text in dict.fromkeys(_read_paths(ruleset, f.rule)):
            try:
                path = parse_path(text)
            except PathSyntaxError:
                continue
            column = path.root
            if not isinstance(column, str) or column not in ("args", "result", "error",
                                                              "attrs"):
                continue
            for loc, value in path.tail().find(getattr(e, column)):
                where = format_path((column, *loc))
                shown = value if isinstance(value, str) else dumps(value)
                named = any(where.startswith(part) for part in _named_paths(f.message))
                rows.append(ValueRow(e.seq, e.name, where, shown,
                                     (isinstance(value, str) and value in quoted) or named))
    return FindingFacts(witnesses, rule_condition(rules_text, f.rule),
                        tuple(rows[:_MAX_VALUES]), max(0, len(rows) - _MAX_VALUES))


def _named_paths(message: str) -> list[str]:
    """Concrete paths a message names in parentheses: ``(result.items[1])``."""
    out = []
    for chunk in message.split("(")[1:]:
        inner = chunk.split(")", 1)[0]
        if "[" in inner and " " not in inner:
            out.append(inner)
    return out
