"""Elementwise math beyond elementwise.py: inverse trig, hyperbolic and special functions (ops layer)."""
