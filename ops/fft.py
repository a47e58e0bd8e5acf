"""The fft primitive: FFT, IFFT, RFFT and IRFFT over the trailing axes (ops layer)."""
