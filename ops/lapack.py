"""Custom calls into the LAPACK kernels jaxlib ships (ops layer, bottom: lowering helpers only)."""
