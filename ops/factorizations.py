"""Matrix factorization primitives (cholesky, triangular_solve, eigh, svd, qr, lu, eig) (ops layer)."""
