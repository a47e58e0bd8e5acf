"""sg.scipy.cluster: vector quantization (vq) (ops layer)."""

from . import vq

__all__ = ["vq"]
