"""Entry point of an ingest worker process (see ``_workers.run_jobs``): it imports the
ingest code, and the modules its arguments name (``workbench.redact`` when the jobs
will redact), and warms Arrow up while the caller hashes the input, then serves."""

import importlib
import sys

from . import _pipeline  # noqa: F401  (imported now, not at the first job)
from ._stage import warm_up
from ._workers import serve

for _name in sys.argv[1:]:
    importlib.import_module(_name)
warm_up(pandas=False)  # a worker converts no pandas objects
serve()
