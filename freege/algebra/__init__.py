"""``freege.algebra``: the open law algebra of free probability (docs/algebra.md, theory §3).

Build laws from Marchenko-Pastur, semicircle, (compound) free Poisson and atomic laws with
affine maps, ``⊠`` (:func:`free_mult`, ``*``), ``⊞`` (:func:`free_add`, ``+``) and
quadratic pushforwards, in Python or as text (:func:`parse`)::

    >>> from freege import algebra
    >>> law = algebra.parse("mp(1/2) * mp(1/2)")
    >>> law.moments(3)
    [1, 2, 21/4]

Each expression is exact (:mod:`freege.symbolic`): its moments, its Cauchy polynomial
``P(G, z)`` derived by resultants, its S-relation when the mean is not 0, its atoms.
"""

from freege.algebra.expressions import (
    SYMBOLS,
    Affine,
    Atomic,
    FreeAdd,
    FreeMult,
    FreePoisson,
    LawExpr,
    MarchenkoPastur,
    Pushforward,
    Semicircle,
    affine,
    atomic,
    dilation,
    free_add,
    free_mult,
    free_poisson,
    marchenko_pastur,
    point_mass,
    pushforward,
    semicircle,
)
from freege.algebra.grammar import parse

__all__ = [
    "SYMBOLS", "Affine", "Atomic", "FreeAdd", "FreeMult", "FreePoisson", "LawExpr",
    "MarchenkoPastur", "Pushforward", "Semicircle", "affine", "atomic", "dilation",
    "free_add", "free_mult", "free_poisson", "marchenko_pastur", "parse", "point_mass",
    "pushforward", "semicircle",
]
