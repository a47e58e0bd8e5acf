"""Device meshes and shardings: Mesh, PartitionSpec, NamedSharding (sharding layer).

Pure Python below the ops: devices are opaque objects the backend provides
(``set_device_provider``); Shardy attribute text is spelled here for the
lowering (``sdy_mesh``, ``sdy_sharding``).
"""

from .mesh import MESH_SYMBOL, Mesh, devices, make_mesh, set_device_provider
from .named import NamedSharding, check_axes, sdy_mesh, sdy_sharding, split_counts
from .spec import PartitionSpec, as_spec

__all__ = [
    "MESH_SYMBOL", "Mesh", "NamedSharding", "PartitionSpec", "as_spec", "check_axes", "devices", "make_mesh",
    "sdy_mesh", "sdy_sharding", "set_device_provider", "split_counts",
]  # fmt: skip
