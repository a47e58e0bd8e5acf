"""Complex-number primitives: real, imag, complex and conj (ops layer)."""
