"""Branch points of a Cauchy polynomial (theory §7, §7.1): the discriminant, support-edge
and atom candidates, and the law's yardsticks :meth:`BranchPoints.radius` and
:meth:`BranchPoints.scale`.

Holds :class:`BranchPoints` (the exact discriminant ``disc_G P`` and the lowest-order part
of ``P(m/z, z)`` over QQ at the working precision, their real roots, the real zeros of the
leading coefficient, the largest branch-point modulus and the law's size, both at the one
fixed precision :data:`FLOAT64_EDGE_DPS`) and the verified root finder of exact
univariate polynomials (:func:`polynomial_roots`, :func:`real_roots`: ``mpmath.polyroots``
and a bracketed sign change). The support intervals and the atom at 0 built on them are in
:mod:`freege.numeric.roots`.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

import mpmath
import numpy as np

from freege.errors import ConvergenceError
from freege.numeric import exact_univariate
from freege.numeric.cauchy_polynomial import CauchyPolynomial
from freege.numeric.solve import find_root

if TYPE_CHECKING:  # sympy is imported only where an exact computation runs
    import sympy as sp

#: digits of the exact edge computation behind float64 laws
FLOAT64_EDGE_DPS = 17


class BranchPoints(CauchyPolynomial):
    """The exact pieces of ``P`` (discriminant, atom candidates, leading coefficient) and
    the radius and scale derived from them; a part of
    :class:`freege.numeric.roots.CauchyEquation`."""

    def radius(self) -> float:
        """The largest modulus of a branch point (discriminant and leading-coefficient
        roots), at least 1 and the mean:
        outside it the physical branch is its Laurent series ``1/z + m1/z^2 + ...``."""
        if self._radius is None:
            # always at the same precision: R sets the float64/mpmath split, so it must not
            # depend on which discriminant an earlier call happened to compute (issue 16)
            with mpmath.workdps(FLOAT64_EDGE_DPS):
                moduli = self._remember("branch-point-moduli", FLOAT64_EDGE_DPS,
                                        self._branch_point_moduli)
            self._radius = max([1.0, abs(self.mean)] + moduli)
        return self._radius

    def scale(self) -> float:
        """The law's size: the largest of 1e-300, the mean and the real branch points
        (discriminant and leading-coefficient real roots; the largest support edge is one
        of them), at one fixed precision. "Near 0" (:data:`NEAR_ZERO`, where float64 is not
        used) is measured against it, not against :meth:`radius`: a far complex branch
        point on another sheet does not make the whole support "near 0"."""
        if self._scale is None:
            with mpmath.workdps(FLOAT64_EDGE_DPS):
                reals = [abs(float(r)) for r in self.discriminant_real_roots(FLOAT64_EDGE_DPS)]
            reals += [abs(float(r)) for r in self.lead_real_roots()]
            self._scale = max([1e-300, abs(self.mean)] + reals)
        return self._scale

    def _branch_point_moduli(self) -> list[float]:
        """``|r|`` of every root of the discriminant and of the leading coefficient."""
        everything, _ = self._discriminant_roots(FLOAT64_EDGE_DPS)
        everything += polynomial_roots(self._lead_coefficient(), FLOAT64_EDGE_DPS)[0]
        return [float(abs(r)) for r in everything]

    def discriminant(self) -> list[Fraction]:
        """``disc_G P(z)`` over QQ, ascending in ``z`` (parameters rationalised at the
        working precision; computed without sympy by
        :func:`freege.numeric.exact_univariate.discriminant`); its real roots are the
        candidate support edges (theory §7.1)."""
        prec = mpmath.mp.prec
        if prec not in self._disc_cache:
            self._disc_cache[prec] = exact_univariate.discriminant(self.exact_rows())
        return self._disc_cache[prec]

    def _discriminant_roots(self, dps: int) -> tuple[list[mpmath.mpc], list[mpmath.mpf]]:
        """:func:`polynomial_roots` of :meth:`discriminant` (kept per precision and
        ``dps``: the radius and the edges share it)."""
        key = ("roots", mpmath.mp.prec, dps)
        if key not in self._disc_cache:
            self._disc_cache[key] = polynomial_roots(self.discriminant(), dps)
        found, reals = self._disc_cache[key]
        return list(found), list(reals)

    def _lead_coefficient(self) -> list[Fraction]:
        """The leading coefficient of ``P`` in ``G``, ascending in ``z`` (exact)."""
        rows = self.exact_rows()
        return next(row for row in reversed(rows) if any(row))

    def atom_candidates(self) -> list[Fraction]:
        """Polynomial in ``m`` (ascending coefficients) whose roots are the possible
        masses ``lim_{z->0} z G(z)``: the lowest-order part in ``z`` of ``P(m/z, z)``
        (exact)."""
        terms = [(i, j, c) for i, row in enumerate(self.exact_rows())
                 for j, c in enumerate(row) if c != 0]
        low = min(j - i for i, j, _ in terms)
        out = [Fraction(0)] * (max(i for i, _, _ in terms) + 1)
        for i, j, c in terms:
            if j - i == low:
                out[i] = c
        return out

    def discriminant_real_roots(self, dps: int) -> list[mpmath.mpf]:
        """Real roots of :meth:`discriminant` to ``dps`` digits (the candidate edges)."""
        return self._remember("discriminant-real-roots", dps,
                              lambda: self._discriminant_roots(dps)[1])

    def atom_real_roots(self, dps: int) -> list[mpmath.mpf]:
        """Real roots of :meth:`atom_candidates` to ``dps`` digits (the possible masses)."""
        return self._remember("atom-real-roots", dps,
                              lambda: real_roots(self.atom_candidates(), dps))

    def lead_real_roots(self) -> list[Fraction]:
        """Real zeros of the leading coefficient in G (points where a root escapes to
        infinity: the only places the law can have an atom)."""
        return self._remember("lead-real-roots", None, self._lead_real_roots)

    def _lead_real_roots(self) -> list[Fraction]:
        """The exactly isolated real zeros of the leading coefficient: ``[0]`` or none for
        a monomial ``c z^k`` (every theory §4 case), else sympy's isolating intervals that
        shrink to a point."""
        lead = self._lead_coefficient()
        nonzero = [j for j, c in enumerate(lead) if c != 0]
        if len(nonzero) == 1:
            return [Fraction(0)] if nonzero[0] > 0 else []
        import sympy as sp

        from freege.symbolic.symbols import z

        poly = sp.Poly([sp.Rational(c.numerator, c.denominator) for c in lead[::-1]], z)
        return [Fraction(int(a.p), int(a.q)) for (a, b), _ in poly.intervals() if a == b]


def polynomial_roots(poly: sp.Poly | Sequence[Fraction | int], dps: int
                     ) -> tuple[list[mpmath.mpc], list[mpmath.mpf]]:
    """All distinct roots of an exact univariate polynomial (a sympy Poly over QQ or its
    ascending rational coefficients), and its real ones, to ``dps`` digits.

    The square-free part is taken exactly (:func:`freege.numeric.exact_univariate.
    squarefree_part`) (so every root is simple; a root at 0 is
    divided out exactly and returned as 0); float64 roots refined by Weierstrass sweeps
    (:func:`_weierstrass`, at more digits where the polynomial's own rounding noise
    needs them, theory §7.1), else ``mpmath.polyroots`` (Durand-Kerner at ``dps + 10``
    digits, retried with more steps and ``extraprec`` if it does not converge) find all
    roots (retried at ``dps + 30`` and ``dps + 80`` digits when a sign cannot be resolved:
    the coefficients are exact). Each root with
    ``|Im| <= 10^-(dps/2) max(1, |r|)`` is a real candidate, verified by
    :func:`freege.numeric.solve.find_root` on the bracket
    ``r -+ 10^-(dps/2) max(1, |r|)`` (cut to 2/5 of the distance from ``Re r`` to the
    nearest other root):
    a sign change there proves a real root (a simple
    root, refined to ``dps + 3`` digits); a candidate with a non-zero imaginary part and no
    sign change is a complex pair near the axis. Anything else raises
    :class:`freege.errors.ConvergenceError`.
    """
    if hasattr(poly, "all_coeffs"):
        poly = [Fraction(int(c.p), int(c.q)) for c in poly.all_coeffs()[::-1]]
    if not any(poly):
        return [], []
    sqf = exact_univariate.squarefree_part(poly)[::-1]  # descending
    if len(sqf) <= 1:
        return [], []
    quantity = f"real roots of a degree-{len(sqf) - 1} polynomial"
    failure = None
    for extra in (10, 30, 80):  # exact coefficients: more digits resolve any cancellation
        try:
            return _verified_roots(sqf, dps, extra, quantity)
        except ConvergenceError as exc:
            failure = exc
    raise failure


def _verified_roots(
    exact: list[int], dps: int, extra: int, quantity: str
) -> tuple[list[mpmath.mpf], list[mpmath.mpf]]:
    at_zero = exact[-1] == 0  # z divides it (once: square-free): 0 is a root, exactly
    exact = exact[:-1 if at_zero else None]
    refined = _weierstrass(exact, dps + extra // 2)
    digits = dps + extra if refined is None else refined[1]
    with mpmath.workdps(digits):
        coeffs = [mpmath.mpf(c) for c in exact]
        scale = max(abs(c) for c in coeffs)
        coeffs = [c / scale for c in coeffs]
        dcoeffs = [c * k for c, k in zip(coeffs[:-1], range(len(coeffs) - 1, 0, -1),
                                         strict=True)]
        sizes = [abs(c) for c in coeffs]
        found = None if refined is None else refined[0]
        for more in (20, 60, 150, 400) if found is None else ():
            try:
                found = mpmath.polyroots(coeffs, maxsteps=100 + more, cleanup=True,
                                         extraprec=more, error=False)
                break
            except mpmath.libmp.libhyper.NoConvergence:
                continue
        if found is None:
            raise ConvergenceError(quantity, "polyroots did not converge")
        found = [mpmath.mpc(r) for r in found]
        tol = mpmath.mpf(10) ** (-(dps // 2))
        noise_factor = mpmath.ldexp(4 * len(coeffs), -mpmath.mp.prec)
        reals = [mpmath.mpf(0)] if at_zero else []
        for k, r in enumerate(found):
            half = tol * max(abs(r), mpmath.mpf(1))
            if abs(r.imag) > half:
                continue
            # no other root near the bracket: distances from the bracket's centre on the
            # axis, so a complex pair whose real part is nearer to 0 than its imaginary
            # part does not bracket the root 0 (issue 16: a pair at -1.4e-12 +- 3e-11 i
            # gave a spurious edge at 6e-60)
            others = [abs(r.real - o) for j, o in enumerate(found) if j != k]
            if at_zero:
                others.append(abs(r.real))
            half = min([half] + [d * 2 / 5 for d in others])
            lo, hi = r.real - half, r.real + half
            f_lo, f_hi = mpmath.polyval(coeffs, lo), mpmath.polyval(coeffs, hi)
            if f_lo * f_hi > 0:
                if r.imag != 0:
                    continue  # a complex pair close to the axis
                raise ConvergenceError(quantity, f"no sign change around the real candidate "
                                       f"{mpmath.nstr(r.real, 15)}")
            reals.append(find_root(
                lambda x: mpmath.polyval(coeffs, x), (lo, hi), quantity=quantity,
                df=lambda x: mpmath.polyval(dcoeffs, x),
                noise=lambda x: noise_factor * mpmath.polyval(sizes, abs(x)),
                rtol=mpmath.mpf(10) ** -(dps + 3)))
    with mpmath.workdps(dps + extra):  # the roots at the asked precision, whatever it took
        found = [+r for r in found]
        reals = [+r for r in reals]
    return found + ([mpmath.mpc(0)] if at_zero else []), sorted(reals)


#: Weierstrass sweeps at one precision before the refinement gives way to polyroots
WEIERSTRASS_SWEEPS = 60

#: digits worked at above the asked accuracy, in turn, while the polynomial's own rounding
#: noise (its coefficients' sizes at the roots, over the roots' distances) leaves the
#: sweeps' corrections above the asked accuracy: roots in tight clusters and far from 1
WEIERSTRASS_GUARDS = (5, 35, 95, 255)


def _weierstrass(exact: list[int], digits: int) -> tuple[list[mpmath.mpc], int] | None:
    """All roots of the polynomial with descending integer coefficients ``exact`` (no
    root at 0) to ``digits`` digits, and the precision (digits) that got them:
    float64 companion eigenvalues refined by the simultaneous Weierstrass (Durand-Kerner)
    iteration, in place. Each correction is set against its rounding floor (the bound
    ``2n 2^-prec sum |c_k| |r|^k`` of the polynomial's value at ``r`` over the
    iteration's denominator): a sweep converges when every correction is below
    ``2^(10 - prec) max(1, |r|)`` or at its floor; a floor above ``10^-digits max(1,
    |r|)`` (a tight cluster, roots far from 1: the value's own cancellation) continues
    from the values found at :data:`WEIERSTRASS_GUARDS` more digits. A converged sweep is
    a fixed point: each of the ``n`` distinct values is a root, so they are all of them.
    None (the caller runs ``mpmath.polyroots`` from scratch) when the float64 start misses
    a root or a value, or the sweeps do not settle at any precision, or two values do
    not stay apart."""
    n = len(exact) - 1
    with np.errstate(all="ignore"):
        top = max(abs(c) for c in exact)
        start = np.roots(np.array([float(Fraction(c, top)) for c in exact]))
    if len(start) != n or not np.all(np.isfinite(start)):
        return None
    found = [mpmath.mpc(complex(r)) for r in start]
    for guard in WEIERSTRASS_GUARDS:
        with mpmath.workdps(digits + guard):
            coeffs = [mpmath.mpf(c) / top for c in exact]
            sizes = [abs(c) for c in coeffs]
            found = [+r for r in found]
            settled = _weierstrass_sweeps(coeffs, sizes, found, digits)
            if settled is None:
                return None
            if settled:
                break
    else:
        return None
    with mpmath.workdps(digits + guard):
        tol = mpmath.mpf(10) ** -digits
        for i, r in enumerate(found):
            if any(abs(r - o) <= 1e3 * tol * max(1, abs(r)) for o in found[i + 1:]):
                return None
            if abs(r.imag) <= tol * max(1, abs(r)):  # as polyroots' cleanup
                found[i] = mpmath.mpc(r.real)
    return found, digits + guard


def _weierstrass_sweeps(coeffs: list[mpmath.mpf], sizes: list[mpmath.mpf],
                        found: list[mpmath.mpc], digits: int) -> bool | None:
    """At most :data:`WEIERSTRASS_SWEEPS` sweeps of :func:`_weierstrass` at the ambient
    precision, updating ``found`` in place: True when a full sweep converged with every
    floor within ``10^-digits``; False as soon as a floor is a thousand times above that,
    or when a full sweep converged at floors above it (more digits are needed); None when
    the sweeps did not settle. A value whose correction is done waits while the others
    move; a full sweep over all of them decides."""
    tol = mpmath.ldexp(1, 10 - mpmath.mp.prec)
    want = mpmath.mpf(10) ** -digits
    noise = mpmath.ldexp(2 * len(coeffs), -mpmath.mp.prec)
    lead = coeffs[0]
    active = list(range(len(found)))
    for _ in range(WEIERSTRASS_SWEEPS):
        full = len(active) == len(found)
        moving, floor_ok = [], True
        for i in active:
            r = found[i]
            den = lead
            for j, other in enumerate(found):
                if j != i:
                    den *= r - other
            if den == 0:
                return None
            step = mpmath.polyval(coeffs, r) / den
            found[i] = r - step
            size = max(1, abs(r))
            floor = noise * mpmath.polyval(sizes, abs(r)) / abs(den)
            if floor > 1000 * want * size:
                return False
            floor_ok = floor_ok and floor <= want * size
            if abs(step) > max(tol * size, 4 * floor):
                moving.append(i)
        if full and not moving:
            return floor_ok
        active = moving or list(range(len(found)))
    return None


def real_roots(poly: sp.Poly | Sequence[Fraction | int], dps: int) -> list[mpmath.mpf]:
    """Distinct real roots of an exact univariate polynomial (see :func:`polynomial_roots`)."""
    return polynomial_roots(poly, dps)[1]
