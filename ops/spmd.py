"""sg.spmd: per-device regions over a mesh (as shard_map) (ops layer, user-facing)."""
