"""The special-point sweep (issue 20, part 2): every public function of a namespace, evaluated at
0, -0, ties, +-1, +-inf, nan, the smallest normal and subnormal, the largest finite, branch points
and range ends, empty arrays, in float32 and float64, with first and second derivatives, against
jax (same dtype) and a float64 reference. harness.py runs a signature table; signatures_<ns>.py
hold the tables; test_<ns>_points.py run them.

A package (this file) so the test modules import their helpers relatively under pytest's
importlib import mode.
"""
