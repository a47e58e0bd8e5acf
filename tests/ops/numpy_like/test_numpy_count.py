"""How much of jax.numpy's public API sg.numpy has: at least 300 of its callables.

The count is over jax.numpy's public callables minus the ones that are not
array functions (documented below, each with its reason). A name counts when
sg.numpy has a callable of that name; the value tests in test_breadth_*.py
check that they compute what numpy computes.
"""

import jax.numpy as jnp
import numpy as np

from stablegraph import numpy as snp

# dtype objects and numpy's abstract scalar classes: sg.numpy spells dtypes as DType
# instances (snp.float32 is a DType, not a callable constructor), see the dtype test below.
DTYPES = {
    "bfloat16", "bool", "bool_", "cdouble", "character", "complex128", "complex64", "complex_",
    "complexfloating", "csingle", "double", "flexible", "float16", "float32", "float4_e2m1fn", "float64",
    "float6_e2m3fn", "float6_e3m2fn", "float8_e3m4", "float8_e4m3", "float8_e4m3b11fnuz", "float8_e4m3fn",
    "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float8_e8m0fnu", "float_", "floating", "generic",
    "inexact", "int1", "int16", "int2", "int32", "int4", "int64", "int8", "int_", "integer", "number",
    "object_", "signedinteger", "single", "uint", "uint1", "uint16", "uint2", "uint32", "uint4", "uint64",
    "uint8", "unsignedinteger",
}  # fmt: skip
# numpy-protocol helpers that are not array functions:
PROTOCOL = {
    "ndarray",  # the array class itself (ours is sg.Tensor)
    "ufunc", "frompyfunc",  # numpy's ufunc objects (reduce/accumulate/at methods); sg.numpy has functions
    "ComplexWarning",  # a warning class
    "printoptions", "get_printoptions", "set_printoptions",  # printing configuration
    "array_repr", "array_str",  # render values; a graph Tensor has none until a Session runs it
    "load", "save", "savez", "fromfile",  # file I/O
}  # fmt: skip
EXCLUDED = DTYPES | PROTOCOL


def public_callables():
    return sorted(n for n in dir(jnp) if not n.startswith("_") and callable(getattr(jnp, n)))


def test_at_least_300_of_jax_numpys_callables():
    names = [n for n in public_callables() if n not in EXCLUDED]
    have = [n for n in names if callable(getattr(snp, n, None))]
    missing = sorted(set(names) - set(have))
    assert len(have) >= 300, f"sg.numpy has {len(have)} of {len(names)}; missing: {missing}"


def test_the_exclusions_are_real_names():
    names = set(public_callables())
    assert EXCLUDED <= names, sorted(EXCLUDED - names)  # a stale entry would hide nothing


def test_dtype_names_are_dtypes_and_constants():
    assert snp.float32 is snp.dtype(np.float32) and snp.int8.np == np.int8
    assert (snp.pi, snp.e, snp.inf) == (np.pi, np.e, np.inf) and np.isnan(snp.nan) and snp.newaxis is None
    assert snp.euler_gamma == np.euler_gamma
