"""Finite-difference gradient cases of the convolution primitive (read by test_grad_registry.py)."""

import numpy as np

from stablegraph.ops import lax_convolution as convolution

R = np.random.default_rng(1)


def normal(*shape):
    return R.normal(size=shape)


CASES = {
    "convolution": [
        (lambda x, w: convolution.conv_general_dilated(x, w, (2, 1), ((1, 0), (0, 1)), rhs_dilation=(1, 2)),
         [normal(1, 2, 5, 4), normal(3, 2, 2, 2)]),
        (lambda x, w: convolution.conv_general_dilated(x, w, (1,), ((1, 0),), lhs_dilation=(2,),
                                                       feature_group_count=2),
         [normal(2, 4, 3), normal(4, 2, 2)]),
        (lambda x, w: convolution.conv_general_dilated(x, w, (1,), "VALID", batch_group_count=2),
         [normal(4, 2, 5), normal(4, 2, 2)]),
    ],
}  # fmt: skip
