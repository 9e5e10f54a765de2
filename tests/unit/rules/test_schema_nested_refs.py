"""A ``$ref`` nested inside a rule's JSON Schema is never fetched or read: the loader
refuses one that leaves the schema, and the validator's registry refuses retrieval. A
real listening socket on 127.0.0.1 that never answers stands for the hostile server:
nothing connects to it (before, validation hung there)."""

import json
import socket

import pytest

from workbench.rules import parse_rules


@pytest.fixture
def silent_server():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    s.settimeout(0.5)
    yield s, f"http://127.0.0.1:{s.getsockname()[1]}/schema.json"
    s.close()


def connected(sock):
    try:
        conn, _ = sock.accept()
    except TimeoutError:
        return False
    conn.close()
    return True


def rules_with(schema):
    return ("version: 1\nrules:\n  r:\n    every:\n      event: {tool: x}\n"
            f"      schema: {{args: {json.dumps(schema)}}}\n")


@pytest.mark.parametrize("where", ["top", "nested", "defs", "items"])
def test_a_nested_remote_ref_is_refused_at_load(silent_server, where):
    sock, url = silent_server
    schema = {"top": {"$ref": url, "type": "object"},
              "nested": {"properties": {"a": {"$ref": url}}},
              "defs": {"$defs": {"d": {"$ref": url}}, "$ref": "#/$defs/d"},
              "items": {"type": "array", "prefixItems": [{"$ref": "file:///etc/passwd"}]}}[where]
    with pytest.raises(Exception) as info:
        parse_rules(rules_with(schema))
    # refused by the confinement that every file naming another goes through
    assert getattr(info.value, "code", None) == "REF_OUTSIDE"
    assert not connected(sock)


def test_local_refs_still_work():
    rules = parse_rules(rules_with({"$defs": {"id": {"type": "string", "pattern": "^p[0-9]+$"}},
                                    "properties": {"id": {"$ref": "#/$defs/id"}}}))
    from workbench.model import Event, Trace
    from workbench.rules import check_trace

    def ev(i, args):
        return Event("t", f"e{i}", None, i, "tool_call", "x", None, None, "ok", args, {})
    found = check_trace(Trace.from_events([ev(0, {"id": "p1"}), ev(1, {"id": "q1"})]), rules)
    assert [f.seq for f in found] == [1]


def test_the_validator_itself_fetches_nothing(silent_server):
    from workbench.rules._schema_re2 import schema_validator  # the guard behind the loader
    sock, url = silent_server
    v = schema_validator({"properties": {"a": {"$ref": url}}})
    with pytest.raises(Exception, match="Unresolvable|NoSuchResource|" + url):
        v.is_valid({"a": 1})
    assert not connected(sock)
