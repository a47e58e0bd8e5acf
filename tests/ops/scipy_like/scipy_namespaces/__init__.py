"""Tests of issue 26's sg.scipy namespaces: signal, fft, integrate, interpolate, ndimage, cluster, spatial."""
