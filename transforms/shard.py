"""sg.shard: pin the layouts of a function's inputs and outputs on a mesh (transforms).

``shard(fn, mesh, in_specs, out_specs)`` is fn with a sharding_constraint
on each parameter (before the body) and each result (after it), as a
Function -> Function rewrite; XLA propagates layouts through the body. The
specs name axes of ``mesh`` (checked here); a Session binds them to its own
mesh when it runs the graph, so the mesh only has to have those axes.
Unlike a per-device region (``sg.spmd``), the body still sees global values.
"""

from __future__ import annotations

from ..graph import (
    Function,
    GraphError,
    current_graph,
    flatten,
    function,
    inline,
    located,
    unflatten,
    user_location,
)
from ..ops.primitives.sharding_constraint import sharding_constraint
from ..sharding import Mesh, PartitionSpec, as_spec, check_axes

__all__ = ["shard"]


def shard(fn, mesh: Mesh, in_specs=None, out_specs=None):
    """``fn`` with its inputs laid out by ``in_specs`` and its outputs by ``out_specs`` on ``mesh``.

    Each of ``in_specs`` / ``out_specs`` is one PartitionSpec for every leaf,
    None (leave them to XLA), or a list/tuple with one entry (a spec or None)
    per argument / result leaf. A Function gives a Function; a callable gives
    a callable that adds the constraints where it is called.

        step = sg.shard(f, mesh, in_specs=(P("data", None), P()), out_specs=P())
    """
    if not isinstance(mesh, Mesh):
        raise GraphError(located(f"shard wants a Mesh, got {type(mesh).__name__}", user_location()))
    if isinstance(fn, Function):
        return _shard_function(fn, mesh, in_specs, out_specs)
    if not callable(fn):
        raise GraphError(
            located(f"shard wants a Function or a callable, got {type(fn).__name__}", user_location())
        )

    def sharded(*args):
        leaves, tree = flatten(args)
        leaves = _constrained(leaves, _per_leaf(in_specs, len(leaves), mesh, "in_specs"))
        outs, out_tree = flatten(fn(*unflatten(tree, leaves)))
        return unflatten(out_tree, _constrained(outs, _per_leaf(out_specs, len(outs), mesh, "out_specs")))

    return sharded


def _shard_function(fn: Function, mesh: Mesh, in_specs, out_specs) -> Function:
    specs_in = _per_leaf(in_specs, len(fn.params), mesh, "in_specs")
    specs_out = _per_leaf(out_specs, len(fn.results), mesh, "out_specs")

    def body(*params):
        outs = inline(fn, current_graph(), _constrained(params, specs_in))
        return unflatten(fn.out_tree, _constrained(outs, specs_out))

    names = [p.node.name for p in fn.params]
    return function(body, fn.in_types, name=f"shard_{fn.name}", arg_names=names)


def _per_leaf(specs, n: int, mesh: Mesh, what: str) -> list:
    """One spec (or None) per leaf from a single spec, None, or a list with one entry per leaf."""
    if specs is None or isinstance(specs, PartitionSpec):
        out = [specs] * n
    elif isinstance(specs, list | tuple):
        out = list(specs)
        if len(out) != n:
            raise GraphError(
                located(
                    f"shard: {what} has {len(out)} entries for {n} leaves (one spec or None each)",
                    user_location(),
                )
            )
        out = [None if s is None else as_spec(s) for s in out]
    else:
        raise GraphError(located(f"shard: {what} wants PartitionSpecs, got {specs!r}", user_location()))
    for s in out:
        if s is not None:
            try:
                check_axes(s, mesh, f"shard {what}")
            except GraphError as e:
                raise GraphError(located(str(e), user_location())) from None
    return out


def _constrained(values, specs) -> list:
    return [v if s is None else sharding_constraint(v, s) for v, s in zip(values, specs)]
