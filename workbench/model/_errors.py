"""The one error hierarchy of the workbench.

Every error the workbench raises on purpose is a ``WorkbenchError`` with a stable
``code`` (never reused for another meaning), a one-line ``message``, a ``hint`` that
says what to do, and structured ``details``. Each also inherits the builtin it
resembles, so ``except ValueError`` still works for callers who do not know us::

    WorkbenchError
    ├── UsageError (ValueError)              USAGE, UNKNOWN_FORMAT_NAME
    ├── InputError (ValueError)              bad input files
    │   ├── EmptyInputError                  EMPTY_INPUT
    │   ├── EncodingError                    INVALID_ENCODING
    │   ├── InvalidJSONError                 INVALID_JSON
    │   ├── UnrecognizedFormatError          UNKNOWN_FORMAT
    │   ├── InvalidTraceError                INVALID_TRACE
    │   ├── LimitExceededError               LIMIT_EXCEEDED (in _limits.py)
    │   └── DuplicateEventError              DUPLICATE_EVENT_ID
    ├── PathSyntaxError (ValueError)         PATH_SYNTAX
    ├── StoreError (OSError)                 STORE_ERROR
    │   ├── StoreCorruptError                STORE_CORRUPT
    │   └── TraceExistsError                 TRACE_EXISTS
    ├── NotFoundError (LookupError)          TRACE_NOT_FOUND, FILE_NOT_FOUND
    └── QueryError (ValueError)              SQL_ERROR

The CLI maps every ``WorkbenchError`` to exit status 2 and prints
``error[CODE]: message`` and the hint; it never prints a traceback for one.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "DuplicateEventError",
    "EmptyInputError",
    "EncodingError",
    "InputError",
    "InvalidJSONError",
    "InvalidTraceError",
    "NotFoundError",
    "PathSyntaxError",
    "QueryError",
    "StoreCorruptError",
    "StoreError",
    "TraceExistsError",
    "UnrecognizedFormatError",
    "UsageError",
    "WorkbenchError",
]


class WorkbenchError(Exception):
    """Root of every deliberate workbench error."""

    code: str = "WORKBENCH_ERROR"
    default_hint: str = ""

    def __init__(self, message: str, *, hint: str | None = None, code: str | None = None,
                 **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint if hint is not None else self.default_hint
        if code is not None:
            self.code = code
        self.details = details

    def __reduce__(self) -> tuple[Any, ...]:
        # keep code, hint and details across processes (pickle calls cls(*args) otherwise)
        return (_rebuild, (type(self), self.message, self.hint, self.code, self.details))

    def to_dict(self) -> dict[str, Any]:
        """The error envelope of ``--json`` output."""
        return {"error": {"code": self.code, "message": self.message, "hint": self.hint,
                          "details": {k: _plain(v) for k, v in self.details.items()}}}


def _rebuild(cls: type[WorkbenchError], message: str, hint: str, code: str,
             details: dict[str, Any]) -> WorkbenchError:
    return cls(message, hint=hint, code=code, **details)


def _plain(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


class UsageError(WorkbenchError, ValueError):
    code = "USAGE"
    default_hint = "run the command with --help for its options and an example"


class InputError(WorkbenchError, ValueError):
    code = "INVALID_INPUT"


class EmptyInputError(InputError):
    code = "EMPTY_INPUT"
    default_hint = "the file has no content; check that the export finished writing"


class EncodingError(InputError):
    code = "INVALID_ENCODING"
    default_hint = "trace files must be UTF-8; re-export them or convert with iconv"


class InvalidJSONError(InputError):
    code = "INVALID_JSON"
    default_hint = "the file is not complete JSON; a truncated export is the usual cause"


class UnrecognizedFormatError(InputError):
    code = "UNKNOWN_FORMAT"
    default_hint = "name the format with --format (see `workbench ingest --help`)"


class InvalidTraceError(InputError):
    code = "INVALID_TRACE"
    default_hint = "the JSON is valid but not of the shape the format expects"


class DuplicateEventError(InputError):
    code = "DUPLICATE_EVENT_ID"
    default_hint = "two events of one trace share an id; the exporter wrote a span twice"


class PathSyntaxError(WorkbenchError, ValueError):
    code = "PATH_SYNTAX"
    default_hint = "paths are dotted names with [n] or [*], e.g. result.items[*].id"


class StoreError(WorkbenchError, OSError):
    code = "STORE_ERROR"


class StoreCorruptError(StoreError):
    code = "STORE_CORRUPT"
    default_hint = "a store file is unreadable; restore it from a copy or remove the batch"


class TraceExistsError(StoreError):
    code = "TRACE_EXISTS"
    default_hint = ("the store already holds this trace from another file; ingest all files "
                    "of one trace in one command, or use a fresh --store")


class NotFoundError(WorkbenchError, LookupError):
    code = "NOT_FOUND"


class QueryError(WorkbenchError, ValueError):
    code = "SQL_ERROR"
    default_hint = "the views are events, traces and tool_calls; see docs/store.md"
