"""Timing shared by the benchmarks: interleaved repeats, medians (noisy 2-core machines)."""

from __future__ import annotations

import statistics
import time


def per_call(fn, calls: int) -> float:
    """Mean seconds per call over ``calls`` back-to-back calls."""
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def measure(fns: dict, calls: int, repeats: int) -> dict[str, float]:
    """Median seconds per call of each function, repeats interleaved."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            times[name].append(per_call(fn, calls))
    return {name: statistics.median(ts) for name, ts in times.items()}
