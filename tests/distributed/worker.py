"""One process of the multi-process test (tests/distributed/test_two_processes.py runs 2 or 3).

Joins the group, runs a data-parallel linear model on a mesh spanning every
process (2 devices each), and prints its results as one JSON line.
Usage: python worker.py HOST:PORT PROCESS_ID PROCESS_COUNT CHECKPOINT_PATH
"""

import json
import sys

import numpy as np

import stablegraph as sg

X = np.arange(12 * 3, dtype=np.float32).reshape(12, 3) / 10  # 12 rows: split over 4 or 6 devices
W = np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2)


def main(address: str, process_id: int, count: int, checkpoint: str) -> None:
    sg.distributed.initialize(address, count, process_id, local_device_count=2, timeout=60)
    mesh = sg.make_mesh((2 * count,), ("data",))
    P = sg.PartitionSpec
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3), sg.float32, name="x", sharding=P("data"))
        w = sg.Variable(sg.nn.initializers.zeros, (3, 2), name="w")
        y = x @ w
        loss = (y**2).mean()
        train = sg.optim.sgd(0.1).minimize(loss)
        total = sg.spmd(lambda a: sg.psum(a.sum(), "data"), mesh, in_specs=P("data"), out_specs=P())(x)
    rows = len(X) // count
    block = X[process_id * rows : (process_id + 1) * rows]  # each process feeds its block of the global batch
    with sg.Session(g, mesh=mesh, seed=0) as sess:
        sess.set(w, W)
        t, y_block, l_before = sess.run([total, y, loss], {x: block})
        sess.run(train, {x: block})
        report = {
            "process": sg.process_index(), "processes": sg.process_count(), "devices": len(sg.devices()),
            "total": float(t), "y": np.asarray(y_block).tolist(), "loss": float(l_before), "w": sess.get(w).tolist(),
        }  # fmt: skip
        sess.save(checkpoint)
    print(json.dumps(report), flush=True)
    sg.distributed.shutdown()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
