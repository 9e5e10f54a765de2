"""Shared fixtures: the corpus of real traces and temporary stores. Plain helpers (the
CLI runner, store snapshots, reading a file with an adapter) live in ``tests/support.py``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

# CI replays the same examples every run (a red build is reproducible, never a dice
# roll); developers explore new ones. HYPOTHESIS_PROFILE overrides either.
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev", print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI")
                                                               else "dev"))

REPO = Path(__file__).resolve().parents[1]


def _corpus_dir() -> Path:
    env = os.environ.get("WORKBENCH_CORPUS")
    return Path(env) if env else REPO.parent / "shared" / "corpus"


CORPUS = _corpus_dir()


@pytest.fixture(scope="session")
def corpus() -> Path:
    """``../shared/corpus`` (or ``$WORKBENCH_CORPUS``); the corpus tests need it."""
    if not CORPUS.is_dir():
        pytest.fail(f"the trace corpus is missing at {CORPUS}; set WORKBENCH_CORPUS")
    return CORPUS


@pytest.fixture
def store_dir(tmp_path: Path) -> Path:
    return tmp_path / "store"
