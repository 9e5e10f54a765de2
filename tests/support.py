"""Helpers the corpus and end-to-end tests share (``from tests.support import ...``).

pytest's importlib mode imports ``tests`` as a namespace package, so this module needs
no ``sys.path`` entry. Fixtures stay in ``conftest.py``; these are plain functions.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from hypothesis import strategies as st

from workbench.cli import main
from workbench.formats import Adapter, RawEvent, SourceFile, TraceInfo, open_source
from workbench.model import FLAGS_KEY, InputError

REPO = Path(__file__).resolve().parents[1]
#: the traces (and rules) bundled with the repository
EXAMPLES = REPO / "traces" / "examples"

#: a file the CLI must refuse: its content, the error code, extra ``ingest`` arguments
BadInput = tuple[str | bytes, str, list[str]]


def run(capsys: pytest.CaptureFixture[str], *argv: object) -> tuple[int, str, str]:
    """``workbench ARGV`` in-process: its exit code, stdout and stderr. An internal error
    (exit 3, ``error[INTERNAL]``) fails the test whatever it expected: it is a bug."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    no_internal_error(code, out, err, argv)
    return code, out, err


def no_internal_error(code: int, out: str, err: str, argv: Sequence[object] = ()) -> None:
    """Fail the test when a CLI run ended in an internal error (exit 3, or
    ``error[INTERNAL]`` / an ``INTERNAL`` envelope in its output)."""
    if code == 3 or "error[INTERNAL]" in err or '"code": "INTERNAL"' in out:
        pytest.fail(f"internal error from `workbench {' '.join(map(str, argv))}` "
                    f"(exit {code}): {err.strip()[:500]}", pytrace=False)


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file of a store by relative path, to prove a command left it byte-identical
    (the lock file aside, which any command may touch)."""
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.name != ".lock"} if root.exists() else {}


def assert_refused(capsys: pytest.CaptureFixture[str], store: Path, path: Path,
                   data: str | bytes, expected: str, extra: Sequence[str] = ()) -> None:
    """Write ``data`` to ``path`` and check that ingesting it into ``store`` fails the way
    the CLI contract says: exit 2, ``error[EXPECTED]: `` with a hint and no traceback on
    stderr, nothing on stdout, the store untouched; the same code under ``--json``."""
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    before = snapshot(store)
    code, out, err = run(capsys, "ingest", path, "--store", store, *extra)
    assert code == 2
    assert err.startswith(f"error[{expected}]: "), err
    assert "hint:" in err and "Traceback" not in err
    assert out == ""
    assert snapshot(store) == before
    code, out, _ = run(capsys, "ingest", path, "--store", store, "--json", *extra)
    assert code == 2 and json.loads(out)["error"]["code"] == expected
    assert snapshot(store) == before


def read(adapter: Adapter, path: Path) -> tuple[list[RawEvent], list[TraceInfo]]:
    """What ``adapter`` yields for the file at ``path``, split into events and trace infos."""
    out = list(adapter.read(open_source(path)))
    return ([e for e in out if isinstance(e, RawEvent)],
            [e for e in out if isinstance(e, TraceInfo)])


class Counts(NamedTuple):
    """The counts every corpus test checks against the numbers taken from the files."""

    events: int
    tool_calls: int
    errors: int
    parented: int
    traces: int


def counts(events: Sequence[RawEvent]) -> Counts:
    """Events, tool calls, error statuses, events with a parent, distinct trace ids."""
    return Counts(len(events), sum(e.kind == "tool_call" for e in events),
                  sum(e.status == "error" for e in events),
                  sum(e.parent_id is not None for e in events),
                  len({e.trace_id for e in events}))


def orphans(events: Sequence[RawEvent]) -> int:
    """Events whose parent is no event of the same read."""
    ids = {e.event_id for e in events}
    return sum(e.parent_id is not None and e.parent_id not in ids for e in events)


def flagged(events: Iterable[RawEvent], flag: str) -> int:
    """Events that carry ``flag`` among their ``workbench.flags``."""
    return sum(flag in e.attrs.get(FLAGS_KEY, []) for e in events)


# --- odd values anywhere in a valid document: a clear error or events, never a crash ----

ODD_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-2, 2), st.text(max_size=2),
                       st.just([]), st.just({}), st.just([1]), st.just({"a": [None]}))


def _json_paths(v: Any, pre: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [pre]
    items = v.items() if isinstance(v, dict) else enumerate(v) if isinstance(v, list) else []
    for k, x in items:
        out += _json_paths(x, (*pre, k))
    return out


def _replaced(v: Any, path: tuple[Any, ...], new: Any) -> Any:
    if not path:
        return new
    v = json.loads(json.dumps(v))
    cur = v
    for k in path[:-1]:
        cur = cur[k]
    cur[path[-1]] = new
    return v


def with_odd_values(data: st.DataObject, doc: Any) -> Any:
    """``doc`` with one to three of its values (at any depth) replaced by odd ones."""
    for _ in range(data.draw(st.integers(1, 3))):
        doc = _replaced(doc, data.draw(st.sampled_from(_json_paths(doc))),
                        data.draw(ODD_VALUES))
    return doc


def assert_reads_or_refuses(adapter: Adapter, src: SourceFile) -> None:
    """The adapter refuses ``src`` with an ``InputError`` or yields sound events."""
    adapter.sniff(src)
    try:
        out = list(adapter.read(src))
    except InputError:
        return
    events = [e for e in out if isinstance(e, RawEvent)]
    assert len({(e.trace_id, e.event_id) for e in events}) == len(events)
    for e in events:
        json.dumps([e.args, e.result, e.error, e.attrs])
        assert e.status in ("ok", "error", "unset") and isinstance(e.name, str)


def write_source(path: Path, data: bytes | str) -> SourceFile:
    """Write ``data`` to ``path`` and describe it as the pipeline would (hash, head)."""
    raw = data.encode() if isinstance(data, str) else data
    path.write_bytes(raw)
    return SourceFile(path=path, sha256=hashlib.sha256(raw).hexdigest(), size=len(raw),
                      head=raw[:65536])

