"""sg.random: counter-based random numbers from threefry-2x32 keys, as jax.random.

A key is a typed KeyArray (``key``, dtype key<fry>) or a raw uint32[2] Tensor
(``PRNGKey``), as in jax; the same key always gives the same numbers, in
any Session and on any number of devices. ``k1, k2 = sg.random.split(key)``
makes independent keys; ``sg.random.normal(k1, ("batch", 16))`` draws.
TF1's candidate samplers (``log_uniform_candidate_sampler``) feed sampled losses.
Built only from primitives, threefry2x32 the one of its own (ops layer).
"""

from ..key_array import KeyArray
from ..primitives.threefry import threefry2x32
from ..random_keys import *  # noqa: F403
from ..random_keys import __all__ as _keys_all
from .candidates import log_uniform_candidate_sampler, uniform_candidate_sampler  # noqa: E402  (on Generator)
from .counts import *  # noqa: F403
from .counts import __all__ as _counts_all
from .distributions import *  # noqa: F403
from .distributions import __all__ as _dist_all
from .generator import Generator, default_generator  # noqa: E402  (after keys: it builds on them)
from .kde_resample import resample as _kde_resample  # noqa: F401  (provides gaussian_kde.resample)
from .multivariate import *  # noqa: F403
from .multivariate import __all__ as _multi_all
from .transformed_samplers import *  # noqa: F403
from .transformed_samplers import __all__ as _more_all

__all__ = [
    *_keys_all,
    *_dist_all,
    *_more_all,
    *_counts_all,
    *_multi_all,
    "Generator",
    "KeyArray",
    "default_generator",
    "log_uniform_candidate_sampler",
    "uniform_candidate_sampler",
    "threefry2x32",
]
