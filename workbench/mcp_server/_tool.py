"""A tool: one function with a declared input and output schema, and the one way it is
called.

``call_tool`` checks the arguments against the input schema, runs the function and
turns every outcome into a ``ToolResult``: the document (the structured content, valid
against the output schema) or an error envelope — ``{"error": {code, message, hint,
details}}``, the CLI's ``--json`` envelope, masked like every error message — with
``is_error`` set. Nothing a tool raises reaches the server: a ``WorkbenchError`` keeps
its code, anything else is ``INTERNAL`` (a bug) and the server keeps serving.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..config import resolve_ref
from ..model import InputError, UsageError, WorkbenchError, dumps
from ..redact import error_text, masked, masked_error
from ..store import Store

__all__ = ["Tool", "ToolArgumentsError", "ToolContext", "ToolResult", "UnknownToolError",
           "call_tool"]


class ToolArgumentsError(UsageError):
    """The arguments of a tool call do not match its input schema."""

    code = "BAD_ARGUMENTS"
    default_hint = "tools/list gives each tool's input schema"


class UnknownToolError(UsageError):
    code = "UNKNOWN_TOOL"
    default_hint = "tools/list names the tools this server has"


@dataclass
class ToolContext:
    """What every tool works on: the store named when the server started, the folder
    every path an agent names must stay inside (the server's working directory), and
    what the operator allowed ``replay`` when starting the server: the environment
    variables it may send as credentials (``allow_auth_env``) and the targets it may
    send to (``allow_targets``, base URLs matched by scheme, host, port and path
    prefix). Both empty: ``replay`` sends nothing anywhere."""

    store_path: Path
    root: Path = field(default_factory=Path.cwd)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    allow_auth_env: frozenset[str] = frozenset()
    allow_targets: tuple[str, ...] = ()

    def store(self) -> Store:
        return Store(self.store_path)

    def path(self, ref: str) -> Path:
        """A file or folder an agent names, inside ``root`` (else ``REF_OUTSIDE``)."""
        return resolve_ref(ref, self.root)

    def file(self, ref: str) -> Path:
        """A file an agent names, inside ``root``; a folder is refused (``NOT_A_FILE``):
        a folder would be read file by file, links out of it included."""
        path = self.path(ref)
        if path.is_dir():
            raise InputError(f"{ref!r} is a folder; name one file", code="NOT_A_FILE",
                             hint="name each trace file on its own")
        return path

    def shown(self, path: Path) -> str:
        """``path`` as the agent named it: relative to ``root``."""
        try:
            return os.path.relpath(path, self.root)
        except ValueError:
            return str(path)


@dataclass(frozen=True)
class Tool:
    """One tool: its name, what it does (the agent reads this), the JSON Schemas of its
    arguments and of its result, and the function ``run(context, arguments) -> doc``.
    ``read_only``: it never writes to the store (a host may call it without asking);
    ``open_world``: it sends requests to a service (a replay's target). No tool deletes
    anything; the hints MCP defines say all three."""

    name: str
    description: str
    input_schema: dict[str, Any]
    output_schema: dict[str, Any]
    run: Callable[[ToolContext, dict[str, Any]], dict[str, Any]]
    read_only: bool = False
    open_world: bool = False

    def listing(self) -> dict[str, Any]:
        """The tool as ``tools/list`` gives it."""
        return {"name": self.name, "description": self.description,
                "inputSchema": self.input_schema, "outputSchema": self.output_schema,
                "annotations": {"readOnlyHint": self.read_only, "destructiveHint": False,
                                "openWorldHint": self.open_world}}


@dataclass(frozen=True)
class ToolResult:
    doc: dict[str, Any]
    is_error: bool
    text: str


def _check_arguments(tool: Tool, arguments: Any) -> dict[str, Any]:
    from jsonschema import Draft202012Validator

    args = {} if arguments is None else arguments
    errors = sorted(Draft202012Validator(tool.input_schema).iter_errors(args),
                    key=lambda e: list(e.absolute_path))
    if errors:
        e = errors[0]
        where = "/".join(str(p) for p in e.absolute_path) or "the arguments"
        raise ToolArgumentsError(f"{tool.name}: {where}: {e.message}", tool=tool.name,
                                 path=where)
    assert isinstance(args, dict)  # every input schema is an object
    for key, value in args.items():
        if isinstance(value, float) and not math.isfinite(value):
            # NaN passes every bound of JSON Schema (each comparison with it is false)
            raise ToolArgumentsError(f"{tool.name}: {key}: {value} is not a finite number",
                                     tool=tool.name, path=key)
    return args


def call_tool(tools: dict[str, Tool], context: ToolContext, name: str,
              arguments: Any) -> ToolResult:
    """Run one tool call; never raises (see the module docstring)."""
    try:
        tool = tools.get(name)
        if tool is None:
            raise UnknownToolError(f"no tool {name!r}; tools: {', '.join(sorted(tools))}",
                                   tool=name)
        args = _check_arguments(tool, arguments)
        with context.lock:  # one call at a time: tools write to the store
            doc = tool.run(context, args)
        return ToolResult(doc, False, dumps(doc))
    except WorkbenchError as exc:
        env = masked_error(exc).to_dict()
        return ToolResult(env, True, error_text(exc))
    except Exception as exc:  # a bug: said as one, and the server goes on
        message = masked(f"{type(exc).__name__}: {exc}")
        hint = "this is a bug in the workbench; please report it with the arguments given"
        env = {"error": {"code": "INTERNAL", "message": message, "hint": hint,
                         "details": {}}}
        return ToolResult(env, True, f"error[INTERNAL]: {message}\n  hint: {hint}")
