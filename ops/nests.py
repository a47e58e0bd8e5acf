"""Leaves of argument nests as Tensors, with errors that name a bad leaf's path (ops layer).

Transforms and control flow take nests of tuples, lists and dicts (None
passes through) whose leaves are Tensors, or numbers and numpy arrays (made
constants). Anything else is a GraphError at the user's line naming the
leaf's place in the nest, such as ``args[0]['w']``.
"""

from __future__ import annotations

import numpy as np

from ..graph import GraphError, Tensor, flatten, located, user_location
from ..graph.tree import leaf_paths
from .numpy_like import asarray

VALUES = (np.ndarray, np.generic, bool, int, float, complex)


def tensor_leaves(nest, where: str, who: str = "autodiff") -> tuple[list[Tensor], object]:
    """The nest's leaves as Tensors and its treedef; an unsupported leaf names its path under ``where``."""
    leaves, tree = flatten(nest)
    out = []
    for leaf, path in zip(leaves, leaf_paths(tree)):
        if isinstance(leaf, Tensor):
            out.append(leaf)
        elif isinstance(leaf, VALUES):
            out.append(asarray(leaf))
        else:
            raise GraphError(
                located(
                    f"{where}{path} is a {type(leaf).__name__}: {who} wants Tensors, numbers or numpy arrays "
                    "in nests of tuples, lists and dicts (None for nothing)",
                    user_location(),
                )
            )
    return out, tree
