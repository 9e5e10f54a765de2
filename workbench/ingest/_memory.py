"""The memory ingest may use: one budget for this process and its workers together.

``ingest(..., memory=...)``, ``workbench ingest --memory SIZE`` or the environment
variable ``WORKBENCH_INGEST_MEMORY`` (in that order; default 1.5 GB). Each process
takes an equal share; of its share, what the interpreter, Arrow and a batch of parsed
rows hold (``PROCESS_BASE``) is set aside, and the rest is DuckDB's memory limit for
the sort, beyond which it spills to the batch's work folder (which only ever holds
redacted rows). A budget too small for that many processes means fewer processes; too
small for one is an error. A large input is split into more partitions than processes,
so that no sort holds more than ``INPUT_PER_SORT_BYTE`` bytes of input per byte of its
memory (docs/ingest.md, "Memory").
"""

from __future__ import annotations

import os
import re

from ..model import UsageError

__all__ = ["DEFAULT_MEMORY", "ENV", "MIN_MEMORY", "PROCESS_BASE", "memory_budget",
           "parse_size", "partitions_for", "processes_within", "sort_memory"]

ENV = "WORKBENCH_INGEST_MEMORY"
DEFAULT_MEMORY = 1_500_000_000
#: what one process holds besides DuckDB's sort: the interpreter with the ingest code
#: and Arrow loaded, the detectors' memos, a batch of staged rows, the parsed lines
#: of a part, the largest trace during the Python pass (measured: docs/ingest.md)
PROCESS_BASE = 450_000_000
#: the least DuckDB is given for a sort
MIN_SORT = 128_000_000
MIN_MEMORY = PROCESS_BASE + MIN_SORT
#: input bytes a partition may hold per byte of its sort's memory (the bench's spans:
#: a partition of 1.07 GB of input needed more than 300 MB and less than 350 MB)
INPUT_PER_SORT_BYTE = 2
MAX_PARTITIONS = 64

_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9,
          "gb": 10**9, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*")
_HINT = "a size such as 1.5GB, 800MB or 2GiB (at least {}MB)"


def parse_size(text: str, source: str = "--memory") -> int:
    """Bytes of ``1.5GB``, ``800MB``, ``2GiB``, ``750000000`` (decimal units are
    powers of 1000, binary ones of 1024); ``MEMORY_INVALID`` otherwise."""
    m = _SIZE.fullmatch(text) if isinstance(text, str) else None
    unit = _UNITS.get(m.group(2).lower()) if m else None
    if m is None or unit is None:
        raise _not_a_size(f"{source} {text!r}")
    return int(float(m.group(1)) * unit)


def _not_a_size(what: str) -> UsageError:
    return UsageError(f"{what} is not a size", code="MEMORY_INVALID",
                      hint=_HINT.format(MIN_MEMORY // 10**6))


def memory_budget(memory: int | str | None = None) -> int:
    """The budget in bytes: ``memory`` if given, else ``$WORKBENCH_INGEST_MEMORY``, else
    the default; ``MEMORY_TOO_SMALL`` below what one process needs."""
    if memory is None:
        env = os.environ.get(ENV, "").strip()
        value = parse_size(env, f"${ENV}") if env else DEFAULT_MEMORY
    elif isinstance(memory, str):
        value = parse_size(memory)
    elif isinstance(memory, int) and not isinstance(memory, bool):
        value = memory
    else:
        raise _not_a_size(f"memory {memory!r}")
    if value < MIN_MEMORY:
        raise UsageError(f"a memory budget of {value / 10**6:,.0f} MB is too small to ingest in",
                         code="MEMORY_TOO_SMALL",
                         hint=f"give at least {MIN_MEMORY // 10**6} MB (--memory or ${ENV}); "
                              "one process holds about that before its sort spills")
    return value


def processes_within(budget: int, wanted: int) -> int:
    """How many of ``wanted`` processes fit in ``budget`` (at least one)."""
    return max(1, min(wanted, budget // MIN_MEMORY))


def sort_memory(budget: int, processes: int) -> int:
    """DuckDB's memory limit in each of ``processes`` that share ``budget``."""
    return max(MIN_SORT, budget // max(1, processes) - PROCESS_BASE)


def partitions_for(input_bytes: int, processes: int, sort: int) -> int:
    """Partitions (each sorted on its own) for ``input_bytes``: one per process, more
    when a partition would hold more than ``INPUT_PER_SORT_BYTE`` bytes of input per
    byte of ``sort`` memory (traces are never split: a partition holds whole ones)."""
    need = -(-input_bytes // (INPUT_PER_SORT_BYTE * max(1, sort)))
    return max(processes, min(MAX_PARTITIONS, need))
