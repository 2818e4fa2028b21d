"""The sampling core (theory §1, §2, §4, §6.1, §7): one code path over NumPy and CuPy.

``backend`` (array namespace, dtype, seeded generators, memory meter) and
``eigensolver`` (symmetric eigenvalues, Gram matrices, the leading singular value) carry
the linear algebra; ``sample`` draws softmax MHA and its Gaussian equivalent with the same
weights for every sharing scheme and returns Gram spectra; ``conditional`` and ``outlier``
hold the conditional-covariance and leading-singular-value checks; ``metrics`` compares
spectra (W1, KS, histograms, Student-t intervals); ``limits`` gives the theory §4
limiting moments the samples are compared with. Nothing here knows about sweeps,
stores, the paper or the CLI.
"""
