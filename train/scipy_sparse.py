"""sg.scipy.sparse: what jax.scipy.sparse has, its linalg solvers (train layer, as sg.scipy.optimize).

The package's __init__ hangs this module on sg.scipy as ``sparse``.
"""

from . import scipy_sparse_linalg as linalg

__all__ = ["linalg"]
