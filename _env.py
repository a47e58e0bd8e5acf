"""Process settings that must be in place before jaxlib loads, and the garbage collector's
threshold while stablegraph imports (imported first by __init__)."""

import gc
import os

# Keep XLA's C++ info logs off the user's terminal; warnings and errors still show.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

# Importing stablegraph makes ~100k long-lived objects (modules, classes, functions, op tables)
# and almost no garbage: the collector's passes over them are wasted, so it does not run during
# the import, and import_done (called last by __init__) moves them to the collector's permanent
# generation (gc.freeze), where later passes do not walk them again: a first training step
# otherwise spends ~10% of its CPU time in the collector, re-walking the library's objects.
GC_THRESHOLD = gc.get_threshold()
gc.set_threshold(max(10_000_000, GC_THRESHOLD[0]), *GC_THRESHOLD[1:])


def import_done() -> None:
    """Freezes what the import made (they live as long as the process) and puts the threshold back.
    Objects the program made before ``import stablegraph`` are frozen too: they are kept even if
    they become unreachable cycles later (as gc.freeze documents), a cost only for cycles made
    before the import and dropped after it."""
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLD)
