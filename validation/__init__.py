"""Sampling-side validation of freege: softmax MHA against its Gaussian equivalent and
the limiting laws, on NumPy or CuPy (theory §1, §2, §6)."""
