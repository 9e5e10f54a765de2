"""Call/result pairing shared by the transcript and log adapters."""

from __future__ import annotations

import pytest

from workbench.formats._adapter import RawEvent, SourceFile
from workbench.formats._decode import load_yaml
from workbench.formats._pairing import CallPairer, add_flag, derived_id, under_prompts
from workbench.model import FLAGS_KEY, InputError


def call(i: str) -> RawEvent:
    return RawEvent(trace_id="t", event_id=i, parent_id=None, kind="tool_call", name="f")


def test_results_out_of_order_pair_by_key() -> None:
    p = CallPairer()
    a, b = call("a"), call("b")
    p.open("a", a)
    p.open("b", b)
    assert p.close("b") is b
    assert p.close("a") is a
    assert p.close("a") is None
    assert list(p.unanswered()) == []


def test_reused_key_pairs_by_position() -> None:
    p = CallPairer()
    first, second = call("1"), call("2")
    p.open("k", first)
    p.open("k", second)
    assert len(p) == 2
    assert p.peek("k") is first
    assert p.close("k") is first
    assert p.close("k") is second
    assert "k" not in p


def test_unanswered_are_flagged_once_and_drained() -> None:
    p = CallPairer()
    a = call("a")
    add_flag(a, "orphan")
    p.open("a", a)
    assert list(p.unanswered()) == [a]
    assert a.attrs[FLAGS_KEY] == ["orphan", "unanswered"]
    add_flag(a, "unanswered")
    assert a.attrs[FLAGS_KEY] == ["orphan", "unanswered"]
    assert len(p) == 0


def test_derived_ids_are_stable_and_sized() -> None:
    assert derived_id("sha", "s1") == derived_id("sha", "s1")
    assert derived_id("sha", "s1") != derived_id("sha", "s2")
    assert len(derived_id("x")) == 32 and len(derived_id("x", length=16)) == 16
    assert derived_id("a", "b") != derived_id("a\x1fb")  # parts are not joined ambiguously
    assert int(derived_id("x"), 16) >= 0


def _src(tmp_path, text: str) -> SourceFile:  # type: ignore[no-untyped-def]
    p = tmp_path / "c.yaml"
    p.write_text(text)
    return SourceFile(path=p, sha256="0", size=len(text), head=text.encode()[:65536])


def test_yaml_keeps_timestamps_as_text(tmp_path) -> None:  # type: ignore[no-untyped-def]
    doc = load_yaml(_src(tmp_path, "at: 2025-01-02T03:04:05Z\nn: 3\n"))
    assert doc == {"at": "2025-01-02T03:04:05Z", "n": 3}


def test_bad_yaml_names_the_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError) as exc:
        load_yaml(_src(tmp_path, "a: [1,\nb: 2\n"))
    assert exc.value.code == "INVALID_YAML"
    assert exc.value.details["line"] == 3


def test_model_calls_hang_off_the_prompt_that_opened_their_turn() -> None:
    def ev(eid: str, kind: str, name: str, parent: str | None = None) -> RawEvent:
        return RawEvent(trace_id="t", event_id=eid, parent_id=parent, kind=kind, name=name)

    events = [ev("sys", "message", "system"), ev("early", "llm_call", "m"),
              ev("u1", "message", "user"), ev("a1", "llm_call", "m"),
              ev("c1", "tool_call", "ls", "a1"), ev("a2", "llm_call", "m"),
              ev("u2", "message", "user"), ev("a3", "llm_call", "m"),
              ev("span", "llm_call", "m", "given")]
    under_prompts(events)
    assert [(e.event_id, e.parent_id) for e in events] == [
        ("sys", None), ("early", None),            # before any prompt: a root
        ("u1", None), ("a1", "u1"), ("c1", "a1"), ("a2", "u1"),
        ("u2", None), ("a3", "u2"),
        ("span", "given")]                          # the source's own parent stays
