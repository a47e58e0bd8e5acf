"""Every op, in two layers: primitives/ (one module per family, each OpDef with all its rules) and
the op sets built on them here.

Primitive families (ops/primitives/): constants, elementwise, compare
(compare/select/clamp/convert), shape, slicing and dynamic_slicing, gather and
scatter (index_dims holds their shared dimension numbers), reduce, cumulative,
sort, top_k, dot_general, convolution, windowed, fft, transcendental,
factorizations, control (cond/while/scan), collectives, threefry, and more. A
family's rules build other families' ops through prims (bound by op name),
ad_util (what vjp rules share) and batching (what batch rules share), not by
importing those families (see the layers in docs/ARCHITECTURE.md).
Op sets (here): numpy_like (sg.numpy), scipy_like (sg.scipy), lax, lax_indexing,
lax_linalg and lax_convolution (sg.lax), nn, random, state (Variables),
control_api (sg.cond, sg.scan, ...), spmd, custom_jvp/custom_vjp, checkpoint.
"""

# importing a family registers its OpDefs
from . import (  # noqa: F401
    checkpoint,
    control_api,
    custom_jvp,
    custom_vjp,
    debug,
    lax_convolution,
    numpy_like,
    random,
    scipy_like,
    spmd,
)
from .primitives import (  # noqa: F401
    collectives,
    compare,
    complex_parts,
    constants,
    control,
    cumulative,
    dot_general,
    dynamic_slicing,
    elementwise,
    factorizations,
    ffi_call,
    fft,
    host_callback,
    indexing,
    module_call,
    precision,
    reduce,
    remat,
    rng_bits,
    shape,
    sharding_constraint,
    slicing,
    sort,
    staging,
    top_k,
    transcendental,
    windowed,
)  # fmt: skip
from .primitives.constants import constant, iota
from .primitives.registry import bind

__all__ = ["bind", "constant", "iota", "numpy_like"]
