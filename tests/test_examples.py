"""The examples in examples/ train for real: reduced runs (few steps) learn, and resuming is seamless.

Each example's ``main(steps=...)`` runs here in a short form. The loss must
fall clearly and the accuracy, measured on data the model did not train on,
must be far above chance (0.1 for ten digits, 1/10 per token). A run that
stops, saves, and goes on in a new Session restored from the checkpoint
must follow the same losses as a run that did not stop (the executables are
shared between Sessions, so the second run compiles nothing).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"examples_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def convnet():
    return load("digits_convnet")


@pytest.fixture(scope="module")
def transformer():
    return load("sequence_transformer")


def test_digits_convnet_learns_and_resumes(convnet, tmp_path):
    steps = 60
    resumed = convnet.main(steps=steps, checkpoint_every=20, checkpoint_dir=str(tmp_path), resume_at=30)
    assert resumed["resumed_from"] == 30
    assert sorted(p.name for p in tmp_path.iterdir()) == ["digits_convnet-40.npz", "digits_convnet-60.npz"]
    losses = np.asarray(resumed["losses"])
    assert len(losses) == steps
    assert losses[-10:].mean() < 0.25 * losses[:5].mean(), losses
    assert resumed["accuracy"] > 0.8  # chance is 0.1; the full run reaches 0.99
    straight = convnet.main(steps=steps, checkpoint_every=20, resume_at=steps)
    np.testing.assert_allclose(resumed["losses"], straight["losses"], rtol=1e-5, atol=1e-6)
    assert resumed["accuracy"] == straight["accuracy"]


def test_sequence_transformer_learns_and_resumes(transformer):
    steps = 60
    kwargs = dict(steps=steps, width=32, heads=2, blocks=1, learning_rate=1e-2, checkpoint_every=25)
    resumed = transformer.main(**kwargs, resume_at=25)
    assert resumed["resumed_from"] == 25
    losses = np.asarray(resumed["losses"])
    assert len(losses) == steps
    assert losses[:5].mean() > 2.0  # about log(11) at the start
    assert losses[-10:].mean() < 0.25 * losses[:5].mean(), losses
    assert resumed["accuracy"] > 0.5  # per-token chance is 0.1; the full run reaches 1.0
    straight = transformer.main(**kwargs, resume_at=steps)
    np.testing.assert_allclose(resumed["losses"], straight["losses"], rtol=1e-5, atol=1e-6)


def test_sequence_transformer_batches_reverse():
    transformer = load("sequence_transformer")
    inputs, targets = transformer.make_batch(np.random.default_rng(0), 3, 4)
    assert inputs.shape == targets.shape == (3, 8)
    np.testing.assert_array_equal(inputs[:, 1:], targets[:, :-1])  # shifted by one
    np.testing.assert_array_equal(inputs[:, 4], transformer.SEP)
    np.testing.assert_array_equal(targets[:, 4:], inputs[:, 3::-1])  # the output half is the reverse
