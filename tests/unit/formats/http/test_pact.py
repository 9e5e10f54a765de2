"""Adapter ``pact``: Pact contract files v2, v3 and v4, from hand-written pacts."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from tests.support import write_source as source
from workbench.formats._adapter import RawEvent, SourceFile, TraceInfo
from workbench.formats._pairing import derived_id
from workbench.formats.http._pact import PACT
from workbench.model import InputError

RULES = {"body": {"$.id": {"combine": "AND", "matchers": [{"match": "type"}]}}}


def pact(spec: str = "3.0.0", **body: Any) -> dict[str, Any]:
    doc: dict[str, Any] = {"consumer": {"name": "shop-ui"}, "provider": {"name": "orders"}}
    doc.update(body)
    doc["metadata"] = {"pactSpecification": {"version": spec}, "pact-js": {"version": "9"}}
    return doc


def write(tmp_path: Path, doc: Any) -> SourceFile:
    return source(tmp_path / "p.json", json.dumps(doc, indent=2))


def read(src: SourceFile) -> tuple[list[RawEvent], list[TraceInfo]]:
    out = list(PACT.read(src))
    return ([e for e in out if isinstance(e, RawEvent)],
            [e for e in out if isinstance(e, TraceInfo)])


def test_sniff_scores(tmp_path: Path) -> None:
    assert PACT.sniff(write(tmp_path, pact(interactions=[]))) == 95
    no_meta = {"consumer": {"name": "a"}, "provider": {"name": "b"}, "interactions": []}
    assert PACT.sniff(write(tmp_path, no_meta)) == 85
    only = {"consumer": {"name": "a"}, "interactions": []}
    assert PACT.sniff(write(tmp_path, only)) == 60
    assert PACT.sniff(write(tmp_path, {"log": {"entries": []}})) == 0
    assert PACT.sniff(write(tmp_path, {"interactions": [{"request": {"uri": "/"}}]})) == 0


def test_v2_http_interactions(tmp_path: Path) -> None:
    found = {"description": "an order", "providerState": "order 7 exists",
             "request": {"method": "get", "path": "/orders/7", "query": "fields=id&fields=total",
                         "headers": {"Accept": "application/json"}},
             "response": {"status": 200, "headers": {"Content-Type": "application/json"},
                          "body": {"id": 7}, "matchingRules": {"$.body.id": {"match": "type"}}}}
    missing = {"description": "no order", "providerState": "no orders",
               "request": {"method": "get", "path": "/orders/8"},
               "response": {"status": 404}}
    src = write(tmp_path, pact("2.0.0", interactions=[found, missing]))
    (a, b), [info] = read(src)
    tid = derived_id(src.sha256, "pact", "shop-ui", "orders")
    assert [(e.trace_id, e.event_id, e.parent_id) for e in (a, b)] == [
        (tid, "interaction-0", None), (tid, "interaction-1", None)]
    assert (a.kind, a.name, a.status, a.start_ns) == ("http", "GET /orders/7", "ok", None)
    assert a.args == {"method": "GET", "url": "/orders/7?fields=id&fields=total",
                      "path": "/orders/7", "query": {"fields": ["id", "total"]},
                      "headers": {"accept": "application/json"}}
    assert a.result == {"status": 200, "headers": {"content-type": "application/json"},
                        "body": {"id": 7}}
    assert a.attrs["pact.description"] == "an order"
    assert a.attrs["pact.providerStates"] == [{"name": "order 7 exists"}]
    assert a.attrs["pact.response.matchingRules"] == {"$.body.id": {"match": "type"}}
    assert (b.status, b.error) == ("error", {"code": "HTTP_404", "message": "Not Found"})
    assert b.result == {"status": 404, "headers": {}}
    assert info.trace_id == tid
    assert info.attrs == {"pact.consumer": "shop-ui", "pact.provider": "orders"}
    assert info.versions == {"pact_specification": "2.0.0", "pact-js": {"version": "9"}}


def test_v3_query_map_states_and_rules(tmp_path: Path) -> None:
    it = {"description": "create", "providerStates": [{"name": "empty", "params": {"n": 0}}],
          "request": {"method": "POST", "path": "/orders", "query": {"dry": ["1"]},
                      "body": {"sku": "a"}, "matchingRules": RULES,
                      "generators": {"body": {"$.id": {"type": "Uuid"}}}},
          "response": {"status": 201, "body": {"id": "x"}, "matchingRules": RULES}}
    [ev], _ = read(write(tmp_path, pact(interactions=[it])))
    assert ev.args["query"] == {"dry": "1"}
    assert ev.args["body"] == {"sku": "a"}
    assert ev.attrs["pact.providerStates"] == [{"name": "empty", "params": {"n": 0}}]
    assert ev.attrs["pact.request.matchingRules"] == RULES
    assert ev.attrs["pact.request.generators"] == {"body": {"$.id": {"type": "Uuid"}}}
    assert ev.attrs["pact.response.matchingRules"] == RULES


def test_v3_messages(tmp_path: Path) -> None:
    msg = {"description": "order created", "providerStates": [{"name": "an order"}],
           "contents": {"id": "o1"}, "metadata": {"contentType": "application/json"},
           "matchingRules": RULES}
    [ev], [info] = read(write(tmp_path, pact(messages=[msg])))
    assert (ev.event_id, ev.kind, ev.name, ev.status) == (
        "message-0", "message", "order created", "ok")
    assert (ev.args, ev.result) == (None, {"id": "o1"})
    assert ev.attrs["pact.metadata"] == {"contentType": "application/json"}
    assert ev.attrs["pact.matchingRules"] == RULES
    assert info.versions["pact_specification"] == "3.0.0"


def v4(kind: str, key: str, **body: Any) -> dict[str, Any]:
    return {"type": kind, "key": key, "description": f"a {kind}", "pending": False, **body}


def test_v4_interaction_types(tmp_path: Path) -> None:
    pb = base64.b64encode(b"\x08\x96\x01\x00").decode()
    items = [
        v4("Synchronous/HTTP", "k1",
           request={"method": "PUT", "path": "/orders/1", "headers": {"X-A": ["1", "2"]},
                    "body": {"content": {"qty": 1}, "contentType": "application/json",
                             "encoded": False}},
           response={"status": 200, "body": {"content": "eyJvayI6IHRydWV9",
                                             "contentType": "application/json",
                                             "encoded": "base64"}}),
        v4("Asynchronous/Messages", "k2",
           contents={"content": '{"id": 1}', "contentType": "application/json",
                     "encoded": "json"}, metadata={"topic": "orders"}),
        v4("Synchronous/Messages", "k3", transport="grpc",
           pluginConfiguration={"protobuf": {"service": "Orders/Get"}},
           request={"contents": {"content": pb, "contentType": "application/protobuf",
                                 "encoded": "base64"}},
           response=[{"contents": {"content": pb, "contentType": "application/protobuf",
                                   "encoded": "base64"}, "matchingRules": RULES}]),
        v4("Synchronous/Messages", "k4",
           request={"contents": {"content": "ping", "contentType": "text/plain"}},
           response=[{"contents": {"content": "pong", "contentType": "text/plain"}}]),
    ]
    (http, asyn, grpc, sync), _ = read(write(tmp_path, pact("4.0", interactions=items)))
    assert [e.event_id for e in (http, asyn, grpc, sync)] == ["k1", "k2", "k3", "k4"]
    assert (http.kind, http.name) == ("http", "PUT /orders/1")
    assert http.args["headers"] == {"x-a": ["1", "2"]}
    assert http.args["body"] == {"qty": 1}
    assert http.result["body"] == {"ok": True}
    assert http.attrs["pact.type"] == "Synchronous/HTTP" and http.attrs["pact.key"] == "k1"
    assert (asyn.kind, asyn.result, asyn.attrs["pact.metadata"]) == (
        "message", {"id": 1}, {"topic": "orders"})
    assert (grpc.kind, grpc.name, grpc.status) == ("other", "Orders/Get", "ok")
    assert grpc.args == {"content_type": "application/protobuf",
                         "body": "«binary: 4 bytes, application/protobuf»"}
    assert grpc.result == {"responses": [{"content_type": "application/protobuf",
                                          "body": "«binary: 4 bytes, application/protobuf»"}]}
    assert grpc.attrs["workbench.flags"] == ["binary_body"]
    assert grpc.attrs["pact.request.contents"]["content"] == pb  # the contract's bytes kept
    assert grpc.attrs["pact.response.0.matchingRules"] == RULES
    assert (sync.kind, sync.name) == ("message", "a Synchronous/Messages")
    assert sync.args["body"] == "ping"
    assert sync.result["responses"][0]["body"] == "pong"


def test_duplicate_keys_fall_back_to_positions(tmp_path: Path) -> None:
    it = v4("Asynchronous/Messages", "same", contents={"a": 1})
    evs, _ = read(write(tmp_path, pact("4.0", interactions=[it, it])))
    assert [e.event_id for e in evs] == ["interaction-0", "interaction-1"]


@pytest.mark.parametrize(("doc", "code", "message"), [
    (pact(), "INVALID_TRACE", "no interactions or messages"),
    (pact(interactions=[]), "INVALID_TRACE", "no interactions in the pact"),
    (pact(interactions=[], messages=[]), "INVALID_TRACE", "no interactions in the pact"),
    ([1, 2], "INVALID_TRACE", "not a pact"),
    (pact(interactions=["x"]), "INVALID_TRACE", "interaction 0 is not an object"),
    (pact(interactions=[{"description": "d"}]), "INVALID_TRACE", "has no request and response"),
    (pact(interactions=[{"request": {"path": "/"}, "response": {"status": "ok"}}]),
     "INVALID_TRACE", "interaction 0 is malformed"),
])
def test_bad_pacts(tmp_path: Path, doc: Any, code: str, message: str) -> None:
    with pytest.raises(InputError, match=message) as exc:
        list(PACT.read(write(tmp_path, doc)))
    assert exc.value.code == code


def test_truncated_pact_is_invalid_json(tmp_path: Path) -> None:
    text = json.dumps(pact(messages=[{"contents": {}}]), indent=2)
    with pytest.raises(InputError) as exc:
        list(PACT.read(source(tmp_path / "p.json", text[:40])))
    assert exc.value.code == "INVALID_JSON"
