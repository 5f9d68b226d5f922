"""Shared fixtures: the repository root, the local data mirror, the validated default config."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
MIRROR = Path(os.environ.get("CROWDPRIV_MIRROR", ROOT.parent / "shared" / "datasets"))


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def mirror() -> Path:
    """The offline mirror of the raw data (``../shared/datasets``); required by data tests."""
    if not MIRROR.is_dir():
        # deliberate: the data tests read the real raw files, which are never committed; a
        # checkout without the mirror (and without CROWDPRIV_MIRROR) cannot run them
        pytest.skip(f"no data mirror at {MIRROR} (set CROWDPRIV_MIRROR)")
    return MIRROR


@pytest.fixture(autouse=True)
def _registry_left_as_found():
    """A test that registers a mechanism does not leak it into the next test."""
    from crowdpriv import mechanisms

    state = mechanisms.snapshot()
    yield
    mechanisms.restore(state)


@pytest.fixture()
def default_config() -> dict:
    return yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
