"""``(w(lam), w'(lam))``, the degrees of freedom and their derivative, by two routes (theory §5).

``w(lam) = int x/(x + lam) dnubar`` and ``w'(lam)`` of a normalized law
(:meth:`freege.numeric.law_family.Law.dof_point`):

* :func:`spectral_point`, for any law with a Cauchy polynomial: from ``G(-lam)`` and
  ``G' = -P_z/P_G``;
* :func:`ridge_point`, a theory §4 case's own (:meth:`freege.numeric.case_law.CaseLaw.dof_point`):
  from the ridge polynomial
``F(w, lam) = a2(w) lam^2 + a1(w) lam + a0(w)`` with exactly factored coefficients and
discriminant ``D(w)`` (:func:`freege.numeric._symbolic.ridge_lambda_coefficients`). The
physical branch is the larger root ``lam(w) = (-a1 + sqrt(D)) / (2 a2)`` (evaluated without
cancellation), decreasing from ``+inf`` to 0 on ``(0, w_max)``, ``w_max = 1 - atom`` the
smallest positive root of ``a0``; ``w`` solves ``log lam(w) = log lam0`` by
:func:`freege.numeric.solve.find_root` (verified bracket, Newton with the exact derivative),
in ``w`` on ``(0, w_max/2]`` and in ``u = w_max - w`` beyond. The method and its accuracy
are those of :mod:`freege.numeric.readout`'s docstring (:func:`freege.numeric.readout.dof`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, NamedTuple

import mpmath

from freege.errors import ConvergenceError
from freege.numeric import compiled
from freege.numeric.solve import find_root
from freege.params import Number, to_mpf


class _RidgeFunctions(NamedTuple):
    coefficients: Callable[..., Any]  # (w, *params) -> [a0, a1, a2]
    derivatives: Callable[..., Any]  # (w, *params) -> [a0', a1', a2', D']
    discriminant: Callable[..., Any]  # (w, *params) -> D
    ends: Callable[..., Any]  # (*params) -> roots of the factors of a0 linear in w


def _ridge_ends(case: str) -> list[Any]:
    """Roots in ``w`` of the factors of ``a0`` linear in ``w`` (exact, sympy)."""
    import sympy as sp

    from freege.numeric import _symbolic
    from freege.symbolic.symbols import w

    a0 = _symbolic.ridge_lambda_coefficients(case)[0]
    ends = []
    for factor in sp.Mul.make_args(a0):
        base = factor.base if isinstance(factor, sp.Pow) else factor
        if base.has(w) and sp.degree(base, w) == 1:
            c1, c0 = sp.Poly(base, w).all_coeffs()
            ends.append(-c0 / c1)
    if not ends:
        raise ArithmeticError(f"{case}: F(w, 0) has no linear factor (no w_max)")
    return ends


def _ridge_pieces(case: str, which: str) -> Any:
    """``[a0, a1, a2]``, their and ``D``'s ``w``-derivatives, or ``D`` (exact, sympy)."""
    import sympy as sp

    from freege.numeric import _symbolic
    from freege.symbolic.symbols import w

    a0, a1, a2, disc = _symbolic.ridge_lambda_coefficients(case)
    if which == "coefficients":
        return [a0, a1, a2]
    if which == "derivatives":
        return [sp.diff(a, w) for a in (a0, a1, a2, disc)]
    return disc


def _mp_function(name: str, build: Callable[[], Any], arguments: tuple[str, ...]) -> Callable:
    """A generated function of :mod:`freege.numeric.compiled` evaluated with mpmath."""
    f = compiled.function(name, build, arguments)
    return lambda *args: f(*args, compiled.mp_rational)


@functools.lru_cache(maxsize=16)
def _ridge_functions(case: str) -> _RidgeFunctions:
    """The factored coefficients and discriminant, their ``w``-derivatives (product rule:
    sums of products of the factors, never expanded) and the candidate ends ``w_max``
    (roots of ``a0``'s linear factors), as generated mpmath functions
    (:mod:`freege.numeric.compiled`: no sympy once the disk cache is warm)."""
    with_w = ("w", *compiled.ARGUMENTS)
    return _RidgeFunctions(*(
        _mp_function(f"ridge-{which}-{case}", functools.partial(_ridge_pieces, case, which),
                     with_w)
        for which in ("coefficients", "derivatives", "discriminant")
    ), _mp_function(f"ridge-ends-{case}", functools.partial(_ridge_ends, case),
                    compiled.ARGUMENTS))


class _Curve:
    """``lam(w)`` on the physical branch of one normalized law, at the ambient precision
    (parameters and ``w_max`` recomputed whenever the precision changes)."""

    def __init__(self, nbar: Any) -> None:
        self.nbar = nbar
        self.fns = _ridge_functions(nbar.case)
        self._at: dict[int, tuple[tuple[mpmath.mpf, ...], mpmath.mpf]] = {}

    def setup(self) -> tuple[tuple[mpmath.mpf, ...], mpmath.mpf]:
        """``(parameters, w_max)`` at the ambient precision."""
        prec = mpmath.mp.prec
        if prec not in self._at:
            params = tuple(self.nbar.parameter_values())
            ends = [mpmath.mpf(e) for e in self.fns.ends(*params)]
            w_max = min((e for e in ends if e > 0), default=None)
            if w_max is None:
                raise ConvergenceError("w(lam)", "no positive end w_max", self.nbar.describe)
            self._at[prec] = (params, w_max)
        return self._at[prec]

    def branch(self, w: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf]:
        """``(lam(w), sqrt(D(w)))`` on the physical (larger) root, at ``w`` in
        ``(0, w_max)``; a :class:`ConvergenceError` if ``a2 <= 0`` or ``D < 0`` there."""
        params, _ = self.setup()
        a0, a1, a2 = self.fns.coefficients(w, *params)
        disc = self.fns.discriminant(w, *params)
        if not (a2 > 0 and disc >= 0):
            raise ConvergenceError(
                "lam(w)", f"the physical branch is not real at w = {mpmath.nstr(w, 10)} "
                f"(a2 = {mpmath.nstr(a2, 5)}, D = {mpmath.nstr(disc, 5)})", self.nbar.describe)
        root = mpmath.sqrt(disc)
        lam = (-a1 + root) / (2 * a2) if a1 <= 0 else -2 * a0 / (a1 + root)
        return lam, root

    def lam_prime(self, w: mpmath.mpf) -> mpmath.mpf:
        """``dlam/dw`` of the physical root at ``w`` (``= -F_w / F_lam``, ``F_lam =
        sqrt(D)``), differentiated in the same stable form as :meth:`branch` (``s = sqrt(D)``,
        ``s' = D'/(2 s)``): ``((s' - a1') - 2 a2' lam)/(2 a2)`` or ``-(2 a0' + lam (a1' +
        s'))/(a1 + s)``. Where ``w_max`` is a root of high multiplicity this avoids the
        cancellation of the terms of ``F_w``. A :class:`ConvergenceError` unless it is
        negative (``lam(w)`` decreasing)."""
        params, _ = self.setup()
        lam, root = self.branch(w)
        a0, a1, a2 = self.fns.coefficients(w, *params)
        d0, d1, d2, d_disc = self.fns.derivatives(w, *params)
        d_root = d_disc / (2 * root)
        if a1 <= 0:
            slope = ((d_root - d1) - 2 * d2 * lam) / (2 * a2)
        else:
            slope = -(2 * d0 + lam * (d1 + d_root)) / (a1 + root)
        if not slope < 0:
            raise ConvergenceError(
                "lam(w)", f"lam(w) is not decreasing at w = {mpmath.nstr(w, 10)}",
                self.nbar.describe)
        return slope


def ridge_point(nbar: Any, lam: Number) -> tuple[mpmath.mpf, mpmath.mpf]:
    """``(w(lam), w'(lam))`` correct to the ambient precision (see the module docstring);
    internally the precision is raised by the digits of ``w_max / (w_max - w)``."""
    curve = _Curve(nbar)
    base = mpmath.mp.prec
    _, w_max = curve.setup()
    lam0 = to_mpf(lam)
    params = {**nbar.describe, "lam": lam}

    def lam_at(w: mpmath.mpf) -> mpmath.mpf:
        value = curve.branch(w)[0]
        if not value > 0:
            raise ConvergenceError("w(lam)", f"lam(w) = {mpmath.nstr(value, 5)} <= 0 at "
                                   f"w = {mpmath.nstr(w, 10)} < w_max", params)
        return value

    half = w_max / 2
    # bracket steps (each a factor 4) before giving up: w ~ 1/lam as lam -> inf, and
    # w_max - w ~ lam^(1/k) as lam -> 0 (k <= 4, the multiplicity of the end)
    limit = 4 * base + 64 + 4 * int(abs(mpmath.log(lam0, 2)))
    if lam0 >= lam_at(half):  # root in (0, w_max/2]: solve in w
        hi, lo = half, half / 4
        for _ in range(limit):
            if lam_at(lo) >= lam0:
                break
            hi, lo = lo, lo / 4
        else:
            raise ConvergenceError("w(lam)", "no bracket found near w = 0", params)

        def f(w: mpmath.mpf) -> mpmath.mpf:
            return mpmath.log(lam_at(w) / lam0)

        def df(w: mpmath.mpf) -> mpmath.mpf:
            return curve.lam_prime(w) / curve.branch(w)[0]

        w = find_root(f, (lo, hi), df=df, quantity="w(lam)", params=params)
        return w, 1 / curve.lam_prime(w)

    # root in (w_max/2, w_max): solve in u = w_max - w with the precision raised so that
    # w = w_max - u keeps u to full relative precision
    u_hi, u_lo = half, half / 4
    for _ in range(limit):
        with mpmath.workprec(base + max(0, int(mpmath.log(w_max / u_lo, 2))) + 8):
            _, wm = curve.setup()
            if lam_at(wm - u_lo) <= lam0:
                break
        u_hi, u_lo = u_lo, u_lo / 4
    else:
        raise ConvergenceError("w(lam)", "no bracket found near w_max", params)
    with mpmath.workprec(base + max(0, int(mpmath.log(w_max / u_lo, 2))) + 8):
        _, wm = curve.setup()
        lam0 = to_mpf(lam)

        def g(u: mpmath.mpf) -> mpmath.mpf:
            return mpmath.log(lam_at(wm - u) / lam0)

        def dg(u: mpmath.mpf) -> mpmath.mpf:
            return -curve.lam_prime(wm - u) / curve.branch(wm - u)[0]

        u = find_root(g, (u_lo, u_hi), df=dg, quantity="w(lam)", params=params,
                      rtol=mpmath.ldexp(1, 16 - base))
        w = wm - u
        w_prime = 1 / curve.lam_prime(w)
    return +w, +w_prime


def spectral_point(law: Any, lam: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
    """``(w(lam), w'(lam))`` of a law with a Cauchy polynomial (theory §5,
    :class:`freege.numeric.algebraic_law.AlgebraicLaw`) from its Cauchy transform at
    ``z = -lam``:
    ``w = 1 + lam G(-lam)`` and ``w' = G(-lam) - lam G'(-lam)`` with ``G' =
    -P_z/P_G``. Both forms cancel about ``log10 lam`` digits (``w ~ m1/lam``), so the
    precision is raised by twice that."""
    base = mpmath.mp.prec
    extra = 2 * max(0, int(mpmath.log(to_mpf(lam), 2))) + 16
    with mpmath.workprec(base + extra):
        lam0 = to_mpf(lam)
        z = -lam0
        g = law.stieltjes_batch([z])[0].real
        rows = law.equation.matrix_mp()
        terms = [(i, j, c) for i, row in enumerate(rows) for j, c in enumerate(row)]
        p_g = mpmath.fsum(i * c * g ** (i - 1) * z ** j for i, j, c in terms if i)
        p_z = mpmath.fsum(j * c * g ** i * z ** (j - 1) for i, j, c in terms if j)
        scale = mpmath.fsum(abs(i * c * g ** (i - 1) * z ** j) for i, j, c in terms if i)
        if not abs(p_g) > scale * mpmath.ldexp(1, 16 - base):
            raise ConvergenceError("w'(lam)", "P_G vanishes at G(-lam): a branch point",
                                   {**law.describe, "lam": lam})
        w = 1 + lam0 * g
        w_prime = g + lam0 * p_z / p_g
    return +w, +w_prime


__all__ = ["ridge_point", "spectral_point"]
