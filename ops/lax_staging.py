"""jax.lax's names about staging a program: optimization_barrier, composite, platform_dependent,
dce_sink, shape_as_value and stage (ops layer).

stablegraph builds every value into an explicit graph, so some of these are simpler than jax's:
stage lifts a Python or numpy value into the graph as a constant; composite records its
decomposition as one library call named ``name`` (and version), the form listings and drawings
show as one line, where jax emits a stablehlo.composite; platform_dependent is sg.switch on the
platform the Session lowers for (the platform_index primitive), so only that branch is compiled
and every rule of switch applies.
"""

from __future__ import annotations

import numpy as np

from ..graph import GraphError, Tensor, dims, dtypes, flatten, library_call, located, unflatten, user_location
from ..graph.library import returns
from .control_api import switch
from .primitives import constants, prims
from .primitives.constants import constant, dim_value
from .primitives.remat import optimization_barrier as _barrier
from .primitives.staging import dce_sink as _dce_sink
from .primitives.staging import platform_index

__all__ = ["optimization_barrier", "composite", "platform_dependent", "dce_sink", "shape_as_value", "stage"]


def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


def _tensor(leaf, who: str) -> Tensor:
    if isinstance(leaf, Tensor):
        return leaf
    if isinstance(leaf, np.ndarray | np.generic | bool | int | float | complex):
        return constant(leaf)
    raise _error(f"{who} wants Tensors, numbers or arrays, got {type(leaf).__name__}")


def optimization_barrier(operand, /):
    """``operand`` (a Tensor or any nest of them; numbers and arrays become constants) unchanged,
    behind one barrier XLA neither moves computation across nor merges values through, as
    jax.lax.optimization_barrier: it keeps a recomputation from being merged with the original.
    Gradients and vectorize pass through it. Lowers to ``stablehlo.optimization_barrier``."""
    leaves, tree = flatten(operand)
    if not leaves:
        return operand
    return unflatten(tree, _barrier([_tensor(v, "optimization_barrier") for v in leaves]))


def composite(decomposition, name: str, version: int = 0):
    """A function that runs ``decomposition`` as one library call named ``name`` (with its
    version), as jax.lax.composite: positional arguments are its inputs, keyword arguments its
    attributes (passed on to ``decomposition``). Listings print the call as one line;
    gradients and vectorize go through the decomposition.

        tangent = sg.lax.composite(lambda x: sg.lax.sin(x) / sg.lax.cos(x), name="my.tangent")
    """
    if not callable(decomposition):
        raise _error(f"composite wants a decomposition function, got {type(decomposition).__name__}")
    label = f"{name}.v{int(version)}" if version else str(name)

    def call(*args, **kwargs):
        with library_call(label, str(name).replace(".", "_")) as record:
            out = decomposition(*args, **kwargs)
            returns(record, out)
        return out

    call.__name__ = call.__qualname__ = getattr(decomposition, "__name__", "composite")
    call.__doc__ = f"The composite {name!r} (version {version}): {decomposition.__doc__ or ''}".strip()
    return call


def platform_dependent(*args, default=None, **per_platform):
    """The result of ``per_platform[p](*args)`` for the platform ``p`` the Session runs on
    ("cpu", "cuda" or "rocm", "tpu"), or of ``default(*args)`` on any other, as
    jax.lax.platform_dependent. The branch is chosen when the program is lowered, so only it
    runs; all must return the same types. No branch for the platform and no default is an error
    when the Session compiles.
    """
    if not per_platform and default is None:
        raise _error("platform_dependent wants at least one platform's function or a default")
    bad = [k for k, f in per_platform.items() if not callable(f)]
    if bad or (default is not None and not callable(default)):
        raise _error(f"platform_dependent wants functions, got non-callables for {bad or ['default']}")
    if "gpu" in per_platform:
        raise _error("platform_dependent: use 'cuda' or 'rocm' for a GPU branch (as jax), not 'gpu'")
    platforms = [(name,) for name in per_platform]
    branches = list(per_platform.values()) + ([default] if default is not None else [])
    index = platform_index(platforms, default is not None)
    return switch(index, branches, *args)


def dce_sink(val, *, prevent_mlir_dce: bool = False) -> None:
    """Mark every Tensor of ``val`` (a nest) as used, as jax.lax.dce_sink: the graph keeps a
    dce_sink node reading it, so graph-level dead-code elimination (sg.simplify) keeps what
    computes it. It lowers to nothing; XLA may still drop the computation from the program, as
    jax's does without ``prevent_mlir_dce`` (that flag's custom call exists only in jax's tests,
    so here it is accepted and changes nothing)."""
    leaves, _ = flatten(val)
    for leaf in leaves:
        _dce_sink(_tensor(leaf, "dce_sink"), prevent_mlir_dce=bool(prevent_mlir_dce))


def shape_as_value(shape):
    """``shape`` as a 1-D integer Tensor (int32, as jax's without x64), as
    jax.lax.shape_as_value: int dims become constants, symbolic dims (``x.shape[0]`` of a
    placeholder with a named dim) their values once the Session binds the symbols."""
    shape = tuple(shape)
    if not shape:
        return constant(np.zeros((0,), np.int32))
    if all(isinstance(d, int | np.integer) for d in shape):
        return constant(np.asarray(shape, np.int32))
    parts = [prims.reshape(dim_value(dims.as_dim(d), dtypes.int32), (1,)) for d in shape]
    return prims.concatenate(parts, 0)


def stage(x, /):
    """``x`` as a value of the graph being built, as jax.lax.stage: a Tensor is returned as it
    is, a Python number or numpy array becomes a constant (Python numbers take stablegraph's
    defaults: float32 and int32)."""
    if isinstance(x, Tensor):
        return x
    try:
        return constants.constant(x)
    except Exception:  # noqa: BLE001 - every unconvertible value gets the same message
        raise _error(f"stage wants a Tensor, a number or an array, got {type(x).__name__}") from None
