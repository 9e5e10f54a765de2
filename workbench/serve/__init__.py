"""The contract server: recorded, versioned exchanges answered on loopback, every request
recorded to the store, provider failures injected on demand (docs/serve.md).

Scenarios and recordings (``_scenario``, ``_exchange``), matching and the closest match
(``_match``), failure modes (``_failures``), the HTTP server (``_http``, which ``collect``
runs too), recording to a store journal (``_recorder``), the run (``_server``) and the
MCP mode (``_mcp``).
"""

from ._errors import ListenError, RecordingError, ScenarioError
from ._failures import MODES, Failure
from ._http import PEER, HttpServer, Limits, Reply, error_reply
from ._mcp import McpRecording, load_mcp, serve_mcp
from ._scenario import Scenario, load_sources, parse_failures
from ._server import SERVED_HEADER, ServeResult, bind, check_host, serve, signals_held, stop_on

__all__ = ["MODES", "PEER", "SERVED_HEADER", "Failure", "HttpServer", "Limits", "ListenError",
           "McpRecording", "RecordingError", "Reply", "Scenario", "ScenarioError",
           "ServeResult", "bind", "check_host", "error_reply", "load_mcp", "load_sources",
           "parse_failures", "serve", "serve_mcp", "signals_held", "stop_on"]
