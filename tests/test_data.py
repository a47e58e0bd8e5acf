"""sg.data: batch counts, shuffling per epoch, structures, errors, the progress bar, split, digits."""

import gc

import numpy as np
import pytest

import stablegraph as sg


def _xy(n=10):
    x = np.arange(n * 2, dtype=np.float32).reshape(n, 2)
    return x, np.arange(n, dtype=np.int32) * 10


@pytest.mark.parametrize(
    ("n", "bs", "drop_last", "sizes"),
    [
        (10, 3, False, [3, 3, 3, 1]),
        (10, 3, True, [3, 3, 3]),
        (9, 3, False, [3, 3, 3]),
        (9, 3, True, [3, 3, 3]),
        (2, 5, False, [2]),
        (2, 5, True, []),
    ],
)
def test_batch_counts_and_sizes(n, bs, drop_last, sizes):
    x, _ = _xy(n)
    b = sg.data.batches(x, bs, drop_last=drop_last, epochs=2)
    got = [len(xb) for xb in b]
    assert got == sizes * 2
    assert b.steps_per_epoch == len(sizes) and len(b) == 2 * len(sizes)


def test_unshuffled_batches_are_the_data_in_order():
    x, y = _xy(10)
    out = list(sg.data.batches((x, y), 4))
    np.testing.assert_array_equal(np.concatenate([xb for xb, _ in out]), x)
    np.testing.assert_array_equal(np.concatenate([yb for _, yb in out]), y)


def test_shuffle_every_sample_once_per_epoch_and_rows_stay_paired():
    x, y = _xy(23)
    b = sg.data.batches((x, y), 5, shuffle=True, epochs=3, seed=7)
    epochs, seen = [], []
    for xb, yb in b:
        np.testing.assert_array_equal(xb[:, 0] * 5, yb)  # x row i is [2i, 2i+1], y is 10i
        if len(epochs) <= b.epoch:
            epochs.append([])
        epochs[b.epoch].append(yb)
        seen.append(b.epoch)
    assert seen == [e for e in range(3) for _ in range(5)]
    orders = [np.concatenate(e) // 10 for e in epochs]
    for order in orders:
        np.testing.assert_array_equal(np.sort(order), np.arange(23))
    assert not np.array_equal(orders[0], orders[1]) and not np.array_equal(orders[1], orders[2])
    assert not np.array_equal(orders[0], np.arange(23))
    # the orders are numpy's permutations from default_rng(seed), one per epoch
    rng = np.random.default_rng(7)
    for order in orders:
        np.testing.assert_array_equal(order, rng.permutation(23))


def test_same_seed_same_order_other_seed_other_order():
    x, _ = _xy(50)

    def order(seed):
        return np.concatenate(list(sg.data.batches(x, 8, shuffle=True, epochs=2, seed=seed)))

    np.testing.assert_array_equal(order(3), order(3))
    assert not np.array_equal(order(3), order(4))
    b = sg.data.batches(x, 8, shuffle=True, epochs=2, seed=3)
    np.testing.assert_array_equal(np.concatenate(list(b)), np.concatenate(list(b)))  # iterating again repeats


def test_shuffle_with_drop_last_drops_a_different_tail_each_epoch():
    x, _ = _xy(10)
    b = sg.data.batches(x, 4, shuffle=True, epochs=2, drop_last=True, seed=1)
    out = [xb[:, 0] // 2 for xb in b]
    assert [len(o) for o in out] == [4, 4, 4, 4]
    rng = np.random.default_rng(1)
    p0, p1 = rng.permutation(10), rng.permutation(10)
    np.testing.assert_array_equal(np.concatenate(out), np.concatenate([p0[:8], p1[:8]]))


def test_structures_tuple_list_dict_array():
    x, y = _xy(6)
    (tb,) = list(sg.data.batches((x, y), 6))
    assert type(tb) is tuple and len(tb) == 2
    (lb,) = list(sg.data.batches([x, y], 6))
    assert type(lb) is list and len(lb) == 2
    (db,) = list(sg.data.batches({"x": x, "y": y}, 6))
    assert type(db) is dict and list(db) == ["x", "y"]
    np.testing.assert_array_equal(db["x"], x)
    np.testing.assert_array_equal(db["y"], y)
    (ab,) = list(sg.data.batches(x, 6))
    assert type(ab) is np.ndarray
    np.testing.assert_array_equal(ab, x)
    (pb,) = list(sg.data.batches([[1, 2], [3, 4]], 2))  # a list of Python lists: two arrays
    assert type(pb) is list and [p.tolist() for p in pb] == [[1, 2], [3, 4]]


def test_mismatched_lengths_and_bad_arguments():
    x, y = _xy(10)
    with pytest.raises(ValueError, match=r"\[0\] has 10, \[1\] has 9"):
        sg.data.batches((x, y[:9]), 4)
    with pytest.raises(ValueError, match=r"'x' has 10, 'y' has 3"):
        sg.data.batches({"x": x, "y": y[:3]}, 4)
    with pytest.raises(ValueError, match="batch_size"):
        sg.data.batches(x, 0)
    with pytest.raises(ValueError, match="epochs"):
        sg.data.batches(x, 2, epochs=-1)
    with pytest.raises(ValueError, match="scalar"):
        sg.data.batches(np.float32(1), 2)
    with pytest.raises(ValueError, match="no arrays"):
        sg.data.batches((), 2)


def test_progress_bar_shows_logged_metrics_and_closes(capsys):
    x, y = _xy(8)
    b = sg.data.batches((x, y), 2, epochs=2, progress=True, desc="train")
    for i, _ in enumerate(b):
        b.log(loss=np.float32(0.5 / (i + 1)), acc=np.array(0.25))
    assert b._bar is None  # closed at the end
    assert b.metrics == {"loss": pytest.approx(0.0625), "acc": 0.25}
    err = capsys.readouterr().err
    assert "8/8" in err and "train epoch 2/2" in err
    assert "loss=0.0625" in err and "acc=0.25" in err


def test_no_progress_prints_nothing_and_log_is_harmless(capsys):
    x, _ = _xy(6)
    b = sg.data.batches(x, 2, progress=False)
    b.log(loss=1.0)  # before iterating
    n = 0
    for _ in b:
        b.log(loss=0.1, step=n)
        n += 1
    assert n == 3 and b.metrics == {"loss": 0.1, "step": 2}
    out = capsys.readouterr()
    assert out.err == "" and out.out == ""


def test_early_break_closes_the_bar_and_iteration_restarts_cleanly(capsys):
    x, _ = _xy(10)
    b = sg.data.batches(x, 2, shuffle=True, epochs=3, progress=True)
    for i, _ in enumerate(b):
        if i == 6:
            break
    gc.collect()
    assert b._bar is None and b.epoch == 1 and b.step == 7
    b.log(loss=1.0)  # no bar: harmless
    full = list(b)
    assert len(full) == 15 and b._bar is None and b.epoch == 2 and b.step == 15
    rng = np.random.default_rng(0)
    expected = np.concatenate([x[rng.permutation(10)] for _ in range(3)])
    np.testing.assert_array_equal(np.concatenate(full), expected)  # the second pass starts from epoch 0
    err = capsys.readouterr().err
    assert "6/15" in err and "15/15" in err  # the batch being processed at the break is not counted
    b.close()  # idempotent


def test_zero_epochs_and_empty_data():
    x, _ = _xy(4)
    assert list(sg.data.batches(x, 2, epochs=0)) == []
    b = sg.data.batches(np.zeros((0, 3)), 2, shuffle=True)
    assert len(b) == 0 and list(b) == []


def test_split_sizes_disjoint_and_seeded():
    x, y = _xy(25)
    (xtr, ytr), (xte, yte) = sg.data.split((x, y), 0.2, seed=5)
    assert len(xte) == len(yte) == 5 and len(xtr) == len(ytr) == 20
    np.testing.assert_array_equal(xtr[:, 0] * 5, ytr)  # rows stay paired
    np.testing.assert_array_equal(xte[:, 0] * 5, yte)
    ids_tr, ids_te = ytr // 10, yte // 10
    assert not set(ids_tr) & set(ids_te)
    np.testing.assert_array_equal(np.sort(np.concatenate([ids_tr, ids_te])), np.arange(25))
    perm = np.random.default_rng(5).permutation(25)
    np.testing.assert_array_equal(ids_te, perm[:5])
    np.testing.assert_array_equal(ids_tr, perm[5:])
    (_, y_again), _ = sg.data.split((x, y), 0.2, seed=5)
    np.testing.assert_array_equal(y_again, ytr)
    (_, y_other), _ = sg.data.split((x, y), 0.2, seed=6)
    assert not np.array_equal(y_other, ytr)
    tr, te = sg.data.split({"a": x}, 0.3)
    assert list(tr) == ["a"] and len(te["a"]) == 8 and len(tr["a"]) == 17  # ceil(0.3 * 25)
    tr, te = sg.data.split(y, 0.0)
    assert len(te) == 0 and len(tr) == 25
    with pytest.raises(ValueError, match="fraction"):
        sg.data.split(y, 1.5)
    with pytest.raises(ValueError, match="differ in length"):
        sg.data.split((x, y[:3]))


def test_load_digits_matches_sklearn():
    from sklearn.datasets import load_digits

    X, y = sg.data.load_digits()
    ref = load_digits()
    assert X.shape == (1797, 64) and X.dtype == np.float32
    assert y.shape == (1797,) and y.dtype == np.int32
    assert X.min() == 0.0 and X.max() == 1.0
    np.testing.assert_allclose(X * 16, ref.data, rtol=1e-6)
    np.testing.assert_array_equal(y, ref.target)
