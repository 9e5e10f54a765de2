"""One event of a trace, as a Python object (for one trace in a notebook or a loop).

Bulk data moves as Arrow tables; ``Event`` is the per-event view with the JSON
columns already parsed. Paths such as ``args.project_id`` or ``seq`` read from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ._json import dumps
from ._paths import Path, parse_path
from ._rows import event_dict
from ._schema import EVENT_COLUMNS, FLAGS_KEY

__all__ = ["Event", "Ref"]


@dataclass(frozen=True, slots=True)
class Ref:
    """A data-flow edge: the value at ``path`` first appeared at ``from_path`` of ``event_id``."""

    event_id: str
    path: str
    from_path: str


@dataclass(frozen=True, slots=True)
class Event:
    trace_id: str
    event_id: str
    parent_id: str | None
    seq: int
    kind: str
    name: str
    start_ns: int | None
    end_ns: int | None
    status: str
    args: Any = None
    result: Any = None
    error: Any = None
    attrs: dict[str, Any] = field(default_factory=dict)
    refs: tuple[Ref, ...] = ()

    @property
    def flags(self) -> list[str]:
        """What the workbench noticed about the event (``orphan``, ``truncated`` ...)."""
        flags = self.attrs.get(FLAGS_KEY, []) if isinstance(self.attrs, dict) else []
        return list(flags) if isinstance(flags, list) else []

    @property
    def duration_ns(self) -> int | None:
        if self.start_ns is None or self.end_ns is None:
            return None
        return self.end_ns - self.start_ns

    def get(self, path: str | Path, default: Any = None) -> Any:
        """The first value at ``path`` (``args.items[0].id``, ``status``), or ``default``."""
        for v in self.values(path):
            return v
        return default

    def values(self, path: str | Path) -> list[Any]:
        """Every value at ``path``; a ``[*]`` path may reach many."""
        p = parse_path(path) if isinstance(path, str) else path
        root = p.root
        if not isinstance(root, str) or root not in EVENT_COLUMNS:
            return []
        base = getattr(self, root)
        if root == "refs":
            base = [{"event_id": r.event_id, "path": r.path, "from_path": r.from_path}
                    for r in self.refs]
        return p.tail().values(base) if len(p.segments) > 1 else [base]

    def to_dict(self) -> dict[str, Any]:
        """The event as an event dict (what ``event_dict`` makes of its row): JSON
        columns as values, refs as dicts."""
        return {"trace_id": self.trace_id, "event_id": self.event_id,
                "parent_id": self.parent_id, "seq": self.seq, "kind": self.kind,
                "name": self.name, "start_ns": self.start_ns, "end_ns": self.end_ns,
                "status": self.status, "args": self.args, "result": self.result,
                "error": self.error, "attrs": self.attrs, "refs": self._refs()}

    def _refs(self) -> list[dict[str, str]]:
        return [{"event_id": r.event_id, "path": r.path, "from_path": r.from_path}
                for r in self.refs]

    def to_row(self) -> dict[str, Any]:
        """The event as a store row: JSON columns as text, refs as dicts."""
        return {
            "trace_id": self.trace_id, "event_id": self.event_id, "parent_id": self.parent_id,
            "seq": self.seq, "kind": self.kind, "name": self.name,
            "start_ns": self.start_ns, "end_ns": self.end_ns, "status": self.status,
            "args": dumps(self.args), "result": dumps(self.result),
            "error": None if self.error is None else dumps(self.error),
            "attrs": dumps(self.attrs), "refs": self._refs(),
        }

    @classmethod
    def from_row(cls, row: dict[str, Any]) -> Event:
        """Build from a store row (JSON columns as text; see ``event_dict``)."""
        d = event_dict(row)
        d["seq"] = int(d["seq"])
        d["refs"] = tuple(Ref(r["event_id"], r["path"], r["from_path"]) for r in d["refs"])
        return cls(**d)
