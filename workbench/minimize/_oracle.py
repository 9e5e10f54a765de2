"""Oracles: does a candidate sub-trace still fail?

An oracle is any callable ``(Trace) -> bool`` that answers True when the candidate
still fails the way the incident did. Three come with the workbench:

* ``rule_oracle(rule, signature)``: offline — re-run the rule on the candidate and
  look for a finding with the same signature. Pure, so it is marked deterministic.
* ``command_oracle("CMD {trace}")``: a user command gets the candidate as a
  workbench JSONL file; exit 1 means "still fails", exit 0 "passes", any other exit
  (or a time-out) is *unresolved* and counts as a pass. Exit 126/127 (the shell could
  not run the command) stops the minimization with ``ORACLE_FAILED``.
* any Python callable, for notebooks (``lambda t: my_replay(t).status == 500``).

An oracle may carry ``deterministic = True``; the minimizer then skips re-testing its
final result (the answer cannot change).
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field

from ..formats import write_jsonl
from ..model import Trace, UsageError, WorkbenchError
from ..rules import Rule, check_trace

__all__ = ["CommandOracle", "Oracle", "OracleError", "RuleOracle", "command_oracle",
           "rule_oracle"]

Oracle = Callable[[Trace], bool]


class OracleError(WorkbenchError, RuntimeError):
    """The oracle itself cannot run (not: the candidate passed)."""

    code = "ORACLE_FAILED"
    default_hint = ("check that the --oracle-cmd command runs by hand on an exported trace "
                    "(`workbench export TRACE --out t.jsonl`)")


@dataclass(frozen=True)
class RuleOracle:
    """Offline: the candidate still yields a finding of ``rule`` with ``signature``."""

    rule: Rule
    signature: str
    deterministic: bool = True

    def __call__(self, trace: Trace) -> bool:
        return any(f.signature == self.signature for f in check_trace(trace, [self.rule]))


def rule_oracle(rule: Rule, signature: str) -> RuleOracle:
    return RuleOracle(rule, signature)


@dataclass
class CommandOracle:
    """A user command; ``{trace}`` in it becomes the candidate's JSONL file."""

    command: str
    timeout: float | None = None
    deterministic: bool = False
    unresolved: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if "{trace}" not in self.command:
            raise UsageError(f"the oracle command {self.command!r} has no {{trace}}",
                             code="ORACLE_COMMAND",
                             hint="put {trace} where the command takes the candidate's "
                                  "JSONL file, e.g. --oracle-cmd 'python replay.py {trace}'")
        if self.timeout is not None and self.timeout <= 0:
            raise UsageError("the oracle time-out must be positive")

    def __call__(self, trace: Trace) -> bool:
        fd, path = tempfile.mkstemp(prefix="workbench-candidate-", suffix=".jsonl")
        try:
            with os.fdopen(fd, "wb") as f:
                write_jsonl((e.to_row() for e in trace.events), f)
            cmd = self.command.replace("{trace}", shlex.quote(path))
            try:
                done = subprocess.run(cmd, shell=True, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                      timeout=self.timeout, check=False)
            except subprocess.TimeoutExpired:
                self.unresolved += 1
                return False
        finally:
            os.unlink(path)
        if done.returncode in (126, 127):
            tail = done.stderr.decode(errors="replace").strip().splitlines()
            raise OracleError(f"the oracle command could not run (exit {done.returncode})"
                              + (f": {tail[-1]}" if tail else ""),
                              command=self.command, exit=done.returncode)
        if done.returncode not in (0, 1):
            self.unresolved += 1
        return done.returncode == 1


def command_oracle(command: str, timeout: float | None = None) -> CommandOracle:
    return CommandOracle(command, timeout)
