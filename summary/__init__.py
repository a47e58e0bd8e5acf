"""TensorBoard logs without TensorFlow (``sg.summary``).

    with sg.summary.FileWriter("runs/exp1", graph=g) as writer:
        writer.scalar("loss", loss_value, step=100)
        writer.histogram("w1", sess.get(w1), step=100)
        writer.add_profile(sess.profile(train, feeds), step=100)

Summaries are values the user has fetched (numpy arrays, device arrays,
Python numbers): no summary op sits in the graph. The event files are
written with the ``tensorboard`` package's protos (imported when the first
FileWriter is made, so ``import stablegraph`` stays fast); TensorFlow is
never imported.
"""

from .writer import FileWriter

__all__ = ["FileWriter"]
