"""What an ingest records of each trace besides its events: the scenario it is a run of
and the build of the agent that made it (docs/statistics.md), with its environment."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..formats import TraceInfo
from ..model import UsageError

__all__ = ["BUILD_ATTRIBUTE", "SCENARIO_ATTRIBUTE", "Labels", "check_label"]

_LABEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/+@-]{0,127}")
#: the OTLP resource attributes a run's scenario and build are read from
SCENARIO_ATTRIBUTE, BUILD_ATTRIBUTE = "workbench.scenario", "workbench.build"


def check_label(option: str, value: str | None) -> str | None:
    """A scenario or build name (``--scenario``, ``--build``): 1-128 letters, digits,
    ``. _ : / + @ -``, starting with a letter or digit; else ``SCENARIO_INVALID`` or
    ``BUILD_INVALID``."""
    if value is None or (isinstance(value, str) and _LABEL.fullmatch(value)):
        return value
    what = option.removeprefix("--")
    raise UsageError(f"{option} {value!r} is not a {what} name",
                     code=f"{what.upper()}_INVALID",
                     hint="1-128 letters, digits, '.', '_', ':', '/', '+', '@' or '-' "
                          "(e.g. refund-flow, 1.4.2+g3a9f0c1)")


@dataclass(frozen=True)
class Labels:
    """What an ingest records of each trace's runs: environment, scenario, build."""

    env: str = "default"
    scenario: str | None = None
    build: str | None = None

    def of(self, info: TraceInfo) -> tuple[str | None, str | None]:
        """The trace's scenario and build: the options given, else its resource
        attributes (a value that is not a valid name is not taken)."""
        found: dict[str, str] = {}
        resources = info.attrs.get("resources")
        for r in resources if isinstance(resources, list) else []:
            for key in (SCENARIO_ATTRIBUTE, BUILD_ATTRIBUTE):
                v = r.get(key) if isinstance(r, dict) else None
                if key not in found and isinstance(v, str) and _LABEL.fullmatch(v):
                    found[key] = v
        return (self.scenario or found.get(SCENARIO_ATTRIBUTE),
                self.build or found.get(BUILD_ATTRIBUTE))
