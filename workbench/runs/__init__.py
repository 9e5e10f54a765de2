"""Runs of a scenario until the verdict is decided: the agent's command run again and
again, each run's trace stored with its scenario and build and judged by the rules, and
Wald's sequential test (``stats.SPRT``) stopping the runs once it can tell (docs/statistics.md)."""

from ._runner import RunFailed, RunsResult, resource_attributes, run_scenario

__all__ = ["RunFailed", "RunsResult", "resource_attributes", "run_scenario"]
