"""snp.fft: numpy.fft's names over the fft primitive (ops layer)."""
