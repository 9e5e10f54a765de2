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
              ev(1, args={"job": "job-4711"}, start=50, end=60)]
    assert infer_refs(events)[1] == []
    events = [ev(0, result={"id": "job-4711"}, start=0, end=100),
              ev(2, args={"job": "job-4711"}, start=100, end=120)]
    assert infer_refs(events)[1][0]["event_id"] == "e0"


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


def http(i, args, result, start=None, end=None):
    return ev(i, kind="http", args=args, result=result, start=start, end=end)


def test_protocol_headers_are_never_linked():
    # seen on a cassette of real OpenAI calls and a Puppeteer HAR: keep-alive answered
    # keep-alive, and the server's CORS header echoed the browser's Origin
    first = http(0, {"method": "GET", "path": "/posts", "headers": {"accept": "*/*"}},
                 {"status": 200, "headers": {
                     "connection": "keep-alive",
                     "access-control-allow-origin": "http://localhost:3000",
                     "date": "Thu, 30 Jan 2020 07:09:08 GMT",
                     "content-encoding": "gzip, deflate", "x-session": "sess-91a7"}})
    second = http(1, {"method": "GET", "path": "/users", "headers": {
        "connection": "keep-alive", "origin": "http://localhost:3000",
        "if-modified-since": "Thu, 30 Jan 2020 07:09:08 GMT",
        "accept-encoding": "gzip, deflate", "x-session": "sess-91a7"}}, {"status": 200})
    assert infer_refs([first, second])[1] == [
        {"event_id": "e0", "path": "args.headers.x-session",
         "from_path": "result.headers.x-session"}]


def test_protocol_words_and_short_numbers_are_not_linked():
    for v in ["keep-alive", "gzip, deflate, br", "Not Found", "Internal Server Error",
              "HTTP/1.1", "Thu, 30 Jan 2020 07:09:08 GMT", "max-age=14400",
              "public, max-age=14400", "en-US,en;q=0.9", "tool_calls", "assistant",
              "function", "chat.completion", "200", "404", "2.0", "-12.5", "0.9"]:
        assert not linkable(v), v
    for v in ["4711", "call_JpNb8OiAkbIbHzDggfpdDHpi", "Thu-1234", "completed-42",
              "gift_card_8887175", "2024-05-24", "1.2.3", "-43.9509", "abc, xyz", "completed", "get_current_weather"]:
        assert linkable(v), v


def test_an_error_body_describing_the_request_is_no_source():
    # a contract server's 501 names the path it was asked for; the next request to the
    # same path did not get it from that answer
    asked = http(0, {"method": "GET", "path": "/v1/orders/ord_7"},
                 {"status": 501, "body": {"error": {"closest": {"differences": [
                     {"field": "path", "recorded": "/orders/ord_7",
                      "received": "/v1/orders/ord_7"}]}}}})
    again = http(1, {"method": "GET", "path": "/v1/orders/ord_7"}, {"status": 501})
    assert infer_refs([asked, again])[1] == []


def test_a_value_the_client_sent_first_is_not_sourced_from_its_echo():
    # e0 sends the user's id and its answer repeats it; e2 reuses the id: it came from
    # the client, not from e0's (or e1's) echo. The reservation id e1 found is e1's.
    events = [ev(0, args={"user_id": "mia_kim_4397"},
                 result={"user_id": "mia_kim_4397", "reservations": ["H9ZU1C"]}),
              ev(1, args={"reservation_id": "H9ZU1C"},
                 result={"reservation_id": "H9ZU1C", "user_id": "mia_kim_4397"}),
              ev(2, args={"user_id": "mia_kim_4397", "reservation_id": "H9ZU1C"})]
    assert infer_refs(events)[2] == [
        {"event_id": "e0", "path": "args.reservation_id", "from_path": "result.reservations[0]"}]


def test_a_model_call_input_is_a_sending_too():
    # a tool's name is defined in the model call's input; the model's answer choosing it
    # is no source of the name a later request repeats
    events = [ev(0, kind="llm_call", args={"tools": [{"name": "get_current_weather"}]},
                 result={"tool_calls": [{"id": "call_91xk", "name": "get_current_weather"}]}),
              ev(1, kind="http", args={"body": {"messages": [
                  {"tool_calls": [{"id": "call_91xk", "name": "get_current_weather"}]}]}})]
    assert infer_refs(events)[1] == [
        {"event_id": "e0", "path": "args.body.messages[0].tool_calls[0].id",
         "from_path": "result.tool_calls[0].id"}]


def test_concurrent_answers_do_not_source_what_a_request_already_held():
    # e1 started (carrying the id) while e0 was still running: e0's answer echoes it
    events = [ev(0, result={"id": "job-4711"}, start=0, end=100),
              ev(1, args={"job": "job-4711"}, start=50, end=60),
              ev(2, args={"job": "job-4711"}, start=100, end=120)]
    assert infer_refs(events)[2] == []


def test_linkable_answers_alike_when_a_string_is_remembered(monkeypatch):
    from workbench.model import _refs
    monkeypatch.setattr(_refs, "_SHORT", {})
    monkeypatch.setattr(_refs, "_SHORT_MAX", 4)  # cleared again and again below
    words = {"keep-alive": False, "gzip, deflate": False, "GET": False, "2.0": False,
             "abc": False, "text/plain": False, "   \t    ": False, "p2978": True,
             "9999": True, "order-58213": True, "x" * 96: True, "x" * 97: True,
             "application/json; charset=utf-8" + " " * 80: False, "Keep-Alive": False}
    first = {w: linkable(w) for w in words}
    again = {w: linkable(w) for w in reversed(words)}
    assert first == again == words
    assert len(_refs._SHORT) <= 4
