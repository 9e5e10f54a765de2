"""Secrets planted where the detectors did not look before — ids (a Claude Code
``sessionId``, a ``tool_use`` id, our JSONL's trace, event and parent ids and refs),
object keys, URL-encoded query values and the file name — never reach the store: every
byte of every file under it is searched, Parquet decoded too, and what the command
prints. A redacted id stays consistent, so parent links, call/result pairing and refs
still meet."""

import json
import os
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

GHP = "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"
PROJ = "sk-proj-Rk3vT9mQ2xW7nB4pL8sD1fH6jK0cV5zY_aE3uI9oP2qR7tY4wN8bM1xZ6cV3kL0sD5fG9hJ2"
AKIA = "AKIAITOSTEYPZ4KNPFTC"
EMAIL = "dana.whitfield@example.org"
SECRETS = [GHP, PROJ, AKIA, EMAIL]


def workbench(cwd, *args):
    env = {k: v for k, v in os.environ.items() if k != "WORKBENCH_STORE"}
    return subprocess.run([sys.executable, "-m", "workbench", *map(str, args)], cwd=cwd,
                          env=env, capture_output=True, text=True, timeout=600)


def claude_code(session, tool_id):
    def line(kind, uuid, parent, ts, message):
        return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": session,
                "timestamp": f"2026-01-05T09:00:0{ts}Z", "message": message}
    return [
        line("user", "u1", None, 0, {"role": "user", "content": "list the repositories"}),
        line("assistant", "a1", "u1", 1, {"role": "assistant", "id": "msg_1", "model": "m",
             "content": [{"type": "tool_use", "id": tool_id, "name": "Bash", "input": {
                 "command": "ls", "env": {AKIA: "1"},
                 "url": "https://git.test/cb?next=%2Fhome%3Ftoken%3D" + GHP}}]}),
        line("user", "u2", "a1", 2, {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tool_id, "content": "ok"}]})]


def our_jsonl():
    trace = f"run-{EMAIL}"
    head = {"format": "workbench-events", "version": 1}
    ev = {"trace_id": trace, "kind": "tool_call", "status": "ok", "result": None}
    return [head,
            {**ev, "event_id": f"root-{PROJ}", "parent_id": None, "kind": "agent",
             "name": "agent", "start_ns": 0, "end_ns": 100, "args": {}},
            {**ev, "event_id": f"get-{GHP}", "parent_id": f"root-{PROJ}", "name": "get",
             "start_ns": 10, "end_ns": 20, "args": {}, "result": {"id": "p17-archive-42"}},
            {**ev, "event_id": "put-1", "parent_id": f"root-{PROJ}", "name": "put",
             "start_ns": 30, "end_ns": 40, "args": {"id": "p17-archive-42"},
             "refs": [{"event_id": f"get-{GHP}", "path": "args.id", "from_path": "result.id"}]}]


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def every_byte(store):
    """Each file's raw bytes, and for Parquet its decoded rows as text."""
    for p in sorted(store.rglob("*")):
        if p.is_file():
            yield str(p.relative_to(store)), p.read_bytes().decode("utf-8", "replace")
            if p.suffix == ".parquet":
                yield f"{p} (rows)", json.dumps(pq.read_table(p).to_pylist(), default=str,
                                                ensure_ascii=False)


@pytest.fixture
def ingested(tmp_path):
    src = tmp_path / "in"
    src.mkdir()
    write_jsonl(src / f"session-{GHP}.jsonl", claude_code(f"sess-{GHP}", f"toolu_{PROJ}"))
    write_jsonl(src / "ours.jsonl", our_jsonl())
    proc = workbench(tmp_path, "--store", "s", "ingest", "in", "--json")
    assert proc.returncode == 0, proc.stderr
    return tmp_path, proc


def test_no_planted_secret_reaches_any_byte_of_the_store_or_the_output(ingested):
    root, proc = ingested
    leaks = [(where, s[:8]) for where, text in every_byte(root / "s")
             for s in SECRETS if s in text]
    assert leaks == []
    assert [s[:8] for s in SECRETS if s in proc.stdout + proc.stderr] == []
    out = workbench(root, "--store", "s", "sql", "SELECT * FROM traces", "--json")
    assert [s[:8] for s in SECRETS if s in out.stdout] == []


def test_redacted_ids_still_link(ingested):
    root, proc = ingested
    doc = json.loads(proc.stdout)
    by_format = {t["format"]: t for t in doc["traces"]}
    cc, ours = by_format["claude-code"], by_format["jsonl"]
    assert cc["trace_id"].startswith("sess-«secret:github-pat:")
    assert cc["source"].startswith("in/session-«secret:github-pat:")
    assert (cc["events"], cc["tool_calls"], cc["orphans"]) == (3, 1, 0)
    assert ours["trace_id"].startswith("«email:")  # run-dana… is all one address and ours["orphans"] == 0

    def rows(sql):
        res = workbench(root, "--store", "s", "sql", sql, "--json")
        assert res.returncode == 0, res.stderr
        return json.loads(res.stdout)["rows"]

    # the tool_use and its tool_result met (the call has its result), under one token
    [call] = rows("SELECT event_id, status, result FROM events WHERE kind = 'tool_call' "
                  "AND name = 'Bash'")
    assert call["event_id"].startswith("toolu_«secret:openai-")
    assert call["status"] == "ok" and call["result"] is not None
    # parents: every parent id names an event of the same trace
    assert rows("SELECT count(*) AS n FROM events e WHERE parent_id IS NOT NULL AND NOT "
                "EXISTS (SELECT 1 FROM events p WHERE p.trace_id = e.trace_id AND "
                "p.event_id = e.parent_id)") == [{"n": 0}]
    [get] = rows("SELECT event_id FROM events WHERE name = 'get'")
    [put] = rows("SELECT refs FROM events WHERE name = 'put'")
    refs = put["refs"] if isinstance(put["refs"], list) else json.loads(put["refs"])
    assert [r["event_id"] for r in refs] == [get["event_id"]]
    # the commit record names the redacted file and trace ids
    [commit] = [json.loads(p.read_text()) for p in (root / "s" / "_commits").glob("*.json")]
    assert cc["trace_id"] in json.dumps(commit, ensure_ascii=False)


def test_the_same_secret_id_gives_the_same_token_in_a_later_ingest(ingested):
    root, proc = ingested
    first = {t["format"]: t["trace_id"] for t in json.loads(proc.stdout)["traces"]}
    later = root / "later"
    later.mkdir()
    rows = claude_code(f"sess-{GHP}", f"toolu_{PROJ}")
    for r in rows:
        r["uuid"] = r["uuid"] + "b"
        r["parentUuid"] = r["parentUuid"] and r["parentUuid"] + "b"
    write_jsonl(later / "next.jsonl", rows)
    proc = workbench(root, "--store", "s", "ingest", "later", "--json")
    # the session is one trace: its id is the same token, so the store refuses a second
    # copy under that id instead of starting another trace (a folder: the file is
    # refused and listed, exit 4, partial)
    assert proc.returncode == 4, proc.stdout
    (refused,) = json.loads(proc.stdout)["refused"]
    assert refused["code"] == "TRACE_EXISTS"
    assert first["claude-code"].split("«")[1] in refused["message"]
    assert [s[:8] for s in SECRETS if s in proc.stdout + proc.stderr] == []
