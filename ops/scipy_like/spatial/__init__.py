"""sg.scipy.spatial: rotations in 3-d (transform: Rotation, Slerp) (ops layer)."""

from . import transform

__all__ = ["transform"]
