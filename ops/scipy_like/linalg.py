"""sg.scipy.linalg: scipy.linalg's names over the factorization primitives (ops layer)."""
