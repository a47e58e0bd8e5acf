"""The primitives (ops layer, below the op sets): one module per family, named after it, each
OpDef with all its rules (infer, lower, vjp, batch, ...), plus what the families share: the
registry, the MLIR builders (hlo), prims (another family's op bound by name), ad_util and
batching (what vjp and batch rules share), lapack and special_lowering (kernels and lowerings
several families use). Importing a family registers its OpDefs; ops/__init__ imports them all.
"""
