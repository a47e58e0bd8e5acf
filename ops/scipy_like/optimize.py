"""sg.scipy.optimize: minimize (BFGS) built from graph ops (ops layer)."""
