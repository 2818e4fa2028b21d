"""freege: random-matrix theory of softmax multi-head self-attention.

Layers (data flows one way): ``freege.symbolic`` derives exact expressions (sympy),
``freege.numeric`` evaluates them at any precision (mpmath, lambdified from sympy),
and the top-level ``validation`` package checks both against sampled attention.
The mathematics is written out in ``docs/theory.md``.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _distribution_version

from freege.params import SHARINGS, Dims, Ratios

try:
    __version__: str = _distribution_version("freege")
except PackageNotFoundError:  # a source tree that is not installed
    __version__ = "0+unknown"

__all__ = ["Dims", "Ratios", "SHARINGS", "__version__"]
