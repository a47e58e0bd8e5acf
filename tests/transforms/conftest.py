"""Fixtures for the transform tests."""

from __future__ import annotations

import jax
import pytest


@pytest.fixture(scope="module")
def jax_x64():
    """jax computes in float64 for the module's tests (jax's switch is global: put back after)."""
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", before)
