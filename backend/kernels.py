"""Registering the native kernels jaxlib ships (LAPACK) as XLA custom-call targets (backend).

Lowering rules in ops/ emit custom calls by target name (ops/lapack.py); XLA
finds the kernels only after they are registered with it, which this module
does once, before the first compile. Like backend/pjrt.py it imports jaxlib.

jaxlib's ``cpu._lapack`` module lists its kernels as ``{target name: capsule}``
(``registrations()``); the ``*_ffi`` ones use XLA's typed FFI (api_version 1
in ``register_custom_call_target``'s numbering), the others the original
custom-call ABI (0). ``initialize()`` binds the kernels to the LAPACK routines
scipy's bundled OpenBLAS provides. jax does the same when jax.lax.linalg is
imported; registering a name twice is harmless, so both libraries may do it.
"""

from __future__ import annotations

from jaxlib import xla_client
from jaxlib.cpu import _lapack

_registered = False


def register() -> None:
    """Register jaxlib's CPU LAPACK custom-call targets with XLA (idempotent)."""
    global _registered
    if _registered:
        return
    _lapack.initialize()
    for name, capsule in _lapack.registrations().items():
        api_version = 1 if name.endswith("_ffi") else 0
        xla_client.register_custom_call_target(name, capsule, platform="cpu", api_version=api_version)
    _registered = True
