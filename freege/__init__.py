"""freege: random-matrix theory of softmax multi-head self-attention.

Layers (data flows one way): ``freege.symbolic`` derives exact expressions (sympy),
``freege.numeric`` evaluates them at any precision (mpmath; functions generated from the
sympy layer), and ``freege.validation`` checks both against sampled attention;
``freege.derivations`` writes the exact derivations out as documents. The mathematics is
written out in ``docs/theory.md``.

In the repository those two subpackages are the top-level folders ``validation/`` and
``derivations/``; an installed freege holds them inside the package, and a source checkout
finds them through :mod:`freege._source_tree`.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _distribution_version
from pathlib import Path as _Path

from freege import _source_tree
from freege.params import SHARINGS, Dims, Ratios

_source_tree.install(_Path(__file__).resolve().parent, __name__)

try:
    __version__: str = _distribution_version("freege")
except PackageNotFoundError:  # a source tree that is not installed
    __version__ = "0+unknown"

__all__ = ["Dims", "Ratios", "SHARINGS", "__version__"]
