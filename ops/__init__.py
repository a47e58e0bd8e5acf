"""Every op: primitives (one OpDef each, with all rules) and the op sets built on them.

Primitive families: constants, elementwise, compare (compare/select/clamp/
convert), shape, reduce, linalg. User-facing sets: numpy_like (sg.numpy).
"""

from . import compare, constants, elementwise, linalg, reduce, shape  # noqa: F401  (registers OpDefs)
from . import numpy_like
from .constants import constant, iota
from .registry import bind

__all__ = ["bind", "constant", "iota", "numpy_like"]
