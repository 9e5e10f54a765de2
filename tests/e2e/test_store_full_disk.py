"""A store whose creation was killed or ran out of space is still usable: a leftover of
the marker's temp file does not make every later ingest ``NOT_A_STORE``, and a key that
could not be written leaves no temp file and ends in ``DISK_FULL`` (exit 2), not in an
internal error. ENOSPC is raised from inside a real child process where the key is
written (a full disk cannot be made here)."""

import json
import subprocess
import sys

from tests.support import EXAMPLES

CASE = EXAMPLES / "rules" / "unapproved-destructive" / "bad.jsonl"

CHILD = '''
import errno, os, sys
real_write = os.write
def write(fd, data):
    if os.readlink(f"/proc/self/fd/{fd}").endswith(".tmp") and b"\\n" == data[-1:] \\
            and len(data) == 65:
        raise OSError(errno.ENOSPC, "No space left on device")
    return real_write(fd, data)
os.write = write
from workbench.cli import main
sys.exit(main(sys.argv[1:]))
'''


def workbench(cwd, *args, child=None):
    argv = [sys.executable, "-c", child, *args] if child else [
        sys.executable, "-m", "workbench", *args]
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600)


def test_a_killed_creation_leaves_a_store_that_still_works(tmp_path):
    store = tmp_path / "s"
    store.mkdir()
    (store / ".lock").write_bytes(b"")
    (store / ".store.json.4242.tmp").write_bytes(b'{"format": "workb')  # killed mid-write
    proc = workbench(tmp_path, "--store", "s", "ingest", str(CASE), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["events"] > 0
    assert not list(store.glob(".store.json.*.tmp"))


def test_no_space_for_the_key_is_disk_full_and_leaves_no_temp_file(tmp_path):
    proc = workbench(tmp_path, "--store", "s", "ingest", str(CASE), child=CHILD)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error[DISK_FULL]: ")
    assert "Traceback" not in proc.stderr
    assert sorted(p.name for p in (tmp_path / "s").iterdir()
                  if p.name.endswith(".tmp")) == []
    proc = workbench(tmp_path, "--store", "s", "ingest", str(CASE), "--json")
    assert proc.returncode == 0, proc.stderr
