"""sg.nn: neural-network building blocks built from primitives (ops layer).

Activations and one_hot as jax.nn, losses as optax, ``sg.nn.initializers``
as jax.nn.initializers, and layers that own Variables (``dense``, ``conv``,
the norms, ``embedding``, ``multi_head_attention``; ``reuse=`` shares them)
or read the graph's ``training()`` switch (``dropout``, ``batch_norm``);
functions as jax.nn (``dot_product_attention``, ``standardize``) and flax
(``max_pool``, ``avg_pool``); TF1's functions (``conv2d``,
``embedding_lookup``, ``softmax_cross_entropy_with_logits`` and the other
keyword-only cross entropies, ``nce_loss``, ``sampled_softmax_loss``).
``update_ops()`` lists batch_norm's pending moving-average updates
(``minimize`` runs them by itself). Block-scaled (mxfp8/nvfp4) matmuls as
jax.nn: ``scaled_matmul``, ``scaled_dot_general``.
"""

from ..._lazy import on_first_use
from . import initializers
from .activations import *  # noqa: F403
from .activations import __all__ as _activations_all
from .attention import *  # noqa: F403
from .attention import __all__ as _attention_all
from .conv_functions import *  # noqa: F403
from .conv_functions import __all__ as _conv_functions_all
from .conv_layers import *  # noqa: F403
from .conv_layers import __all__ as _conv_all
from .cross_entropies import *  # noqa: F403
from .cross_entropies import __all__ as _cross_entropies_all
from .embedding import *  # noqa: F403
from .embedding import __all__ as _embedding_all
from .layers import *  # noqa: F403
from .layers import __all__ as _layers_all
from .losses import *  # noqa: F403
from .losses import __all__ as _losses_all
from .normalization import *  # noqa: F403
from .normalization import __all__ as _normalization_all
from .pooling import *  # noqa: F403
from .pooling import __all__ as _pooling_all
from .reuse import AUTO_REUSE
from .sampled_losses import *  # noqa: F403
from .sampled_losses import __all__ as _sampled_all
from .scaled_matmul import *  # noqa: F403
from .scaled_matmul import __all__ as _scaled_all
from .updates import *  # noqa: F403
from .updates import __all__ as _updates_all

# jax.nn has logsumexp too: sg.scipy.special's own, loaded with that module on first use
_ON_FIRST_USE = {"logsumexp": ("..scipy_like.special", "logsumexp")}
__getattr__, __dir__ = on_first_use(__name__, _ON_FIRST_USE)

__all__ = [
    *_activations_all, *_attention_all, *_conv_all, *_conv_functions_all, *_cross_entropies_all,
    *_embedding_all, *_losses_all, *_layers_all, *_normalization_all, *_pooling_all, *_sampled_all,
    *_updates_all, *_scaled_all, "initializers", "AUTO_REUSE", *_ON_FIRST_USE,
]  # fmt: skip
