"""sg.scipy.cluster.vq: vq, the nearest code of each observation (ops layer)."""

from __future__ import annotations

from ....graph import dtypes, library
from ... import numpy_like as snp
from ...numpy_like.core import error
from ..inexact import as_inexact


@library()
def vq(obs, code_book, check_finite: bool = True):
    """Each observation's nearest code in ``code_book`` by Euclidean distance (scipy.cluster.vq.vq).

    ``obs`` is (N, D) (or (N,) for D = 1) and ``code_book`` (K, D) (or (K,));
    returns ``(code, dist)``: the int32 index of the nearest code (the first
    on ties) and the distance to it. ``check_finite`` is accepted and
    ignored: values are not known while the graph is built.
    """
    del check_finite
    x, book = as_inexact(obs, code_book)
    if x.ndim not in (1, 2) or x.ndim != book.ndim or (x.ndim == 2 and x.shape[1] != book.shape[1]):
        raise error(f"vq wants obs (N, D) and code_book (K, D) (or both 1-d), got {x.type} and {book.type}")
    if x.ndim == 1:
        x, book = x[:, None], book[:, None]
    diff = x[:, None, :] - book[None, :, :]
    dist = snp.sqrt(snp.sum(snp.real(diff * snp.conj(diff)), axis=-1))
    code = snp.asarray(snp.argmin(dist, axis=-1), dtypes.int32)
    return code, snp.take_along_axis(dist, code[:, None], axis=1)[:, 0]


__all__ = ["vq"]
