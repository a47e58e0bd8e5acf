"""One process of the lost-peer test (tests/distributed/test_two_processes.py runs two of these).

Both processes join (timeout 5 s) and make one training step over a mesh
spanning them; then process DYING exits abruptly (os._exit, no shutdown),
and the other runs again: that run must raise sg.DistributedError within
about the timeout, a later one at once, and the process must then exit
normally. The survivor prints what it saw as one JSON line.
Usage: python dying_worker.py HOST:PORT PROCESS_ID DYING
"""

import json
import os
import sys
import time

import numpy as np

import stablegraph as sg

TIMEOUT = 5


def main(address: str, process_id: int, dying: int) -> None:
    sg.distributed.initialize(address, 2, process_id, local_device_count=2, timeout=TIMEOUT)
    mesh = sg.make_mesh((4,), ("data",))
    P = sg.PartitionSpec
    g = sg.Graph()
    with g:
        x = sg.placeholder(("batch", 3), sg.float32, name="x", sharding=P("data"))
        w = sg.Variable(sg.nn.initializers.ones, (3, 2), name="w")
        train = sg.optim.sgd(0.1).minimize(((x @ w) ** 2).mean())
    block = np.ones((4, 3), np.float32)
    report = {}
    with sg.Session(g, mesh=mesh) as sess:
        sess.run(train, {x: block})
        if process_id == dying:
            os._exit(0)  # dies without a word to anyone
        for name in ("second", "third"):
            start = time.monotonic()
            try:
                sess.run(train, {x: block})
                report[name] = ["no error", time.monotonic() - start, ""]
            except Exception as e:
                report[name] = [type(e).__name__, time.monotonic() - start, str(e)]
    start = time.monotonic()
    sg.distributed.shutdown()
    report["shutdown"] = time.monotonic() - start
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
