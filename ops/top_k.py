"""The top_k primitive: the k largest entries of the last axis and their indices (ops layer)."""
