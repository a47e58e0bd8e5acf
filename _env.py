"""Process settings that must be in place before jaxlib loads, and the garbage collector's
threshold while stablegraph imports (imported first by __init__)."""

import gc
import os

# Keep XLA's C++ info logs off the user's terminal; warnings and errors still show.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

# Importing stablegraph makes ~90k long-lived objects and almost no garbage: the collector's
# passes over them are wasted (~5% of the import), so it waits for 100k new objects meanwhile;
# __init__ puts the threshold back when the import is done.
GC_THRESHOLD = gc.get_threshold()
gc.set_threshold(max(100_000, GC_THRESHOLD[0]), *GC_THRESHOLD[1:])
