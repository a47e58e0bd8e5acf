"""Batch rule of convolution: vectorize equals a loop over lanes, with lhs, rhs or both batched.

check_vectorize tries every in_axes choice (each operand unbatched or batched at any axis), so
the vmapped axis folds into the lhs batch, the kernel's output features, or feature groups from
every position. Plain, feature-grouped and batch-grouped convolutions each get one graph.
"""

from __future__ import annotations

import numpy as np

from stablegraph.ops.lax_convolution import conv_general_dilated
from stablegraph.test_util import check_vectorize

R = np.random.default_rng(0)


def test_convolution_batches_like_a_loop():
    x, w = R.normal(size=(2, 3, 5, 4)).astype(np.float32), R.normal(size=(2, 3, 4, 2)).astype(np.float32)

    def fn(a, b):  # NHWC x HWIO, strided and padded, so the spec's dims are not in canonical order
        return conv_general_dilated(
            a, b, (2, 1), ((1, 0), (1, 1)), rhs_dilation=(1, 2), dimension_numbers=("NHWC", "HWIO", "NHWC")
        )

    check_vectorize(fn, [x, w], atol=1e-5, rtol=1e-5)


def test_convolution_with_feature_groups_batches_like_a_loop():
    x, w = R.normal(size=(2, 4, 6)).astype(np.float32), R.normal(size=(6, 2, 3)).astype(np.float32)
    check_vectorize(lambda a, b: conv_general_dilated(a, b, (1,), "SAME", feature_group_count=2), [x, w],
                    atol=1e-5, rtol=1e-5)  # fmt: skip


def test_convolution_with_batch_groups_batches_like_a_loop():
    x, w = R.normal(size=(4, 3, 6)).astype(np.float32), R.normal(size=(4, 3, 2)).astype(np.float32)
    check_vectorize(lambda a, b: conv_general_dilated(a, b, (2,), "VALID", batch_group_count=2), [x, w],
                    atol=1e-5, rtol=1e-5)  # fmt: skip
