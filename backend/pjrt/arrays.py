"""Device arrays: shardings jaxlib's array code accepts, numpy in and out, placement (backend.pjrt)."""

from __future__ import annotations

import functools

import numpy as np
from jaxlib import _jax
from jaxlib import xla_client as xc

from ..placement import Tiling, assemble, assemble_local, local_slices, slices
from .clients import spans_processes
from .flags import x64_for


class _Aval:
    """The (shape, dtype) record batched_device_put expects from jax."""

    __slots__ = ("shape", "dtype", "weak_type", "ndim")

    def __init__(self, shape, dtype):
        self.shape, self.dtype, self.weak_type = tuple(shape), np.dtype(dtype), False
        self.ndim = len(self.shape)


@functools.cache
def aval(shape, dtype) -> _Aval:
    return _Aval(shape, dtype)


_REPLICATED = xc.HloSharding.replicate()


class SingleDevice(xc.SingleDeviceSharding):
    """A single-device sharding with the few Python-side members jaxlib reads.

    The device list and device come from the C++ base class; only what jax
    would add in Python is supplied here, as class attributes where possible
    because device_put reads them on every call.
    """

    memory_kind = None
    is_fully_addressable = True
    num_devices = 1

    def _to_xla_hlo_sharding(self, ndim):
        return _REPLICATED

    def is_fully_replicated(self):
        return True

    @property
    def device_set(self):
        return {self._device}

    @property
    def _device_assignment(self):
        return (self._device,)


@functools.cache
def single(device) -> SingleDevice:
    return SingleDevice(device)


class Tiled(xc.GSPMDSharding):
    """A sharding over several devices (an XLA tiling) with the Python-side members jaxlib reads."""

    memory_kind = None
    is_fully_addressable = True

    def __init__(self, devices: tuple, hlo, tile: Tiling):
        super().__init__(xc.DeviceList(devices), hlo)
        self.devices = list(devices)
        self.tile = tile
        self.replicated = hlo.is_replicated()

    def _to_xla_hlo_sharding(self, ndim):
        return self._hlo_sharding

    def is_fully_replicated(self):
        return self.replicated

    @property
    def device_set(self):
        return set(self.devices)

    @property
    def _device_assignment(self):
        return tuple(self.devices)


class GlobalTiled(Tiled):
    """A sharding over devices of several processes; this one holds the pieces of its devices
    at positions ``local``."""

    is_fully_addressable = False

    def __init__(self, devices: tuple, hlo, tile: Tiling, local: tuple):
        super().__init__(devices, hlo, tile)
        self.local = local
        self.local_devices = [devices[i] for i in local]


@functools.cache
def tiled(devices: tuple, tile: Tiling) -> Tiled:
    """The sharding of a value split by ``tile`` over ``devices`` (logical id i = devices[i])."""
    if all(d == 1 for d in tile.dims[: len(tile.dims) - tile.extra]):
        hlo = _REPLICATED
    else:
        op = xc.OpSharding()
        op.type = xc.OpSharding.Type.OTHER
        op.tile_assignment_dimensions = list(tile.dims)
        op.tile_assignment_devices = list(tile.devices)
        op.replicate_on_last_tile_dim = tile.extra == 1
        hlo = xc.HloSharding.from_proto(op)
    if spans_processes(devices):
        me = devices[0].client.process_index()
        return GlobalTiled(
            devices, hlo, tile, tuple(i for i, d in enumerate(devices) if d.process_index == me)
        )
    return Tiled(devices, hlo, tile)


def tiling_of(hlo, rank: int, n_devices: int) -> Tiling:
    """An XLA sharding (HloSharding or OpSharding) as a Tiling of a value of ``rank``."""
    if not isinstance(hlo, xc.HloSharding):
        hlo = xc.HloSharding.from_proto(hlo)
    if hlo.is_replicated() or n_devices == 1:
        extra = 1 if n_devices > 1 else 0
        return Tiling((1,) * rank + (n_devices,) * extra, tuple(range(n_devices)), extra)
    dims = tuple(hlo.tile_assignment_dimensions())
    extra = len(hlo.subgroup_types()) or (1 if hlo.replicate_on_last_tile_dim() else 0)
    return Tiling(dims, tuple(hlo.tile_assignment_devices()), extra)


def compiled_shardings(devices: tuple, shardings, types) -> list:
    return [tiled(devices, tiling_of(h, len(shape), len(devices))) for h, (shape, _) in zip(shardings, types)]


def to_numpy(array) -> np.ndarray:
    """A device array as numpy. Arrays of ml_dtypes types (bfloat16, float8) have
    no buffer-protocol format, so they take jaxlib's explicit copy. A sharded
    array is assembled from its devices' pieces; one split over several processes gives this
    process's block of it (its devices' pieces)."""
    sharding = array._sharding
    if type(sharding) is GlobalTiled:
        pieces = array._arrays
        if sharding.replicated:
            return to_numpy(pieces[0])
        shape = tuple(array.aval.shape)
        local = [to_numpy(p) for p in pieces]
        return assemble_local(local, shape, sharding.tile, sharding.local, pieces[0].aval.dtype)
    if type(sharding) is Tiled:
        pieces = array._arrays
        if sharding.replicated:
            return to_numpy(pieces[0])
        shape = tuple(array.aval.shape)
        return assemble([to_numpy(p) for p in pieces], shape, sharding.tile, pieces[0].aval.dtype)
    out = np.asarray(array)
    if out.dtype == object:  # without jax's __array__, custom dtypes and arrays off the CPU come out boxed
        return array._single_device_array_to_np_array_did_copy()[0]
    return out


OBJECT = np.dtype(object)


def host_result(array) -> np.ndarray:
    """A CPU result as numpy, viewed in place. A program that failed on the device leaves results
    that numpy (without jax's ``__array__``) would box as an object array: their error is raised
    (XlaRuntimeError) instead."""
    out = np.asarray(array)
    if out.dtype is OBJECT:
        array.block_until_ready()  # raises the program's error
        return to_numpy(array)
    return out


def as_host(value) -> np.ndarray:
    """A numpy argument as it is, a device array laid out otherwise through the host (a rare path)."""
    return to_numpy(value) if type(value) is _jax.ArrayImpl else np.asarray(value)


def shape_dtype(value) -> tuple:
    """A numpy or device array's (shape, dtype); without jax, device arrays keep them on ``aval``."""
    if type(value) is _jax.ArrayImpl:
        value = value.aval
    return tuple(value.shape), value.dtype


def placed(devices, tile: Tiling | None = None):
    """Where a value goes: one device (``tile`` None), or split by ``tile`` over ``devices``."""
    return single(devices[0]) if tile is None else tiled(tuple(devices), tile)


def put(value: np.ndarray, where):
    """A numpy array copied to a device, or split over a mesh by a sharding from ``placed``
    (a device array a program can take or donate)."""
    arr = np.asarray(value)
    sharding = where if isinstance(where, SingleDevice | Tiled) else single(where)
    with x64_for(arr.dtype.itemsize >= 8):
        return put_as(arr, aval(arr.shape, arr.dtype), sharding)


def put_as(arr: np.ndarray, aval, sharding):
    if type(sharding) is SingleDevice:
        return xc.batched_device_put(aval, sharding, [arr], [sharding._device], True, False)
    if type(sharding) is GlobalTiled:  # ``arr`` is the global value: this process puts its pieces
        if sharding.replicated:
            pieces = [arr] * len(sharding.local)
        else:
            every = slices(tuple(arr.shape), sharding.tile, len(sharding.devices))
            pieces = [arr[every[i]] for i in sharding.local]
        return xc.batched_device_put(aval, sharding, pieces, sharding.local_devices, True, False)
    if sharding.replicated:
        pieces = [arr] * len(sharding.devices)
    else:
        pieces = [arr[where] for where in slices(tuple(arr.shape), sharding.tile, len(sharding.devices))]
    return xc.batched_device_put(aval, sharding, pieces, sharding.devices, True, False)


def put_local(block: np.ndarray, aval, sharding):
    """A global array of ``aval`` from this process's block of it (its devices' pieces together;
    all of it when replicated), as jax's make_array_from_process_local_data."""
    if sharding.replicated:
        pieces = [block] * len(sharding.local)
    else:
        _, where = local_slices(aval.shape, sharding.tile, sharding.local, len(sharding.devices))
        pieces = [block[w] for w in where]
    return xc.batched_device_put(aval, sharding, pieces, sharding.local_devices, True, False)


def holds_whole(array) -> bool:
    """Whether this process holds the whole value of a device array (not only its block)."""
    sharding = array._sharding
    return type(sharding) is not GlobalTiled or sharding.replicated


def type_of(array) -> tuple:
    """A device array's (shape, numpy dtype)."""
    return tuple(array.aval.shape), np.dtype(array.aval.dtype)


def sharding_of(array):
    """The sharding a device array was placed with (``placed``'s kind)."""
    return array._sharding


def is_device_array(value) -> bool:
    return type(value) is _jax.ArrayImpl


def is_deleted(array) -> bool:
    """Whether a device array's buffer is gone: deleted, or donated to a program."""
    return type(array) is _jax.ArrayImpl and array.is_deleted()


def copy(array):
    """A new device array with ``array``'s value on its devices (through the host: a rare path)."""
    return put(to_numpy(array), array._sharding)
