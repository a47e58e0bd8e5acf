"""sg.numpy: numpy's names and semantics, built only from primitives (ops layer).

``from stablegraph import numpy as snp`` then write numpy code inside ``with g:``.
"""

from . import fft, linalg
from .core import asarray, broadcast_shapes, broadcast_to
from .creation import *  # noqa: F403
from .index_update import *  # noqa: F403
from .indexing import *  # noqa: F403
from .linalg import *  # noqa: F403
from .manipulation import *  # noqa: F403
from .math_ufuncs import *  # noqa: F403
from .names import *  # noqa: F403
from .overloads import install as _install
from .reductions import *  # noqa: F403
from .searching import *  # noqa: F403
from .sorting import *  # noqa: F403
from .ufuncs import *  # noqa: F403

_install()
