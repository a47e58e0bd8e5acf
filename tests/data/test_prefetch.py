"""sg.data.prefetch: the batches it hands out (values vs numpy, on the devices as the placeholders'
shardings say on a 4-device mesh, stacked for steps=k), resuming without losing or repeating a
batch, FeedErrors naming field and placeholder, dataset exceptions with their cause, stalls, and
shutting the thread down."""

import gc
import json
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import stablegraph as sg
from stablegraph.backend import pjrt
from stablegraph.backend.placement import tiling
from stablegraph.test_util import line_of

P = sg.PartitionSpec
N = 20
X = np.arange(N * 3, dtype=np.float32).reshape(N, 3)  # row i is [3i, 3i+1, 3i+2]
Y = np.arange(N, dtype=np.int32)

G = sg.Graph()
with G:
    XP = sg.placeholder(("batch", 3), sg.float32, name="x")
    YP = sg.placeholder(("batch",), sg.int32, name="y")
    OUT = XP.sum(axis=1) + sg.cast(YP, sg.float32)

GM = sg.Graph()  # the same, split over a mesh axis
with GM:
    XM = sg.placeholder(("batch", 3), sg.float32, name="x", sharding=P("data", None))
    YM = sg.placeholder(("batch",), sg.int32, name="y")


def _data(seed=0, batch=4, drop=True, repeat=None):
    return (
        sg.data.Dataset.from_arrays({"x": X, "y": Y})
        .shuffle(seed=seed)
        .batch(batch, drop_remainder=drop)
        .repeat(repeat)
    )


def _oracle(seed, batch, epochs):
    """Row ids of each batch: numpy's permutation per epoch, cut into full batches."""
    out = []
    for e in range(epochs):
        perm = np.random.default_rng([seed, e]).permutation(N)
        out += [perm[i : i + batch] for i in range(0, N - N % batch, batch)]
    return out


def _host(value):
    return pjrt.to_numpy(value)


def _ids(feeds, xp=XP, yp=YP):
    """Row ids of handed-out feeds, checking that x and y belong to the same rows."""
    x, y = _host(feeds[xp]), _host(feeds[yp])
    np.testing.assert_array_equal(x[..., 0], 3 * y)
    return y


def test_batches_are_the_datasets_in_order_on_the_device_and_run():
    want = _oracle(0, 4, 3)
    with sg.Session(G) as sess, sg.data.prefetch(_data(), sess, {"x": XP, "y": YP}, depth=3) as feed:
        assert feed.position == _data().iterator().position
        got, ran = [], []
        for i in range(12):
            feeds = next(feed)
            assert set(feeds) == {XP, YP} and all(pjrt.is_device_array(v) for v in feeds.values())
            got.append(_ids(feeds))
            if i < 2:
                ran.append(sess.run(OUT, feeds))
        for g_ids, w in zip(got, want):
            np.testing.assert_array_equal(g_ids, w)
        for r, w in zip(ran, want):
            np.testing.assert_allclose(r, X[w].sum(axis=1) + Y[w])
        assert json.loads(json.dumps(feed.position))["state"] == {"epoch": 2, "in": {"row": 8}}


def test_single_steps_come_in_blocks_of_rows_as_host_arrays_for_the_run_and_train_as_numpy_feeds():
    # single steps from a dataset of batches of rows: the thread gathers up to ROWS_MAX batches at
    # once; on one CPU device sess.run takes them as host arrays (run_feeds), next(feed) as device
    # arrays, and a run on either equals the numpy oracle and the same batches fed as numpy
    from stablegraph.data import producer

    want = _oracle(5, 2, 10)  # 10 batches per epoch
    g = sg.Graph()
    with g:
        x = sg.placeholder((2, 3), sg.float32, name="x")
        y = sg.placeholder((2,), sg.int32, name="y")
        w = sg.Variable(np.ones(3, np.float32), name="w")
        err = (x @ w[:, None])[:, 0] - sg.cast(y, sg.float32)
        loss = (err * err).mean()
        train = sg.optim.sgd(1e-5).minimize(loss)
    data = _data(seed=5, batch=2)
    with sg.Session(g) as sess, sg.Session(g) as plain:
        with sg.data.prefetch(data, sess, {"x": x, "y": y}, depth=2) as feed:
            first = feed.run_feeds()
            assert all(type(v) is np.ndarray for v in first.values())  # host rows on one CPU device
            np.testing.assert_array_equal(first[y], want[0])
            np.testing.assert_array_equal(first[x], X[want[0]])
            shown = next(feed)  # what a user is handed: on the device
            assert all(pjrt.is_device_array(v) for v in shown.values())
            np.testing.assert_array_equal(_ids(shown, x, y), want[1])
            losses, plain_losses = [], []
            for i in range(2, 40):  # (crosses several blocks of rows and epochs)
                losses.append(sess.run([loss, train], feed)[0])
                plain_losses.append(plain.run([loss, train], {x: X[want[i]], y: Y[want[i]]})[0])
            assert feed._producer.rows == producer.ROWS_MAX
            it = data.iterator()
            for _ in range(40):
                next(it)
            assert feed.position == it.position  # the 40 batches handed out, the rest still queued
            np.testing.assert_array_equal(losses, plain_losses)  # same batches, same order, same math
            w_np = np.ones(3, np.float32)  # the oracle: sgd by hand on the batches from the 3rd on
            for i in range(2, 40):
                xb, yb = X[want[i]].astype(np.float64), Y[want[i]].astype(np.float64)
                err = xb @ w_np - yb
                w_np = w_np - 1e-5 * (2 * xb.T @ err / len(yb))
            assert np.abs(w_np - 1).max() > 1e-2  # (it trained)
            np.testing.assert_allclose(sess.get(w), w_np, rtol=1e-4)


def test_single_step_blocks_of_rows_stay_under_their_byte_budget():
    from stablegraph.data import producer

    width = 300_000  # a batch of one row is 1.2 MB: three batches fit the 4 MiB of a block, not four
    g = sg.Graph()
    with g:
        big = sg.placeholder((1, width), sg.float32, name="big")
    rows = np.arange(6 * width, dtype=np.float32).reshape(6, width)
    data = sg.data.Dataset.from_arrays(rows).batch(1).repeat()
    with sg.Session(g) as sess, sg.data.prefetch(data, sess, big, depth=1) as feed:
        got = [feed.run_feeds()[big][0, 0] for _ in range(8)]
        assert feed._producer.rows == producer.ROW_BLOCK_BYTES // (4 * width) == 3
    np.testing.assert_array_equal(got, [(i % 6) * width for i in range(8)])


def test_resume_never_loses_or_repeats_a_batch_across_epochs_and_step_blocks():
    want = _oracle(3, 4, 4)  # 5 batches per epoch
    data = _data(seed=3)
    got = []
    with sg.Session(G) as sess:
        position = None
        # stop and resume at several points, asking one batch or blocks of 3 in turn
        for asks in ([None, None], [3, 3], [None, 3, None], [2, 3]):
            with sg.data.prefetch(data, sess, {"x": XP, "y": YP}, depth=2, position=position) as feed:
                for steps in asks:
                    feeds = feed.next_feeds(steps)
                    ids = _ids(feeds)
                    if steps is None:
                        assert ids.shape == (4,)
                        got.append(ids)
                    else:
                        assert ids.shape == (steps, 4)
                        got.extend(ids)
                time.sleep(0.02)  # the thread has made more batches than handed out
                position = json.loads(json.dumps(feed.position))
    assert len(got) == 18
    for g_ids, w in zip(got, want):
        np.testing.assert_array_equal(g_ids, w)


def test_on_a_mesh_values_are_split_as_the_placeholders_say():
    mesh = sg.make_mesh((4,), ("data",))
    want = _oracle(1, 8, 1)
    with sg.Session(GM, mesh=mesh) as sess, sg.data.prefetch(_data(1, 8), sess, {"x": XM, "y": YM}) as feed:
        one = next(feed)
        block = feed.next_feeds(1)
        with sg.data.prefetch(_data(1, 6), sess, {"x": XM, "y": YM}) as uneven:
            with pytest.raises(sg.FeedError, match=r"field 'x' -> placeholder x: .*does not split evenly"):
                next(uneven)
    for feeds, stacked in ((one, False), (block, True)):
        x, y = feeds[XM], feeds[YM]
        rank = 3 if stacked else 2
        spec = P(None, "data", None) if stacked else P("data", None)
        assert pjrt.sharding_of(x).tile == tiling(spec, mesh, rank)
        assert pjrt.sharding_of(y).replicated
        rows = want[1 if stacked else 0]
        whole = X[rows][None] if stacked else X[rows]
        pieces = [np.asarray(p) for p in x._arrays]  # each device's piece: 2 of the 8 rows
        assert [p.shape for p in pieces] == [((1, 2, 3) if stacked else (2, 3))] * 4
        np.testing.assert_array_equal(np.concatenate(pieces, axis=1 if stacked else 0), whole)
        np.testing.assert_array_equal(_host(y), Y[rows][None] if stacked else Y[rows])


def test_bad_data_is_a_feed_error_naming_the_field_and_the_placeholder():
    wide = sg.data.Dataset.from_arrays({"x": np.zeros((8, 4), np.float32), "y": Y[:8]}).batch(4)
    floats = sg.data.Dataset.from_arrays({"x": X, "y": Y.astype(np.float64)}).batch(4)
    uneven = (
        sg.data.Dataset.from_arrays({"x": X, "y": Y}).batch(5).map(lambda b: {"x": b["x"], "y": b["y"][:-1]})
    )
    with sg.Session(G) as sess:
        cases = [
            (
                wide,
                {"x": XP, "y": YP},
                r"field 'x' -> placeholder x: .*shape \(4, 4\), expected \(batch, 3\)",
            ),
            (floats, {"x": XP, "y": YP}, r"field 'y' -> placeholder y: .*float64, which does not cast"),
            (uneven, {"x": XP, "y": YP}, r"fields 'x' -> x, 'y' -> y.*dim batch is 5 .* but 4"),
            (floats, {"x": XP, "z": YP}, r"no field 'z' for placeholder y \(its fields are 'x', 'y'\)"),
        ]
        for data, feeds_map, message in cases:
            feed = sg.data.prefetch(data, sess, feeds_map)  # the prefetch call
            with pytest.raises(sg.FeedError, match=message) as e:
                next(feed)
            assert f"test_prefetch.py:{line_of(__file__, '# the prefetch call')}:" in str(e.value)
            with pytest.raises(sg.FeedError):  # it stays failed
                next(feed)
            feed.close()


def test_dataset_exceptions_surface_on_next_with_the_original_as_cause():
    def rows():
        for i in range(6):
            yield {"x": X[i], "y": Y[i]}
        raise OSError("the disk went away")

    def check(b):
        if b["y"][0] >= 8:
            raise ValueError("bad batch")
        return b

    with sg.Session(G) as sess:
        for data, cause, size, good in (
            (sg.data.Dataset.from_generator(rows).batch(2), OSError, 2, 3),
            (sg.data.Dataset.from_arrays({"x": X, "y": Y}).batch(4).map(check), ValueError, 4, 2),
        ):
            with sg.data.prefetch(data, sess, {"x": XP, "y": YP}) as feed:
                for i in range(good):  # the batches made before the failure come first
                    np.testing.assert_array_equal(_ids(next(feed)), np.arange(i * size, (i + 1) * size))
                with pytest.raises(sg.ExecutionError, match=cause.__name__) as e:
                    next(feed)
                assert type(e.value.__cause__) is cause


def test_stall_seconds_counts_the_wait_for_a_slow_generator():
    def slow():
        for i in range(4):
            time.sleep(0.05)
            yield {"x": X[i], "y": Y[i]}

    with sg.Session(G) as sess:
        with sg.data.prefetch(
            sg.data.Dataset.from_generator(slow).batch(2), sess, {"x": XP, "y": YP}
        ) as feed:
            batches = list(feed)  # a prefetch is an iterator; it ends with the data
            assert feed.stall_seconds > 0.05
        assert [_ids(b).tolist() for b in batches] == [[0, 1], [2, 3]]
        with sg.data.prefetch(_data(repeat=1), sess, {"x": XP, "y": YP}, depth=5) as feed:
            while feed._producer.queue.qsize() < 5:  # everything made before we ask
                time.sleep(0.005)
            before = feed.stall_seconds
            next(feed)
            assert feed.stall_seconds == before == 0.0


def test_end_of_data_keeps_what_is_left_for_a_smaller_ask():
    with sg.Session(G) as sess, sg.data.prefetch(_data(repeat=1), sess, {"x": XP, "y": YP}) as feed:
        feed.next_feeds(3)
        position = feed.position
        with pytest.raises(StopIteration):
            feed.next_feeds(3)  # 2 left
        assert feed.position == position
        assert [_ids(feed.next_feeds(None)).shape for _ in range(2)] == [(4,), (4,)]
        with pytest.raises(StopIteration):
            next(feed)


def test_the_thread_stops_on_close_with_collection_and_at_exit():
    before = {t for t in threading.enumerate() if t.name == "sg.data.prefetch"}
    with sg.Session(G) as sess:
        feed = sg.data.prefetch(_data(), sess, {"x": XP, "y": YP})
        next(feed)
        feed.close()
        assert not feed._thread.is_alive()
        with pytest.raises(sg.FeedError, match="closed"):
            next(feed)
        feed = sg.data.prefetch(_data(), sess, {"x": XP, "y": YP})
        thread = feed._thread
        del feed
        gc.collect()
        thread.join(timeout=5)
        assert not thread.is_alive()
    assert {t for t in threading.enumerate() if t.name == "sg.data.prefetch"} == before
    script = textwrap.dedent(
        """
        import time
        import numpy as np, stablegraph as sg
        g = sg.Graph()
        with g:
            x = sg.placeholder(("batch", 2), sg.float32, name="x")
        data = sg.data.Dataset.from_arrays(np.zeros((10, 2), np.float32)).batch(2).repeat()
        sess = sg.Session(g)
        feed = sg.data.prefetch(data, sess, x, depth=2)
        next(feed)

        def stuck():  # a generator busy in user code when the interpreter exits
            yield np.zeros((1, 2), np.float32)
            time.sleep(120)
            yield np.zeros((1, 2), np.float32)

        busy = sg.data.prefetch(sg.data.Dataset.from_generator(stuck), sess, x)
        next(busy)
        print("left open")
        """
    )
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert (
        time.perf_counter() - start < 30
    )  # (the import takes a few seconds; the exit hook waits 0.5 s for a busy thread)
    assert done.stdout.strip() == "left open"


def test_usage_errors():
    with sg.Session(G) as sess:
        with pytest.raises(sg.GraphError, match="depth"):
            sg.data.prefetch(_data(), sess, {"x": XP}, depth=0)
        with pytest.raises(sg.GraphError, match="Dataset"):
            sg.data.prefetch([1, 2], sess, {"x": XP})
        with pytest.raises(sg.GraphError, match="feeds_map"):
            sg.data.prefetch(_data(), sess, 3)
        with pytest.raises(sg.FeedError):
            sg.data.prefetch(_data(), sess, {"x": "nope"})
        with pytest.raises(sg.FeedError, match="placeholder x is fed by two fields"):
            sg.data.prefetch(_data(), sess, {"x": XP, "y": "x"})
        with sg.data.prefetch(_data(), sess, {"x": XP, "y": YP}) as feed:
            with pytest.raises(sg.FeedError, match="steps"):
                feed.next_feeds(0)


GT = sg.Graph()  # a training step: a linear model's squared error, plain gradient descent
with GT:
    XT = sg.placeholder(("batch", 3), sg.float32, name="x")
    YT = sg.placeholder(("batch",), sg.int32, name="y")
    WT = sg.Variable(np.full(3, 0.01, np.float32), name="w")
    ERR = XT @ WT - sg.cast(YT, sg.float32)
    LOSS = (ERR * ERR).mean()
    TRAIN = sg.assign_sub(WT, 1e-5 * (XT.T @ ERR))


def test_session_runs_take_it_as_their_feeds_one_step_or_many():
    data = _data(seed=2)
    with sg.Session(GT) as sess:
        with sg.data.prefetch(data, sess, {"x": XT, "y": YT}) as feed:
            many, _ = sess.run([LOSS, TRAIN], feed, steps=6)  # crosses into the second epoch
            one = sess.run(LOSS, feed)
            assert feed.position["state"] == {"epoch": 1, "in": {"row": 8}}
        w = sess.get(WT)
    with sg.Session(GT) as sess:  # the same from numpy batches, one run per step
        rows = _oracle(2, 4, 2)
        ref = [sess.run([LOSS, TRAIN], {XT: X[r], YT: Y[r]})[0] for r in rows[:6]]
        np.testing.assert_array_equal(many, ref)
        assert one == sess.run(LOSS, {XT: X[rows[6]], YT: Y[rows[6]]})
        np.testing.assert_array_equal(w, sess.get(WT))
    mesh = sg.make_mesh((4,), ("data",))
    with sg.Session(GM, mesh=mesh) as sess, sg.data.prefetch(_data(4, 8), sess, {"x": XM, "y": YM}) as feed:
        got = sess.run(XM, feed, steps=2)  # a fed tensor comes back as fed
    rows = _oracle(4, 8, 1)
    np.testing.assert_array_equal(got, np.stack([X[rows[0]], X[rows[1]]]))


def test_a_block_of_batches_of_two_sizes_is_a_feed_error_that_hands_out_nothing():
    data = sg.data.Dataset.from_arrays({"x": X, "y": Y}).batch(6)  # 6, 6, 6, 2
    with sg.Session(G) as sess, sg.data.prefetch(data, sess, {"x": XP, "y": YP}) as feed:
        next(feed)
        with pytest.raises(
            sg.FeedError, match=r"field 'x' for placeholder x has batches of shapes \[\(2, 3\), \(6, 3\)\]"
        ):
            feed.next_feeds(3)
        assert feed.position["state"] == {"row": 6}
        assert [_ids(next(feed)).tolist()[0] for _ in range(3)] == [6, 12, 18]


def test_generator_batches_stacked_for_steps_and_mixed_with_single_steps():
    def rows():
        for i in range(N):
            yield {"x": X[i], "y": Y[i]}

    data = sg.data.Dataset.from_generator(rows).shuffle(6, seed=1).batch(2)  # no random access
    want = np.stack([b["y"] for b in data])  # the stream itself, as the plain iteration gives it
    np.testing.assert_array_equal(np.sort(want.ravel()), Y)
    with sg.Session(G) as sess, sg.data.prefetch(data, sess, {"x": XP, "y": YP}, depth=1) as feed:
        got = [_ids(next(feed))[None], _ids(feed.next_feeds(4)), _ids(feed.next_feeds(4))]
        got.append(_ids(next(feed))[None])
    np.testing.assert_array_equal(np.concatenate(got), want)


def test_tuple_and_array_elements_map_by_position_and_whole():
    with sg.Session(G) as sess:
        pairs = sg.data.Dataset.from_arrays((X, Y)).batch(5)
        with sg.data.prefetch(pairs, sess, [XP, YP]) as feed:
            np.testing.assert_array_equal(_ids(next(feed)), Y[:5])
        with sg.data.prefetch(sg.data.Dataset.from_arrays(X).batch(5), sess, XP) as feed:
            feeds = feed.next_feeds(2)
            assert list(feeds) == [XP]
            np.testing.assert_array_equal(_host(feeds[XP]), X[:10].reshape(2, 5, 3))
        with sg.data.prefetch(pairs, sess, ["x", "y"]) as feed:  # placeholders by name
            assert feed.tensors == [XP, YP]
        with sg.data.prefetch(sg.data.Dataset.from_arrays((X,)).batch(5), sess, [XP, YP]) as feed:
            with pytest.raises(sg.FeedError, match=r"no field 1 for placeholder y \(it is a tuple of 1\)"):
                next(feed)


def test_blocks_realign_after_single_batches_were_prefetched_first():
    # before the first next_feeds(k) the thread makes single batches (blocks of up to ROWS_MAX of
    # them); left over, they would make every later ask take a block apart on the host: once they
    # are used up, one block tops them up, then blocks come whole. How many asks the leftovers
    # last depends on how far the thread had got (the queue holds `depth` blocks, one more may be
    # in the making; a top-up asked for may land after the leftovers happened to come out whole and
    # take them apart once more), so the test asks until the blocks come whole and stay so.
    asks = 60
    want = _oracle(0, 2, 1 + asks * 5 // (N // 2))
    with sg.Session(G) as sess, sg.data.prefetch(_data(batch=2), sess, {"x": XP, "y": YP}, depth=2) as feed:
        while feed._producer.queue.qsize() < 2:
            time.sleep(0.005)
        got, left = [], []
        for _ in range(asks):
            got.extend(_ids(feed.next_feeds(5)))
            left.append(len(feed._pending))
    assert left[0] > 0, left  # single batches were left over from the first block
    last_apart = max(i for i, n in enumerate(left) if n)
    assert last_apart < asks - 20 and set(left[last_apart + 1 :]) == {0}, str(left)
    np.testing.assert_array_equal(np.stack(got), np.stack(want[: asks * 5]))
