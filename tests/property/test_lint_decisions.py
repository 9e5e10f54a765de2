"""Lint's split holds against export itself, for any descriptors of the family the
round-trip test generates: what lint says export fixes without loss, export rewrites
without refusing and lists as `transformed`; export refuses exactly where a problem
needs a decision that is not a per-request limit; the groups partition the problems."""

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.property.test_contract_roundtrip import descriptors
from workbench.contracts import PROVIDERS, ExportError, export_tools, lint
from workbench.contracts._profile import group_problems


@settings(max_examples=60)
@given(st.lists(descriptors(), min_size=1, max_size=4, unique_by=lambda d: d.tool),
       st.sampled_from(PROVIDERS))
def test_fixable_is_what_export_rewrites_and_decisions_are_what_it_refuses(tools, provider):
    problems = lint(tools, [provider])
    refused = [p for p in problems if p.fix in ("lossy", "none")]
    try:
        result = export_tools(tools, provider)
    except ExportError:
        assert refused
    else:
        assert not refused
        assert list(result.transformed) == [p for p in problems if not p.decision]
        assert all(p.fix == "per-request" for p in problems if p.decision)
    groups = group_problems(problems)
    assert sum(g.count for g in groups) == len(problems)
    assert len({(g.rule, g.fix, g.severity) for g in groups}) == len(groups)
    assert [g.decision for g in groups] == sorted((g.decision for g in groups), reverse=True)
    for g in groups:
        members = [p for p in problems if (p.rule, p.fix, p.severity) == (
            g.rule, g.fix, g.severity)]
        assert g.example == members[0] and g.count == len(members)
        assert g.tools == len({p.tool for p in members})
