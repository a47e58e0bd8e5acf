"""numpy ufuncs over the inverse-trig, hyperbolic, complex and special-math primitives (ops layer)."""

__all__ = []
