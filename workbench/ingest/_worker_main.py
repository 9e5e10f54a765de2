"""Entry point of an ingest worker process (see ``_workers.run_jobs``): it imports the
ingest code and warms Arrow up while the caller hashes the input, then serves."""

from . import _pipeline  # noqa: F401  (imported now, not at the first job)
from ._stage import warm_up
from ._workers import serve

warm_up(pandas=False)  # a worker converts no pandas objects
serve()
