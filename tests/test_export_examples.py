"""examples/serve.py answers batches of any size from an exported file in a fresh process (a short
run of its model's training, then the server in a subprocess)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

import stablegraph as sg

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"examples_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # flax's Modules are dataclasses, which look their module up
    spec.loader.exec_module(module)
    return module


def test_serve_answers_batches_of_any_size_in_a_fresh_process(tmp_path):
    path = load("serve").make_model(str(tmp_path / "digits.sgx"), steps=20)
    values = sg.load_exported(path).values
    rng = np.random.default_rng(0)
    batches = [rng.random((n, 64), np.float32) for n in (1, 5, 17)]
    batches[1][0] = 0.0  # a blank image and one at the top of the range
    batches[1][1] = 1.0
    requests = "".join(json.dumps({"x": b.tolist()}) + "\n" for b in batches)
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "serve.py"), path], input=requests, capture_output=True, text=True,
        timeout=120, env=os.environ.copy(),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "serving x: f32[batch, 64] -> probs: f32[batch, 10]" in done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == 3
    for b, answer in zip(batches, answers):
        h = np.maximum(b @ values["fc1/kernel"] + values["fc1/bias"], 0)
        z = h @ values["fc2/kernel"] + values["fc2/bias"]
        ref = np.exp(z - z.max(1, keepdims=True))
        ref /= ref.sum(1, keepdims=True)
        np.testing.assert_allclose(np.asarray(answer["probs"]), ref, rtol=1e-4, atol=1e-6)
