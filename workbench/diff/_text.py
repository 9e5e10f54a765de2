"""Terminal renderings of a trace diff and of a shadow run."""

from __future__ import annotations

from typing import Any

from ..model import dumps
from ._tracediff import EventRef, TraceDiff
from ._values import PathChange, plain

__all__ = ["render_diff", "render_path", "render_shadow", "render_shadow_builds",
           "render_shadow_runs", "render_value"]

_WIDTH = 80
_LIST = 200  # changed paths shown per event; --json has them all


def render_value(value: Any, width: int = _WIDTH) -> str:
    """A JSON value on one line, cut at ``width`` characters."""
    text = dumps(plain(value))
    return text if len(text) <= width else text[: width - 1] + "…"


def _ev(e: EventRef) -> str:
    return f"{e.kind} {e.name}"


def render_path(p: PathChange) -> str:
    if p.change == "added":
        return f"    {p.path}: (absent) → {render_value(p.new)}"
    if p.change == "removed":
        return f"    {p.path}: {render_value(p.old)} → (absent)"
    return f"    {p.path}: {render_value(p.old)} → {render_value(p.new)}"


def render_diff(d: TraceDiff) -> str:
    head = (f"A {d.a}  B {d.b}: {len(d.changed)} changed, {len(d.added)} added, "
            f"{len(d.removed)} removed, {len(d.reordered)} reordered "
            f"({d.aligned} events aligned)")
    if d.same:
        return f"A {d.a}  B {d.b}: same ({d.aligned} events aligned)"
    out = [head]
    for c in d.changed:
        out.append(f"~ step {c.a.seq} → {c.b.seq}  {_ev(c.b)}")
        out.extend(render_path(p) for p in c.paths[:_LIST])
        if len(c.paths) > _LIST:
            out.append(f"    … {len(c.paths) - _LIST} more paths (--json has them all)")
    for r in d.reordered:
        past = ", ".join(f"{c.name}@{c.seq}" for c in r.crossed[:5])
        more = f" and {len(r.crossed) - 5} more" if len(r.crossed) > 5 else ""
        why = f"{r.verdict}: {', '.join(r.rules)}" if r.rules else r.verdict
        out.append(f"↕ step {r.a.seq} → {r.b.seq}  {_ev(r.b)}  moved past {past}{more} "
                   f"[{why}]")
    out.extend(f"+ step {e.seq}  {_ev(e)}  (only in B)" for e in d.added)
    out.extend(f"- step {e.seq}  {_ev(e)}  (only in A)" for e in d.removed)
    if d.findings is not None:
        for f in d.findings["new"]:
            out.append(f"! new finding in B: {f['rule']}: {f['message']}")
        for f in d.findings["gone"]:
            out.append(f"  finding gone in B: {f['rule']}: {f['message']}")
    return "\n".join(out)


def render_shadow(result: Any) -> str:
    """A ``ShadowResult`` for the terminal: one line per mismatching fixture, its paths."""
    mism = result.mismatches
    failed = sum(r.status == "failed" for r in mism)
    out = [f"shadow: {len(result.results)} fixture(s), {len(result.results) - len(mism)} "
           f"same, {len(mism) - failed} changed, {failed} failed"]
    for r in mism:
        out.append(f"{r.status:<8} {r.fixture}")
        if r.problem:
            out.append(f"    {r.problem}")
        out.extend(render_path(p) for p in r.paths[:_LIST])
        if len(r.paths) > _LIST:
            out.append(f"    … {len(r.paths) - _LIST} more paths (--json has them all)")
        if r.files:
            out.append("    written: " + ", ".join(r.files))
    return "\n".join(out)


def _field_lines(fields: Any, sides: tuple[str, str] = ("old", "new")) -> list[str]:
    """Each ``FieldRate``: its verdict, both sides' rates, the difference and p; a
    change it stands for under it."""
    out = []
    for f in fields[:_LIST]:
        c = f.comparison
        diff = "-" if c.difference is None else f"{c.difference:+.1%}"
        p = "-" if c.p_value is None else f"{c.p_value:.3g}"
        out.append(f"  {f.verdict:<12} {f.path}  {sides[0]} {c.base.text()}  {sides[1]} "
                   f"{c.candidate.text()}  difference {diff} [{c.low:+.1%}, "
                   f"{c.high:+.1%}]  p={p}")
        if f.example is not None:
            line = render_path(f.example)
            out.append("      e.g. " + line[len(f"    {f.example.path}: "):])
    return out


def render_shadow_builds(result: Any) -> str:
    """A ``ShadowBuildsResult`` for the terminal: per scenario, each changed field's
    rate in the base build's runs and in the candidate's."""
    out = [f"shadow: {result.base}..{result.candidate} over {len(result.scenarios)} "
           "scenario(s), each run diffed against the base build's first run"]
    for s in result.scenarios:
        out.append(f"{s.scenario}: reference {s.reference or '-'}, {s.base_runs} other "
                   f"run(s) of {result.base}, {s.candidate_runs} of {result.candidate}"
                   + (f" — {s.problem}" if s.problem else
                      "" if s.fields else ", nothing changed"))
        out.extend(_field_lines(s.fields, ("base", "candidate")))
        if len(s.fields) > _LIST:
            out.append(f"    … {len(s.fields) - _LIST} more fields (--json has them all)")
    verdicts = result.verdicts
    if verdicts:
        out.append("fields: " + ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())))
    return "\n".join(out)


def render_shadow_runs(result: Any) -> str:
    """A ``ShadowRunsResult`` for the terminal: per fixture, each changed field's rate in
    the old build's runs and in the new build's, the difference, p and the verdict."""
    res = result.results
    failed = sum(r.status == "failed" for r in res)
    same = sum(r.status == "same" for r in res)
    out = [f"shadow: {len(res)} fixture(s), {result.runs} run(s) per build after the old "
           f"build's reference run: {same} same, {len(res) - same - failed} changed, "
           f"{failed} failed"]
    for r in res:
        if r.status == "same":
            continue
        out.append(f"{r.status:<8} {r.fixture}")
        if r.problem:
            out.append(f"    {r.problem}")
        out.extend(_field_lines(r.fields))
        if len(r.fields) > _LIST:
            out.append(f"    … {len(r.fields) - _LIST} more fields (--json has them all)")
        if r.files:
            out.append("    written: " + ", ".join(r.files))
    verdicts = result.verdicts
    if verdicts:
        out.append("fields: " + ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())))
    return "\n".join(out)
