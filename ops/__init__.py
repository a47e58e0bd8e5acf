"""Every op: primitives (one OpDef each, with all rules) and the op sets built on them.

Primitive families: constants, elementwise, compare (compare/select/clamp/
convert), shape, slicing and dynamic_slicing, gather and scatter (indexing
re-exports both; index_dims holds their shared dimension numbers), reduce,
cumulative, sort (sort/argmax/argmin), linalg, control (cond/while/scan),
custom_vjp, random (threefry2x32). A family's rules build other families' ops
through prims (bound by op name), ad_util (what vjp rules share) and batching
(what batch rules share), not by importing those families (see the layers
in docs/ARCHITECTURE.md).
User-facing sets: numpy_like (sg.numpy), control_api (sg.cond, sg.scan, ...).
"""

from . import (  # noqa: F401  (importing a family registers its OpDefs)
    checkpoint,
    collectives,
    compare,
    complex_parts,
    constants,
    control,
    control_api,
    convolution,
    cumulative,
    custom_jvp,
    custom_vjp,
    dynamic_slicing,
    elementwise,
    factorizations,
    fft,
    indexing,
    lax,
    linalg,
    numpy_like,
    precision,
    random,
    reduce,
    remat,
    scipy_like,
    shape,
    sharding_constraint,
    slicing,
    sort,
    spmd,
    top_k,
    transcendental,
    windowed,
)  # fmt: skip
from .constants import constant, iota
from .registry import bind

__all__ = ["bind", "constant", "iota", "numpy_like"]
