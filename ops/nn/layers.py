"""Layers that own Variables, and the graph's training switch (sg.nn, ops layer).

``dense`` makes its kernel and bias under a name scope (``fc1/kernel``), so
checkpoints and ``sess.get`` find them by name; that scope is the layer's
library call (graph/calls.py), as is each ``dropout``. ``training()`` is one bool
switch per graph: True in a run that writes variables (a train op),
False in every other run (evaluation needs no feed), and whatever a feed says
(``{sg.nn.training(): True}`` or ``{"training": True}``). ``dropout`` and
``batch_norm`` read it by default.
"""

from __future__ import annotations

import numbers

from ...graph import GraphError, Tensor, current_graph, dtypes, library, located, user_location
from ...graph.library import returns
from .. import numpy_like as snp
from ..key_array import raw
from ..numpy_like.core import asarray
from ..primitives.dot_general import dot_general
from ..random import bernoulli
from ..random.generator import default_generator
from ..state import Variable, training_switch
from . import initializers
from .reuse import layer_call

__all__ = ["dense", "dropout", "training"]


def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


def training() -> Tensor:
    """The current graph's training switch, a bool scalar named "training": True in runs that
    write Variables (a train op), False in all others, unless fed.

    So ``sess.run([loss, train], feeds)`` trains with dropout and batch statistics, and
    ``sess.run(acc, feeds)`` evaluates without them; ``sess.run(loss, {**feeds, "training": True})``
    asks for training behaviour in a run that updates nothing.
    """
    return _switch()


def _switch() -> Tensor:
    graph = current_graph()
    return graph.singleton("training", training_switch)


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
    reuse=None,
) -> Tensor:
    """A fully connected layer: ``activation(x @ kernel + bias)`` over x's last axis.

    Makes Variables ``<name>/kernel`` (in_features, units) and ``<name>/bias``
    (units,). A second layer with the same name in one scope does not share
    them: it is a new layer ``<name>_1`` (as TF1's tf.layers; a scope that any
    node already uses is not taken). ``reuse=True`` shares the variables of
    the layer ``<name>`` instead (their shapes must match; GraphError if
    there are none), ``reuse=sg.AUTO_REUSE`` shares them if they exist (see
    reuse.py). ``kernel_init`` defaults to glorot_uniform(). Leading dims of
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
    with layer_call("dense", name, reuse) as call:
        kernel = Variable(kernel_init, (in_features, int(units)), x.dtype, name="kernel")
        y = dot_general(x, kernel, ((x.ndim - 1,), (0,)))
        if use_bias:
            y = y + Variable(bias_init, (int(units),), x.dtype, name="bias")
        y = y if activation is None else activation(y)
        returns(call, y)
    return y


def _is_key(a) -> bool:
    a = raw(a)  # a typed key: its words
    return isinstance(a, Tensor) and a.dtype is dtypes.uint32 and tuple(a.shape) == (2,)


def _is_number(a) -> bool:
    return isinstance(a, numbers.Number) and not isinstance(a, bool)


@library()
def dropout(*args, rate=None, training=None, key=None, keep_prob=None, noise_shape=None) -> Tensor:
    """Inverted dropout: zero each entry with probability ``rate``, scale the rest by 1/(1 - rate).

    Two forms: ``dropout(key, x, rate)`` draws the mask from ``key`` (a
    uint32[2] Tensor: the same key, the same mask); ``dropout(x, rate)``
    draws from the graph's default Generator, a fresh mask every run,
    reproducible from the Session's seed. ``training``: None follows the
    graph's ``training()`` switch, or a Python bool, or a bool Tensor;
    when it is off the result is ``x``. ``rate`` is a Python number in [0, 1)
    or a float scalar Tensor (TF1's habit: a ``keep_prob`` placeholder fed
    0.5 to train and 1.0 to evaluate, ``rate=1 - keep_prob``), whose fed
    values must lie in [0, 1) too. TF1's ``keep_prob=`` keyword gives
    ``1 - rate`` instead. The second positional argument is the rate, as in
    flax and TF2: port TF1's ``tf.nn.dropout(h, keep_prob)`` as
    ``sg.nn.dropout(h, keep_prob=keep_prob)``. ``noise_shape`` (TF1's) is the shape of the mask,
    broadcast to x's (e.g. ``(batch, 1, features)``: one mask per sequence).
    ``h = sg.nn.dropout(h, 0.5)``
    """
    args = list(args)
    if len(args) >= 2 and _is_key(args[0]) and not _is_rate(args[1]):
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
    rate = _dropout_rate(rate, keep_prob)
    if key is not None and not _is_key(key):
        raise _error(f"dropout wants a key (sg.random.key, or uint32[2]), got {key!r}")
    shape = _noise_shape(x, noise_shape)
    if (_is_number(rate) and rate == 0) or training is False:
        return x
    if not x.dtype.is_floating:
        x = x.astype(dtypes.float32)
    training = training_flag(training, "dropout")
    if key is None:
        key = default_generator().key()
    keep = 1.0 - (asarray(rate, x.dtype) if _is_number(rate) else rate.astype(x.dtype))
    dropped = snp.where(bernoulli(key, keep, shape), x / keep, 0)
    return dropped if training is True else snp.where(training, dropped, x)


def _is_rate(a) -> bool:
    """A rate as dropout takes it: a Python number or a floating scalar Tensor."""
    return _is_number(a) or (isinstance(a, Tensor) and a.dtype.is_floating and a.ndim == 0)


def _dropout_rate(rate, keep_prob):
    """The drop probability from ``rate`` or TF1's ``keep_prob``: a float, or a float scalar Tensor."""
    if keep_prob is not None:
        if rate is not None:
            raise _error("dropout got both rate and keep_prob: give one (rate = 1 - keep_prob)")
        if _is_number(keep_prob):
            if not 0 < float(keep_prob) <= 1:
                raise _error(f"dropout wants keep_prob in (0, 1], got {keep_prob!r}")
            return 1.0 - float(keep_prob)
        rate = 1.0 - _rate_tensor(keep_prob, "keep_prob")
        return rate
    if rate is None:
        raise _error("dropout needs a rate (or TF1's keep_prob=)")
    if _is_number(rate):
        if not 0 <= float(rate) < 1:
            raise _error(f"dropout wants a rate in [0, 1), got {rate!r}")
        return float(rate)
    return _rate_tensor(rate, "rate")


def _rate_tensor(value, what: str) -> Tensor:
    if not isinstance(value, Tensor):
        raise _error(f"dropout wants {what} as a Python number or a float scalar Tensor, got {value!r}")
    if not value.dtype.is_floating or value.ndim != 0:
        raise _error(f"dropout wants {what} as a float scalar Tensor, got {value.type}")
    return value


def _noise_shape(x: Tensor, noise_shape) -> tuple:
    """The mask's shape: x's, or TF1's ``noise_shape``, which must broadcast to x's."""
    if noise_shape is None:
        return tuple(x.shape)
    shape = tuple(noise_shape)
    if len(shape) == x.ndim:
        shape = tuple(x.shape[i] if d is None else d for i, d in enumerate(shape))
    if len(shape) != x.ndim or any(d != 1 and d != x.shape[i] for i, d in enumerate(shape)):
        raise _error(f"dropout's noise_shape {tuple(noise_shape)} does not broadcast to x's shape {x.shape}")
    return shape
