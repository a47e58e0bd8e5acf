"""One process of the two-process test (tests/distributed/test_two_processes.py runs two of these).

Joins the group, runs a data-parallel linear model on a mesh spanning both
processes (4 devices, 2 per process), and prints its results as one JSON line.
Usage: python worker.py HOST:PORT PROCESS_ID CHECKPOINT_PATH
"""

import json
import sys

import numpy as np

import stablegraph as sg

X = np.arange(8 * 3, dtype=np.float32).reshape(8, 3) / 10
W = np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2)


def main(address: str, process_id: int, checkpoint: str) -> None:
    sg.distributed.initialize(address, 2, process_id, local_device_count=2, timeout=60)
    mesh = sg.make_mesh((4,), ("data",))
    P = sg.PartitionSpec
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3), sg.float32, name="x", sharding=P("data"))
        w = sg.Variable(sg.nn.initializers.zeros, (3, 2), name="w")
        y = x @ w
        loss = (y**2).mean()
        train = sg.optim.sgd(0.1).minimize(loss)
        total = sg.spmd(lambda a: sg.psum(a.sum(), "data"), mesh, in_specs=P("data"), out_specs=P())(x)
    block = X[process_id * 4 : (process_id + 1) * 4]  # each process feeds its block of the global batch
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
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3])
