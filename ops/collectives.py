"""Collective primitives inside per-device regions: psum, all_gather, ppermute, ... (ops layer)."""
