"""The OTLP receiver as agents reach it: a real ``workbench collect`` process on
127.0.0.1, the real OpenTelemetry SDK exporters (HTTP/protobuf and HTTP/JSON), spans
counted end to end into a real store."""

from __future__ import annotations

import json

import pytest

from tests.collect_support import (
    SECRET,
    TRACE_A,
    TRACE_B,
    all_bytes,
    export_with_sdk,
    otlp_json,
    otlp_protobuf,
    partial,
    post,
    span,
    stored,
    wait_until,
)
from workbench.pytest_plugin import start_collector
from workbench.store import Store

pytest.importorskip("opentelemetry.sdk")


@pytest.mark.parametrize("protocol", ["protobuf", "json"])
def test_the_sdk_exporter_s_spans_are_all_stored_redacted_as_tool_calls(tmp_path, protocol):
    store = tmp_path / "store"
    c = start_collector(store=store, options=["--idle", "3600", "--env", "staging"])
    export_with_sdk(c.endpoint, protocol, traces=7)
    journals = all_bytes(store / "_journals")
    assert journals.count(b"\n") == 7  # one request, one journal line per trace
    assert SECRET.encode() not in journals  # redacted before it was written
    summary = c.stop()
    assert summary["spans"] == 14 and summary["spans_committed"] == 14
    assert summary["refused_spans"] == 0 and len(summary["traces"]) == 7
    s = Store(store)
    assert s.trace_ids() == set(summary["traces"])
    rows = s.sql("select kind, name, args, attrs from events order by name").to_pylist()
    assert len(rows) == 14
    assert [r["kind"] for r in rows].count("tool_call") == 7
    assert sorted({json.loads(r["args"])["q"] for r in rows if r["kind"] == "tool_call"}) \
        == [f"q{i}" for i in range(7)]
    assert SECRET not in json.dumps(rows)
    assert "«secret:" in json.dumps(rows, ensure_ascii=False)
    envs = s.sql("select distinct env from traces").column("env").to_pylist()
    assert envs == ["staging"]
    # the source is the receiver, not the temporary file a commit was made from
    sources = s.sql("select distinct source_path from traces").column(0).to_pylist()
    assert sources == ["otlp/http (workbench collect)"]
    assert not list((store / "_journals").glob("*.jsonl"))


def test_protobuf_and_json_bodies_give_the_same_events(tmp_path):
    store = tmp_path / "store"
    c = start_collector(store=store, options=["--idle", "3600"])
    a = span(TRACE_A, "eee19b7ec3c1b174", tool="search")
    b = span(TRACE_B, "eee19b7ec3c1b174", tool="search")
    assert post(c.url, otlp_protobuf(a), "application/x-protobuf")[0] == 200
    assert post(c.url, json.dumps(otlp_json(b)).encode(), "application/json",
                gzipped=True)[0] == 200
    c.stop()
    s = Store(store)
    one, two = (s.sql(f"select kind, name, start_ns, end_ns, attrs from events "
                      f"where trace_id = '{t}'").to_pylist() for t in (TRACE_A, TRACE_B))
    assert one == two and len(one) == 1


def test_a_trace_idle_for_the_setting_is_committed_while_the_collector_runs(tmp_path):
    store = tmp_path / "store"
    c = start_collector(store=store, options=["--idle", "0.5"])
    body = json.dumps(otlp_json(span(TRACE_A, "eee19b7ec3c1b174"))).encode()
    assert post(c.url, body, "application/json")[0] == 200
    wait_until(lambda: TRACE_A in stored(store), "the idle trace to be committed")
    assert c.running
    # a span arriving after its trace was committed is refused, and the answer says so
    late = json.dumps(otlp_json(span(TRACE_A, "aaa19b7ec3c1b174"),
                                span(TRACE_B, "bbb19b7ec3c1b174"))).encode()
    status, _, raw = post(c.url, late, "application/json")
    assert status == 200
    rejected, message = partial(raw, "application/json")
    assert rejected == 1 and TRACE_A in message and "--idle" in message
    summary = c.stop()
    assert summary["traces"] == [TRACE_A, TRACE_B] and summary["refused_spans"] == 1
    assert len(Store(store).trace(TRACE_A).events) == 1


def test_sigterm_commits_every_open_trace(tmp_path):
    store = tmp_path / "store"
    c = start_collector(store=store, options=["--idle", "3600"])
    export_with_sdk(c.endpoint, "protobuf", traces=3)
    assert stored(store) == set()
    summary = c.stop()
    assert len(summary["traces"]) == 3 and stored(store) == set(summary["traces"])


def test_a_killed_collector_s_journals_are_committed_by_the_next_one(tmp_path):
    store = tmp_path / "store"
    c = start_collector(store=store, options=["--idle", "3600", "--env", "ci"])
    export_with_sdk(c.endpoint, "json", traces=4)
    c.kill()
    assert stored(store) == set()
    journals = list((store / "_journals").glob("collect-*.jsonl"))
    assert len(journals) == 1 and journals[0].read_bytes().count(b"\n") == 4
    again = start_collector(store=store, options=["--env", "other"])
    ids = stored(store)
    assert len(ids) == 4 and sorted(again.recovered) == sorted(ids)
    # committed in the environment they were received in
    envs = Store(store).sql("select distinct env from traces").column("env").to_pylist()
    assert envs == ["ci"]
    assert again.stop()["traces"] == []
    assert not list((store / "_journals").glob("*.jsonl"))


@pytest.mark.parametrize("content_type", ["application/json", "application/x-protobuf"])
def test_a_span_that_cannot_be_read_is_refused_alone(tmp_path, content_type):
    store = tmp_path / "store"
    c = start_collector(store=store, options=["--idle", "3600"])
    good = span(TRACE_A, "eee19b7ec3c1b174")
    bad = span(TRACE_B, "eee19b7ec3c1b174")
    bad["traceId"] = ""
    body = (json.dumps(otlp_json(good, bad)).encode() if content_type == "application/json"
            else otlp_protobuf(good, bad))
    status, headers, raw = post(c.url, body, content_type)
    assert status == 200 and headers["content-type"] == content_type
    rejected, message = partial(raw, content_type)
    assert rejected == 1 and "traceId" in message
    assert c.stop()["traces"] == [TRACE_A]


def test_the_otlp_collector_fixture_points_the_sdk_at_it_and_judges_its_trace(
        otlp_collector, tmp_path):
    import os
    assert os.environ["OTEL_EXPORTER_OTLP_ENDPOINT"] == otlp_collector.url
    # the SDK exporter reads the endpoint from the environment, as an agent's would
    export_with_sdk(os.environ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"], "protobuf", traces=2)
    rules = tmp_path / "rules.yaml"
    rules.write_text("version: 1\nrules:\n  no-search:\n    absent: {tool: search}\n")
    result = otlp_collector.check(rules)
    assert len(otlp_collector.traces()) == 2
    assert sorted(f.rule for f in result.findings) == ["no-search", "no-search"]
    assert {f.trace_id for f in result.findings} == set(otlp_collector.traces())


@pytest.mark.parametrize(("argv", "code"), [
    (["--env", "not a name"], "ENV_INVALID"),
    (["--host", "0.0.0.0"], "NOT_LOOPBACK"),
    (["--idle", "0"], "USAGE"),
    (["--idle", "nan"], "USAGE"),
    (["--max-traces", "0"], "USAGE"),
    (["--client-rate", "0"], "USAGE"),
])
def test_bad_settings_are_refused_before_anything_listens(capsys, tmp_path, argv, code):
    from tests.support import run
    status, out, err = run(capsys, "collect", "--port", "0", "--store", tmp_path / "s",
                           "--json", *argv)
    assert status == 2 and json.loads(out)["error"]["code"] == code
    assert "hint:" in err and not (tmp_path / "s").exists()


def test_a_port_in_use_is_port_in_use(capsys, tmp_path):
    import socket

    from tests.support import run
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        status, _, err = run(capsys, "collect", "--port", port, "--store", tmp_path / "s")
    assert status == 2 and err.startswith("error[PORT_IN_USE]: ")
    assert not (tmp_path / "s").exists()


def test_a_killed_committing_process_is_replaced_by_committing_in_the_receiver(tmp_path):
    import os
    import signal
    from pathlib import Path
    store = tmp_path / "store"
    c = start_collector(store=store, options=["--idle", "0.5"])

    def committer() -> list[int]:
        out = []
        for d in Path("/proc").iterdir():
            try:
                stat = (d / "stat").read_text()
                cmd = (d / "cmdline").read_bytes()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == c.proc.pid \
                    and b"spawn_main" in cmd:
                out.append(int(d.name))
        return out

    wait_until(lambda: committer() != [], "the committing process to start")
    for pid in committer():
        os.kill(pid, signal.SIGKILL)
    body = json.dumps(otlp_json(span(TRACE_A, "eee19b7ec3c1b174"))).encode()
    assert post(c.url, body, "application/json")[0] == 200
    wait_until(lambda: TRACE_A in stored(store), "the trace to be committed all the same")
    summary = c.stop()
    assert summary["traces"] == [TRACE_A] and summary["spans_lost"] == 0
    assert "committing in the receiver" in c.stderr
