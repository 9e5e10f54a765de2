"""Which key redacts a file outside ingest (``workbench redact apply``).

The store's key when there is a store, so that a cleaned incident file and the store's
traces give a value the same token. With no store at the default place, a one-time
random key: tokens then agree within the run (across all its files) but with nothing
else, and no store is created as a side effect of cleaning a file. A store named
explicitly (``--store`` or ``$WORKBENCH_STORE``) that does not exist is refused rather
than silently replaced by a one-time key, since the user asked for matching tokens.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..model import NotFoundError
from ..store import Store, resolve_store_path
from ._tokens import KEY_BYTES

__all__ = ["RedactionKey", "redaction_key"]


@dataclass(frozen=True)
class RedactionKey:
    key: bytes
    source: str          # "store" or "one-time"
    store: Path | None   # the store whose key it is


def redaction_key(store: str | os.PathLike[str] | None) -> RedactionKey:
    """The key for ``redact apply`` given its ``--store`` argument (docs/redact.md)."""
    named = bool(store) or bool(os.environ.get("WORKBENCH_STORE"))
    s = Store(resolve_store_path(store))
    if s.exists:
        return RedactionKey(s.redaction_key(), "store", s.root)
    if named:
        raise NotFoundError(f"no workbench store at {s.root}", code="STORE_NOT_FOUND",
                            hint="ingest into it first, or leave out --store (and "
                            "$WORKBENCH_STORE) to redact with a one-time key")
    return RedactionKey(os.urandom(KEY_BYTES), "one-time", None)
