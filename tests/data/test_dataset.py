"""sg.data.Dataset: order against numpy's permutations, structures, lengths, resuming from every
position (JSON round trip) equal to the uninterrupted stream, and the usage errors."""

import json
import math

import numpy as np
import pytest

import stablegraph as sg
from stablegraph.test_util import line_of

Dataset = sg.data.Dataset


def _xy(n):
    x = np.arange(n * 2, dtype=np.float32).reshape(n, 2)  # row i is [2i, 2i+1]
    return x, np.arange(n, dtype=np.int32) * 10  # y of row i is 10i


def _ids(batches):
    """The row ids of a stream of {"x", "y"} batches, checking that x and y stay paired."""
    out = []
    for b in batches:
        np.testing.assert_array_equal(b["x"][..., 0] * 5, b["y"])
        out.append(np.asarray(b["y"]) // 10)
    return out


def test_unshuffled_batches_are_slices_and_structures_are_kept():
    x, y = _xy(10)
    got = list(Dataset.from_arrays({"x": x, "y": y}).batch(4))
    assert [list(b) for b in got] == [["x", "y"]] * 3
    for b, (lo, hi) in zip(got, [(0, 4), (4, 8), (8, 10)]):
        np.testing.assert_array_equal(b["x"], x[lo:hi])
        np.testing.assert_array_equal(b["y"], y[lo:hi])
    tb = next(iter(Dataset.from_arrays((x, y)).batch(3, drop_remainder=True)))
    assert type(tb) is tuple and tb[0].shape == (3, 2) and tb[1].tolist() == [0, 10, 20]
    ab = list(Dataset.from_arrays(y).batch(4, drop_remainder=True))
    assert [a.tolist() for a in ab] == [[0, 10, 20, 30], [40, 50, 60, 70]]
    rows = list(Dataset.from_arrays({"x": x, "y": y}))  # unbatched: one row per element
    assert len(rows) == 10 and rows[3]["y"] == 30 and rows[3]["x"].tolist() == [6.0, 7.0]


@pytest.mark.parametrize("drop", [False, True])
def test_shuffled_epochs_follow_numpys_permutations(drop):
    x, y = _xy(11)
    data = Dataset.from_arrays({"x": x, "y": y}).shuffle(seed=7).batch(4, drop_remainder=drop).repeat(3)
    ids = _ids(data)
    assert [len(i) for i in ids] == ([4, 4] if drop else [4, 4, 3]) * 3
    per_epoch = len(ids) // 3
    for e in range(3):
        order = np.random.default_rng([7, e]).permutation(11)
        got = np.concatenate(ids[e * per_epoch : (e + 1) * per_epoch])
        np.testing.assert_array_equal(got, order[: len(got)])
    np.testing.assert_array_equal(np.concatenate(ids), np.concatenate(_ids(data)))  # a new pass repeats
    other = np.concatenate(_ids(Dataset.from_arrays({"x": x, "y": y}).shuffle(seed=8).batch(4).repeat(3)))
    assert not np.array_equal(other, np.concatenate(ids))
    # without repeat: the order of epoch key (), the same on every pass
    once = np.concatenate(_ids(Dataset.from_arrays({"x": x, "y": y}).shuffle(seed=7).batch(5)))
    np.testing.assert_array_equal(once, np.random.default_rng([7]).permutation(11))


def test_take_map_and_lengths():
    x, y = _xy(10)
    rows = Dataset.from_arrays({"x": x, "y": y})
    assert len(rows) == 10 and len(rows.batch(3)) == 4 and len(rows.batch(3, True)) == 3
    assert len(rows.batch(3).repeat(2)) == 8 and rows.repeat().length == math.inf
    assert len(rows.take(4).batch(3)) == 2 and len(rows.take(40)) == 10
    with pytest.raises(TypeError, match="infinite"):
        len(rows.repeat())
    # take of shuffled rows: the first rows of each epoch's permutation
    ids = _ids(rows.shuffle(seed=1).take(6).batch(4).repeat(2))
    assert [len(i) for i in ids] == [4, 2, 4, 2]
    for e in range(2):
        np.testing.assert_array_equal(
            np.concatenate(ids[2 * e : 2 * e + 2]), np.random.default_rng([1, e]).permutation(10)[:6]
        )
    # map on the batch dict
    mapped = list(rows.batch(4).map(lambda b: {"s": b["x"].sum(axis=1), "y": b["y"] + 1}))
    np.testing.assert_array_equal(np.concatenate([m["s"] for m in mapped]), x.sum(axis=1))
    np.testing.assert_array_equal(np.concatenate([m["y"] for m in mapped]), y + 1)
    # take after batch and repeat: a count of batches
    assert len(list(rows.batch(3).repeat().take(7))) == 7


def test_generator_datasets_batch_and_take_pulls_no_extra_element():
    pulled = []

    def rows():
        for i in range(7):
            pulled.append(i)
            yield {"x": np.full(2, i, np.float32), "y": i}

    data = Dataset.from_generator(rows, length=7)
    assert len(data) == 7 and len(data.batch(3)) == 3
    bs = list(data.batch(3))
    assert [b["y"].tolist() for b in bs] == [[0, 1, 2], [3, 4, 5], [6]] and bs[0]["x"].shape == (3, 2)
    pulled.clear()
    assert [b["y"].tolist() for b in data.batch(2).take(2)] == [[0, 1], [2, 3]]
    assert pulled == [0, 1, 2, 3]
    assert Dataset.from_generator(rows).length is None
    with pytest.raises(TypeError, match="unknown"):
        len(Dataset.from_generator(rows))
    gen_args = Dataset.from_generator(lambda a, b: iter(range(a, b)), args=(2, 5))
    assert [int(v) for v in gen_args] == [2, 3, 4]


def _buffer_shuffle_oracle(stream, buffer_size, rng):
    """TF's buffer shuffle, written out for the test."""
    buf, out = [], []
    for v in stream:
        if len(buf) < buffer_size:
            buf.append(v)
        else:
            j = int(rng.integers(buffer_size))
            out.append(buf[j])
            buf[j] = v
    return out + [buf[j] for j in rng.permutation(len(buf))]


@pytest.mark.parametrize("buffer_size", [1, 4, 30])
def test_buffer_shuffle_against_an_oracle(buffer_size):
    data = Dataset.from_generator(lambda: iter(range(23))).shuffle(buffer_size, seed=3).repeat(2)
    got = [int(v) for v in data]
    want = []
    for e in range(2):
        want += _buffer_shuffle_oracle(range(23), buffer_size, np.random.default_rng([3, e]))
    assert got == want
    assert sorted(got[:23]) == list(range(23))
    if buffer_size == 1:
        assert got == list(range(23)) * 2
    if buffer_size >= 23:  # all of an epoch in the buffer: numpy's permutation of it
        assert got[23:] == np.random.default_rng([3, 1]).permutation(23).tolist()


def _pipelines():
    x, y = _xy(11)
    rows = Dataset.from_arrays({"x": x, "y": y})

    def gen():
        for i in range(11):
            yield {"x": x[i], "y": y[i]}

    return {
        "shuffle-batch-repeat": rows.shuffle(seed=0).batch(4, drop_remainder=True).repeat(3),
        "batch-keep-remainder": rows.shuffle(seed=2).batch(3).repeat(2),
        "map-take": rows.shuffle(seed=1).batch(4).repeat().map(lambda b: {**b, "y": b["y"]}).take(9),
        "take-in-repeat": rows.shuffle(seed=5).take(7).batch(3).repeat(3),
        "generator": Dataset.from_generator(gen).batch(4).repeat(2),
        "buffer-shuffle": Dataset.from_generator(gen).shuffle(5, seed=4).batch(3).repeat(2),
        "repeat-then-shuffle": rows.repeat(2).shuffle(6, seed=9).batch(5),
        "rows-unbatched": rows.shuffle(seed=3).repeat(2),
    }


@pytest.mark.parametrize("name", list(_pipelines()))
def test_resuming_at_every_position_gives_the_uninterrupted_stream(name):
    data = _pipelines()[name]
    full = _ids(data)
    assert full
    flat = np.concatenate([np.atleast_1d(i) for i in full])
    for cut in range(len(full) + 1):
        it = data.iterator()
        head = [next(it) for _ in range(cut)]
        saved = json.loads(json.dumps(it.position))  # as a checkpoint stores it
        tail = list(data.iterator(position=saved))
        got = np.concatenate([np.atleast_1d(i) for i in _ids(head + tail)])
        np.testing.assert_array_equal(got, flat, err_msg=f"cut at {cut}")
        assert len(head) + len(tail) == len(full)


def test_empty_and_zero_counts():
    x, _ = _xy(4)
    assert list(Dataset.from_arrays(x).take(0).repeat()) == []  # an empty pass forever: nothing
    assert list(Dataset.from_arrays(x).batch(2).repeat(0)) == []
    assert list(Dataset.from_arrays(np.zeros((0, 3))).shuffle(seed=0).batch(2)) == []
    assert list(Dataset.from_arrays(x).batch(8, drop_remainder=True)) == []
    it = Dataset.from_arrays(x).batch(3).iterator()
    assert len(list(it)) == 2
    assert list(Dataset.from_arrays(x).batch(3).iterator(it.position)) == []  # resumed at the end


def test_usage_errors_name_the_users_line():
    x, y = _xy(5)
    gen = Dataset.from_generator(lambda: iter([x[0]]))
    with pytest.raises(sg.GraphError, match="buffer_size") as e:
        gen.shuffle(seed=0)  # no random access
    assert f"test_dataset.py:{line_of(__file__, '# no random access')}:" in str(e.value)
    for bad in (
        lambda: Dataset.from_arrays(x).batch(0),
        lambda: Dataset.from_arrays(x).repeat(-1),
        lambda: Dataset.from_arrays(x).shuffle(seed=-1),
        lambda: Dataset.from_arrays(x).shuffle(0),
        lambda: Dataset.from_arrays(x).take(True),
        lambda: Dataset.from_arrays((x, y[:3])),
        lambda: Dataset.from_generator(3),
        lambda: Dataset.from_arrays(x).map("f"),
    ):
        with pytest.raises(sg.GraphError):
            bad()
    saved = Dataset.from_arrays(x).batch(2).iterator().position
    with pytest.raises(sg.GraphError, match="another dataset"):
        Dataset.from_arrays(x).batch(3).iterator(saved)
    with pytest.raises(sg.GraphError, match="position"):
        Dataset.from_arrays(x).iterator({"row": 3})
    ragged = Dataset.from_generator(lambda: iter([np.zeros(2), np.zeros(3)])).batch(2)
    with pytest.raises(sg.GraphError, match=r"different shapes \[\(2,\), \(3,\)\]"):
        list(ragged)


def test_exceptions_of_generators_and_map_functions_reach_the_loop():
    def gen():
        yield np.zeros(2)
        raise KeyError("lost file")

    with pytest.raises(KeyError, match="lost file"):
        list(Dataset.from_generator(gen))

    def bad(b):
        raise ValueError("bad batch")

    with pytest.raises(ValueError, match="bad batch"):
        next(iter(Dataset.from_arrays(np.zeros((4, 2))).batch(2).map(bad)))


def test_next_stack_gathers_blocks_of_batches_and_keeps_the_order_with_next():
    x, y = _xy(11)
    data = Dataset.from_arrays({"x": x, "y": y}).shuffle(seed=6).batch(3, drop_remainder=True).repeat(2)
    want = [b["y"] // 10 for b in data]  # 3 batches per epoch
    it = data.iterator()
    got = [next(it)["y"] // 10]
    block, positions = it.next_stack(4)  # crosses into the second epoch
    assert block["x"].shape == (4, 3, 2) and len(positions) == 4
    np.testing.assert_array_equal(block["x"][..., 0] * 5, block["y"])
    got += list(block["y"] // 10)
    assert it.position == positions[-1] and positions[2]["state"] == {"epoch": 1, "in": {"row": 3}}
    assert it.next_stack(2) is None  # one batch left: nothing consumed
    got.append(next(it)["y"] // 10)
    np.testing.assert_array_equal(np.stack(got), np.stack(want))
    ragged = Dataset.from_arrays(y).batch(4).iterator()  # 4, 4, 3
    assert ragged.next_stack(3) is None
    assert [len(b) for b in ragged] == [4, 4, 3]
    assert Dataset.from_generator(lambda: iter([y])).iterator().next_stack(1) is None
