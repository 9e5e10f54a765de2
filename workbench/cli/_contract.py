"""``workbench contract …``: the parent command of the tool-contract actions. Each action
lives in its own module (``_ACTIONS``), imported only when ``contract`` runs, and adds
its sub-parser through ``register_action(actions)``."""

from __future__ import annotations

import argparse
import importlib
from typing import Any

from ..model import UsageError
from ._main import Parser, summary

RAW = argparse.RawDescriptionHelpFormatter
#: the modules that register an action of ``workbench contract``
_ACTIONS = ("_contract_diff",)


def register(sub: Any) -> None:
    p = sub.add_parser("contract", help=summary("contract"),
                       description="Tool contracts: versioned descriptors of the tools agents "
                       "call (docs/contracts.md).",
                       epilog="examples:\n  workbench contract diff old/ new/ --consumer "
                              "triage.consumer.yaml\n"
                              "  workbench contract diff old.json new.json --sarif diff.sarif "
                              "--json",
                       formatter_class=RAW)
    actions = p.add_subparsers(dest="action", metavar="ACTION", parser_class=Parser)
    p.set_defaults(func=_missing)
    for name in _ACTIONS:
        importlib.import_module(f"{__package__}.{name}").register_action(actions)


def _missing(args: argparse.Namespace) -> int:
    raise UsageError("workbench contract: name an action",
                     hint="run `workbench contract --help` for the actions and an example")
