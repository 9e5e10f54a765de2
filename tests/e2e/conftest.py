"""Fixtures of the replay tests: the orders service's contract and its credential
(``tests/unit/invariants/service.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.unit.invariants.service import DOC, TOKEN

#: the variable ``replay --auth-env`` reads the orders service's credential from
KEY_VAR = "WB_TEST_ORDERS_TOKEN"


@pytest.fixture
def api(tmp_path: Path) -> Path:
    """The orders service's OpenAPI document, as a file."""
    p = tmp_path / "openapi.yaml"
    p.write_text(yaml.safe_dump(DOC))
    return p


@pytest.fixture
def token(monkeypatch: pytest.MonkeyPatch) -> str:
    """The name of a variable holding the orders service's credential."""
    monkeypatch.setenv(KEY_VAR, TOKEN)
    return KEY_VAR
