"""Load a rules file (YAML, ``version: 1``) into a ``RuleSet``, or say what is wrong.

The file is read and checked by ``config`` (version, keys, a line for every node); each
rule's body is parsed by its own class, found by its key in ``bodies.BODIES``. Every
error names the file, the rule id and the line.
"""

from __future__ import annotations

import re
from pathlib import Path as FsPath
from typing import Any

from ..model import LIMITS
from ._parse import RULES_FILE, At, RulesError
from ._rule import Rule, RuleSet
from .bodies import BODIES

__all__ = ["RulesError", "load_rules", "parse_rules"]
_RULES = LIMITS["rules_per_file"]


def load_rules(path: str | FsPath) -> RuleSet:
    """Read and check a rules file."""
    p = FsPath(path)
    return parse_rules(RULES_FILE.read(p), source=str(p), base=p.parent)


def parse_rules(text: str, source: str = "<rules>", base: FsPath | None = None) -> RuleSet:
    """Check rules given as YAML text; ``base`` resolves schema ``$ref`` files."""
    doc = RULES_FILE.parse(text, source)
    rules = doc.get("rules")
    if rules is None or rules.kind != "mapping" or not rules.value:
        raise (rules or doc).error("`rules:` must map rule ids to rules")
    entries = rules.entries()
    if len(entries) > _RULES.value:
        raise _RULES.breach(f"{source} line {entries[_RULES.value][0].line}", len(entries),
                            file=source, line=entries[_RULES.value][0].line)
    lines = {str(k.value): k.line for k, _ in entries}
    out = [_rule(str(rid), spec, At(source, base, str(rid), lines.get(str(rid))))
           for rid, spec in rules.value.items()]
    return RuleSet(tuple(out), 1, source, text)


def _rule(rid: str, spec: Any, at: At) -> Rule:
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.\-]*", rid):
        raise at.error("a rule id is letters, digits, '-', '_' and '.'")
    if not isinstance(spec, dict):
        raise at.error("a rule is a mapping with a description, a severity and one body")
    bodies = [k for k in spec if k in BODIES]
    unknown = [k for k in spec if k not in BODIES and k not in ("description", "severity")]
    if unknown:
        raise at.error(f"unknown key {unknown[0]!r} (bodies: {', '.join(BODIES)})")
    if len(bodies) != 1:
        raise at.error(f"a rule has exactly one body of {', '.join(BODIES)}"
                       f" (found {len(bodies)})")
    severity = spec.get("severity", "error")
    if severity not in ("error", "warn"):
        raise at.error(f"severity is error or warn (found {severity!r})")
    description = spec.get("description", "")
    if not isinstance(description, str):
        raise at.error("description must be text")
    body = BODIES[bodies[0]].parse(spec[bodies[0]], at)
    return Rule(rid, body, description, severity, at.line)
