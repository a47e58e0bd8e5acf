"""sg.scipy.stats: scipy.stats distributions' logpdf/pdf/cdf/... as graph ops (ops layer)."""
