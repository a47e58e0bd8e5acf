"""Registering the native kernels jaxlib ships (LAPACK, ducc FFT) as XLA custom-call targets (backend).

Lowering rules in ops/ emit custom calls by target name (ops/lapack.py); XLA
finds the kernels only after they are registered with it, which this module
does once, before the first compile. Like backend/pjrt.py it imports jaxlib.
"""

from __future__ import annotations


def register() -> None:
    """Register jaxlib's CPU custom-call targets with XLA (idempotent)."""
