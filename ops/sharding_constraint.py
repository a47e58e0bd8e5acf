"""The sharding_constraint primitive: pin a tensor's layout on the device mesh (ops layer)."""
