"""Sampling-side validation of freege: softmax MHA against its Gaussian equivalent and
the limiting laws, on NumPy or CuPy (theory §1, §2, §6)."""

from freege.validation.sweep.data import load_store

__all__ = ["load_store"]
