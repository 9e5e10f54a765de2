"""Entry point of an ingest worker process (see ``_workers.run_jobs``): it imports the
ingest code and warms Arrow up while the caller hashes the input, then serves."""

from ._pipeline import warm_up
from ._workers import serve

warm_up()
serve()
