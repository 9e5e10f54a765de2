"""Entry point of an ingest worker process (see ``_workers.run_jobs``)."""

from ._workers import serve

serve()
