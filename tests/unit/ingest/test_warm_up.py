"""The ``ingest`` command and its workers warm Arrow up without importing pandas (about
0.3 s of every process's start), and pandas still works afterwards for whatever asks
for it. Each in a fresh interpreter: the test process has pandas loaded."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support import EXAMPLES

WARM = """
import sys
from workbench.ingest import warm_up
warm_up(pandas=False)
assert "pandas" not in sys.modules, "pandas imported"
import pyarrow as pa
assert pa.array(["a", None], pa.string()).to_pylist() == ["a", None]
assert "pandas" not in sys.modules, "pandas imported by a typed conversion"
assert pa.array(["a", None]).to_pylist() == ["a", None]  # inferred: pyarrow looks again
frame = pa.table({"n": [1, 2]}).to_pandas()
assert list(frame["n"]) == [1, 2] and "pandas" in sys.modules
print("ok")
"""


def _python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]


def test_warm_up_without_pandas_leaves_pandas_usable():
    assert _python(WARM) == "ok"


def test_the_default_warm_up_imports_what_pyarrow_imports():
    code = "import sys\nfrom workbench.ingest import warm_up\nwarm_up()\nprint('pandas' in sys.modules)"
    assert _python(code) == "True"


def test_the_ingest_command_does_not_import_pandas(tmp_path: Path):
    example = EXAMPLES / "archive-incident.otlp.json"
    code = (f"import sys\nfrom workbench.cli import main\n"
            f"rc = main(['ingest', {str(example)!r}, '--store', {str(tmp_path / 's')!r}])\n"
            f"print(rc, 'pandas' in sys.modules)")
    assert _python(code) == "0 False"
