"""Adapter ``inspect``: Inspect AI evaluation logs, ``.json`` and zipped ``.eval``.

An EvalLog holds ``version``, ``status``, ``eval`` (task, model, run id ...), ``plan``,
``results``, ``stats`` and ``samples[]``; the ``.eval`` form is a zip of
``header.json`` (or ``_journal/start.json`` while a run is still being written) and
one ``samples/<id>_epoch_<n>.json`` member per sample. Each sample (one epoch of one
dataset item) becomes one trace, with an id derived from the run id, the sample id and
the epoch. Its ``events`` are mapped by ``_events``; a sample recorded without
events (older logs) falls back to its ``messages`` (assistant ``tool_calls`` paired with
``role: tool`` messages by id).
"""

from __future__ import annotations

import re
import zipfile
import zlib
from collections.abc import Iterator
from typing import Any

from ....model import InvalidJSONError, InvalidTraceError, JSONDecodeError, loads
from ..._adapter import RawEvent, SourceFile, TraceInfo, malformed
from ..._decode import load_document
from ..._pairing import derived_id
from ..._values import obj
from ...chat import ChatList
from ._events import SampleEvents, resolve

__all__ = ["INSPECT", "InspectAdapter"]

_ZIP = b"PK\x03\x04"
_JSON_START = re.compile(rb"^\s*\{")
_EVAL = re.compile(rb'"eval"\s*:\s*\{')
_PLAN = re.compile(rb'"plan"\s*:\s*\{')
_SAMPLES = re.compile(rb'"samples"\s*:\s*\[')
_VERSION = re.compile(rb'"version"\s*:\s*\d')
_STATUS = re.compile(rb'"status"\s*:\s*"')
_SAMPLE_MEMBER = re.compile(r"^samples/[^/]+\.json$")


class InspectAdapter:
    """Inspect AI ``EvalLog`` files."""

    name = "inspect"
    file_order = True  # events are listed in the order they happened

    def sniff(self, source: SourceFile) -> int:
        head = source.head
        if head.startswith(_ZIP):
            if b"header.json" in head or b"_journal/" in head:
                return 95
            return 85 if re.search(rb"samples/[^/\x00]+_epoch_\d+\.json", head) else 0
        if _JSON_START.match(head) is None or _EVAL.search(head) is None:
            return 0
        if _VERSION.search(head) and (_PLAN.search(head) or _STATUS.search(head)):
            return 95
        return 90 if _SAMPLES.search(head) else 0

    def read(self, source: SourceFile) -> Iterator[RawEvent | TraceInfo]:
        count = 0
        for log, sample, where in _samples(source):
            with malformed(source, where):
                info, events = _sample(log, sample, where, source)
            if events:  # a sample with neither events nor messages adds nothing
                count += len(events)
                yield info
                yield from events
        if count == 0:
            raise InvalidTraceError(f"{source.display}: no samples with events or messages "
                                    "in the file", file=source.display,
                                    hint="the log was written without samples "
                                         "(log_samples=False); nothing to ingest")


INSPECT = InspectAdapter()


def _not_inspect(source: SourceFile, why: str) -> InvalidTraceError:
    return InvalidTraceError(f"{source.display}: not an Inspect AI log: {why}",
                             file=source.display)


def _samples(source: SourceFile) -> Iterator[tuple[dict[str, Any], Any, str]]:
    """``(log header, sample, where)`` for each sample, one at a time."""
    if source.head.startswith(_ZIP):
        yield from _zip_samples(source)
        return
    doc = load_document(source)
    if type(doc) is not dict or type(doc.get("eval")) is not dict:
        raise _not_inspect(source, "expected an EvalLog object with an `eval` section")
    samples = doc.get("samples")
    if samples is not None and not isinstance(samples, list):
        raise _not_inspect(source, "`samples` is not a list")
    for i, sample in enumerate(samples or []):
        yield doc, sample, f"sample {i}"


def _zip_samples(source: SourceFile) -> Iterator[tuple[dict[str, Any], Any, str]]:
    try:
        with zipfile.ZipFile(source.path) as z:
            names = z.namelist()
            header_name = next((n for n in ("header.json", "_journal/start.json")
                                if n in names), None)
            if header_name is None:
                raise _not_inspect(source, "the zip has no header.json or _journal/start.json")
            header = _member(z, header_name, source)
            if type(header) is not dict or type(header.get("eval")) is not dict:
                raise _not_inspect(source, f"{header_name} has no `eval` section")
            for name in names:
                if _SAMPLE_MEMBER.match(name):
                    yield header, _member(z, name, source), name
    except (zipfile.BadZipFile, EOFError, zlib.error, NotImplementedError, RuntimeError) as exc:
        raise InvalidTraceError(f"{source.display}: not a readable zip archive: {exc}",
                                file=source.display,
                                hint="a truncated .eval file is the usual cause") from None


def _member(z: zipfile.ZipFile, name: str, source: SourceFile) -> Any:
    data = z.read(name)
    try:
        return loads(data)
    except JSONDecodeError as exc:
        raise InvalidJSONError(f"{source.display}: {name}: invalid JSON at line "
                               f"{getattr(exc, 'lineno', '?')}: {getattr(exc, 'msg', exc)}",
                               file=source.display, member=name) from None


def _placeholder(value: Any) -> bool:
    return not isinstance(value, str) or not value.strip(" .")


def _sample(log: dict[str, Any], sample: Any, where: str,
            source: SourceFile) -> tuple[TraceInfo, list[RawEvent]]:
    if type(sample) is not dict:
        raise InvalidTraceError(f"{source.display}: {where} is not an object",
                                file=source.display)
    sid = sample.get("id")
    if sid is None or sid == "":
        raise InvalidTraceError(f"{source.display}: {where} has no id", file=source.display,
                                hint="every Inspect sample has an id; the log was edited "
                                     "or truncated")
    ev_ = log["eval"]
    run = ev_.get("run_id")
    tid = derived_id("inspect", source.sha256 if _placeholder(run) else run, sid,
                     sample.get("epoch"))
    attachments = obj(sample.get("attachments"))
    events = sample.get("events")
    tools: list[Any] = []
    if isinstance(events, list) and events:
        mapper = SampleEvents(tid)
        mapper.add_all([resolve(e, attachments) for e in events])
        out = mapper.events
        tools = list(mapper.tools.values())
    else:
        messages = resolve(sample.get("messages") or [], attachments)
        if not isinstance(messages, list):
            raise InvalidTraceError(f"{source.display}: {where}: messages is not a list",
                                    file=source.display)
        model = ev_.get("model") if not _placeholder(ev_.get("model")) else None
        out = ChatList(tid, source.display, f"{where}: message", "inspect",
                       model=model).read(messages)
    return _info(tid, log, sample, resolve(sample.get("input"), attachments), tools), out


def _root_task(given: Any) -> str | None:
    if isinstance(given, str):
        return given
    for m in given if isinstance(given, list) else []:
        if type(m) is dict and m.get("role") == "user":
            c = m.get("content")
            if isinstance(c, list):
                c = "\n".join(b.get("text", "") for b in c if type(b) is dict)
            return c if isinstance(c, str) else None
    return None


_SAMPLE_ATTRS = ("id", "epoch", "uuid", "target", "scores", "metadata", "error",
                 "error_retries", "limit", "model_usage", "total_time", "working_time")
_EVAL_ATTRS = ("eval_id", "run_id", "task", "task_id", "task_version", "task_file",
               "created", "dataset", "sandbox", "revision", "solver", "tags")


def _info(tid: str, log: dict[str, Any], sample: dict[str, Any], given: Any,
          tools: list[Any]) -> TraceInfo:
    ev_ = log["eval"]
    attrs: dict[str, Any] = {f"sample.{k}": sample[k] for k in _SAMPLE_ATTRS
                             if sample.get(k) not in (None, "", [], {})}
    attrs.update({k: ev_[k] for k in _EVAL_ATTRS if ev_.get(k) not in (None, "", [], {})})
    if log.get("status") is not None:
        attrs["status"] = log["status"]
    versions: dict[str, Any] = {}
    packages = ev_.get("packages")
    if type(packages) is dict:
        versions.update(packages)
    if ev_.get("model"):
        versions["model"] = ev_["model"]
    if log.get("version") is not None:
        versions["inspect_log_version"] = log["version"]
    return TraceInfo(trace_id=tid, root_task=_root_task(given), tools=tools,
                     versions=versions, attrs={"inspect": attrs})
