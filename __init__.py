"""stablegraph: explicit computation graphs lowered to StableHLO and run through PJRT.

    import stablegraph as sg
    from stablegraph import numpy as snp

    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3), sg.float32, name="x")
        y = snp.tanh(x).sum(axis=1)
    with sg.Session(g) as sess:
        print(sess.run(y, {x: np.ones((4, 3), np.float32)}))

This module only re-exports the public API.
"""

import importlib as _importlib
import sys as _sys

from . import (
    _env,  # noqa: F401  (first: settings jaxlib reads when it loads)
    _lazy,
    _module_aliases,
)
from .backend import Compiled, Lowered, Session
from .graph import (
    CheckpointError,
    CompileError,
    Dim,
    DType,
    ExecutionError,
    FeedError,
    Function,
    Graph,
    GraphError,
    Node,
    OpDef,
    StablegraphError,
    Tensor,
    TensorType,
    function,
    name_scope,
    placeholder,
    promote_types,
    result_type,
)  # fmt: skip
from .graph import display as _display
from .graph.dtypes import (
    bfloat16,
    bool_,
    complex64,
    complex128,
    dtype,
    float8_e4m3fn,
    float8_e4m3fnuz,
    float8_e5m2,
    float8_e5m2fnuz,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)  # fmt: skip
from .ops import checkpoint_policies, constant, debug, nn, random
from .ops import numpy_like as numpy
from .ops import scipy_like as scipy
from .ops.casting import cast
from .ops.checkpoint import checkpoint, remat
from .ops.control_api import cond, fori_loop, map, scan, switch, while_loop  # noqa: A004
from .ops.custom_jvp import custom_jvp
from .ops.custom_vjp import custom_vjp
from .ops.debug import numpy_function, pure_callback, py_func
from .ops.nn.reuse import AUTO_REUSE
from .ops.primitives.constants import dim_size
from .ops.primitives.elementwise import stop_gradient
from .ops.primitives.ensure_shape import ensure_shape
from .ops.primitives.ffi_call import ffi_call
from .ops.primitives.remat import checkpoint_name
from .ops.state import (
    Variable,
    assign,
    assign_add,
    assign_sub,
    global_step,
    global_variables,
    global_variables_initializer,
    group,
    local_variables_initializer,
    placeholder_with_default,
    trainable_variables,
    variables_initializer,
)
from .train import lax_solvers, optim, scipy_optimize, scipy_sparse
from .transforms import (
    grad,
    gradients,
    hessian,
    jacfwd,
    jacobian,
    jacrev,
    jvp,
    numpy_mapping,
    numpy_ufunc,
    simplify,
    value_and_grad,
    vectorize,
    vjp,
    vmap,
)

# sg.scipy is the ops layer's scipy_like; its optimize needs gradients, so it is made in the train
# layer above transforms and hung here, where scipy users look for it
scipy.optimize = scipy_optimize
scipy.sparse = scipy_sparse  # cg, gmres, bicgstab solve through custom_linear_solve: train layer too
# custom_root and custom_linear_solve transpose the user's functions with sg.vjp: made in the train
# layer above transforms (as scipy.optimize), lax_solvers hands them to sg.lax (loaded on first use)

# numpy's vectorize and apply_along_axis map with sg.vectorize (a transform), so they are made in the
# transforms layer and hung on sg.numpy here, as scipy.optimize is on sg.scipy
numpy.vectorize, numpy.apply_along_axis = numpy_mapping.vectorize, numpy_mapping.apply_along_axis
# numpy.ufunc's methods loop with sg.numpy.vectorize, scan and fori_loop: made in the transforms layer
# too; sg.numpy.add, multiply, ... become ufunc objects over the same functions, as jax.numpy's are
numpy.ufunc, numpy.frompyfunc = numpy_ufunc.ufunc, numpy_ufunc.frompyfunc
for _name, _uf in numpy_ufunc.numpy_ufuncs(numpy).items():
    setattr(numpy, _name, _uf)
del _name, _uf
_sys.modules[__name__ + ".numpy"] = numpy  # so `import stablegraph.numpy as snp` works too
_sys.modules[__name__ + ".random"] = random
_sys.modules[__name__ + ".nn"] = nn
_sys.modules[__name__ + ".optim"] = optim
_sys.modules[__name__ + ".scipy"] = scipy
# sg.scipy's namespaces (special, linalg, stats, signal, fft, ..., cluster.vq, spatial.transform) load
# on first use: `import stablegraph.scipy.signal` then gives stablegraph.ops.scipy_like.signal itself
_module_aliases.alias_package(__name__ + ".scipy", scipy.__name__)
_sys.modules[__name__ + ".scipy.optimize"] = scipy.optimize
_sys.modules[__name__ + ".scipy.sparse"] = scipy.sparse
_sys.modules[__name__ + ".scipy.sparse.linalg"] = scipy.sparse.linalg
# sg.numpy.linalg and sg.numpy.fft load on first use: `import stablegraph.numpy.fft` gives the module too
_module_aliases.alias_package(__name__ + ".numpy", numpy.__name__)
_module_aliases.alias_module(__name__ + ".lax", "stablegraph.ops.lax")  # sg.lax loads on first use
_sys.modules[__name__ + ".checkpoint_policies"] = checkpoint_policies

# -- sharding (issue 10): device meshes, shardings, per-device regions --------
from . import sharding  # noqa: E402
from .backend import distributed  # noqa: E402
from .backend.distributed import DistributedError, process_count, process_index  # noqa: E402
from .ops.primitives.collectives import (  # noqa: E402
    all_gather,
    all_to_all,
    axis_index,
    pmax,
    pmean,
    pmin,
    ppermute,
    psum,
    psum_scatter,
)
from .ops.primitives.sharding_constraint import sharding_constraint  # noqa: E402
from .ops.spmd import spmd  # noqa: E402
from .sharding import Mesh, NamedSharding, PartitionSpec, devices, make_mesh  # noqa: E402
from .transforms import shard  # noqa: E402

# What a training program seldom touches loads on first use (PEP 562): name -> (module, attribute or
# None for the module itself). tests/backend/test_import_cost.py checks that each resolves.
_ON_FIRST_USE = {
    "lax": ("stablegraph.ops.lax", None),
    "data": ("stablegraph.data", None),
    "summary": ("stablegraph.summary", None),
    "test_util": ("stablegraph.test_util", None),
    "viz": ("stablegraph.viz", None),
    "ffi": ("stablegraph.backend.ffi", None),  # issue 25's sg.ffi.build / register / include_dir
    "draw": ("stablegraph.viz", "draw"),
    "from_jax": ("stablegraph.backend.jax_interop", "from_jax"),
    "import_jax_exported": ("stablegraph.backend.jax_interop", "import_jax_exported"),
    "Exported": ("stablegraph.backend.exported", "Exported"),
    "ExportError": ("stablegraph.backend.export_file", "ExportError"),
    "export": ("stablegraph.backend.loading", "export"),
    "load_exported": ("stablegraph.backend.loading", "load_exported"),
}


__getattr__, __dir__ = _lazy.on_first_use(__name__, _ON_FIRST_USE)
# Jupyter shows graphs through viz, which loads at the first display (graph/display.py)
_display.register_display_loader(lambda: _importlib.import_module(".viz", __name__))


_env.import_done()  # the import is done: freeze its objects, collector as before (see _env.py)

__all__ = [
    "data", "summary", "lax", "nn", "optim", "Variable", "assign", "assign_add", "assign_sub", "global_step", "global_variables", "group",
    "placeholder_with_default", "trainable_variables", "CheckpointError",
    "CompileError", "Compiled", "DType", "Dim", "ExecutionError", "FeedError", "Function", "Graph",
    "GraphError", "Lowered", "Node", "OpDef", "Session", "StablegraphError", "Tensor", "TensorType",
    "bfloat16", "bool_", "complex64", "complex128", "constant", "custom_jvp", "custom_vjp", "dim_size", "draw", "dtype", "float8_e4m3fn",
    "float8_e4m3fnuz", "float8_e5m2", "float8_e5m2fnuz", "float16", "float32", "float64",
    "function",
    "grad",
    "gradients",
    "jvp", "jacfwd", "jacrev", "jacobian", "hessian",
    "value_and_grad", "vectorize", "vmap",
    "vjp", "checkpoint", "checkpoint_name", "checkpoint_policies", "remat", "cond", "switch", "while_loop", "fori_loop", "scan", "map", "int8", "int16", "int32", "int64", "name_scope", "numpy", "placeholder",
    "promote_types", "random", "scipy", "result_type", "simplify", "stop_gradient", "uint8", "uint16", "uint32", "uint64", "test_util", "viz",
    "sharding", "Mesh", "NamedSharding", "PartitionSpec", "devices", "make_mesh", "sharding_constraint", "shard",
    "spmd", "psum", "pmean", "pmax", "pmin", "all_gather", "psum_scatter", "ppermute", "all_to_all", "axis_index",
    "distributed", "process_index", "process_count", "DistributedError",
    "AUTO_REUSE", "ensure_shape", "debug", "pure_callback", "py_func", "numpy_function",
    "ffi", "ffi_call",
]  # fmt: skip
