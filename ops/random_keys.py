"""Threefry-2x32 keys: key, split, fold_in and bits (sg.random, ops layer).

A raw key (``PRNGKey``) is a uint32[2] Tensor, the raw key of jax's default
"threefry2x32" implementation; a typed key (``key``) is a KeyArray of dtype
key<fry> over the same words (key_array.py). Every function here takes both;
split, fold_in and clone give back the kind they got. key_data and
wrap_key_data convert between the two. Everything here hashes with the threefry2x32 primitive
(threefry.py) and follows jax's partitionable construction (its default
since 0.5): the counter of element i of a draw of any shape is the pair
(i >> 32, i & 0xffffffff) of its row-major flat index, hashed under the key.
So split, fold_in and bits give the same numbers as jax.random with the
same key. key, split, fold_in and bits are library calls (graph/calls.py).
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..graph import Tensor, dtypes, library
from ..graph.dims import check_shape
from .key_array import KEY_IMPLS, KeyArray, KeyDType
from .numpy_like.core import error
from .primitives import compare, constants, elementwise, slicing
from .primitives import shape as shape_ops
from .primitives.threefry import threefry2x32

_U32, _U64 = dtypes.uint32, dtypes.uint64


def full(value, dtype, shape) -> Tensor:
    """A Tensor of ``shape`` (symbols allowed) filled with ``value`` of ``dtype``."""
    c = constants.constant(np.asarray(value, dtypes.dtype(dtype).np))
    return c if tuple(shape) == () else shape_ops.broadcast_in_dim(c, tuple(shape), ())


def elementwise_op(op, *xs) -> Tensor:
    """Bind an elementwise primitive on operands of one shape and dtype (no promotion)."""
    return elementwise.apply(op, *xs)


# -- keys ----------------------------------------------------------------------
_WORDS = "random key words"  # a graph memo: a key Tensor -> its two uint32 scalar words


def _key_halves(key, who: str) -> tuple[Tensor, Tensor]:
    if isinstance(key, KeyArray):
        if key.shape != ():
            raise error(f"{who} wants a single key, got a key array of shape {key.shape} ({key.dtype})")
        key = key.data
    if not isinstance(key, Tensor):
        arr = np.asarray(key)
        if arr.dtype != np.uint32 or arr.shape != (2,):
            raise error(f"{who} wants a key: a uint32[2] array, got {arr.dtype}{list(arr.shape)}")
        key = constants.constant(arr)
    if key.dtype is not _U32 or tuple(key.shape) != (2,):
        raise error(f"{who} wants a key: a uint32[2] Tensor (from sg.random.key), got {key.type}")
    return key_words(key)


def key_words(key: Tensor) -> tuple[Tensor, Tensor]:
    """The two uint32 scalar words of a key Tensor: those it was made of if it was made by
    ``key``, ``fold_in`` or ``remember_words``, else sliced out of it."""
    memo = key.graph.memo(_WORDS)
    if key in memo:
        return memo[key]
    return tuple(shape_ops.reshape(slicing.slice(key, (i,), (i + 1,)), ()) for i in (0, 1))


def remember_words(key: Tensor) -> None:
    """Slice ``key``'s words now, where it is made, for every later draw from it to reuse
    (the Session's seed: each Variable folds its key out of it)."""
    key.graph.memo(_WORDS)[key] = key_words(key)


def _pair(hi: Tensor, lo: Tensor) -> Tensor:
    key = slicing.concatenate([shape_ops.reshape(hi, (1,)), shape_ops.reshape(lo, (1,))], 0)
    key.graph.memo(_WORDS)[key] = (hi, lo)
    return key


def _seed_words(seed, who: str) -> tuple[Tensor, Tensor]:
    """The (high, low) uint32 words of an integer seed, as jax's threefry_seed."""
    if isinstance(seed, Tensor):
        if seed.ndim != 0 or seed.dtype.kind not in "iu":
            raise error(f"{who} wants an integer scalar seed, got {seed.type}")
        if seed.dtype.np.itemsize < 8:
            return full(0, _U32, ()), compare.convert(seed, _U32)
        hi = elementwise_op(elementwise.shift_right_logical, seed, full(32, seed.dtype, ()))
        return compare.convert(hi, _U32), compare.convert(seed, _U32)
    hi, lo = seed_words(seed, who)
    return full(hi, _U32, ()), full(lo, _U32, ())


def seed_words(seed, who: str = "key") -> tuple[int, int]:
    """The (high, low) words of a Python/numpy integer seed (the Session's root key uses them too)."""
    if isinstance(seed, np.ndarray | np.generic) and seed.ndim == 0 and seed.dtype.kind in "iu":
        seed = int(seed)
    if not isinstance(seed, numbers.Integral) or isinstance(seed, bool):
        raise error(f"{who} wants an integer seed, got {seed!r}")
    seed = int(seed)
    if not -(2**63) <= seed < 2**64:
        raise error(f"{who} wants a seed in [-2**63, 2**64), got {seed}")
    # Seeds that fit 32 bits (int32 or uint32) give [0, seed] like jax.random.PRNGKey;
    # wider ones are read as 64-bit words, like jax with x64 enabled.
    s = seed % 2**32 if -(2**31) <= seed < 2**32 else seed % 2**64
    return s >> 32, s & 0xFFFFFFFF


def _impl_name(impl, dtype=None, who: str = "key") -> str:
    """The generator's name from jax's ``impl=`` (a name, or key_impl's answer) or a key dtype."""
    if dtype is not None:
        if not isinstance(dtype, KeyDType):
            raise error(f"{who} wants a key dtype (sg.random.key_dtype()) as dtype=, got {dtype!r}")
        impl = dtype.impl if impl is None else impl
    if isinstance(impl, KeyDType):
        impl = impl.impl
    impl = "threefry2x32" if impl is None else impl
    if impl not in KEY_IMPLS:
        raise error(
            f"{who}: impl {impl!r} is not built here; the PRNG implementations are {sorted(KEY_IMPLS)}"
        )
    return impl


@library()
def PRNGKey(seed, impl=None) -> Tensor:  # noqa: N802  (jax's name)
    """A raw PRNG key (uint32[2]) from an integer seed: ``[0, seed]`` for 32-bit seeds.

    ``seed`` is a Python/numpy int or an integer scalar Tensor. Like
    ``jax.random.PRNGKey`` (raw threefry keys): a 64-bit seed fills both words.
    ``k = sg.random.PRNGKey(0)``
    """
    _impl_name(impl, who="PRNGKey")
    return _pair(*_seed_words(seed, "PRNGKey"))


@library()
def key(seed, impl=None, dtype=None) -> KeyArray:
    """A typed PRNG key (a KeyArray of shape () and dtype key<fry>) from an integer seed.

    Its words are those of ``PRNGKey(seed)``, as ``jax.random.key``'s are;
    every sampler takes it, ``key_data`` gives the words.
    ``k1, k2 = sg.random.split(sg.random.key(0))``
    """
    name = _impl_name(impl, dtype)
    return KeyArray(_pair(*_seed_words(seed, "key")), name)


def _static_size(shape, who: str) -> int:
    if not all(isinstance(d, int) for d in shape):
        raise error(f"{who} wants a static shape, got {shape}")
    return int(np.prod(shape, dtype=np.int64))


def _counters(shape) -> tuple[Tensor, Tensor]:
    """(hi, lo) uint32 words of the row-major flat index of each element of ``shape``."""
    size = math.prod(shape) if all(isinstance(d, int) for d in shape) else None
    if size is not None and size < 2**32:  # the common case in four nodes: high words 0
        flat = constants.iota(_U32, (size,))
        return full(0, _U32, shape), flat if len(shape) == 1 else shape_ops.reshape(flat, tuple(shape))
    flat = None
    stride = None  # uint64 scalar Tensor, or an int while every dim is static
    static = 1
    for axis in reversed(range(len(shape))):
        term = constants.iota(_U64, shape, axis)
        if stride is not None or static != 1:
            s = full(static, _U64, ()) if stride is None else stride
            term = elementwise_op(elementwise.mul, term, shape_ops.broadcast_in_dim(s, shape, ()))
        flat = term if flat is None else elementwise_op(elementwise.add, flat, term)
        if axis == 0:
            break  # the outermost axis: no stride past it is needed
        d = shape[axis]
        if isinstance(d, int) and stride is None:
            static *= d
        else:
            size = constants.dim_size(term, axis, _U64)
            base = full(static, _U64, ()) if stride is None else stride
            stride = elementwise_op(elementwise.mul, base, size)
    hi = elementwise_op(elementwise.shift_right_logical, flat, full(32, _U64, shape))
    return compare.convert(hi, _U32), compare.convert(flat, _U32)


def _hash(key, shape, who: str) -> tuple[Tensor, Tensor]:
    k1, k2 = _key_halves(key, who)
    shape = check_shape(shape)
    if shape == ():
        a, b = threefry2x32(k1, k2, *_counters((1,)))
        return shape_ops.reshape(a, ()), shape_ops.reshape(b, ())
    return threefry2x32(k1, k2, *_counters(shape))


@library()
def split(key, num=2) -> Tensor:
    """``num`` new keys from ``key``: uint32[num, 2] (``num`` may be a shape tuple).

    ``k1, k2 = sg.random.split(key)`` (iterating a Tensor unpacks its first dim).
    """
    shape = (num,) if isinstance(num, numbers.Integral) else tuple(num)
    _static_size(shape, "split")
    a, b = _hash(key, shape, "split")
    n = len(shape)
    parts = [shape_ops.broadcast_in_dim(w, (*shape, 1), tuple(range(n))) for w in (a, b)]
    return _like(key, slicing.concatenate(parts, n))


def _like(key, words: Tensor):
    """``words`` (uint32[..., 2]) as the same kind of key as ``key``: typed for a typed one."""
    return KeyArray(words, key.impl) if isinstance(key, KeyArray) else words


@library()
def fold_in(key, data) -> Tensor:
    """A new key from ``key`` and an integer ``data`` (as jax.random.fold_in).

    ``data`` is a Python int or an integer scalar Tensor, taken modulo 2**32.
    """
    k1, k2 = _key_halves(key, "fold_in")
    if isinstance(data, Tensor):
        if data.ndim != 0 or data.dtype.kind not in "iu":
            raise error(f"fold_in wants an integer scalar data, got {data.type}")
        lo = compare.convert(data, _U32)
    else:
        if not isinstance(data, numbers.Integral | np.integer) or isinstance(data, bool):
            raise error(f"fold_in wants integer data, got {data!r}")
        lo = full(int(data) % 2**32, _U32, ())
    a, b = threefry2x32(k1, k2, full(0, _U32, ()), lo)
    return _like(key, _pair(a, b))


@library()
def bits(key, shape=(), dtype=dtypes.uint32) -> Tensor:
    """Uniform random bits of an unsigned ``dtype`` (uint8/16/32/64) and ``shape``.

    ``shape`` may hold symbols (``("batch", 16)``): they are bound when the
    Session runs. Equal to ``jax.random.bits`` for the same key.
    """
    dt = dtypes.dtype(dtype)
    if dt.kind != "u":
        raise error(f"bits wants an unsigned dtype (uint8, uint16, uint32, uint64), got {dt.name}")
    a, b = _hash(key, shape, "bits")
    if dt is _U64:
        hi = elementwise_op(elementwise.shift_left, compare.convert(a, _U64), full(32, _U64, a.shape))
        return elementwise_op(elementwise.or_, hi, compare.convert(b, _U64))
    return compare.convert(elementwise_op(elementwise.xor, a, b), dt)


def key_data(keys):
    """The uint32[..., 2] words under typed ``keys`` (a raw key comes back as it is).

    A Tensor for keys of a graph, a numpy array for keys a Session fetched.
    """
    if isinstance(keys, KeyArray):
        return keys.data
    shape = getattr(keys, "shape", None)
    dtype = getattr(keys, "dtype", None)
    words = dtype is _U32 if isinstance(keys, Tensor) else dtype == np.uint32
    ok = words and len(shape) >= 1 and shape[-1] == 2
    if not ok:
        got = keys.type if isinstance(keys, Tensor) else f"{type(keys).__name__} {dtype}{list(shape or ())}"
        raise error(f"key_data wants typed keys (sg.random.key) or raw uint32[..., 2] keys, got {got}")
    return keys


def wrap_key_data(key_bits_array, impl=None, dtype=None) -> KeyArray:
    """Typed keys over ``key_bits_array``'s words: uint32[..., 2] -> KeyArray of shape [...].

    A numpy array stays one (a host KeyArray, as a Session fetch gives);
    the inverse of ``key_data``.
    """
    name = _impl_name(impl, dtype, "wrap_key_data")
    data = key_bits_array
    if not isinstance(data, Tensor):
        data = np.asarray(data)
        if data.dtype != np.uint32:
            raise error(f"wrap_key_data wants uint32 words, got {data.dtype}{list(data.shape)}")
    elif data.dtype is not _U32:
        raise error(f"wrap_key_data wants uint32 words, got {data.type}")
    if not data.shape or data.shape[-1] != KEY_IMPLS[name][1]:
        raise error(
            f"wrap_key_data: {name} keys have {KEY_IMPLS[name][1]} words in the last dim, got shape {tuple(data.shape)}"
        )
    return KeyArray(data, name)


def key_impl(keys) -> str:
    """The name of the PRNG implementation of ``keys`` (typed or raw): "threefry2x32"."""
    key_data(keys)  # refuses what is no key
    return keys.impl if isinstance(keys, KeyArray) else "threefry2x32"


def key_dtype(impl_spec=None) -> KeyDType:
    """The dtype of typed keys of an implementation (default threefry2x32): ``key<fry>``."""
    return KeyDType(_impl_name(impl_spec, who="key_dtype"))


def clone(key):
    """The same key (jax's clone matters only to its key-reuse checker, which is not built here)."""
    key_data(key)
    return key


__all__ = [
    "PRNGKey",
    "bits",
    "clone",
    "fold_in",
    "key",
    "key_data",
    "key_dtype",
    "key_impl",
    "split",
    "wrap_key_data",
]  # key_words, remember_words: for ops/state.py
