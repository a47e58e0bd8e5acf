"""jaxlib's process-wide switches, as stablegraph needs them (backend.pjrt).

jaxlib's C++ dispatcher and array code read a few states that jax normally
installs (the x64 flag, disable_jit, a post hook). stablegraph installs its
own only when jax has not, and never changes jax's: where jax is loaded,
64-bit calls turn jax's flag on for their own thread and duration (x64_for).
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # keep XLA's C++ info logs off the user's terminal

from jaxlib._jax import config as _config  # noqa: E402
from jaxlib._jax import jax_jit as _jax_jit  # noqa: E402

# With the installed x64 flag on, 64-bit data stays 64-bit. stablegraph has no
# global x64 switch (each graph's dtypes decide), so its own flag is always on.
# If jax is loaded (jaxlib's output path imports it whenever it is installed),
# jax's flag is the installed one, off by default: 64-bit calls then turn it on
# thread-locally for their duration (see x64_for), which jax code never sees.
if "jax._src.config" not in sys.modules:
    _jax_jit.set_enable_x64_state(_config.Config("stablegraph_x64", True))
    _jax_jit.set_disable_jit_state(_config.Config("stablegraph_disable_jit", False))
    _jax_jit.set_post_hook_state(_config.Config("stablegraph_post_hook", None, include_in_jit_key=False))


class x64_for:
    """Keep 64-bit data 64-bit while jax's x64 flag (if jax is loaded) is off.

    Turns jax's flag on for this thread only, for the duration of the block.
    """

    __slots__ = ("flag", "old")

    def __init__(self, wide: bool):
        config = sys.modules.get("jax._src.config") if wide else None
        self.flag = config.enable_x64 if config is not None else None

    def __enter__(self):
        if self.flag is not None:
            self.old = self.flag.swap_local(True)

    def __exit__(self, *exc):
        if self.flag is not None:
            self.flag.set_local(self.old)
