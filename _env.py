"""Process settings that must be in place before jaxlib loads (imported first by __init__)."""

import os

# Keep XLA's C++ info logs off the user's terminal; warnings and errors still show.
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
