"""The promotion lattice against jax.numpy's (a test-only oracle) and the documented table."""

import re

import jax.numpy as jnp
import numpy as np
import pytest

import stablegraph as sg
from stablegraph.graph import dtypes

pytestmark = pytest.mark.usefixtures("jax_x64")  # jax as a 64-bit oracle for this module only

STRONG = [
    sg.bool_, sg.int8, sg.int16, sg.int32, sg.int64, sg.uint8, sg.uint16, sg.uint32, sg.uint64,
    sg.bfloat16, sg.float16, sg.float32, sg.float64, sg.complex64, sg.complex128,
]  # fmt: skip


@pytest.mark.parametrize("a", STRONG, ids=lambda d: d.name)
def test_promote_types_matches_jax_lattice(a):
    for b in STRONG:
        want = jnp.promote_types(a.np, b.np)
        assert sg.promote_types(a, b).np == want, (a, b)


def test_weak_python_scalars_keep_the_tensor_type():
    assert sg.result_type(sg.float16, dtypes.WEAK_FLOAT) is sg.float16
    assert sg.result_type(sg.int8, dtypes.WEAK_INT) is sg.int8
    assert sg.result_type(sg.uint8, dtypes.WEAK_INT) is sg.uint8
    assert sg.result_type(sg.bfloat16, dtypes.WEAK_INT) is sg.bfloat16
    # a weak float meeting an integer tensor gives the default float, float32 (no x64 switch)
    assert sg.result_type(sg.int32, dtypes.WEAK_FLOAT) is sg.float32
    assert sg.result_type(sg.int64, dtypes.WEAK_FLOAT) is sg.float64  # 64-bit ints need f64
    assert sg.result_type(sg.float32, dtypes.WEAK_COMPLEX) is sg.complex64
    assert sg.result_type(sg.float64, dtypes.WEAK_COMPLEX) is sg.complex128
    assert sg.result_type(dtypes.WEAK_INT) is sg.int32
    assert sg.result_type(dtypes.WEAK_FLOAT) is sg.float32
    assert sg.result_type(dtypes.WEAK_INT, dtypes.WEAK_FLOAT) is sg.float32


def test_float8_promotes_to_wider_floats():
    assert sg.promote_types(sg.float8_e4m3fn, sg.float16) is sg.float16
    assert sg.promote_types(sg.float8_e5m2, sg.float32) is sg.float32
    assert sg.promote_types(sg.float8_e4m3fn, sg.float8_e4m3fn) is sg.float8_e4m3fn


def _documented_table():
    lines = dtypes.__doc__.splitlines()
    rules = [i for i, line in enumerate(lines) if re.match(r"\s+=+\s", line)]
    return [line.split() for line in lines[rules[1] + 1 : rules[2]]]


_SPELLED = {"bool": sg.bool_, "i32": sg.int32, "u32": sg.uint32, "f16": sg.float16, "f32": sg.float32,
            "f64": sg.float64, "i64": sg.int64}  # fmt: skip


def test_documented_table_is_what_the_code_does():
    rows = _documented_table()
    assert len(rows) == 7
    columns = [sg.bool_, sg.int32, sg.uint32, sg.float16, sg.float32, sg.float64]
    for row in rows:
        if row[0] == "py":
            left, cells = {"int": dtypes.WEAK_INT, "float": dtypes.WEAK_FLOAT}[row[1]], row[2:]
        else:
            left, cells = _SPELLED[row[0]], row[1:]
        for col, cell in zip(columns, cells):
            assert sg.result_type(left, col) is _SPELLED[cell], (row, col)


def test_dtype_normalization_and_errors():
    assert sg.dtype("float32") is sg.float32
    assert sg.dtype(np.float64) is sg.float64
    assert sg.dtype(float) is sg.float32 and sg.dtype(int) is sg.int32
    assert sg.dtype(np.dtype("bool")) is sg.bool_
    with pytest.raises(sg.GraphError, match="not a dtype"):
        sg.dtype("floaty")
    with pytest.raises(sg.GraphError, match="not supported"):
        sg.dtype(np.dtype("datetime64[s]"))


def test_canonical_arrays_have_no_silent_x64():
    assert dtypes.canonical_array(1.5).dtype == np.float32
    assert dtypes.canonical_array([1, 2]).dtype == np.int32
    assert dtypes.canonical_array(2**40).dtype == np.int64  # too big for int32: kept exact
    assert dtypes.canonical_array(np.float64(1.5)).dtype == np.float64  # explicit numpy: honoured
    assert dtypes.canonical_array(1.5, sg.float64).dtype == np.float64


def test_numpy_takes_our_dtypes_and_names_take_python_defaults():
    """``np.zeros(n, x.dtype)`` works as with jax's dtypes; "float" is float32, as Python's float
    (and TF1's "float"), while a numpy dtype keeps its width."""
    for dt in (sg.float32, sg.float64, sg.bfloat16, sg.int8, sg.complex64, sg.bool_):
        assert np.zeros(2, dt).dtype == dt.np and np.dtype(dt) == dt.np
    assert sg.dtype("float") is sg.float32 and sg.dtype(float) is sg.float32
    assert sg.dtype("int") is sg.int32 and sg.dtype("complex") is sg.complex64
    assert sg.dtype(np.float64) is sg.float64 and sg.dtype(np.dtype("float64")) is sg.float64
