"""Hostile values for every option of every command, read from the argparse parsers
themselves (an option added later is covered without a word): a number that is no
number (NaN, infinities), too large, negative or garbage, and a string holding a
control character (CR/LF, NUL, ESC) each end in exit 2 with ``error[USAGE]`` and a hint
before any work is done — never ``INTERNAL`` — and the store is left as it was."""

from __future__ import annotations

import argparse
import json
import os
import stat
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import run, snapshot
from workbench.cli._main import COMMANDS, build_parser
from workbench.model import UsageError

NUMBERS = ["nan", "NaN", "inf", "-inf", "Infinity", "1e308", "-1", "-0.5",
           "9" * 30, "9" * 5000, "", "ten", "0x10"]
CONTROL = ["a\r\nb", "x\ny", "\x1b[31mred", "nul\x00", "tab\there", "del\x7f"]
NUMERIC_TYPES = ("seconds", "integer", "rate_type")


def _parsers() -> Iterator[tuple[list[str], argparse.ArgumentParser]]:
    """Every command's parser (and each action of ``contract`` and ``redact``), with the
    words that name it."""
    for command in COMMANDS:
        top = build_parser(command)
        for sub in _subparsers(top):
            parser = sub.choices[command]
            inner = _subparsers(parser)
            if not inner:
                yield [command], parser
            for action in inner:
                for name, p in action.choices.items():
                    yield [command, name], p


def _subparsers(p: argparse.ArgumentParser) -> list[argparse._SubParsersAction]:
    return [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]


def _valued(p: argparse.ArgumentParser) -> list[argparse.Action]:
    return [a for a in p._actions
            if isinstance(a, (argparse._StoreAction, argparse._AppendAction))]


def _filler(a: argparse.Action) -> list[str]:
    value = str(next(iter(a.choices))) if a.choices else "x"
    if a.type is not None and getattr(a.type, "__name__", "") in NUMERIC_TYPES:
        value = "1"
    return [value]


def _argv(words: list[str], p: argparse.ArgumentParser, bad: argparse.Action,
          value: str) -> list[str]:
    """``words`` with every required option and positional given a harmless value, and
    ``bad`` given ``value``."""
    argv = list(words)
    for a in _valued(p):
        if a is bad:
            continue
        if a.option_strings and a.required:
            argv += [a.option_strings[0], *_filler(a)]
    if bad.option_strings:
        argv += [f"{bad.option_strings[0]}={value}"]
    positional = [a for a in _valued(p) if not a.option_strings]
    argv.append("--")
    for a in positional:
        argv += [value] if a is bad else _filler(a)
    return argv


def _cases() -> Iterator[object]:
    for words, p in _parsers():
        for a in _valued(p):
            if a.dest == "help":
                continue
            numeric = getattr(a.type, "__name__", "") in NUMERIC_TYPES
            values = NUMBERS if numeric else CONTROL
            name = a.option_strings[0] if a.option_strings else a.dest
            for v in values:
                if a.dest == "query" and v in ("x\ny", "tab\there", "a\r\nb"):
                    continue  # a SQL query may span lines
                yield pytest.param(words, p, a, v, id=f"{' '.join(words)} {name}={v[:12]!r}")


CASES = list(_cases())


def test_every_numeric_option_has_a_bounded_type():
    """No option reads a bare ``int`` or ``float``: each names its range."""
    loose = [f"{' '.join(w)} {a.option_strings or a.dest}" for w, p in _parsers()
             for a in _valued(p) if a.type in (int, float)]
    assert loose == []
    assert sum(1 for c in CASES if getattr(c.values[2].type, "__name__", "")  # type: ignore[attr-defined]
               in NUMERIC_TYPES) >= 20 * len(NUMBERS) // 2


@pytest.mark.parametrize(("words", "parser", "action", "value"), CASES)
def test_a_bad_option_value_is_a_usage_error(words, parser, action, value):
    argv = _argv(words, parser, action, value)
    with pytest.raises(UsageError) as caught:
        build_parser(words[0]).parse_args(argv)
    assert caught.value.code == "USAGE"
    message = str(caught.value)
    assert "\r" not in message and "\n" not in message and "\x1b" not in message


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.hostile.cases import EXAMPLE
    from workbench.cli import main
    root = tmp_path_factory.mktemp("surfaces") / "store"
    assert main(["ingest", str(EXAMPLE), "--store", str(root)]) == 0
    return root


@pytest.mark.parametrize("argv", [
    ["replay", "0000", "--target", "http://127.0.0.1:9", "--timeout", "nan"],
    ["replay", "0000", "--target", "http://127.0.0.1:9", "--timeout", "inf"],
    ["replay", "0000", "--target", "http://127.0.0.1:9", "--timeout", "1e308"],
    ["replay", "0000", "--target", "http://127.0.0.1:9", "--auth-env", "X\r\nInjected: 1"],
    ["probe", "openapi.yaml", "--target", "http://127.0.0.1:9", "--max-seconds", "nan"],
    ["minimize", "x", "--rules", "r.yaml", "--rule", "r", "--max-seconds", "inf"],
    ["compact", "--grace", "-inf"],
    ["serve", "x.yaml", "--port", "1e9"],
    ["show", "x", "--limit", "9" * 400],
])
def test_the_cli_says_usage_with_a_hint_and_leaves_the_store(capsys, store, argv):
    """End to end through ``main``: exit 2, ``error[USAGE]`` and a hint on stderr, the
    same code in the ``--json`` envelope, nothing written."""
    before = snapshot(store)
    code, out, err = run(capsys, *argv, "--store", store)
    assert code == 2 and err.startswith("error[USAGE]: ") and "\n  hint: " in err
    assert "\r" not in err and "Injected: 1\n" not in err
    code, out, _ = run(capsys, *argv, "--store", store, "--json")
    assert code == 2 and json.loads(out)["error"]["code"] == "USAGE"
    assert snapshot(store) == before


def test_a_sql_query_may_span_lines(capsys, store):
    code, out, _ = run(capsys, "sql", "SELECT\n\t1 AS one", "--store", store, "--json")
    assert code == 0 and json.loads(out)["rows"] == [{"one": 1}]


# --- output files: written to what the path names, never renamed over it ------------

RULES_FILE = Path(__file__).resolve().parents[2] / "traces" / "examples" / \
    "archive-incident.rules.yaml"


def _trace_id(capsys, store: Path) -> str:
    code, out, _ = run(capsys, "traces", "--store", store, "--json")
    assert code == 0
    return str(json.loads(out)["traces"][0]["trace_id"])


def _outputs(capsys, store: Path, path: Path) -> list[list[object]]:
    """One command per output option, each writing to ``path``."""
    return [["export", _trace_id(capsys, store), "--out", path, "--store", store],
            ["check", RULES_FILE, "--sarif", path, "--store", store],
            ["check", RULES_FILE, "--junit", path, "--store", store]]


def test_an_output_through_a_link_replaces_the_target_and_keeps_the_link(capsys, store,
                                                                          tmp_path):
    for i, argv in enumerate(_outputs(capsys, store, tmp_path / "link")):
        target = tmp_path / f"target-{i}"
        target.write_text("old")
        link = tmp_path / "link"
        link.unlink(missing_ok=True)
        link.symlink_to(target)
        code, _, _ = run(capsys, *argv)
        assert code in (0, 1)
        assert link.is_symlink() and os.readlink(link) == str(target)
        assert target.read_bytes() not in (b"", b"old")
        assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_a_dangling_link_creates_its_target(capsys, store, tmp_path):
    link = tmp_path / "out.jsonl"
    link.symlink_to(tmp_path / "made.jsonl")
    code, _, _ = run(capsys, "export", _trace_id(capsys, store), "--out", link,
                     "--store", store)
    assert code == 0 and link.is_symlink() and (tmp_path / "made.jsonl").stat().st_size > 0


def _null_device(tmp_path: Path) -> Path:
    """A character device to write to. As root, a node of its own (the null device's
    numbers) in ``tmp_path``: a regressed helper renaming over it must never replace
    the machine's ``/dev/null``; otherwise ``/dev/null``, which only root could replace."""
    if os.geteuid() != 0:
        return Path(os.devnull)
    node = tmp_path / "null-device"
    try:
        os.mknod(node, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except OSError as exc:
        pytest.skip(f"cannot make a device node here: {exc}")
    return node


def test_a_character_device_is_written_through_not_replaced(capsys, store, tmp_path):
    """A character device (and a link to one) is opened and written, never renamed
    over: the device stays a device and no temporary file is tried beside it."""
    device = _null_device(tmp_path)
    link = tmp_path / "null"
    link.symlink_to(device)
    for path in (device, link):
        for argv in _outputs(capsys, store, path):
            code, _, err = run(capsys, *argv)
            assert code in (0, 1), err
        assert stat.S_ISCHR(os.lstat(device).st_mode)
    assert link.is_symlink()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_fifo_is_written_through(capsys, store, tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    code, _, _ = run(capsys, "export", _trace_id(capsys, store), "--out", fifo,
                     "--store", store)
    reader.join(timeout=60)
    if reader.is_alive():  # nothing wrote to the pipe: release the reader
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert code == 0 and stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert got and got[0].count(b"\n") > 5


@pytest.mark.parametrize("option", ["--out", "--sarif", "--junit", "--html"])
def test_an_output_that_is_a_folder_is_refused_with_a_hint(capsys, store, tmp_path, option):
    tid = _trace_id(capsys, store)
    argv: list[object] = {
        "--out": ["export", tid, "--out", tmp_path],
        "--sarif": ["check", RULES_FILE, "--sarif", tmp_path],
        "--junit": ["check", RULES_FILE, "--junit", tmp_path],
        "--html": ["diff", tid, tid, "--html", tmp_path],
    }[option]
    before = snapshot(store)
    code, _, err = run(capsys, *argv, "--store", store)
    assert code == 2 and err.startswith("error[OUTPUT_IS_FOLDER]: "), err
    assert "\n  hint: name a file inside it" in err
    assert snapshot(store) == before and list(tmp_path.iterdir()) == []


def test_an_output_in_a_missing_folder_is_file_not_found(capsys, store, tmp_path):
    code, _, err = run(capsys, "export", _trace_id(capsys, store), "--out",
                       tmp_path / "no" / "x.jsonl", "--store", store)
    assert code == 2 and err.startswith("error[FILE_NOT_FOUND]: ") and "hint:" in err


def test_reading_a_pipe_says_not_a_file_with_a_hint(capsys, store, tmp_path):
    fifo = tmp_path / "trace.jsonl"
    os.mkfifo(fifo)
    code, _, err = run(capsys, "ingest", fifo, "--store", store)
    assert code == 2 and err.startswith("error[NOT_A_FILE]: ")
    assert "\n  hint: " in err and "hint: \n" not in err


# --- probe: credentials in the target, nothing written to the working folder --------

def test_probe_refuses_credentials_in_the_target_without_printing_them(capsys, store,
                                                                       tmp_path):
    doc = tmp_path / "openapi.yaml"
    doc.write_text("openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths: {}\n")
    password = "pw-9c1e0b7a4bf92f35"
    for target in (f"http://admin:{password}@127.0.0.1:9", f"http://{password}@127.0.0.1:9"):
        before = snapshot(store)
        code, out, err = run(capsys, "probe", doc, "--target", target, "--store", store)
        assert code == 2 and err.startswith("error[PROBE_TARGET_CREDENTIALS]: ")
        assert "hint: pass the credential with --auth-env" in err
        assert password not in out + err and snapshot(store) == before


def test_probe_writes_nothing_into_the_working_folder(tmp_path):
    """A real probe in a child process (Hypothesis caches what it computes once per
    process): the working folder holds afterwards exactly what it held before."""
    import subprocess
    import sys

    import yaml

    from tests.unit.invariants.service import DOC, running
    work = tmp_path / "work"
    work.mkdir()
    (work / "openapi.yaml").write_text(yaml.safe_dump(DOC))
    env = dict(os.environ)
    env.pop("HYPOTHESIS_STORAGE_DIRECTORY", None)
    with running() as (url, _):
        done = subprocess.run(
            [sys.executable, "-m", "workbench", "probe", "openapi.yaml", "--target", url,
             "--store", str(tmp_path / "store"), "--max-requests", "20", "--json"],
            cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode in (0, 1), done.stderr
    assert sorted(p.name for p in work.iterdir()) == ["openapi.yaml"]


def test_export_out_dash_is_standard_output(capsys, store):
    tid = _trace_id(capsys, store)
    code, plain, _ = run(capsys, "export", tid, "--store", store)
    code_dash, dash, _ = run(capsys, "export", tid, "--out", "-", "--store", store)
    assert code == code_dash == 0 and dash == plain and plain.count("\n") > 5


@pytest.mark.skipif(not Path("/proc/self/fd/1").exists(), reason="needs /proc")
@pytest.mark.parametrize("stdout_to", ["pipe", "file"])
def test_out_naming_standard_output_writes_to_it(capsys, store, tmp_path, stdout_to):
    """``--out`` through a link to ``/proc/self/fd/1`` (what ``/dev/stdout`` is; a link
    of the test's own, so a regressed helper could only replace that): the events
    arrive on the child's standard output, a pipe or the file it is redirected to,
    and the link is still a link."""
    import subprocess
    import sys
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    argv = [sys.executable, "-m", "workbench", "export", _trace_id(capsys, store),
            "--out", str(link), "--store", str(store)]
    if stdout_to == "pipe":
        done = subprocess.run(argv, capture_output=True, timeout=300)
        got = done.stdout
    else:
        with (tmp_path / "redirected.jsonl").open("wb") as f:
            done = subprocess.run(argv, stdout=f, stderr=subprocess.PIPE, timeout=300)
        got = (tmp_path / "redirected.jsonl").read_bytes()
    assert done.returncode == 0, done.stderr
    assert got.count(b"\n") > 5 and got.startswith(b"{")
    assert link.is_symlink()
