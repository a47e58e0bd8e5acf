"""The flax linen CNN of flax_cnn.py, ported into a graph with sg.from_jax, trains in a Session loop
(a short run: its loss falls and it beats chance; the full run reaches 0.98)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np


def _port():
    spec = importlib.util.spec_from_file_location("ports_flax_cnn", Path(__file__).with_name("flax_cnn.py"))
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # flax's Modules are dataclasses, which look their module up
    spec.loader.exec_module(module)
    return module


def test_flax_cnn_trains_in_a_session_loop():
    result = _port().main(steps=40)
    losses = np.asarray(result["losses"])
    assert len(losses) == 40
    assert losses[-5:].mean() < 0.6 * losses[:5].mean(), losses
    assert result["accuracy"] > 0.5  # chance is 0.1; the full run reaches 0.98
