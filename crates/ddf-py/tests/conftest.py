"""Shared fixtures: the real `ddf` binary, and deterministic hypothesis."""

import os
import pathlib
import shutil

import pytest
from hypothesis import HealthCheck, settings

# Deterministic runs (the project's rule): hypothesis draws from a fixed seed.
settings.register_profile(
    "ddf",
    derandomize=True,
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ddf")

REPO = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def ddf_bin() -> str:
    """The `ddf` command built from this workspace (DDF_BIN, else target/)."""
    env = os.environ.get("DDF_BIN")
    if env:
        return env
    for profile in ("release", "debug"):
        path = REPO / "target" / profile / "ddf"
        if path.exists():
            return str(path)
    found = shutil.which("ddf")
    if found:
        return found
    pytest.fail("no ddf binary: run `cargo build -p ddf-cli` or set DDF_BIN")
