"""ops/primitives/prims.py builds the same nodes as the public builders it mirrors (shortcuts and names included)."""

import pytest

import stablegraph as sg
from stablegraph.ops.primitives import (
    compare,
    cumulative,
    elementwise,
    gather,
    prims,
    reduce,
    scatter,
    shape,
    slicing,
)

F32 = sg.float32


def _x():
    return sg.placeholder((2, 3), F32, name="x")


def _idx():
    return sg.placeholder((4, 1), sg.int32, name="idx")


GATHER = dict(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,), index_vector_dim=1)
SCATTER = dict(update_window_dims=(1,), inserted_window_dims=(0,), scattered_dims_to_operand_dims=(0,),
               index_vector_dim=1)  # fmt: skip

# (name, public builder, prims builder, inputs -> args): every prims builder, and each shortcut it mirrors
CASES = [
    ("add", lambda x, y: elementwise.apply(elementwise.add, x, y), prims.add, lambda: (_x(), _x())),
    ("sub", lambda x, y: elementwise.apply(elementwise.sub, x, y), prims.sub, lambda: (_x(), _x())),
    ("mul", lambda x, y: elementwise.apply(elementwise.mul, x, y), prims.mul, lambda: (_x(), _x())),
    ("div", lambda x, y: elementwise.apply(elementwise.div, x, y), prims.div, lambda: (_x(), _x())),
    ("neg", lambda x: elementwise.apply(elementwise.neg, x), prims.neg, lambda: (_x(),)),
    ("and", lambda x, y: elementwise.apply(elementwise.and_, x, y), prims.and_,
     lambda: (sg.placeholder((2,), sg.bool_), sg.placeholder((2,), sg.bool_))),
    ("compare", compare.compare, prims.compare, lambda: (_x(), _x(), "LT")),
    ("select", compare.select, prims.select, lambda: (sg.placeholder((2, 3), sg.bool_), _x(), _x())),
    ("clamp", compare.clamp, prims.clamp, lambda: (sg.constant(0.0), _x(), sg.constant(1.0))),
    ("convert", compare.convert, prims.convert, lambda: (_x(), "int32")),
    ("convert to itself", compare.convert, prims.convert, lambda: (_x(), F32)),
    ("broadcast_in_dim", shape.broadcast_in_dim, prims.broadcast_in_dim, lambda: (_x(), (4, 2, 3), [1, 2])),
    ("broadcast_in_dim to itself", shape.broadcast_in_dim, prims.broadcast_in_dim,
     lambda: (_x(), (2, 3), range(2))),
    ("reshape", shape.reshape, prims.reshape, lambda: (_x(), [6])),
    ("reshape to itself", shape.reshape, prims.reshape, lambda: (_x(), (2, 3))),
    ("transpose", shape.transpose, prims.transpose, lambda: (_x(), [1, 0])),
    ("transpose to itself", shape.transpose, prims.transpose, lambda: (_x(), (0, 1))),
    ("reduce", reduce.reduce, prims.reduce, lambda: (_x(), "max", (-1, 0))),
    ("reduce over no axes", reduce.reduce, prims.reduce, lambda: (_x(), "sum", ())),
    ("cumulative", cumulative.cumulative, prims.cumulative, lambda: (_x(), "prod", -1, True)),
    ("pad", slicing.pad, prims.pad, lambda: (_x(), sg.constant(0.0), [1, 0], (0, -1), [0, 2])),
    ("pad without interior", slicing.pad, prims.pad, lambda: (_x(), sg.constant(0.0), (1, 0), (0, 1))),
    ("concatenate", slicing.concatenate, prims.concatenate, lambda: ([_x(), _x()], 1)),
    ("concatenate of one", slicing.concatenate, prims.concatenate, lambda: ([_x()], 0)),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_prims_build_what_the_public_builder_builds(case):
    _, public, prim, args = case
    assert _listing(public, args) == _listing(prim, args)


def test_prims_gather_and_scatter_build_what_the_public_builders_build():
    def gathered(build):
        return lambda x, idx: build(x, idx, slice_sizes=[1, 3], **GATHER)

    def scattered(build):
        return lambda x, idx, upd: build(x, idx, upd, kind="add", unique_indices=1, **SCATTER)

    assert _listing(gathered(gather.gather), lambda: (_x(), _idx())) == _listing(
        gathered(prims.gather), lambda: (_x(), _idx())
    )

    def args():
        return _x(), _idx(), sg.placeholder((4, 3), F32)

    assert _listing(scattered(scatter.scatter), args) == _listing(scattered(prims.scatter), args)


def test_every_prims_builder_is_checked():
    public = {f for name, f in vars(prims).items() if callable(f) and f.__module__ == prims.__name__}
    assert public == {c[2] for c in CASES} | {prims.gather, prims.scatter}


def _listing(build, args) -> str:
    """The listing of a graph holding ``build(*args())``, and which tensor it returned."""
    g = sg.Graph("g")
    with g:
        inputs = args()
        out = build(*inputs)
    same = [i for i, x in enumerate(inputs) if x is out]
    return f"{g.listing()}\nreturns {out.name if not same else f'input {same[0]}'}"
