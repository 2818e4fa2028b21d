"""``freege.algebra``: the open law algebra of free probability (docs/algebra.md, theory §3).

Build laws from Marchenko-Pastur, semicircle, (compound) free Poisson and atomic laws with
affine maps, ``⊠`` (:func:`free_mult`, ``*``), ``⊞`` (:func:`free_add`, ``+``) and
polynomial pushforwards, in Python or as text (:func:`parse`)::

    >>> from freege import algebra
    >>> law = algebra.parse("mp(1/2) * mp(1/2)")
    >>> law.moments(3)
    [1, 2, 21/4]

Each expression is exact (:mod:`freege.symbolic.expressions`): its moments, its Cauchy
polynomial ``P(G, z)`` derived by resultants, its S-relation when the mean is not 0, its
atoms; ``expr.law(dps)`` is its numeric :class:`ExpressionLaw`. The seven theory §4
laws are expressions of this algebra (:func:`case_expression`, :mod:`freege.symbolic.cases`).

Your own names are positive symbols bound by ``expr.subs`` (``mp(c)``), and ``e``,
``pi``, ``exp(q)``, ``sqrt(q)`` exact constants (:mod:`freege.symbolic.open_field`);
numeric laws compose like their expressions (``law1 + law2``,
:mod:`freege.numeric.law_composition`).
"""

from freege.algebra.data import (  # the data-aware versions of the constructors
    DataExpr,
    affine,
    dilation,
    empirical,
    free_add,
    free_mult,
    free_poisson,
    from_scipy,
    parse_data,
    pushforward,
)
from freege.algebra.grammar import parse
from freege.numeric import constant_law  # noqa: F401 -- the law of constants, registered
from freege.numeric.expression_law import ExpressionLaw
from freege.symbolic.cases import case_expression
from freege.symbolic.expressions import (
    MAX_DEGREE,
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
    atomic,
    marchenko_pastur,
    point_mass,
    semicircle,
)

__all__ = [
    "MAX_DEGREE", "SYMBOLS", "Affine", "Atomic", "DataExpr", "ExpressionLaw", "FreeAdd",
    "FreeMult", "FreePoisson", "LawExpr", "MarchenkoPastur", "Pushforward", "Semicircle",
    "affine", "atomic", "case_expression", "dilation", "empirical", "free_add", "free_mult",
    "free_poisson", "from_scipy", "marchenko_pastur", "parse", "parse_data", "point_mass",
    "pushforward", "semicircle",
]
