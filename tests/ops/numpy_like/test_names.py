"""sg.numpy's module-level names match numpy's (ops/numpy_like/names.py)."""

from __future__ import annotations

import numpy as np

import stablegraph as sg
from stablegraph import numpy as snp


def test_constants_and_dtype_names_match_numpy(run):
    for name in ("pi", "e", "inf", "euler_gamma"):
        assert getattr(snp, name) == getattr(np, name)
    assert np.isnan(snp.nan) and snp.newaxis is np.newaxis
    for name in (
        "float16",
        "float32",
        "float64",
        "int8",
        "int32",
        "int64",
        "uint8",
        "uint32",
        "bool_",
        "complex64",
    ):
        assert getattr(snp, name).np == np.dtype(getattr(np, name))
    assert snp.finfo(snp.float32).eps == np.finfo(np.float32).eps
    assert snp.iinfo(snp.int16).max == np.iinfo(np.int16).max
    assert snp.promote_types(snp.int32, snp.float32) is sg.float32

    got = run(lambda x: (snp.zeros(3, snp.int64), x[:, snp.newaxis] * snp.pi), np.arange(3, dtype=np.float32))
    assert got[0].dtype == np.int64
    np.testing.assert_allclose(got[1], np.arange(3, dtype=np.float32)[:, np.newaxis] * np.float32(np.pi))
