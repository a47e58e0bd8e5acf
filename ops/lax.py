"""sg.lax: JAX's lax names for stablegraph's primitives and their helpers (ops layer, user-facing)."""
