"""import -> export -> import keeps every field a provider can express, for any
descriptor in the family generated here: the first export reaches the provider's normal
form (losing, with --lossy, what the provider cannot say), and from there export and
import are each other's inverse; where the first export had nothing to rewrite, the
carried fields come back exactly as they were."""

from dataclasses import replace

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from workbench.contracts import (
    SIDE_EFFECTS,
    Descriptor,
    ExportError,
    descriptor_from_dict,
    export_tools,
    read_document,
)

names = st.from_regex(r"[a-z][a-z0-9_]{0,14}", fullmatch=True)
words = st.text(st.characters(codec="utf-8", categories=("L", "N", "Zs")), min_size=1,
                max_size=30).map(str.strip).filter(bool)


def leaves():
    return st.one_of(
        st.fixed_dictionaries({"type": st.just("string")},
                              optional={"description": words,
                                        "enum": st.lists(names, min_size=1, max_size=4,
                                                         unique=True)}),
        st.fixed_dictionaries({"type": st.sampled_from(["integer", "number"])},
                              optional={"minimum": st.integers(0, 9),
                                        "maximum": st.integers(10, 99)}),
        st.just({"type": "boolean"}),
        st.fixed_dictionaries({"type": st.just("string"), "maxLength": st.integers(1, 64)}),
        st.fixed_dictionaries({"type": st.just(["string", "null"])}),
    )


def objects(depth=2):
    child = leaves() if depth == 0 else st.one_of(
        leaves(), leaves().map(lambda s: {"type": "array", "items": s}), objects(depth - 1))

    @st.composite
    def build(draw):
        props = draw(st.dictionaries(names, child, min_size=1, max_size=4))
        out = {"type": "object", "properties": props}
        required = [n for n in props if draw(st.booleans())]
        if required:
            out["required"] = required
        if draw(st.booleans()):
            out["additionalProperties"] = False
        return out
    return build()


@st.composite
def descriptors(draw):
    doc = {"version": 1, "tool": draw(names), "input": draw(objects())}
    optional = {
        "revision": st.integers(0, 50), "title": words, "description": words,
        "output": objects(1), "side_effect": st.sampled_from(SIDE_EFFECTS),
        "errors": st.builds(lambda c, r: {"codes": c, "retryable": [x for x in c if r]},
                            st.lists(names, max_size=3, unique=True), st.booleans()),
        "timeout_s": st.floats(0.5, 600), "cancellable": st.booleans(),
        "auth_scope": st.lists(names, max_size=2, unique=True),
        "idempotency": st.builds(lambda n, r: {"key": f"arg:{n}", "required": r}, names,
                                 st.booleans()),
        "deprecated": st.builds(lambda s: {"since": s, "replacement": None}, names)}
    for field, strategy in optional.items():
        if draw(st.booleans()):
            doc[field] = draw(strategy)
    return descriptor_from_dict(doc)


#: the descriptor fields each provider's tool format carries (docs/contracts.md, "Export")
CARRIES = {"openai": ("tool", "description", "input"),
           "anthropic": ("tool", "description", "input"),
           "gemini": ("tool", "description", "input", "output"),
           "mcp": ("tool", "revision", "title", "description", "input", "output", "errors",
                   "side_effect", "timeout_s", "cancellable", "auth_scope", "idempotency",
                   "deprecated")}


def _carried(d: Descriptor, provider: str) -> dict:
    said = d.to_dict()
    return {f: said.get(f) for f in CARRIES[provider]}


def _through(d: Descriptor, provider: str, lossy: bool = False) -> Descriptor:
    (back,) = read_document(export_tools([d], provider, lossy=lossy).document, "x.json")
    return back


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini", "mcp"])
@settings(max_examples=100)
@given(d=descriptors())
def test_import_export_import_keeps_what_the_provider_carries(provider, d):
    try:
        first = export_tools([d], provider, lossy=True)
    except ExportError as exc:  # what no export can carry (an empty nested object)
        assert exc.code == "EXPORT_UNSUPPORTED"
        assume(False)
    (d1,) = read_document(first.document, "first.json")
    assert d1.source.format == provider
    again = export_tools([d1], provider)  # the normal form exports without loss
    assert not again.transformed and not again.dropped
    (d2,) = read_document(again.document, "second.json")
    assert _carried(d2, provider) == _carried(d1, provider)
    assert again.document == export_tools([d2], provider).document
    if not first.transformed and not first.dropped:
        assert _carried(d1, provider) == _carried(d, provider)


@settings(max_examples=100)
@given(d=descriptors())
def test_mcp_keeps_the_whole_descriptor(d):
    assert _through(d, "mcp") == d


@given(d=descriptors(), name=st.from_regex(r"[a-z]{1,8}\.[a-z]{1,8}", fullmatch=True))
def test_a_dotted_name_goes_through_mcp_and_gemini_but_not_openai_or_anthropic(d, name):
    d = replace(d, tool=name)
    assert _through(d, "mcp").tool == name
    assert _through(d, "gemini", lossy=True).tool == name
    for provider in ("openai", "anthropic"):
        with pytest.raises(ExportError):
            export_tools([d], provider, lossy=True)
