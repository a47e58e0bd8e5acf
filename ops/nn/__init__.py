"""sg.nn: neural-network building blocks built from primitives (ops layer).

Activations and one_hot as jax.nn, losses as optax, ``sg.nn.initializers``
as jax.nn.initializers, and layers that own Variables (``dense``) or read the
graph's ``training()`` switch (``dropout``).
"""

from . import initializers
from .activations import *  # noqa: F403
from .activations import __all__ as _activations_all
from .layers import *  # noqa: F403
from .layers import __all__ as _layers_all
from .losses import *  # noqa: F403
from .losses import __all__ as _losses_all

__all__ = [*_activations_all, *_losses_all, *_layers_all, "initializers"]
