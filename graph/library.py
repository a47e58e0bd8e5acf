"""``library``: the decorator that makes each call of a library function one group (graph layer).

    @library()
    def softmax_cross_entropy(logits, labels): ...

runs the function inside ``library_call`` (graph.py): a name scope of its
own (the function's name, made unique: ``softmax_cross_entropy_1``) that
the graph records as a Call, with the Tensors the function returned as the
call's outputs. Listings then print it as one line and drawings as one box
(calls.py). Outside a graph the function runs as it is (and says itself
that it needs one).
"""

from __future__ import annotations

import functools

from .graph import building, library_call
from .tensor import Tensor
from .tree import flatten


def returns(call, value) -> None:
    """Record the Tensors in ``value`` (any nest) as what ``call`` returned."""
    leaves, _ = flatten(value)
    call.outputs = tuple(t for t in leaves if isinstance(t, Tensor))


def library(fn: str | None = None, name: str | None = None, named: bool = False):
    """Decorate a library function: ``fn`` is how listings name it (default: its ``__name__``),
    ``name`` its scope (default: its ``__name__``); ``named``: the call's own ``name=`` keyword,
    when given, is its scope (TF1's spelling, ``tf.nn.nce_loss(..., name="nce")``)."""

    def wrap(f):
        label = fn or f.__name__
        scope = name or f.__name__

        @functools.wraps(f)
        def call_it(*args, **kwargs):
            if not building():
                return f(*args, **kwargs)
            with library_call(label, (named and kwargs.get("name")) or scope) as call:
                out = f(*args, **kwargs)
                returns(call, out)
            return out

        return call_it

    return wrap


__all__ = ["library", "returns"]
