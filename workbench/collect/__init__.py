"""The OTLP receiver: spans that agents export over OTLP/HTTP, redacted, journaled per
trace and committed to the store when the trace falls idle (docs/collect.md).

Decoding, checking and redacting a request (``_request``), the open traces and the
run's journal (``_traces``), committing (``_commit``), the server (``_server``, on
``serve``'s HTTP layer).
"""

from ._server import CollectResult, Settings, collect

__all__ = ["CollectResult", "Settings", "collect"]
