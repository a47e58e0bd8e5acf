"""sg.numpy: numpy's names and semantics, built only from primitives (ops layer).

``from stablegraph import numpy as snp`` then write numpy code inside ``with g:``.
"""

from ..._lazy import on_first_use
from .arith import *  # noqa: F403
from .calculus import *  # noqa: F403
from .core import asarray, broadcast_shapes, broadcast_to
from .creation import *  # noqa: F403
from .dtype_queries import *  # noqa: F403
from .editing import *  # noqa: F403
from .functional import *  # noqa: F403
from .grids import *  # noqa: F403
from .histograms import *  # noqa: F403
from .host_data import *  # noqa: F403
from .index_update import *  # noqa: F403
from .indexing import *  # noqa: F403
from .linalg_products import dot, einsum, inner, matmul, outer, tensordot, trace, vdot  # (linalg's __all__)
from .linalg_toplevel import *  # noqa: F403
from .manipulation import *  # noqa: F403
from .math_ufuncs import *  # noqa: F403
from .names import *  # noqa: F403
from .nan_reductions import *  # noqa: F403
from .ordering import *  # noqa: F403
from .overloads import install as _install
from .padding import *  # noqa: F403
from .polynomial import *  # noqa: F403
from .printing_and_files import *  # noqa: F403
from .reductions import *  # noqa: F403
from .repeating import *  # noqa: F403
from .searching import *  # noqa: F403
from .set_ops import *  # noqa: F403
from .sorting import *  # noqa: F403
from .statistics import *  # noqa: F403
from .ufuncs import *  # noqa: F403
from .windows import *  # noqa: F403

_install()

# numpy.linalg's and numpy.fft's namespaces (decompositions, solvers, norms, transforms) load on first
# use: a process that trains a network seldom needs them, and they are ~5% of import stablegraph
__getattr__, __dir__ = on_first_use(__name__, {"linalg": (".linalg", None), "fft": (".fft", None)})
