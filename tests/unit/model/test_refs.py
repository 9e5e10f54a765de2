from workbench.model import COMMON_AFTER, RefSource, infer_refs, linkable


def ev(i, kind="tool_call", args=None, result=None, start=None, end=None):
    return RefSource(f"e{i}", kind, start, end, args, result)


def test_argument_links_to_earliest_result_holding_it():
    events = [
        ev(0, result={"items": [{"id": "p17"}, {"id": "p18"}]}),
        ev(1, result={"echo": "p17"}),
        ev(2, args={"project_id": "p17"}),
    ]
    assert infer_refs(events)[2] == [
        {"event_id": "e0", "path": "args.project_id", "from_path": "result.items[0].id"}]


def test_no_link_to_itself_or_to_later_events():
    events = [ev(0, args={"id": "abc123"}, result={"id": "abc123"}), ev(1, result={"x": "abc123"})]
    assert infer_refs(events) == [[], []]


def test_happens_before_uses_times_when_present():
    # e0 is still running when e1 starts: its result cannot feed e1
    events = [ev(0, result={"id": "job-4711"}, start=0, end=100),
              ev(1, args={"job": "job-4711"}, start=50, end=60),
              ev(2, args={"job": "job-4711"}, start=100, end=120)]
    refs = infer_refs(events)
    assert refs[1] == []
    assert refs[2][0]["event_id"] == "e0"


def test_model_call_arguments_are_not_linked():
    events = [ev(0, result={"id": "p17-archive"}),
              ev(1, kind="llm_call", args={"messages": ["p17-archive"]})]
    assert infer_refs(events)[1] == []


def test_short_common_and_non_string_values_are_not_linked():
    assert not linkable("ok")
    assert not linkable("active")  # short, no digit
    assert linkable("p17")
    assert linkable("archived-projects")
    assert not linkable(True)
    assert not linkable(1.5)
    assert not linkable(42)
    assert linkable(4711)
    results = [ev(i, result={"session": "sess-000001"}) for i in range(COMMON_AFTER + 1)]
    refs = infer_refs([*results, ev(99, args={"session": "sess-000001"})])
    assert refs[-1] == []


def test_integer_and_string_forms_are_different_values():
    events = [ev(0, result={"id": 123456}), ev(1, args={"id": "123456"})]
    assert infer_refs(events)[1] == []


def test_leaves_of_scalars_and_nested_values():
    from workbench.model._refs import leaves
    assert leaves("ok", ("result",)) == []
    assert leaves("p17", ("result",)) == [(("result",), "p17")]
    assert leaves({"a": [{"id": "p17"}, 5, "x"], "b": "long-enough"}, ("r",)) == [
        (("r", "a", 0, "id"), "p17"), (("r", "b"), "long-enough")]


def test_media_types_are_protocol_not_data_flow():
    # an HTTP request's Accept equals an earlier answer's Content-Type: not a dependency
    for v in ["application/json", "text/html; charset=utf-8", "application/vnd.api+json",
              "application/json, text/plain, */*", "image/png", "TEXT/PLAIN;charset=UTF-8",
              "application/x-www-form-urlencoded", "multipart/form-data; boundary=x1"]:
        assert not linkable(v), v
    # look-alikes that are values an agent passes on: paths, ids, model names, URLs
    for v in ["text/notes.md", "src/main.py", "/v1/orders/123", "models/gpt-4o-mini",
              "https://api.example/v1/x", "image/cat-2024.png", "apps/ord_123"]:
        assert linkable(v), v
    events = [ev(0, kind="http", args={"headers": {"accept": "application/json"}},
                 result={"headers": {"content-type": "application/json"}, "body": {"id": 4711}}),
              ev(1, kind="http", args={"headers": {"accept": "application/json"},
                                       "path": "/orders/4711x"})]
    assert infer_refs(events)[1] == []
