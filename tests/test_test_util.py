"""sg.test_util.check_grads: it passes correct derivatives and names wrong ones (test_util.py)."""

from __future__ import annotations

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp
from stablegraph.test_util import check_grads

R = np.random.default_rng(0)


def custom_sin(scale: float = 1.0, freeze_second_order: bool = False):
    """sin with a hand-written vjp: off by ``scale``, or right only to first order."""

    @sg.custom_vjp
    def f(x):
        return snp.sin(x)

    def bwd(x, g):
        slope = snp.cos(x)
        return (g * (sg.stop_gradient(slope) if freeze_second_order else slope) * scale,)

    f.defvjp(lambda x: (snp.sin(x), x), bwd)
    return f


def test_passes_a_composite_with_an_integer_argument_and_a_complex_one():
    def fn(x, n, z):
        return snp.tanh(x) * n, snp.exp(z) * x[0], n * 2

    check_grads(fn, [R.normal(size=(2, 3)), np.int32(3), R.normal(size=3) + 1j * R.normal(size=3)])


def test_passes_a_function_with_float64_parameters():
    f = sg.function(lambda x, y: snp.sum(snp.sin(x) * y), [sg.TensorType((3,), sg.float64)] * 2)
    check_grads(f, [R.normal(size=3), R.normal(size=3)], order=2, modes="rev")


def test_names_a_wrong_first_derivative():
    with pytest.raises(AssertionError) as e:
        check_grads(custom_sin(scale=1.01), [R.normal(size=3)], order=1)
    message = str(e.value)
    assert "fwd, order 1 (f), argument 0, output 0" in message, message
    assert "rev, order 1 (f), argument 0: <v, vjp(u)> = " in message, message


def test_names_a_wrong_second_derivative_only_at_order_2():
    f = custom_sin(freeze_second_order=True)
    check_grads(f, [R.normal(size=3)], order=1)
    with pytest.raises(AssertionError) as e:
        check_grads(f, [R.normal(size=3)], order=2, modes="rev")
    message = str(e.value)
    assert "order 1" not in message and "rev, order 2 (vjp of f), argument 0" in message, message


def test_names_the_argument():
    with pytest.raises(AssertionError) as e:
        check_grads(lambda x, y: x * custom_sin(scale=2.0)(y), [R.normal(size=2), R.normal(size=2)], order=1)
    message = str(e.value)
    assert "argument 1" in message and "argument 0" not in message, message


def test_rejects_a_call_with_nothing_to_check():
    with pytest.raises(ValueError, match="floating or complex argument"):
        check_grads(lambda n: n * 2, [np.arange(3)])
    with pytest.raises(ValueError, match="modes"):
        check_grads(snp.sin, [np.ones(2)], modes=("sideways",))
