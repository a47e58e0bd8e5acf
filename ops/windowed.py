"""The reduce_window primitive (sum/max/min over sliding windows) and its helpers (ops layer)."""
