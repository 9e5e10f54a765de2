"""Store journals: appended as records arrive, owned by a live writer, recovered after a
crash with an unfinished last line cut off."""

from __future__ import annotations

import subprocess
import sys

import pytest

from workbench.store import Store


def test_a_journal_is_owned_while_open_and_an_orphan_once_closed(tmp_path):
    store = Store(tmp_path / "s")
    j = store.journal("run-1")
    j.append(b'{"a": 1}\n')
    j.append(b'{"a": 2}\n')
    assert store.orphan_journals() == []  # its owner is alive
    with pytest.raises(FileExistsError):
        store.journal("run-1")
    j.close()
    assert store.orphan_journals() == [j.path]
    assert j.path.read_bytes() == b'{"a": 1}\n{"a": 2}\n'
    with pytest.raises(ValueError, match="closed"):
        j.append(b"x\n")
    store.drop_journal(j.path)
    assert store.orphan_journals() == [] and not j.path.exists()
    with pytest.raises(ValueError):
        store.journal("../escape")
    with pytest.raises(ValueError):
        store.drop_journal(tmp_path / "elsewhere.jsonl")


def test_a_dead_writers_unfinished_line_is_cut_off(tmp_path):
    root = tmp_path / "s"
    code = ("import os, sys\nfrom workbench.store import Store\n"
            f"j = Store({str(root)!r}).journal('crash')\n"
            "j.append(b'{\"a\": 1}\\n')\nj.append(b'{\"a\": 2, \"unfini')\nos._exit(9)\n")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 9
    store = Store(root)
    [orphan] = store.orphan_journals()
    assert orphan.read_bytes() == b'{"a": 1}\n'
