"""Checking feeds against placeholders and binding symbolic dims (backend).

A wrong feed is reported here, in Python, and never reaches XLA: a missing
placeholder, a name that is not in the graph, a rank or size mismatch, a
dtype that numpy's same_kind casting would not allow, a value that the cast
would change (an integer out of range, a finite float overflowing), a ragged
list, or one symbol bound to two sizes.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import numpy as np

from ..graph import FeedError, GraphError, Tensor, located, user_location
from ..graph.dims import evaluate, linear, substitute, symbols
from ..ops.key_array import KeyArray
from . import pjrt


def one_of(feeds, feed_dict):
    """The feeds of a run given as ``feed_dict=`` (TF1's keyword); FeedError if ``feeds`` came too."""
    if feeds is not None:
        raise FeedError(
            located(
                "sess.run got feeds twice, both positionally (feeds) and as feed_dict=: give one dict",
                user_location(),
            )
        )
    return feed_dict


def as_mapping(feeds) -> Mapping:
    """``feeds`` if it is a mapping {placeholder or name: value}; otherwise a FeedError that says what
    came instead. A list of (tensor, value) pairs is refused too, as TF1 does: ``dict(pairs)`` is
    one call away, and a run's feeds are keyed by tensor."""
    if isinstance(feeds, Mapping):
        return feeds
    if isinstance(feeds, np.ndarray):
        got = f"got a numpy array {feeds.dtype}{list(feeds.shape)}"
    elif (
        isinstance(feeds, list | tuple)
        and feeds
        and all(isinstance(p, list | tuple) and len(p) == 2 for p in feeds)
    ):
        got = f"got a {type(feeds).__name__} of {len(feeds)} (tensor, value) pairs: write dict(...) of them"
    else:
        got = f"got {type(feeds).__name__} {_short(feeds)}"
    raise FeedError(
        located(f"sess.run's feeds are a dict {{placeholder or name: value}}; {got}", user_location())
    )


def resolve(graph, key) -> Tensor:
    """A feed or fetch key (Tensor or name) as a Tensor of ``graph``; a typed key array
    (sg.random's KeyArray) stands for its uint32 words, which a fed host KeyArray fills."""
    if isinstance(key, KeyArray):
        key = key.data
    if isinstance(key, Tensor):
        if key.graph is not graph:
            raise FeedError(f"tensor {key.name} belongs to another graph ({key.graph.name!r})")
        return key
    if isinstance(key, str):
        try:
            return graph.tensor(key)
        except GraphError as e:
            raise FeedError(str(e)) from None
    raise FeedError(f"feeds and fetches are Tensors or names, got {type(key).__name__}")


def convert(tensor: Tensor, value, stacked: int = 0) -> np.ndarray:
    """The fed value as a numpy array of the tensor's dtype (same_kind casting).

    A cast that would change a value is refused rather than done: integers
    outside the target's range (they would wrap around) and finite floats
    that overflow to inf or nan. ``stacked``: the value stacks feeds along
    that many leading axes (``steps=k``); the caller checks its rank.
    """
    ty = tensor.node.out_types[tensor.index]
    want = ty.dtype.np
    if type(value) is not np.ndarray and not ty.shape and not stacked:
        arr = _python_scalar(value, want)
        if arr is not None:
            return arr
    arr = value if type(value) is np.ndarray else _as_array(tensor, value)
    if arr.dtype is want and arr.ndim == len(ty.shape) + stacked:
        return arr
    if arr.dtype != want:
        arr = _cast(tensor, arr, want)
    if not stacked and arr.ndim != len(tensor.type.shape):
        raise wrong_rank(tensor, arr.shape)
    return arr


def wrong_rank(tensor: Tensor, shape) -> FeedError:
    """The FeedError for a feed of ``shape`` whose rank is not the placeholder's."""
    return _error(tensor, f"feed for {tensor.name} has shape {shape}, expected {_spelled(tensor)}")


def _python_scalar(value, want: np.dtype) -> np.ndarray | None:
    """A Python float or int as a 0-d array of ``want`` when that plainly keeps its value (the
    common scalar feed, without numpy's casting checks); None sends it the general way, which
    converts or reports it."""
    kind = want.kind
    if type(value) is float and kind in "fc":
        if not abs(value) > _finite_max(want):  # NaN and inf pass: they stay what they are
            return np.asarray(value, want)
    elif type(value) is int and abs(value) < 2**63:
        if kind in "iu":
            info = _int_range(want)
            if info.min <= value <= info.max:
                return np.asarray(value, want)
        elif kind in "fc" and abs(value) <= _finite_max(want):
            return np.asarray(value, want)
    return None


@functools.cache
def _finite_max(dt: np.dtype) -> float:
    return float(np.finfo(dt).max)


@functools.cache
def _int_range(dt: np.dtype) -> np.iinfo:
    return np.iinfo(dt)


def _as_array(tensor: Tensor, value) -> np.ndarray:
    """``np.asarray(value)``, refusing what numpy cannot make a numeric array of."""
    if pjrt.is_device_array(value):  # a device array (a feed source's batch): its value, on the host
        return pjrt.to_numpy(value)
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as e:  # a ragged nest of lists, mostly
        reason = str(e).split(". ", 1)[-1]
        raise _error(
            tensor,
            f"feed for {tensor.name} is not a rectangular array ({reason}); expected {_spelled(tensor)}",
        ) from None
    if arr.dtype == object:
        raise _error(
            tensor,
            f"feed for {tensor.name} does not convert to an array of numbers: got {_short(value)} "
            f"(a ragged list, an int beyond 64 bits, or objects?); expected {_spelled(tensor)}",
        )
    return arr


def _cast(tensor: Tensor, arr: np.ndarray, want: np.dtype) -> np.ndarray:
    """``arr`` as ``want`` under same_kind casting, if no value changes on the way."""
    if not np.can_cast(arr.dtype, want, casting="same_kind"):
        raise _error(
            tensor,
            f"feed for {tensor.name} has dtype {arr.dtype}, which does not cast to "
            f"{tensor.dtype.name} (same_kind); convert it first",
        )
    if arr.dtype.kind in "iu" and want.kind in "iu":
        _check_int_range(tensor, arr, want)
    with np.errstate(over="ignore", invalid="ignore"):  # overflow is reported below, as a FeedError
        out = arr.astype(want)
    if tensor.dtype.is_inexact and not np.can_cast(arr.dtype, want, casting="safe"):
        overflow = np.isfinite(arr) & ~np.isfinite(out)
        if overflow.any():
            first = arr[overflow].flat[0].item()
            raise _error(
                tensor,
                f"feed for {tensor.name} has {arr.dtype} values too large for {tensor.dtype.name} "
                f"(e.g. {first!r} becomes {out[overflow].flat[0]}); scale or convert it first",
            )
    return out


def _check_int_range(tensor: Tensor, arr: np.ndarray, want: np.dtype) -> None:
    """FeedError if an integer feed has values ``want`` cannot hold (astype would wrap them)."""
    have, info = np.iinfo(arr.dtype), np.iinfo(want)
    if arr.size == 0 or (have.min >= info.min and have.max <= info.max):
        return
    lo, hi = int(arr.min()), int(arr.max())
    if lo < info.min or hi > info.max:
        raise _error(
            tensor,
            f"feed for {tensor.name} has {arr.dtype} values in [{lo}, {hi}], outside the range of "
            f"{tensor.dtype.name} [{info.min}, {info.max}]; they would wrap around: convert them "
            "first or give the placeholder a wider dtype",
        )


def _short(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def bind(fed: list[tuple[Tensor, np.ndarray]]) -> dict[str, int]:
    """Symbol -> size from the feeds; FeedError on any mismatch.

    A dim that is one symbol binds it; then a dim ``k*s + c`` whose only unbound
    symbol is s solves for it (repeated while that binds more); then every dim of
    every feed must evaluate to the fed size. Errors name the symbol, the feeds
    that disagree and their shapes.
    """
    bindings: dict[str, int] = {}
    source: dict[str, tuple] = {}  # symbol -> (tensor, fed shape) that bound it
    for t, arr in fed:
        for d, n in zip(t.type.shape, arr.shape):
            if isinstance(d, int):
                if d != n:
                    raise _error(t, f"feed for {t.name} has shape {arr.shape}, expected {_spelled(t)}")
            elif linear(d) == (d, 1, 0):
                _bind_symbol(bindings, source, d, n, t, arr.shape)
    _solve_linear(fed, bindings, source)
    for t, arr in fed:
        _check_feed(t, arr.shape, bindings, source)
    return bindings


def _bind_symbol(bindings, source, sym: str, n: int, t: Tensor, shape) -> None:
    if sym in bindings and bindings[sym] != n:
        first, first_shape = source[sym]
        raise _error(
            t,
            f"dim {sym} is {bindings[sym]} in the feed for {first.name} but {n} in the feed for {t.name}: "
            f"symbol {sym} cannot be both (shape {first_shape} fed for {_spelled(first)}, "
            f"shape {shape} fed for {_spelled(t)})",
        )
    bindings[sym], source[sym] = n, (t, shape)


def _solve_linear(fed, bindings, source) -> None:
    """Bind the symbols of dims ``k*s + c`` (s the one unbound symbol) from their fed sizes."""
    progress = True
    while progress:
        progress = False
        for t, arr in fed:
            for d, n in zip(t.type.shape, arr.shape):
                solved = linear(substitute(d, bindings)) if isinstance(d, str) else None
                if solved is None:
                    continue
                sym, k, c = solved
                value, rest = divmod(n - c, k)
                if rest or value < 0:
                    raise _error(
                        t,
                        f"feed for {t.name} has shape {arr.shape}, expected {_spelled(t)}: dim {d} cannot be "
                        f"{n} for any size {sym} >= 0",
                    )
                _bind_symbol(bindings, source, sym, value, t, arr.shape)
                progress = True


def _check_feed(t: Tensor, shape, bindings, source) -> None:
    for d, n in zip(t.type.shape, shape):
        if isinstance(d, int):
            continue
        unknown = [s for s in symbols(d) if s not in bindings]
        if unknown:
            raise _error(
                t,
                f"symbol{'s' if len(unknown) > 1 else ''} {', '.join(unknown)} of dim {d} in {t.name} {_spelled(t)} could not be determined from "
                "the feeds: feed a tensor with a dim that is the symbol alone (or k*symbol + c)",
            )
        want = evaluate(d, bindings)
        if want != n:
            known = "; ".join(
                f"{s} = {bindings[s]} from the feed for {source[s][0].name} (shape {source[s][1]})"
                for s in symbols(d)
            )
            raise _error(
                t,
                f"feed for {t.name} has shape {shape}, expected {_spelled(t)}: dim {d} is {n} in the feed but "
                f"{want} with {known}",
            )


def _spelled(t: Tensor) -> str:
    return "(" + ", ".join(str(d) for d in t.type.shape) + ")" + f" {t.dtype.name}"


def _error(t: Tensor, message: str) -> FeedError:
    """A FeedError about the feed of ``t``, led by the user's file:line that made ``t``."""
    return FeedError(located(message, t.node.location))
