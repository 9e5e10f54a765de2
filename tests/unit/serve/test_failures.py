"""Failure modes: parsing what users write, and what each does to an answer."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given
from hypothesis import strategies as st

from workbench.serve import MODES, Failure
from workbench.serve._failures import Answer, apply_failures, holds, parse_failure

BODY = {"items": [{"id": "p-1", "owner": "a", "state": "stale"},
                  {"id": "p-2", "owner": "b", "state": "active"}], "next_cursor": None}


def _apply(*texts: str, body=BODY, status=200) -> Answer:
    fs = tuple(parse_failure(t) for t in texts)
    assert all(isinstance(f, Failure) for f in fs)
    return apply_failures(Answer(status, {"content-type": "application/json"}, body), fs)


@pytest.mark.parametrize(("text", "expected"), [
    ("missing-field items[*].owner", Failure("missing-field", ("items[*].owner",))),
    ("enum-member items[0].state paused by admin",
     Failure("enum-member", ("items[0].state", "paused by admin"))),
    ("  status   503 ", Failure("status", ("503",))),
    ("retry-then-ok", Failure("retry-then-ok")),
    ("content-type text/html;charset=utf-8", Failure("content-type",
                                                     ("text/html;charset=utf-8",))),
])
def test_what_users_write_parses(text, expected):
    assert parse_failure(text) == expected


@pytest.mark.parametrize(("text", "reason"), [
    ("", "empty"), ("explode", "unknown failure mode 'explode'"),
    ("Status 503", "unknown failure mode"), ("status", "takes 1 argument"),
    ("status 600", "100-599"), ("status abc", "100-599"),
    ("missing-field", "takes 1"), ("missing-field items[", "not a path"),
    ("missing-field .a", "not a path"), ("error-200 please", "takes 0"),
    ("enum-member items[0].state", "takes 2"),
])
def test_bad_modes_say_why(text, reason):
    got = parse_failure(text)
    assert isinstance(got, str) and reason in got


def test_every_mode_is_documented():
    page = (__import__("pathlib").Path(__file__).parents[3] / "docs" / "serve.md").read_text()
    for mode in MODES:
        assert f"| `{mode}" in page, mode


def test_missing_field_removes_it_wherever_the_path_reaches():
    a = _apply("missing-field items[*].owner")
    assert a.body["items"] == [{"id": "p-1", "state": "stale"}, {"id": "p-2", "state": "active"}]
    assert _apply("missing-field items[1].owner").body["items"][0]["owner"] == "a"
    assert _apply("missing-field next_cursor").body == {"items": BODY["items"]}
    assert _apply("missing-field body.nothing.here").body == BODY  # nothing there: unchanged


def test_enum_member_sets_an_unseen_value():
    a = _apply("enum-member items[*].state archived-pending")
    assert [i["state"] for i in a.body["items"]] == ["archived-pending"] * 2
    assert _apply("enum-member items[-1].state x").body["items"][1]["state"] == "x"


def test_empty_page_keeps_a_cursor():
    assert _apply("empty-page-with-cursor").body == {"items": [],
                                                     "next_cursor": "cursor-after-empty-page"}
    other = _apply("empty-page-with-cursor", body={"data": [1, 2], "next": "n2"}).body
    assert other == {"data": [], "next": "n2"}
    assert _apply("empty-page-with-cursor", body=[1, 2]).body["items"] == []


def test_status_error_200_and_content_type():
    a = _apply("status 409")
    assert a.status == 409 and a.body == {"error": {"code": "http_409", "message": "Conflict"}}
    assert _apply("status 204").body == BODY  # below 400 the body stays
    a = _apply("error-200", status=201)
    assert a.status == 200 and a.body["error"]["code"] == "internal_error"
    a = _apply("content-type text/html")
    assert a.headers["content-type"] == "text/html" and a.body == BODY


def test_holding_modes():
    retry, hang = Failure("retry-then-ok"), Failure("timeout-after-record")
    assert holds((retry,), 1) == "retry-then-ok" and holds((retry,), 2) is None
    assert holds((hang,), 1) == holds((hang,), 5) == "timeout-after-record"
    assert holds((Failure("status", ("503",)),), 1) is None


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["items", "owner", "state", "id", "next_cursor"]), inner, max_size=4),
    max_leaves=20)
modes = st.sampled_from(["missing-field items[*].owner", "enum-member items[0].state x",
                         "empty-page-with-cursor", "content-type text/plain", "error-200",
                         "status 503", "missing-field owner", "enum-member id y"])


@given(json_values, st.lists(modes, max_size=3))
def test_the_recorded_answer_is_never_changed(body, texts):
    before = copy.deepcopy(body)
    _apply(*texts, body=body)
    assert body == before
