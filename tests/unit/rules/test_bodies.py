"""The body seam: every registered body is one module holding every member of
``RuleBody``, registered under its own key, and built where mypy checks it."""

import inspect

import pytest

from workbench.rules import BODIES, RuleBody

MEMBERS = sorted({"kind"} | {n for n, v in vars(RuleBody).items()
                             if not n.startswith("_") and (callable(v) or isinstance(v, classmethod))})


def test_the_protocol_is_what_the_docs_say():
    assert MEMBERS == ["explain", "kind", "parse", "paths", "sql", "violations"]


@pytest.mark.parametrize("kind", list(BODIES))
def test_a_body_has_every_member_in_its_own_module(kind):
    body = BODIES[kind]
    assert body.kind == kind
    missing = [m for m in MEMBERS if not hasattr(body, m)]
    assert not missing, f"{body.__name__} lacks {missing}"
    assert body.__module__ == f"workbench.rules.bodies._{kind}"
    for m in MEMBERS:
        if m != "kind":
            assert getattr(body, m).__module__ == body.__module__, m


@pytest.mark.parametrize("kind", list(BODIES))
def test_parse_returns_the_protocol_so_mypy_checks_the_body_there(kind):
    assert inspect.get_annotations(BODIES[kind].parse)["return"] == "RuleBody"
