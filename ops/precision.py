"""The reduce_precision primitive: round to fewer exponent and mantissa bits (ops layer)."""
