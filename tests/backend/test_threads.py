"""One Session shared by threads: every result is right, no update is lost, no donated-buffer
error appears; reading runs go side by side while writing runs (train ops, a Generator's
advance) go one at a time."""

import threading

import numpy as np

import stablegraph as sg
from stablegraph.backend.state import RunGate

LR = 0.01
RATE = 0.5
RUNS = 200
THREADS = 4


def _model():
    g = sg.Graph()
    with g:
        x = sg.placeholder((8, 16), sg.float32, name="x")
        w = sg.Variable(np.full((16, 16), 0.1, np.float32), name="w")
        y = x @ w
        dropped = sg.nn.dropout(y, RATE)  # draws from the graph's Generator: a writing run
        loss = (y * y).mean()
        train = sg.optim.sgd(LR).minimize(loss)
    return g, x, w, y, dropped, train


def _sgd_oracle(w, x, steps: int) -> np.ndarray:
    """``steps`` SGD steps on mean((x @ w)**2), in float64 numpy."""
    w, x = w.astype(np.float64), x.astype(np.float64)
    for _ in range(steps):
        w = w - LR * 2 * x.T @ (x @ w) / (x.shape[0] * w.shape[1])
    return w


def test_four_threads_infer_with_and_without_dropout_and_train_on_one_session():
    g, x, w, y, dropped, train = _model()
    xv = np.random.default_rng(0).normal(size=(8, 16)).astype(np.float32)
    w0 = np.full((16, 16), 0.1, np.float32)
    masks, trains, failures = [], [], []

    def work(t: int) -> None:
        try:
            for k in range(RUNS):
                kind = (k + t) % 3
                if kind == 0:  # dropout off (no train op in the run): y and w come from one moment
                    yv, dv, wv = sess.run([y, dropped, w], {x: xv})
                    np.testing.assert_allclose(yv, xv @ wv, rtol=1e-5, atol=1e-6)
                    np.testing.assert_array_equal(dv, yv)
                elif kind == 1:  # dropout on: each entry dropped, or kept and scaled by 1/(1 - rate)
                    yv, dv = sess.run([y, dropped], {x: xv, "training": True})
                    kept = dv != 0
                    np.testing.assert_allclose(dv[kept], yv[kept] / (1 - RATE), rtol=1e-6)
                    masks.append(kept.tobytes())
                else:
                    assert sess.run([train], {x: xv}) == [None]
                    trains.append(t)
        except BaseException as e:  # reported by the main thread
            failures.append(e)

    with sg.Session(g, seed=0) as sess:
        sess.run(y, {x: xv})  # variables initialized once, before the threads start
        threads = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        assert not failures, failures[:3]
        assert len(trains) == sum(1 for t in range(THREADS) for k in range(RUNS) if (k + t) % 3 == 2)
        assert sess.get("global_step") == len(trains)  # no train step lost
        np.testing.assert_allclose(sess.get(w), _sgd_oracle(w0, xv, len(trains)), rtol=1e-4, atol=1e-6)
    # every dropout run drew from a key of its own: a lost Generator advance would repeat a mask
    # (128 entries: two runs agreeing by chance is a 2**-128 event)
    assert (
        len(masks)
        == len(set(masks))
        == sum(1 for t in range(THREADS) for k in range(RUNS) if (k + t) % 3 == 1)
    )


def test_readers_share_the_gate_and_a_writer_waits_for_them():
    gate = RunGate()
    gate.enter_read()
    other_reader_in = threading.Event()
    writer_in = threading.Event()

    def reader():
        gate.enter_read()
        other_reader_in.set()
        gate.exit_read()

    def writer():
        gate.enter_write()
        writer_in.set()
        gate.exit_write()

    threading.Thread(target=reader).start()
    assert other_reader_in.wait(5)  # a second reader passes while the first is in
    w = threading.Thread(target=writer)
    w.start()
    assert not writer_in.wait(0.2)  # the writer waits for the reader in flight
    gate.exit_read()
    assert writer_in.wait(5)
    w.join()


def test_a_waiting_writer_goes_before_later_readers():
    gate = RunGate()
    gate.enter_read()
    order = []
    writer_waiting = threading.Event()

    def writer():
        writer_waiting.set()
        gate.enter_write()
        order.append("writer")
        gate.exit_write()

    def reader():
        gate.enter_read()
        order.append("reader")
        gate.exit_read()

    w = threading.Thread(target=writer)
    w.start()
    assert writer_waiting.wait(5)
    while not gate._writer_waiting:  # the writer holds the gate and waits for the first reader
        threading.Event().wait(0.01)
    r = threading.Thread(target=reader)
    r.start()
    threading.Event().wait(0.1)
    assert order == []
    gate.exit_read()
    w.join(5)
    r.join(5)
    assert order == ["writer", "reader"]
