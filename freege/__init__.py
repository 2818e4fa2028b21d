"""freege: random-matrix theory of softmax multi-head self-attention.

Layers (data flows one way): ``freege.symbolic`` derives exact expressions (sympy),
``freege.numeric`` evaluates them at any precision (mpmath, lambdified from sympy),
and the top-level ``validation`` package checks both against sampled attention.
"""

from freege.params import SHARINGS, Dims, Ratios

__all__ = ["Dims", "Ratios", "SHARINGS"]
__version__ = "0.1.0"
