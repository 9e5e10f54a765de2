"""Every shell block of README.md and docs/*.md runs as written, in a fresh copy of the
repository, and prints what the page shows.

Each page runs in its own copy of the repository's tracked files (a fresh clone, as a
reader has it after `bash dev.sh demo`'s install), its ```sh / ```bash blocks in
order, each command with `bash` in the copy's root and the installed `workbench` and
`pytest` on the PATH — the documented environment. A command passes when it exits 0,
or 1 ("ran and found something", which the tour shows on purpose); 2 (bad input) or 3
(a bug) fails the page, naming the command and its output.

- Lines starting `# ` right under a command are the output the page shows: each piece
  between `…` (or `...`) gaps must appear in what the command printed, in order,
  whitespace collapsed, so a wrapped or shortened line still matches.
- A command ending in ` &`, and `workbench lab|serve|collect|mcp` (which run until
  stopped), start in the background: the next command runs once they answer (a line
  printed, or their `--port` accepting connections) and they are stopped when the page
  ends.
- Variables a block sets (`store=build/x`, `export A=B`) hold for the page's later
  commands.
- ```console blocks run their `$ ` lines and compare the lines under each as output.
- A block preceded by `<!-- docs-test: template REASON -->` is a template a reader
  fills in: not run, and there are few of them (`MAX_TEMPLATES`);
  `<!-- docs-test: set-up REASON -->` marks the README's set-up commands, which make
  the environment this test runs in: `.ci/run` runs them on a clean clone;
  `<!-- docs-test: output varies REASON -->` runs a block without comparing its output.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.support import REPO

pytestmark = pytest.mark.slow

PAGES = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
RUN = {"sh", "bash", "console"}
FENCE = re.compile(r"^```(\w*)\s*$")
DIRECTIVE = re.compile(
    r"^<!--\s*docs-test:\s*(template|set-up|output varies)\b\s*(.*?)\s*-->\s*$")
#: blocks not run here: templates a reader fills in, and the set-up commands .ci/run runs
NOT_RUN = {"template", "set-up"}
LONG_RUNNING = re.compile(r"^(?:workbench\s+(?:--\S+\s+)*(?:lab|serve|collect|mcp)\b)")
ASSIGNMENT = re.compile(
    r"^(?:export\s+)?[A-Za-z_][A-Za-z0-9_]*=(?:\"[^\"]*\"|'[^']*'|\S*)\s*(?:#.*)?$")
#: the most template blocks the pages may hold: a tour of templates proves nothing
MAX_TEMPLATES = 6
COMMAND_TIMEOUT = 600
READY_TIMEOUT = 120


@dataclass
class Command:
    text: str
    line: int
    shown: list[str] = field(default_factory=list)
    compare: bool = True


@dataclass
class Block:
    page: Path
    line: int
    lang: str
    body: list[str]
    directive: tuple[str, str] | None

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(REPO)}:{self.line}"


def blocks(page: Path) -> list[Block]:
    lines = page.read_text(encoding="utf-8").splitlines()
    out: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        k = i - 1
        while k >= 0 and not lines[k].strip():
            k -= 1
        d = DIRECTIVE.match(lines[k]) if k >= 0 else None
        out.append(Block(page, i + 1, m.group(1), lines[i + 1:j],
                         (d.group(1), d.group(2)) if d else None))
        i = j + 1
    return out


def _complete(text: str) -> bool:
    """Whether ``text`` is whole commands as bash reads them: no open quote, no trailing
    backslash, no ``for … do`` without its ``done`` (``bash -n`` parses without running)."""
    if text.rstrip().endswith("\\"):
        return False
    return subprocess.run(["bash", "-n", "-c", text], capture_output=True,
                          check=False).returncode == 0


def commands(block: Block) -> list[Command]:
    """The block's commands, each with the output lines shown under it."""
    out: list[Command] = []
    compare = block.directive is None or block.directive[0] != "output varies"
    lines = block.body
    i = 0
    while i < len(lines):
        raw = lines[i]
        if block.lang == "console":
            if not raw.startswith("$ "):
                if out:
                    out[-1].shown.append(raw)
                i += 1
                continue
            raw = raw[2:]
        elif not raw.strip() or raw.lstrip().startswith("#"):
            i += 1
            continue
        start = i
        text = raw
        while not _complete(text) and i + 1 < len(lines):
            i += 1
            nxt = lines[i][2:] if block.lang == "console" and lines[i].startswith("> ") \
                else lines[i]
            text += "\n" + nxt
        cmd = Command(text, block.line + 1 + start, compare=compare)
        i += 1
        if block.lang != "console":
            while i < len(lines) and lines[i].startswith("#"):
                cmd.shown.append(lines[i][1:].removeprefix(" "))
                i += 1
        out.append(cmd)
    return out


def _collapse(text: str) -> str:
    return " ".join(text.split())


def shown_pieces(shown: list[str]) -> list[str]:
    joined = _collapse(" ".join(shown))
    return [p.strip() for p in re.split(r"…|\.\.\.", joined) if len(p.strip()) >= 3]


def missing_piece(shown: list[str], printed: str) -> str | None:
    """The first piece of the shown output not found (in order) in what was printed."""
    text = _collapse(printed)
    at = 0
    for piece in shown_pieces(shown):
        found = text.find(piece, at)
        if found < 0:
            return piece
        at = found + len(piece)
    return None


#: the port a long-running command listens on when the page does not say
DEFAULT_PORTS = {"lab": 8888, "collect": 4318, "serve": 8765}


def _port(text: str) -> int | None:
    m = re.search(r"--port[ =](\d+)", text)
    if m:
        return int(m.group(1))
    cmd = re.match(r"workbench\s+(?:--\S+\s+)*(\w+)", text)
    return DEFAULT_PORTS.get(cmd.group(1)) if cmd else None


def _answers(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


class Page:
    """One page run in its own copy of the repository."""

    def __init__(self, root: Path, home: Path) -> None:
        self.root = root
        self.assignments: list[str] = []
        self.background: list[tuple[subprocess.Popen[bytes], Path]] = []
        bindir = str(Path(sys.executable).parent)
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith(("WORKBENCH_", "PYTEST_", "JUPYTER_"))}
        self.env.update(PATH=bindir + os.pathsep + os.environ.get("PATH", ""),
                        HOME=str(home), JUPYTER_RUNTIME_DIR=str(home / "jupyter-runtime"),
                        JUPYTER_CONFIG_DIR=str(home / "jupyter-config"),
                        JUPYTERLAB_WORKSPACES_DIR=str(home / "jupyter-workspaces"),
                        PYTHONDONTWRITEBYTECODE="1")

    def script(self, text: str) -> str:
        return "\n".join([*self.assignments, text])

    def run(self, cmd: Command, where: str) -> None:
        text = cmd.text.strip()
        bare = re.sub(r"\s+#[^'\"\n]*$", "", text)  # without a trailing comment
        if ASSIGNMENT.match(text):
            self.assignments.append(text)
            return
        if bare.endswith("&") and not bare.endswith("&&"):
            self.start(bare[:-1].rstrip(), cmd, where)
            return
        if LONG_RUNNING.match(text):
            self.start(text, cmd, where)
            return
        proc = subprocess.run(["bash", "-c", self.script(text)], cwd=self.root, env=self.env,
                              capture_output=True, timeout=COMMAND_TIMEOUT, check=False)
        printed = proc.stdout.decode(errors="replace") + proc.stderr.decode(errors="replace")
        assert proc.returncode in (0, 1), (
            f"{where}: `{text}` exited {proc.returncode}:\n{printed[-4000:]}")
        self.compare(cmd, printed, where)

    def compare(self, cmd: Command, printed: str, where: str) -> None:
        if not cmd.compare or not cmd.shown:
            return
        piece = missing_piece(cmd.shown, printed)
        assert piece is None, (f"{where}: `{cmd.text.strip()}` printed no {piece!r}; "
                               f"it printed:\n{printed[-4000:]}")

    def start(self, text: str, cmd: Command, where: str) -> None:
        log = self.root.parent / f"bg-{len(self.background)}.log"
        with log.open("wb") as f:
            proc = subprocess.Popen(["bash", "-c", self.script(text)], cwd=self.root, env=self.env, stdout=f,
                                    stderr=subprocess.STDOUT, stdin=subprocess.PIPE,
                                    start_new_session=True)
        self.background.append((proc, log))
        port = _port(text)
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                printed = log.read_text(errors="replace")
                assert proc.returncode in (0, 1), (
                    f"{where}: `{text}` exited {proc.returncode}:\n{printed[-4000:]}")
                break
            if port is not None and _answers(port):
                break
            if port is None and log.stat().st_size:
                break
            time.sleep(0.2)
        else:
            pytest.fail(f"{where}: `{text}` did not answer within {READY_TIMEOUT} s:\n"
                        + log.read_text(errors="replace")[-4000:])
        time.sleep(0.5)
        self.compare(cmd, log.read_text(errors="replace"), where)

    def stop(self) -> None:
        for proc, _ in reversed(self.background):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGTERM)
                try:
                    proc.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()


def _copy(dest: Path) -> Path:
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True,
                           check=True).stdout.decode().split("\0")
    for name in filter(None, files):
        src = REPO / name
        if not src.is_file():
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, target, follow_symlinks=False)
    return dest


def _runnable(page: Path) -> list[Block]:
    return [b for b in blocks(page) if b.lang in RUN]


@pytest.mark.parametrize("page", [p for p in PAGES if any(
    b.directive is None or b.directive[0] not in NOT_RUN for b in _runnable(p))],
    ids=lambda p: str(p.relative_to(REPO)))
def test_every_command_of_the_page_runs_as_written(page: Path, tmp_path: Path) -> None:
    root = _copy(tmp_path / "repo")
    (tmp_path / "home").mkdir()
    runner = Page(root, tmp_path / "home")
    failures: list[str] = []
    try:
        for block in _runnable(page):
            if block.directive is not None and block.directive[0] in NOT_RUN:
                continue
            for cmd in commands(block):
                try:  # every command is tried, so one run names every broken line
                    runner.run(cmd, f"{page.relative_to(REPO)}:{cmd.line}")
                except AssertionError as exc:
                    failures.append(str(exc).split("\nassert ")[0])
    finally:
        runner.stop()
    assert not failures, "\n\n".join(failures)


def test_templates_are_few_and_say_why() -> None:
    templates = [b for p in PAGES for b in _runnable(p)
                 if b.directive is not None and b.directive[0] == "template"]
    assert len(templates) <= MAX_TEMPLATES, [b.where for b in templates]
    assert all(b.directive and b.directive[1] for b in templates), \
        [b.where for b in templates if b.directive and not b.directive[1]]


def test_shown_output_is_matched_loosely() -> None:
    shown = ["ingested 4bf92f35 (otlp): 14 events, …",
             "  <- traces/examples/archive-incident.otlp.json"]
    printed = "ingested 4bf92f35 (otlp): 14 events, 5 tool calls\n  <- traces/examples/" \
              "archive-incident.otlp.json\n"
    assert missing_piece(shown, printed) is None
    assert missing_piece(["ingested 99 (otlp)"], printed) == "ingested 99 (otlp)"
    # in order: a piece found only before the previous one does not count
    assert missing_piece(["5 tool calls … 14 events"], printed) == "14 events"


def test_commands_are_split_as_a_shell_reads_them() -> None:
    block = Block(REPO / "README.md", 1, "sh", [
        "workbench sql \"select name",
        "               from tool_calls\" --format csv",
        "# name,count",
        "workbench minimize 4bf92f35 \\",
        "    --rule r --out x.jsonl   # a comment",
        "# minimized … 1-minimal",
        "store=build/s   # a throwaway store",
        "for case in a b \\",
        "            c; do",
        "    workbench promote $case",
        "done",
    ], None)
    got = commands(block)
    assert [c.text.split()[:2] for c in got] == [["workbench", "sql"],
                                                  ["workbench", "minimize"],
                                                  ["store=build/s", "#"],
                                                  ["for", "case"]]
    assert got[3].text.endswith("done")
    assert got[0].shown == ["name,count"] and got[1].shown == ["minimized … 1-minimal"]
