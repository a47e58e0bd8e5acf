"""Mesh: devices laid out on named axes, and where devices come from (sharding layer).

The sharding layer sits below the backend, so it holds devices as opaque
objects: the backend registers a device provider (``set_device_provider``)
that ``devices()`` and ``make_mesh`` ask. On CPU the provider makes a
client with as many devices as asked for, so meshes need no flag.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ..graph import GraphError, located, user_location

MESH_SYMBOL = "mesh"  # the name of the module-level ``sdy.mesh`` a lowered program declares

_provider = None


def set_device_provider(provider) -> None:
    """Register ``provider(n, platform) -> list of devices`` (the backend does, on import)."""
    global _provider
    _provider = provider


def devices(n: int | None = None, platform: str | None = None) -> list:
    """The devices of ``platform`` (the default one: CPU here); ``n`` of them if given.

    On CPU, ``sg.devices(4)`` gives 4 devices (a CPU client with that many).
    """
    if _provider is None:
        raise GraphError("no device provider: import stablegraph (its backend registers one)")
    if n is not None and (not isinstance(n, int) or isinstance(n, bool) or n < 1):
        raise GraphError(f"sg.devices wants a device count >= 1, got {n!r}")
    return list(_provider(n, platform))


class Mesh:
    """Devices on a grid with named axes: ``Mesh(sg.devices(4), ("data", "model"), shape=(2, 2))``.

    ``devices`` is a list (reshaped to ``shape``; a 1-d mesh needs none) or
    a nested list / array whose shape is the mesh's. ``mesh.shape`` maps each
    axis name to its size, in order.
    """

    def __init__(self, devices, axis_names, shape=None):
        names = (axis_names,) if isinstance(axis_names, str) else tuple(axis_names)
        if not names or not all(isinstance(a, str) and a for a in names) or len(set(names)) < len(names):
            raise GraphError(f"Mesh wants distinct axis names (non-empty strings), got {axis_names!r}")
        grid = np.empty(len(_flat(devices)), dtype=object)
        grid[:] = _flat(devices)
        if shape is None:
            shape = np.shape(np.asarray(devices, dtype=object)) if len(names) > 1 else (grid.size,)
        shape = tuple(int(s) for s in shape)
        if len(shape) != len(names) or math.prod(shape) != grid.size or min(shape, default=1) < 1:
            raise GraphError(
                f"Mesh: {grid.size} devices do not fill a mesh of shape {shape} with axes {names}"
            )
        if len({id(d) for d in grid}) < grid.size:
            raise GraphError("Mesh: a device appears twice")
        self.devices = grid.reshape(shape)
        self.axis_names = names
        self.axis_sizes = shape
        self._key = (names, shape, tuple(grid))

    @property
    def shape(self) -> dict[str, int]:
        return dict(zip(self.axis_names, self.axis_sizes))

    @property
    def size(self) -> int:
        return self.devices.size

    @property
    def device_list(self) -> list:
        """The devices in mesh order (row-major): device i has logical id i in a program."""
        return list(self.devices.flat)

    @property
    def symbol(self) -> str:
        """The symbol of the ``sdy.mesh`` a program lowered for this mesh declares."""
        return MESH_SYMBOL

    def axis_size(self, name: str) -> int:
        return self.shape[name]

    def __eq__(self, other) -> bool:
        return isinstance(other, Mesh) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        axes = ", ".join(f"{a}={n}" for a, n in self.shape.items())
        return f"Mesh({axes}; {self.size} {_platform(self.device_list[0])} devices)"


def _flat(devices) -> list:
    if isinstance(devices, np.ndarray):
        return list(devices.flat)
    out = []
    for d in devices:
        out.extend(_flat(d) if isinstance(d, list | tuple | np.ndarray) else [d])
    return out


def _platform(device) -> str:
    return str(getattr(device, "platform", "unknown"))


def _default_devices(n: int) -> list:
    return devices(n)


def make_mesh(shape, axis_names, devices=None) -> Mesh:
    """A mesh of the first ``prod(shape)`` devices (of the default platform unless given).

    ``sg.make_mesh((2, 2), ("data", "model"))``; on CPU the devices are provided on demand.
    Sizes are ints >= 1, one per axis name; anything else is a GraphError at the user's line.
    """
    shape, names = _mesh_shape(shape, axis_names)
    n = math.prod(shape)
    try:
        pool = _default_devices(n) if devices is None else _flat(devices)
    except GraphError as e:
        raise _error(f"make_mesh of shape {shape}: {e}") from None
    if len(pool) < n:
        raise _error(f"make_mesh: a mesh of shape {shape} needs {n} devices, got {len(pool)}")
    return Mesh(pool[:n], names, shape=shape)


def _error(message: str) -> GraphError:
    return GraphError(located(message, user_location()))


def _mesh_shape(shape, axis_names) -> tuple[tuple[int, ...], tuple[str, ...]]:
    """make_mesh's sizes and axis names, checked: ints >= 1, distinct non-empty names, as many of each."""
    sizes = (shape,) if isinstance(shape, numbers.Integral) else shape
    sizes = sizes.tolist() if isinstance(sizes, np.ndarray) else sizes
    names = (axis_names,) if isinstance(axis_names, str) else axis_names
    if not isinstance(sizes, tuple | list) or not isinstance(names, tuple | list):
        raise _error(
            f"make_mesh wants a shape (a tuple of ints) and axis names (a tuple of str), "
            f"got {shape!r} and {axis_names!r}"
        )
    bad = [s for s in sizes if isinstance(s, bool) or not isinstance(s, numbers.Integral) or s < 1]
    if bad or not sizes:
        what = f"size {bad[0]!r}" if bad else "no sizes"
        raise _error(
            f"make_mesh wants every axis size to be an int >= 1, got shape {tuple(sizes)!r} ({what}): "
            "a mesh axis holds at least one device"
        )
    if not all(isinstance(a, str) and a for a in names) or len(set(names)) < len(names):
        raise _error(f"make_mesh wants distinct axis names (non-empty strings), got {tuple(names)!r}")
    if len(names) != len(sizes):
        raise _error(
            f"make_mesh wants one axis name per size: shape {tuple(sizes)} has {len(sizes)} axes, "
            f"axis_names {tuple(names)} has {len(names)}"
        )
    return tuple(int(s) for s in sizes), tuple(names)
