"""A promotion killed (SIGKILL) at each step, then run again: the fixture ends pinned and
whole, and ``verify`` never reports a problem that promoting again does not repair.

The kill comes from inside a real child process at an exact step: the child replaces
the one call that ends the step (writing the Parquet file, writing the lock, renaming
the lock into place) by the call followed by ``SIGKILL``. That is the only stand-in
here, because a kill from outside cannot be timed to land between two system calls."""

import subprocess
import sys
import textwrap

import pytest

from tests.support import EXAMPLES
from workbench.fixtures import list_fixtures, promote, read_lock, verify
from workbench.ingest import ingest
from workbench.rules import load_rules
from workbench.store import Store

CASE = EXAMPLES / "rules" / "unapproved-destructive"
TRACE = "rules-unapproved-destructive-bad"

CHILD = textwrap.dedent('''
    import os, signal, sys
    step, store_dir, root, case = sys.argv[1:5]

    def die(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGKILL)

    import pyarrow.parquet as pq
    import workbench.fixtures._write as w
    if step == "staging":          # the Parquet file written, the rest of staging not
        real_write = pq.write_table
        def write_table(*args, **kwargs):
            real_write(*args, **kwargs)
            die()
        pq.write_table = write_table
    elif step == "renamed":        # vN renamed into place, the lock not yet written
        w.write_lock = die
    elif step == "lock":           # the new lock's temp file written, not renamed
        real_replace = os.replace
        def replace(src, dst, *args, **kwargs):
            if str(dst).endswith("fixtures.lock"):
                die()
            return real_replace(src, dst, *args, **kwargs)
        os.replace = replace
    elif step == "nospace":        # the disk fills while the Parquet file is written
        import errno
        def full(*args, **kwargs):
            raise OSError(errno.ENOSPC, "No space left on device", args[1])
        pq.write_table = full
        from workbench.cli import main
        sys.exit(main(["promote", "TRACE_ID", "--rules", case + "/rules.yaml", "--name", "archive",
                       "--store", store_dir, "--fixtures", root]))
    from workbench.fixtures import promote
    from workbench.rules import load_rules
    from workbench.store import Store
    store = Store(store_dir)
    promote(store.trace("TRACE_ID"), load_rules(case + "/rules.yaml"), "archive",
            key=store.redaction_key(), fixtures_dir=root)
''').replace("TRACE_ID", TRACE)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    s = Store(tmp_path_factory.mktemp("crash") / "store")
    ingest([CASE / "bad.jsonl"], s, workers=1)
    return s


def again(store, root):
    return promote(store.trace(TRACE), load_rules(CASE / "rules.yaml"), "archive",
                   key=store.redaction_key(), fixtures_dir=root)


def problems(root):
    return [(p.fixture, p.code) for p in verify(root).problems]


@pytest.mark.parametrize("step, meanwhile, repaired", [
    ("staging", [], False),
    ("renamed", [("archive/v1", "NOT_LOCKED")], True),
    ("lock", [("archive/v1", "NOT_LOCKED")], True),
])
def test_a_killed_first_promotion_is_repaired_by_the_next(store, tmp_path, step, meanwhile,
                                                          repaired):
    root = tmp_path / "fixtures"
    proc = subprocess.run([sys.executable, "-c", CHILD, step, str(store.root), str(root),
                           str(CASE)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == -9, proc.stderr
    assert problems(root) == meanwhile
    result = again(store, root)
    assert (result.fixture, result.written, result.repaired) == ("archive/v1", not repaired,
                                                                 repaired)
    assert problems(root) == []
    assert [r.id for r in list_fixtures(root)] == ["archive/v1"]
    assert set(read_lock(root)) == {"archive/v1"}
    assert sorted(p.name for p in (root / "archive").iterdir()) == ["v1"]  # swept
    again_ = again(store, root)
    assert (again_.written, again_.repaired) == (False, False)


def test_a_killed_second_promotion_leaves_the_first_alone(store, tmp_path):
    root = tmp_path / "fixtures"
    again(store, root)
    proc = subprocess.run([sys.executable, "-c", CHILD, "staging", str(store.root),
                           str(root), str(CASE)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == -9
    assert problems(root) == []
    assert [r.id for r in list_fixtures(root)] == ["archive/v1"]


def test_only_the_equal_content_is_pinned_by_a_repair(store, tmp_path):
    """An unpinned version that differs from what is promoted (hand-made) stays
    NOT_LOCKED: a repair never pins what this promotion would not have written."""
    root = tmp_path / "fixtures"
    again(store, root)
    lock = root / "fixtures.lock"
    text = lock.read_text()
    lock.write_text("".join(line + "\n" for line in text.splitlines()
                            if not line.startswith("archive/v1")))
    rules = root / "archive" / "v1" / "rules.yaml"
    rules.write_text(rules.read_text().replace("description: archive_project runs",
                                               "description: archive_project may run"))
    with pytest.raises(Exception) as info:  # other content: a new version, with a note
        again(store, root)
    assert getattr(info.value, "code", None) == "NOTE_REQUIRED"
    assert "archive/v1" not in read_lock(root)
    assert ("archive/v1", "NOT_LOCKED") in problems(root)


def test_out_of_space_is_a_clear_refusal_that_leaves_nothing(store, tmp_path):
    """ENOSPC raised where the Parquet file is written (a full disk cannot be made here)."""
    root = tmp_path / "fixtures"
    proc = subprocess.run([sys.executable, "-c", CHILD, "nospace", str(store.root),
                           str(root), str(CASE)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error[DISK_FULL]: no space left while writing ")
    assert "hint: free some space" in proc.stderr and "Traceback" not in proc.stderr
    assert not (root / "archive").exists()  # neither the staging nor the fixture folder
    assert again(store, root).written
    assert problems(root) == []
