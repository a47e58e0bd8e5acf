"""Fixed numpy semantics: var/std of complex input, every numpy.pad mode, repeat with
per-element counts (ops/numpy_like/reductions.py, padding.py, repeating.py) against numpy."""

import numpy as np
import pytest

import stablegraph as sg
from stablegraph import numpy as snp

R = np.random.default_rng(9)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_var_and_std_of_complex_input_are_real(run, dtype):
    z = (R.normal(size=(4, 3)) + 1j * R.normal(size=(4, 3))).astype(dtype)
    cases = {
        "var": lambda xp, z: xp.var(z),
        "var_axis": lambda xp, z: xp.var(z, axis=1, ddof=1),
        "std": lambda xp, z: xp.std(z, axis=0, keepdims=True),
        "nanvar": lambda xp, z: xp.nanvar(z, axis=0),
        "nanstd": lambda xp, z: xp.nanstd(z),
    }
    got = run(lambda t: [f(snp, t) for f in cases.values()], z)
    for (name, f), g in zip(cases.items(), got):
        want = f(np, z)
        assert g.dtype == want.dtype and g.dtype.kind == "f", (name, g.dtype, want.dtype)
        np.testing.assert_allclose(g, want, rtol=1e-5, err_msg=name)


WIDTHS = [((2, 1), (1, 3)), ((5, 7), (0, 9))]
MODES = [
    ("constant", {}),
    ("constant", {"constant_values": ((1, 2), (3, 4))}),
    ("empty", {}),
    ("edge", {}),
    ("reflect", {}),
    ("symmetric", {}),
    ("wrap", {}),
    ("linear_ramp", {}),
    ("linear_ramp", {"end_values": (1, -2)}),
    ("maximum", {}),
    ("minimum", {"stat_length": 2}),
    ("mean", {"stat_length": ((1, 2), (3, 1))}),
    ("mean", {}),
    ("median", {}),
    ("median", {"stat_length": 3}),
]
ODD = [("reflect", {"reflect_type": "odd"}), ("symmetric", {"reflect_type": "odd"})]


def _pad_cases():
    cases = {
        f"{m}{k}{w}": (lambda xp, x, m=m, k=k, w=w: xp.pad(x, w, m, **k)) for m, k in MODES for w in WIDTHS
    }
    cases.update({f"{m}{k}": (lambda xp, x, m=m, k=k: xp.pad(x, 2, m, **k)) for m, k in ODD})
    cases["1d_reflect_long"] = lambda xp, x: xp.pad(x[0], (9, 11), "reflect")
    cases["1d_symmetric_long"] = lambda xp, x: xp.pad(x[1], (9, 2), "symmetric")
    return cases


@pytest.mark.parametrize("dtype", [np.float32, np.int32])
def test_every_pad_mode_against_numpy(run, dtype, check_table):
    x = (np.arange(12).reshape(3, 4) ** 1.5).astype(dtype)
    empty = {k for k in _pad_cases() if k.startswith("empty")}  # numpy leaves those values undefined
    fixups = {
        k: (lambda got, want: (got, np.where(want == want, 0, 0).astype(want.dtype) + got)) for k in empty
    }
    check_table(run, _pad_cases(), (x,), rtol=1e-6, atol=1e-5, fixups=fixups)


def test_pad_errors_name_the_mode():
    with sg.Graph():
        x = sg.placeholder((3,), sg.float32)
        with pytest.raises(sg.GraphError, match="mode"):
            snp.pad(x, 1, "bogus")
        with pytest.raises(sg.GraphError, match="takes no"):
            snp.pad(x, 1, "edge", constant_values=3)
        with pytest.raises(sg.GraphError, match="odd"):
            snp.pad(x, 5, "reflect", reflect_type="odd")


def test_repeat_with_per_element_counts(run):
    x = np.arange(12, dtype=np.float32).reshape(3, 4) ** 1.5
    r = np.array([2, 0, 1, 3], np.int32)
    cases = {
        "static_axis0": lambda xp, x, r: xp.repeat(x, [1, 0, 3], axis=0),
        "static_flat": lambda xp, x, r: xp.repeat(x, np.arange(12) % 3),
        "static_scalar_list": lambda xp, x, r: xp.repeat(x, [2], axis=1),
        "int": lambda xp, x, r: xp.repeat(x, 2),
        "tensor_counts": lambda xp, x, r: xp.repeat(x, r, axis=1, total_repeat_length=6),
        "tensor_scalar": lambda xp, x, r: xp.repeat(x, r[0], axis=0, total_repeat_length=6),
    }
    want = {"tensor_scalar": np.repeat(x, 2, axis=0), "tensor_counts": np.repeat(x, r, axis=1)}
    got = run(lambda t, c: [f(snp, t, c) for f in cases.values()], x, r)
    for (name, f), g in zip(cases.items(), got):
        np.testing.assert_allclose(g, want[name] if name in want else f(np, x, r), err_msg=name)


def test_repeat_lengths_shorter_or_longer_than_the_counts(run):
    x = np.array([1.0, 2.0, 3.0], np.float32)
    r = np.array([1, 2, 1], np.int32)
    got = run(
        lambda t, c: [
            snp.repeat(t, c, total_repeat_length=6),  # longer: the last element again (jax.numpy)
            snp.repeat(t, c, total_repeat_length=2),
            snp.repeat(t, [1, 2, 1], total_repeat_length=6),
            snp.repeat(t, [1, 2, 1], total_repeat_length=3),
        ],
        x,
        r,
    )
    np.testing.assert_array_equal(got[0], [1, 2, 2, 3, 3, 3])
    np.testing.assert_array_equal(got[1], [1, 2])
    np.testing.assert_array_equal(got[2], [1, 2, 2, 3, 3, 3])
    np.testing.assert_array_equal(got[3], [1, 2, 2])
    with sg.Graph():
        t = sg.placeholder((3,), sg.float32)
        with pytest.raises(sg.GraphError, match="total_repeat_length"):
            snp.repeat(t, sg.placeholder((3,), sg.int32))
        with pytest.raises(sg.GraphError, match="3 elements"):
            snp.repeat(t, [1, 2])
