"""The errors of the contract server, each with a stable code::

    WorkbenchError
    └── InputError (ValueError)
        ├── config.ConfigError
        │   └── ScenarioError          SCENARIO_INVALID, SCENARIO_YAML, REF_OUTSIDE,
        │                              UNKNOWN_FAILURE_MODE, FILE_NOT_FOUND
        ├── RecordingError             RECORDING_UNREADABLE, NO_EXCHANGES
        └── ListenError                PORT_IN_USE, NOT_LOOPBACK, MCP_UNAVAILABLE
"""

from __future__ import annotations

from ..config import ConfigError, ConfigFile
from ..model import InputError

__all__ = ["SCENARIO_FILE", "ListenError", "RecordingError", "ScenarioError"]


class ScenarioError(ConfigError):
    """A scenario file (or a ``--failure``) that cannot be served."""

    code = "SCENARIO_INVALID"
    default_hint = "docs/serve.md describes the scenario file, key by key"


class RecordingError(InputError):
    """A recording that cannot be served: unreadable, or without an exchange to answer."""

    code = "RECORDING_UNREADABLE"
    default_hint = "serve a HAR, VCR cassette, Pact file, MCP log, our JSONL or a fixture folder"


class ListenError(InputError):
    """The server cannot listen as asked."""

    code = "PORT_IN_USE"
    default_hint = "choose another --port, or --port 0 for a free one"


SCENARIO_FILE = ConfigFile(
    "scenario file", ScenarioError,
    keys=("name", "match", "exchanges", "failures"),
    yaml_code="SCENARIO_YAML", hint="check the path of the scenario file")
