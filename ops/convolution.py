"""The convolution primitive and JAX's lax-level convolution helpers (ops layer)."""
