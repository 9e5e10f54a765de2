"""Hostile stores: a store someone hands you (a shared folder, a CI artifact) may be
damaged or crafted. Every command that reads one ends in exit 2 ``error[STORE_CORRUPT]``
with a hint — never an internal error — and leaves the store byte-identical; a commit
record naming a path outside the store (``../``, absolute, or a symbolic link inside
the store that points out) makes nothing outside it read or removed (docs/store.md,
"A store from elsewhere"; docs/security.md).

``DAMAGES`` is the generator: each entry damages a fresh copy of one small store (two
batches of one day partition, so ``compact`` has something to merge) in one way."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.hostile.cases import EXAMPLE
from tests.support import run, snapshot
from workbench.store import Store, compact

RULES = EXAMPLE.with_name("archive-incident.rules.yaml")
SECOND = {"trace_id": "h-second", "event_id": "e1", "seq": 0, "kind": "tool_call",
          "name": "list", "status": "ok", "start_ns": 1, "end_ns": 2, "args": {"n": 1},
          "result": {"ok": True}}


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of two batches in one day partition: the bundled incident, one trace."""
    from workbench.cli import main

    d = tmp_path_factory.mktemp("hostile-store")
    second = d / "second.jsonl"
    second.write_text(json.dumps(SECOND) + "\n")
    for src in (EXAMPLE, second):
        assert main(["ingest", str(src), "--store", str(d / "store")]) == 0
    return d / "store"


def _records(root: Path) -> list[Path]:
    """The records, the bundled incident's batch first (names alone would order the
    two batches of one second at random)."""
    return sorted((root / "_commits").glob("*.json"),
                  key=lambda p: ("h-second" in p.read_text(), p.name))


def _record(root: Path, n: int = 0) -> tuple[Path, dict[str, object]]:
    path = _records(root)[n]
    return path, json.loads(path.read_bytes())


def _file(root: Path, table: str = "events") -> Path:
    """The first batch's file of ``table``."""
    _, rec = _record(root)
    files = rec["files"]
    assert isinstance(files, list)
    return root / next(f for f in files if f.startswith(table + "/"))


def _rewrite(root: Path, change: Callable[[dict[str, object]], object]) -> None:
    path, rec = _record(root)
    change(rec)
    path.write_text(json.dumps(rec))


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _folder_to_file(path: Path) -> None:
    shutil.rmtree(path)
    path.write_text("not a folder")


def _file_to_folder(path: Path) -> None:
    path.unlink()
    path.mkdir()
    (path / "x").write_text("x")


def _wrong_schema(path: Path) -> None:
    """The file's first integer column written as text (another table's file, or a
    file some other tool rewrote)."""
    table = pq.read_table(path)
    i = next(i for i, f in enumerate(table.schema) if pa.types.is_int64(f.type))
    pq.write_table(table.set_column(i, table.schema[i].name,
                                    table.column(i).cast(pa.string())), path)


def _footer_flipped(path: Path) -> None:
    """Garbage where the footer's metadata is, the magic bytes kept."""
    data = bytearray(path.read_bytes())
    length = int.from_bytes(data[-8:-4], "little")
    for i in range(len(data) - 8 - length, len(data) - 8):
        data[i] = 0xFF
    path.write_bytes(bytes(data))


def _pages_garbled(path: Path) -> None:
    """Garbage in the column chunks, the footer intact (only a scan finds it)."""
    data = bytearray(path.read_bytes())
    length = int.from_bytes(data[-8:-4], "little")
    for i in range(4, len(data) - 8 - length):
        data[i] = (data[i] * 7 + 13) % 256
    path.write_bytes(bytes(data))


def _copy_record(root: Path) -> None:
    path, _ = _record(root)
    shutil.copy(path, path.with_name("20990101T000000-000000000000.json"))


#: id -> damage applied to a fresh copy of the template store
DAMAGES: dict[str, Callable[[Path], None]] = {
    "events-truncated": lambda r: _truncate(_file(r)),
    "traces-truncated": lambda r: _truncate(_file(r, "traces")),
    "events-garbage": lambda r: _file(r).write_bytes(os.urandom(64) * 40),
    "events-empty": lambda r: _file(r).write_bytes(b""),
    "events-footer-garbled": lambda r: _footer_flipped(_file(r)),
    "events-pages-garbled": lambda r: _pages_garbled(_file(r)),
    "events-wrong-schema": lambda r: _wrong_schema(_file(r)),
    "traces-wrong-schema": lambda r: _wrong_schema(_file(r, "traces")),
    "file-missing": lambda r: _file(r).unlink(),
    "file-is-a-folder": lambda r: _file_to_folder(_file(r)),
    "day-folder-is-a-file": lambda r: _folder_to_file(_file(r).parent),
    "table-folder-is-a-file": lambda r: _folder_to_file(r / "events"),
    "commits-folder-is-a-file": lambda r: _folder_to_file(r / "_commits"),
    "record-garbage": lambda r: _record(r)[0].write_bytes(b"\x00{not json"),
    "record-not-an-object": lambda r: _record(r)[0].write_text("[1, 2]"),
    "record-files-a-string": lambda r: _rewrite(r, lambda c: c.update(files="events/x")),
    "record-no-batch": lambda r: _rewrite(r, lambda c: c.pop("batch")),
    "record-bad-date": lambda r: _rewrite(r, lambda c: c.update(committed_at="yesterday")),
    "record-names-another-file": lambda r: _rewrite(
        r, lambda c: c.update(files=["events/day=2020-01-01/nothing.parquet"])),
    "two-records-of-one-batch": _copy_record,
    "two-records-name-one-file": lambda r: _rewrite(
        r, lambda c: c.update(files=_record(r, 1)[1]["files"])),
}

#: every command that reads the store, with what it needs
COMMANDS: dict[str, list[str]] = {
    "sql": ["sql", "SELECT count(DISTINCT args), sum(seq) FROM events"],
    "traces": ["traces"],
    "compact": ["compact"],
    "compact-grace-0": ["compact", "--grace", "0"],
    "check": ["check", str(RULES)],
    "check-python": ["check", str(RULES), "--engine", "python"],
    "check-by": ["check", str(RULES), "--by", "scenario"],
    "show": ["show", "4bf92f35"],
    "findings": ["findings"],
    "export": ["export", "4bf92f35"],
}
#: damage a command does not read, so it answers as from the whole store: garbage in
#: the events' pages, found only by a command that reads them (their footer, which
#: every reader reads, is whole)
UNREAD = {("events-pages-garbled", "findings")}


@pytest.fixture
def damaged(template: Path, tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    root = tmp_path / "store"
    shutil.copytree(template, root)
    DAMAGES[request.param](root)
    return root


@pytest.mark.parametrize("command", COMMANDS, ids=list(COMMANDS))
@pytest.mark.parametrize("damaged", DAMAGES, ids=list(DAMAGES), indirect=True)
def test_a_damaged_store_is_store_corrupt(capsys, request, damaged, command):
    outside = damaged.parent / "outside.txt"
    outside.write_text("mine")
    before = snapshot(damaged)
    code, out, err = run(capsys, *COMMANDS[command], "--store", damaged)
    if (request.node.callspec.params["damaged"], command) in UNREAD:
        assert code == 0 and snapshot(damaged) == before, err
        return
    assert code == 2, (out, err)
    assert err.startswith("error[STORE_CORRUPT]: "), err
    assert "hint:" in err and "Traceback" not in err
    assert snapshot(damaged) == before
    assert outside.read_text() == "mine"


def test_the_template_is_whole(capsys, template, tmp_path):
    """The known answer beside the refusals: every command reads the undamaged store."""
    root = tmp_path / "store"
    shutil.copytree(template, root)
    for argv in COMMANDS.values():
        if argv[0] == "compact":
            continue
        extra = {"check": ["--no-record"], "export": []}.get(argv[0], ["--json"])
        code, _, err = run(capsys, *argv, "--store", root, *extra)
        assert code in (0, 1), err
    code, out, err = run(capsys, "compact", "--store", root, "--json")
    assert code == 0 and json.loads(out)["batches_merged"] == 2, err


# -- records that name paths outside the store ------------------------------------------

def _compacted(template: Path, tmp_path: Path) -> Path:
    """The template compacted, its compaction backdated two hours: the default
    ``--grace`` lets a clean-up remove what it replaced."""
    root = tmp_path / "store"
    shutil.copytree(template, root)
    compact(Store(root))
    path, rec = _record(root)
    assert rec.get("replaces")
    rec["committed_at"] = "2000-01-01T00:00:00+00:00"
    path.write_text(json.dumps(rec))
    return root


def _replaced_names(root: Path, name: str) -> None:
    path = sorted((root / "_commits" / "replaced").glob("*.json"))[0]
    rec = json.loads(path.read_bytes())
    rec["files"] = [*rec["files"], name]
    path.write_text(json.dumps(rec))


def _victims(tmp_path: Path) -> Path:
    """A folder outside the store holding files a crafted store names."""
    victims = tmp_path / "home"
    (victims / "day=2020-01-01").mkdir(parents=True)
    for p in (victims / "victim.parquet", victims / "notes.txt",
              victims / "day=2020-01-01" / "victim.parquet"):
        p.write_text("mine")
    (victims / "work" / "20200101T000000-000000000000").mkdir(parents=True)
    (victims / "work" / "20200101T000000-000000000000" / "keep.txt").write_text("mine")
    return victims


#: id -> how a store is made to name ``home`` (the victims' folder): a path in a
#: replaced record (``../``, absolute), or a symbolic link inside the store
OUTSIDE: dict[str, Callable[[Path, Path], None]] = {
    "dotdot": lambda r, h: _replaced_names(r, "events/../../home/victim.parquet"),
    "dotdot-first": lambda r, h: _replaced_names(r, "../home/victim.parquet"),
    "absolute": lambda r, h: _replaced_names(r, str(h / "victim.parquet")),
    "text-file": lambda r, h: _replaced_names(r, "../home/notes.txt"),
    "linked-day-folder": lambda r, h: (
        (r / "events" / "day=2020-01-01").symlink_to(h / "day=2020-01-01"),
        _replaced_names(r, "events/day=2020-01-01/victim.parquet")),
    "linked-file": lambda r, h: (
        (r / "events" / "linked.parquet").symlink_to(h / "victim.parquet"),
        _replaced_names(r, "events/linked.parquet")),
    "linked-table-folder": lambda r, h: (
        shutil.rmtree(r / "findings", ignore_errors=True),
        (r / "findings").symlink_to(h)),
    "linked-staging": lambda r, h: (
        shutil.rmtree(r / "_staging", ignore_errors=True),
        (r / "_staging").symlink_to(h / "work")),
    "linked-replaced-records": lambda r, h: (
        shutil.move(r / "_commits" / "replaced", h / "records"),
        (r / "_commits" / "replaced").symlink_to(h / "records")),
}


@pytest.mark.parametrize("argv", [["compact"], ["compact", "--grace", "0"]],
                         ids=["compact", "compact-grace-0"])
@pytest.mark.parametrize("how", OUTSIDE, ids=list(OUTSIDE))
def test_nothing_outside_the_store_is_touched(capsys, template, tmp_path, how, argv):
    root = _compacted(template, tmp_path)
    home = _victims(tmp_path)
    OUTSIDE[how](root, home)
    before, mine = snapshot(root), snapshot(home)
    code, out, err = run(capsys, *argv, "--store", root)
    assert snapshot(home) == mine  # nothing outside read into the store or removed
    assert snapshot(root) == before
    assert code == 2, (out, err)
    assert err.startswith("error[STORE_CORRUPT]: "), err
    assert "hint:" in err and "nothing outside it was read or removed" in err


def _live_linked_file(root: Path, elsewhere: Path) -> None:
    _file(root).unlink()
    _file(root).symlink_to(elsewhere)


def _live_linked_folder(root: Path, elsewhere: Path) -> None:
    day = _file(root).parent
    shutil.move(day, elsewhere.parent / "day")
    day.symlink_to(elsewhere.parent / "day")


#: a visible record made to name a Parquet file of events elsewhere: a reader would
#: show its rows as the store's
LIVE: dict[str, Callable[[Path, Path], None]] = {
    "dotdot": lambda r, e: _rewrite(r, lambda c: c.update(
        files=["events/../../elsewhere.parquet"])),
    "absolute": lambda r, e: _rewrite(r, lambda c: c.update(files=[str(e)])),
    "linked-file": _live_linked_file,
    "linked-day-folder": _live_linked_folder,
}


@pytest.mark.parametrize("command", ["sql", "check", "compact-grace-0", "export"])
@pytest.mark.parametrize("how", LIVE, ids=list(LIVE))
def test_a_live_record_never_reads_a_file_outside(capsys, template, tmp_path, how, command):
    root = tmp_path / "store"
    shutil.copytree(template, root)
    elsewhere = tmp_path / "elsewhere.parquet"
    shutil.copy(_file(root), elsewhere)
    LIVE[how](root, elsewhere)
    before, mine = snapshot(root), snapshot(elsewhere.parent / "day")
    code, out, err = run(capsys, *COMMANDS[command], "--store", root)
    assert code == 2, (out, err)
    assert err.startswith("error[STORE_CORRUPT]: "), err
    assert "outside" in err or "leads out of the store" in err
    assert snapshot(root) == before and elsewhere.read_bytes()
    assert snapshot(elsewhere.parent / "day") == mine


@pytest.mark.parametrize("statement", ["INSTALL httpfs", "force install httpfs",
                                       "LOAD httpfs", "  load\n'x.duckdb_extension'",
                                       "UPDATE EXTENSIONS"])
def test_sql_that_would_fetch_or_load_code_is_not_allowed(capsys, template, statement):
    before = snapshot(template)
    code, out, err = run(capsys, "sql", statement, "--store", template)
    assert code == 2 and out == ""
    assert err.startswith("error[SQL_NOT_ALLOWED]: ") and "hint:" in err, err
    assert snapshot(template) == before


def test_a_query_naming_a_missing_file_of_its_own_is_its_error(capsys, template, tmp_path):
    """Only a file of the store makes an error ``STORE_CORRUPT``; a query reading a
    file of its own that is not there is the query's ``SQL_ERROR``."""
    code, _, err = run(capsys, "sql", f"SELECT * FROM read_csv('{tmp_path}/none.csv')",
                       "--store", template)
    assert code == 2 and err.startswith("error[SQL_ERROR]: "), err


def test_journals_linked_out_of_the_store_are_refused(capsys, template, tmp_path):
    """``_journals`` linked to a folder elsewhere: the next writer, which cuts the
    unfinished last line of a crashed writer's journal, must not cut files there."""
    root = tmp_path / "store"
    shutil.copytree(template, root)
    home = tmp_path / "home"
    home.mkdir()
    (home / "notes.jsonl").write_text('{"a": 1}\n{"unfinished')
    (root / "_journals").symlink_to(home)
    with pytest.raises(Exception, match="leads out of the store") as caught:
        Store(root).orphan_journals()
    assert getattr(caught.value, "code", None) == "STORE_CORRUPT"
    assert (home / "notes.jsonl").read_text() == '{"a": 1}\n{"unfinished'


#: the whole events file is read: every byte of it counts
SCAN = ["sql", "SELECT count(DISTINCT args), sum(seq), min(name) FROM events"]


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_cut_or_flipped_byte_is_store_corrupt_or_an_answer(capsys, template,
                                                               tmp_path, data):
    """Whatever length an events file is cut to, ``sql`` says ``STORE_CORRUPT``; a byte
    flipped anywhere ends either there or, where neither the Parquet reader nor zstd can
    tell (a byte of a page whose compression has no checksum), in an answer — never in
    another code or an internal error. The store is unchanged either way."""
    root = tmp_path / f"s{data.draw(st.integers(0, 10**9), label='copy')}"
    shutil.copytree(template, root)
    path = _file(root)
    size = path.stat().st_size
    if data.draw(st.booleans(), label="cut"):
        path.write_bytes(path.read_bytes()[: data.draw(st.integers(0, size - 1), label="n")])
        expect_corrupt = True
    else:
        at = data.draw(st.integers(0, size - 1), label="at")
        raw = bytearray(path.read_bytes())
        raw[at] ^= data.draw(st.integers(1, 255), label="mask")
        path.write_bytes(bytes(raw))
        expect_corrupt = False
    before = snapshot(root)
    code, _, err = run(capsys, *SCAN, "--store", root)
    assert snapshot(root) == before
    shutil.rmtree(root)
    if code == 0 and not expect_corrupt:
        return
    assert code == 2 and err.startswith("error[STORE_CORRUPT]: ") and "hint:" in err, err


@pytest.mark.parametrize("grace", ["nan", "NaN", "inf", "-inf", "-1e-300", "-0.5"])
def test_compact_grace_that_is_no_number_of_seconds(capsys, template, tmp_path, grace):
    """``--grace nan`` compared false with every age and removed every replaced file
    at once, as ``--grace 0`` does: refused, like a negative number."""
    root = _compacted(template, tmp_path)
    before = snapshot(root)
    code, out, err = run(capsys, "compact", "--store", root, f"--grace={grace}")
    assert code == 2 and out == "" and err.startswith("error[USAGE]: "), err
    assert "hint:" in err and snapshot(root) == before
