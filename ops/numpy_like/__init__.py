"""sg.numpy: numpy's names and semantics, built only from primitives (ops layer).

``from stablegraph import numpy as snp`` then write numpy code inside ``with g:``.
"""

from .core import asarray, broadcast_shapes, broadcast_to
from .linalg import matmul
from .manipulation import expand_dims, reshape, squeeze, transpose
from .overloads import install as _install
from .reductions import all, amax, amin, any, max, mean, min, prod, std, sum, var  # noqa: A004
from .ufuncs import (  # noqa: A004
    abs, absolute, add, arctan2, around, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, cbrt,
    ceil, cos, divide, equal, erf, exp, expm1, floor, floor_divide, fmod, greater, greater_equal,
    invert, isfinite, isinf, isnan, left_shift, less, less_equal, log, log1p, logical_and,
    logical_not, logical_or, logical_xor, maximum, minimum, mod, multiply, negative, not_equal,
    power, reciprocal, remainder, right_shift, round, rsqrt, sigmoid, sign, sin, sqrt, square,
    subtract, tan, tanh, true_divide, where,
)  # fmt: skip

_install()
