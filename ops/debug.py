"""sg.debug and the host callbacks: print, callback, pure_callback, py_func (ops layer).

``sg.debug.print`` and ``sg.debug.callback`` are effects: they run whenever
the values they read are computed in a run (in every iteration of a loop
body that holds them), as jax.debug's do. ``sg.pure_callback`` (and TF1's
``sg.py_func`` / ``sg.numpy_function``) computes values with a Python
function. All of them call Python from the compiled program
(ops/primitives/host_callback.py): their functions get numpy arrays.
"""

from __future__ import annotations

import sys

import numpy as np

from ..graph import GraphError, Tensor, TensorType, dtypes, located, user_location
from ..graph.tree import describe, flatten, unflatten
from . import numpy_like as snp
from .numpy_like import asarray
from .primitives import host_callback as hc

VMAP_METHODS = hc.VMAP_METHODS


def _leaves(args, kwargs, what: str) -> tuple[list[Tensor], object]:
    """The tensors of ``(args, kwargs)`` (Python numbers and arrays made constants) and their nest."""
    leaves, tree = flatten((tuple(args), dict(kwargs)))
    tensors = []
    for leaf in leaves:
        if isinstance(leaf, Tensor):
            tensors.append(leaf)
            continue
        try:
            tensors.append(asarray(leaf))
        except GraphError:
            raise GraphError(
                located(
                    f"{what} takes Tensors, arrays and numbers, got {type(leaf).__name__}", user_location()
                )
            ) from None
    return tensors, tree


class _Printer:
    """Formats and prints one sg.debug.print's line: the user's file:line (and the lane of a
    vectorized value), then ``fmt`` filled with the values."""

    def __init__(self, fmt: str, tree, location):
        self.fmt, self.tree, self.location = fmt, tree, location

    def __repr__(self) -> str:
        return repr(self.fmt)

    def __call__(self, *arrays) -> None:
        args, kwargs = unflatten(self.tree, [_Shown(a) for a in arrays])
        lanes = hc.current_lanes()
        where = f"{self.location}" if self.location is not None else "<graph>"
        if lanes:
            where += f" [lane {', '.join(map(str, lanes))}]"
        sys.stdout.write(f"{where} {self.fmt.format(*args, **kwargs)}\n")
        sys.stdout.flush()


def print(fmt: str, *args, ordered: bool = False, **kwargs) -> None:  # noqa: A001
    """Print ``fmt.format(*args, **kwargs)`` with the values of ``args`` each time a run computes
    them (in every iteration of a loop body), prefixed with this line's file:line.

    ``ordered=True`` prints in graph order among the ordered effects of the same body. Under
    sg.grad it prints the forward values; under vectorize, one line per lane.

        sg.debug.print("h[0] = {}, mean {m}", h[0], m=h.mean())
    """
    if not isinstance(fmt, str):
        raise GraphError(located(f"sg.debug.print wants a format string first, got {type(fmt).__name__}",
                                 user_location()))  # fmt: skip
    location = user_location()
    tensors, tree = _leaves(args, kwargs, "sg.debug.print")
    _check_format(fmt, args, kwargs, location)
    hc.debug_callback(
        hc.HostFunction(_Printer(fmt, tree, location), "sg.debug.print", location), tensors, ordered
    )


def _check_format(fmt: str, args, kwargs, location) -> None:
    """A format that cannot take these arguments is a GraphError here, not an error at run time."""
    try:
        fmt.format(*(0 for _ in args), **dict.fromkeys(kwargs, 0))
    except (IndexError, KeyError) as e:
        raise GraphError(located(f"the format {fmt!r} needs {e!r}, which the arguments do not give",
                                 location)) from None  # fmt: skip
    except (ValueError, TypeError):
        pass  # a format spec for arrays (e.g. {:.3f}): checked when the values are there


class _Shown:
    """A value as a print shows it: ``{}`` gives numpy's str (a float32 scalar's own shortest
    digits, as jax prints them); a format spec (``{:.3f}``) applies to a scalar's element."""

    __slots__ = ("value",)

    def __init__(self, value: np.ndarray):
        self.value = value

    def __format__(self, spec: str) -> str:
        v = self.value
        if not spec:
            return str(v[()] if v.ndim == 0 else v)
        return format(v.item() if v.ndim == 0 else v, spec)

    def __str__(self) -> str:
        return format(self, "")

    __repr__ = __str__


_AS_RETURNED = ("as returned",)  # a _Caller's out_tree when the result is passed on as it is


class _Caller:
    """Calls a user's function with its arguments' nest rebuilt from numpy arrays; with
    ``out_tree`` (a treedef: None for one array), its result is flattened as the declared
    result types were, and a result of another structure is an error."""

    def __init__(self, fn, tree, out_tree=_AS_RETURNED):
        self.fn, self.tree, self.out_tree = fn, tree, out_tree

    def __repr__(self) -> str:
        return getattr(self.fn, "__qualname__", type(self.fn).__name__)

    def __call__(self, *arrays):
        args, kwargs = unflatten(self.tree, list(arrays))
        out = self.fn(*args, **kwargs)
        if self.out_tree is _AS_RETURNED:
            return out
        leaves, tree = flatten(out)
        if _loose(tree) != _loose(self.out_tree):
            raise TypeError(
                f"the callback returned {describe(tree)}, its result types declare {describe(self.out_tree)}"
            )
        return leaves


def _loose(treedef):
    """A treedef with lists and tuples taken as one kind (a function may return either)."""
    if treedef is None or treedef == ("none",):
        return treedef
    if treedef[0] is dict:
        return (dict, treedef[1], tuple(_loose(t) for t in treedef[2]))
    kind = tuple if treedef[0] is list else treedef[0]
    return (kind, tuple(_loose(t) for t in treedef[1]))


def callback(fn, *args, ordered: bool = False, **kwargs) -> None:
    """Call ``fn(*args, **kwargs)`` with the values as numpy arrays each time a run computes them
    (jax.debug.callback); its result is ignored.

        sg.debug.callback(lambda loss: history.append(float(loss)), loss)
    """
    if not callable(fn):
        raise GraphError(located(f"sg.debug.callback wants a function first, got {fn!r}", user_location()))
    location = user_location()
    tensors, tree = _leaves(args, kwargs, "sg.debug.callback")
    hc.debug_callback(hc.HostFunction(_Caller(fn, tree), "sg.debug.callback", location), tensors, ordered)


class _NumericsCheck:
    """Raises CheckFailed saying how many values of ``x`` are nan or infinite (called only when
    some are, or for a lane of a vectorized check, where its lane's predicate says so)."""

    def __init__(self, message: str):
        self.message = message

    def __repr__(self) -> str:
        return repr(self.message)

    def __call__(self, ok: np.ndarray, x: np.ndarray) -> None:
        if ok.all():
            return
        lanes = hc.current_lanes()
        counts = [f"{int(n)} {what}" for n, what in (
            (np.isnan(x).sum(), "nan"), (np.isposinf(x).sum(), "+inf"), (np.isneginf(x).sum(), "-inf")
        ) if n]  # fmt: skip
        lane = f" (lane {', '.join(map(str, lanes))})" if lanes else ""
        raise hc.CheckFailed(
            f"{self.message}{lane}: {', '.join(counts)} among {x.size} values of {x.dtype}{list(x.shape)}"
        )


class _AssertCheck:
    """Raises CheckFailed with the message filled with the values (called only when the
    predicate is False somewhere, or per lane of a vectorized check)."""

    def __init__(self, message: str, tree):
        self.message, self.tree = message, tree

    def __repr__(self) -> str:
        return repr(self.message)

    def __call__(self, ok: np.ndarray, *arrays) -> None:
        if ok.all():
            return
        args, kwargs = unflatten(self.tree, [_Shown(a) for a in arrays])
        lanes = hc.current_lanes()
        lane = f" (lane {', '.join(map(str, lanes))})" if lanes else ""
        raise hc.CheckFailed(self.message.format(*args, **kwargs) + lane)


def check_numerics(x, message: str):
    """``x``, checked when the program runs: a run in which it holds a nan or an infinity fails
    with an ExecutionError naming ``message``, the counts and this line, and leaves the Session's
    variables as they were (TF1's tf.debugging.check_numerics; jax's checkify float checks).

    It runs whenever x is computed (also in loop bodies, gradients and under vectorize), whether
    or not its result is used; a passing check costs a reduction, not a call to Python.

        sg.debug.check_numerics(loss, "loss")
    """
    location = user_location()
    if not isinstance(message, str):
        raise GraphError(
            located(f"check_numerics wants a message string, got {type(message).__name__}", location)
        )
    x = x if isinstance(x, Tensor) else asarray(x)
    if not x.dtype.is_floating and not x.dtype.is_complex:
        raise GraphError(located(f"check_numerics wants a floating tensor, got {x.type}: integers are always finite",
                                 location))  # fmt: skip
    ok = snp.isfinite(x)
    check = hc.HostFunction(_NumericsCheck(message), "sg.debug.check_numerics", location)
    hc.debug_callback(check, [ok, x], guarded=True)
    return x


def assert_(predicate, message: str, *fmt_args, **fmt_kwargs) -> None:
    """Check ``predicate`` (a bool Tensor; every element must hold) when the program runs: a run
    where it fails raises an ExecutionError with ``message.format(*fmt_args, **fmt_kwargs)`` (the
    values as computed), naming this line; the Session's variables are left as they were (jax's
    checkify.check).

        sg.debug.assert_(snp.all(p >= 0), "p has negative entries: {}", p)
    """
    location = user_location()
    if not isinstance(message, str):
        raise GraphError(located(f"assert_ wants a message string, got {type(message).__name__}", location))
    pred = predicate if isinstance(predicate, Tensor) else asarray(predicate)
    if pred.dtype != dtypes.bool_:
        raise GraphError(located(f"assert_ wants a bool predicate, got {pred.type}", location))
    tensors, tree = _leaves(fmt_args, fmt_kwargs, "sg.debug.assert_")
    _check_format(message, fmt_args, fmt_kwargs, location)
    check = hc.HostFunction(_AssertCheck(message, tree), "sg.debug.assert_", location)
    hc.debug_callback(check, [pred, *tensors], guarded=True)


def _result_types(result_types, what: str, location) -> tuple[list[TensorType], object]:
    leaves, tree = flatten(result_types, is_leaf=lambda x: isinstance(x, TensorType) or hasattr(x, "dtype"))
    types = []
    for leaf in leaves:
        if isinstance(leaf, TensorType):
            types.append(leaf)
        elif hasattr(leaf, "shape") and hasattr(leaf, "dtype"):
            types.append(TensorType(tuple(leaf.shape), dtypes.dtype(leaf.dtype)))
        else:
            raise GraphError(located(f"{what} wants result types (sg.TensorType, or anything with shape and "
                                     f"dtype), got {leaf!r}", location))  # fmt: skip
    return types, tree


def pure_callback(fn, result_types, *args, vmap_method: str | None = None, **kwargs):
    """The results of ``fn(*args, **kwargs)``, a Python function of numpy arrays without side
    effects, called when the program runs (jax.pure_callback).

    ``result_types``: a TensorType (or a nest of them; anything with shape and dtype) for what
    ``fn`` returns; dims may be symbolic. ``vmap_method`` says how vectorize calls it:
    "sequential" (once per lane), "expand_dims" (once, unbatched arguments with a size-1
    leading axis), "broadcast_all" (once, every argument broadcast along the batch); None
    refuses vectorize. It has no gradient unless wrapped in sg.custom_vjp.

        z = sg.pure_callback(scipy.special.ellipk, sg.TensorType(("batch", 2), sg.float32), m)
    """
    location = user_location()
    if not callable(fn):
        raise GraphError(located(f"sg.pure_callback wants a function first, got {fn!r}", location))
    if vmap_method is not None and vmap_method not in VMAP_METHODS:
        raise GraphError(located(f"sg.pure_callback: vmap_method must be one of {VMAP_METHODS} or None, "
                                 f"got {vmap_method!r}", location))  # fmt: skip
    types, out_tree = _result_types(result_types, "sg.pure_callback", location)
    tensors, tree = _leaves(args, kwargs, "sg.pure_callback")
    function = hc.HostFunction(_Caller(fn, tree, out_tree), "sg.pure_callback", location)
    outs = hc.pure_callback(function, types, tensors, vmap_method)
    return unflatten(out_tree, outs)


def py_func(func, inp, Tout, stateful: bool = True, name: str | None = None):  # noqa: N803  (TF1's name)
    """TF1's ``tf.py_func``: ``func`` called on the values of the tensors ``inp`` as numpy arrays.

    ``Tout``: a dtype (or a list of them: then a list comes back), each output taking the shape
    of the first input (TF1 leaves it unknown; most programs then set it to the input's), or
    sg.TensorTypes with the shapes. No gradient (as in TF1); ``stateful`` is accepted for TF1's
    signature (the call is made whenever its result is needed).
    """
    location = user_location()
    inputs = [
        t if isinstance(t, Tensor) else asarray(t) for t in (inp if isinstance(inp, list | tuple) else [inp])
    ]
    single = not isinstance(Tout, list | tuple)
    types = [_tout_type(t, inputs, location) for t in ([Tout] if single else Tout)]
    function = hc.HostFunction(_Caller(func, flatten((tuple(inputs), {}))[1]), "sg.py_func", location)
    outs = hc.pure_callback(function, types, inputs, "sequential")
    return outs[0] if single else list(outs)


def _tout_type(t, inputs, location) -> TensorType:
    if isinstance(t, TensorType):
        return t
    try:
        dt = dtypes.dtype(t)
    except (GraphError, TypeError, ValueError):
        raise GraphError(
            located(f"py_func's Tout wants dtypes or sg.TensorTypes, got {t!r}", location)
        ) from None
    if not inputs:
        raise GraphError(located("py_func with a dtype for Tout takes its shape from the first input: give "
                                 "sg.TensorTypes when there is no input", location))  # fmt: skip
    return TensorType(inputs[0].shape, dt)


numpy_function = py_func


__all__ = ["assert_", "callback", "check_numerics", "numpy_function", "print", "pure_callback", "py_func"]
