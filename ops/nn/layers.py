"""Layers that own Variables, and the graph's training switch (sg.nn, ops layer).

``dense`` makes its kernel and bias under a name scope (``fc1/kernel``), so
checkpoints and ``sess.get`` find them by name; that scope is the layer's
library call (graph/calls.py), as is each ``dropout``. ``training()`` is one bool
placeholder per graph, True unless fed: ``dropout`` reads it by default and
evaluation feeds ``{sg.nn.training(): False}`` (or ``{"training": False}``).
"""

from __future__ import annotations

import numbers

from ...graph import GraphError, Tensor, current_graph, dtypes, library, library_call, located, user_location
from ...graph.library import returns
from .. import numpy_like as snp
from ..linalg import dot_general
from ..numpy_like.core import asarray
from ..random import bernoulli
from ..random.generator import default_generator
from ..state import Variable, placeholder_with_default
from . import initializers

__all__ = ["dense", "dropout", "training"]


def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


def training() -> Tensor:
    """The current graph's training switch: a bool scalar placeholder named "training", True unless fed.

    ``sess.run(acc, {sg.nn.training(): False})`` evaluates with dropout off.
    """
    return _switch()


def _switch() -> Tensor:
    graph = current_graph()
    return graph.singleton("training", lambda: placeholder_with_default(True, name="training"))


def training_flag(training, who: str):
    """``training`` as layers take it: None follows ``training()``; a Python bool stays one; a Tensor
    must be a bool scalar."""
    if training is None:
        return _switch()
    if training is True or training is False:
        return training
    training = asarray(training)
    if training.dtype is not dtypes.bool_ or training.ndim != 0:
        raise _error(f"{who} wants training to be a bool scalar, got {training.type}")
    return training


def dense(
    x,
    units: int,
    name: str = "dense",
    activation=None,
    use_bias: bool = True,
    kernel_init=None,
    bias_init=initializers.zeros,
) -> Tensor:
    """A fully connected layer: ``activation(x @ kernel + bias)`` over x's last axis.

    Makes Variables ``<name>/kernel`` (in_features, units) and ``<name>/bias``
    (units,); a second layer with the same name in one scope becomes
    ``<name>_1`` (a scope that any node already uses is not taken). ``kernel_init`` defaults to glorot_uniform(). Leading dims of
    ``x`` may be symbolic; the last must be an int.
    ``h = sg.nn.dense(x, 128, name="fc1", activation=sg.nn.relu)``
    """
    x = asarray(x)
    if x.ndim < 1:
        raise _error(f"dense wants an input of rank >= 1, got {x.type}")
    in_features = x.shape[-1]
    if not isinstance(in_features, int):
        raise _error(f"dense wants a static last dim (the input features), got {x.type}")
    if not isinstance(units, numbers.Integral) or isinstance(units, bool) or units < 1:
        raise _error(f"dense wants a positive int number of units, got {units!r}")
    if not x.dtype.is_floating:
        x = x.astype(dtypes.float32)
    kernel_init = initializers.glorot_uniform() if kernel_init is None else kernel_init
    with library_call("dense", name) as call:
        kernel = Variable(kernel_init, (in_features, int(units)), x.dtype, name="kernel")
        y = dot_general(x, kernel, ((x.ndim - 1,), (0,)))
        if use_bias:
            y = y + Variable(bias_init, (int(units),), x.dtype, name="bias")
        y = y if activation is None else activation(y)
        returns(call, y)
    return y


def _is_key(a) -> bool:
    return isinstance(a, Tensor) and a.dtype is dtypes.uint32 and tuple(a.shape) == (2,)


def _is_number(a) -> bool:
    return isinstance(a, numbers.Number) and not isinstance(a, bool)


@library()
def dropout(*args, rate=None, training=None, key=None) -> Tensor:
    """Inverted dropout: zero each entry with probability ``rate``, scale the rest by 1/(1 - rate).

    Two forms: ``dropout(key, x, rate)`` draws the mask from ``key`` (a
    uint32[2] Tensor: the same key, the same mask); ``dropout(x, rate)``
    draws from the graph's default Generator, a fresh mask every run,
    reproducible from the Session's seed. ``training``: None follows the
    graph's ``training()`` switch, or a Python bool, or a bool Tensor;
    when it is off the result is ``x``. ``rate`` is a Python number in [0, 1).
    ``h = sg.nn.dropout(h, 0.5)``
    """
    args = list(args)
    if len(args) >= 2 and _is_key(args[0]) and not _is_number(args[1]):
        if key is not None:
            raise _error("dropout got a key twice: as its first argument and as key=")
        key = args.pop(0)
    if not args or len(args) > 2:
        raise _error(f"dropout wants (x, rate) or (key, x, rate), got {len(args)} positional arguments")
    x = asarray(args[0])
    if len(args) == 2:
        if rate is not None:
            raise _error("dropout got rate twice: positionally and as rate=")
        rate = args[1]
    if rate is None:
        raise _error("dropout needs a rate")
    if not _is_number(rate) or not 0 <= float(rate) < 1:
        raise _error(f"dropout wants a Python number rate in [0, 1), got {rate!r}")
    rate = float(rate)
    if key is not None and not _is_key(key):
        raise _error(f"dropout wants a key of uint32[2], got {key!r}")
    if rate == 0 or training is False:
        return x
    training = training_flag(training, "dropout")
    if key is None:
        key = default_generator().key()
    if not x.dtype.is_floating:
        x = x.astype(dtypes.float32)
    keep_prob = 1.0 - rate
    dropped = snp.where(bernoulli(key, asarray(keep_prob, x.dtype), x.shape), x / keep_prob, 0)
    return dropped if training is True else snp.where(training, dropped, x)
