"""The Arrow schemas of the store: the single source of truth for column names and types.

``EVENTS`` is the event model of docs/design.md, column for column; ``TRACES`` holds
trace-level metadata. Everything that writes or reads the store takes the names
from here.
"""

from __future__ import annotations

from dataclasses import dataclass

import pyarrow as pa

__all__ = [
    "EVENTS",
    "EVENT_COLUMNS",
    "EVENT_KINDS",
    "FINDINGS",
    "FLAGS_KEY",
    "JSON_COLUMNS",
    "REF_TYPE",
    "REPLAYS",
    "REPLAY_OUTCOMES",
    "STATUSES",
    "TRACES",
    "Column",
]

EVENT_KINDS: tuple[str, ...] = (
    "agent", "llm_call", "tool_call", "http", "message", "state", "receipt", "error", "other",
)
STATUSES: tuple[str, ...] = ("ok", "error", "unset")

#: attrs key under which the workbench records what it noticed about an event
#: (``orphan``: the parent is not in the trace; ``truncated``: a value was cut).
FLAGS_KEY = "workbench.flags"


@dataclass(frozen=True)
class Column:
    name: str
    type: pa.DataType
    nullable: bool
    description: str


REF_TYPE = pa.struct([
    pa.field("event_id", pa.string(), nullable=False),
    pa.field("path", pa.string(), nullable=False),
    pa.field("from_path", pa.string(), nullable=False),
])

_EVENT_COLUMNS = (
    Column("trace_id", pa.string(), False, "the trace"),
    Column("event_id", pa.string(), False, "unique within the trace"),
    Column("parent_id", pa.string(), True, "containment: agent > model call > tool call"),
    Column("seq", pa.int64(), False, "position in recording order, 0-based, unique per trace"),
    Column("kind", pa.string(), False, "one of EVENT_KINDS"),
    Column("name", pa.string(), False, "tool name, 'GET /v1/orders', model name"),
    Column("start_ns", pa.int64(), True, "wall-clock start, ns since the epoch"),
    Column("end_ns", pa.int64(), True, "wall-clock end, ns since the epoch"),
    Column("status", pa.string(), False, "ok, error or unset"),
    Column("args", pa.string(), False, "JSON: tool arguments or HTTP request"),
    Column("result", pa.string(), False, "JSON: tool result or HTTP response"),
    Column("error", pa.string(), True, "JSON: {code, message, retryable, ...} where known"),
    Column("attrs", pa.string(), False, "JSON: everything else the source carried"),
    Column("refs", pa.list_(REF_TYPE), False, "data-flow edges into earlier events"),
)

_TRACE_COLUMNS = (
    Column("trace_id", pa.string(), False, "the trace"),
    Column("source_format", pa.string(), False, "adapter that read it (otlp, jsonl, ...)"),
    Column("source_path", pa.string(), False, "the file as named on the command line"),
    Column("source_sha256", pa.string(), False, "sha256 of the source file's bytes"),
    Column("ingested_at", pa.timestamp("us", tz="UTC"), False, "when it was committed"),
    Column("batch", pa.string(), False, "the ingest transaction that wrote it"),
    Column("events", pa.int64(), False, "number of events"),
    Column("start_ns", pa.int64(), True, "earliest event start"),
    Column("end_ns", pa.int64(), True, "latest event end"),
    Column("root_task", pa.string(), True, "the task the agent was given, where known"),
    Column("tools", pa.string(), False, "JSON: tool definitions visible to the agent"),
    Column("versions", pa.string(), False, "JSON: model, provider, runtime versions"),
    Column("redaction", pa.string(), False, "JSON: the redaction policy applied at ingest"),
    Column("derived_from", pa.string(), True, "source trace of a minimized or derived trace"),
    Column("attrs", pa.string(), False, "JSON: other trace-level metadata"),
    Column("env", pa.string(), False, "the environment it was recorded in (ingest --env); "
           "a store written before the column reads 'default'"),
    Column("scenario", pa.string(), True, "the scenario this trace is a run of (ingest "
           "--scenario, or the resource attribute workbench.scenario); null when not known"),
    Column("build", pa.string(), True, "the build of the agent that made the run (ingest "
           "--build, or the resource attribute workbench.build); null when not known"),
)


_FINDING_COLUMNS = (
    Column("run_id", pa.string(), False, "the check run that found it"),
    Column("checked_at", pa.timestamp("us", tz="UTC"), False, "when the run started"),
    Column("rule", pa.string(), False, "rule id"),
    Column("severity", pa.string(), False, "error or warn"),
    Column("trace_id", pa.string(), False, "the trace"),
    Column("event_ids", pa.list_(pa.string()), False, "witness events, the offender first"),
    Column("seq", pa.int64(), True, "the step of the offending event"),
    Column("operation", pa.string(), False, "the offending event's name"),
    Column("message", pa.string(), False, "what broke, in operational language"),
    Column("signature", pa.string(), False, "rule + operation + message, data blanked"),
    Column("expected", pa.string(), False, "JSON: the shape the rule expected"),
    Column("actual", pa.string(), False, "JSON: the shape found (never values)"),
    Column("rules_source", pa.string(), True, "the rules file"),
)


#: what one replay attempt observed: the finding's signature again, not it with every step
#: landed, steps that did not land on what they were recorded against, or nothing (a
#: ``diverged`` or ``error`` row claims no result: ``reproduced`` is null)
REPLAY_OUTCOMES: tuple[str, ...] = ("reproduced", "clean", "diverged", "error")

_REPLAY_COLUMNS = (
    Column("replay_id", pa.string(), False, "the replay run; its attempts share it"),
    Column("attempt", pa.int64(), False, "1..attempts within the run"),
    Column("started_at", pa.timestamp("us", tz="UTC"), False, "when the attempt started"),
    Column("finding", pa.string(), False, "the finding replayed (findings.finding_id)"),
    Column("signature", pa.string(), False, "the finding's signature: its group"),
    Column("rule", pa.string(), False, "the rule or invariant that judged the replay"),
    Column("finding_env", pa.string(), False, "the environment the finding came from"),
    Column("env", pa.string(), False, "the target's environment"),
    Column("target", pa.string(), False, "the URL replayed against (no credentials)"),
    Column("source_trace", pa.string(), False, "the steps replayed: the finding's trace, "
           "or its minimized trace"),
    Column("outcome", pa.string(), False, "one of REPLAY_OUTCOMES"),
    Column("reproduced", pa.bool_(), True, "the same signature again; null on error"),
    Column("steps", pa.int64(), False, "the steps to replay"),
    Column("steps_run", pa.int64(), False, "the steps sent (or run by --oracle-cmd)"),
    Column("observed_signature", pa.string(), True, "the signature found (the rule's "
           "finding in the replay, where one was)"),
    Column("trace_id", pa.string(), True, "the replay's recorded trace"),
    Column("error_code", pa.string(), True, "why nothing was observed (outcome error, "
           "or REPLAY_DIVERGED)"),
    Column("error_message", pa.string(), True, "the same in words (redacted)"),
    Column("seconds", pa.float64(), False, "time spent on the attempt"),
    Column("diverged_step", pa.int64(), True, "the first step (1-based) that did not land "
           "on what it was recorded against, or at which the attempt stopped"),
    Column("divergence", pa.string(), True, "that step: what it was answered and the "
           "likely cause"),
    Column("fixed_below", pa.float64(), True, "replay --fixed-below: the reproduction rate "
           "under which the run reads the group fixed by its upper bound; null: the "
           "clean-attempts reading"),
    Column("rate_low", pa.float64(), True, "the run's reproduction rate over its observed "
           "attempts: the 95% Clopper-Pearson lower bound"),
    Column("rate_high", pa.float64(), True, "the same, its upper bound"),
)


def _schema(columns: tuple[Column, ...]) -> pa.Schema:
    return pa.schema([
        pa.field(c.name, c.type, nullable=c.nullable,
                 metadata={"description": c.description}) for c in columns
    ])


EVENTS: pa.Schema = _schema(_EVENT_COLUMNS)
TRACES: pa.Schema = _schema(_TRACE_COLUMNS)
FINDINGS: pa.Schema = _schema(_FINDING_COLUMNS)
REPLAYS: pa.Schema = _schema(_REPLAY_COLUMNS)
EVENT_COLUMNS: tuple[str, ...] = tuple(c.name for c in _EVENT_COLUMNS)
JSON_COLUMNS: tuple[str, ...] = ("args", "result", "error", "attrs")
