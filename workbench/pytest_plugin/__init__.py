"""The workbench pytest plugin (registered as ``workbench`` through the ``pytest11``
entry point).

Flake quarantine from a ``flakes.lock`` (``_quarantine.py``), pinned seeds for
replayable property runs (``--pin-seed``), promoted fixtures as test items
(``_fixtures.py``, docs/fixtures.md), the ``contract_server`` fixture of decision
tests (``_serve.py``, docs/serve.md), the ``otlp_collector`` fixture of decision tests
on live spans (``_collect.py``, docs/collect.md), and agent tests judged over runs
(``@pytest.mark.agent_runs``, the ``agent_run`` fixture: ``_runs.py``,
docs/statistics.md). Each concern is one module with its own
plugin object, registered in ``pytest_configure`` (``_hooks.py``); options live in
``pytest_addoption`` under the ``workbench`` group. Every option has an ini twin for
``[tool.pytest.ini_options]``. See docs/flakes.md and docs/fixtures.md.
"""

from ._collect import CollectPlugin, OtlpCollector, start_collector
from ._flakes import FlakeEntry, FlakesError, load_flakes, parse_flakes, stale
from ._hooks import (
    DEFAULT_FLAKES,
    pytest_addoption,
    pytest_configure,
    pytest_load_initial_conftests,
)
from ._quarantine import Quarantine
from ._runs import AgentRun, AgentRunsPlugin
from ._seed import PinnedSeed
from ._serve import ContractServer, ServePlugin, start_server

__all__ = [
    "DEFAULT_FLAKES",
    "AgentRun",
    "AgentRunsPlugin",
    "CollectPlugin",
    "ContractServer",
    "FlakeEntry",
    "FlakesError",
    "OtlpCollector",
    "PinnedSeed",
    "Quarantine",
    "ServePlugin",
    "load_flakes",
    "parse_flakes",
    "pytest_addoption",
    "pytest_configure",
    "pytest_load_initial_conftests",
    "stale",
    "start_collector",
    "start_server",
]
