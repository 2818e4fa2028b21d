"""Exact univariate polynomials over QQ without sympy (theory §7.1; issue 41: a law at
parameters never seen derives nothing in sympy).

The branch points of ``P(G, z)`` are the roots of ``disc_G P(z)``. This module computes
that discriminant *exactly* from ``P``'s coefficient matrix at rational parameters, in
plain Python integers: the same polynomial over QQ that ``sympy.discriminant`` returns
(``(-1)^(n(n-1)/2) Res_G(P, P_G) / lc_G(P)``), so the verified root finder of
:mod:`freege.numeric.branch_points` sees the same numbers as before, only sooner.

How (:func:`discriminant`): with ``u = zG`` and ``low = min(j - i)`` over the terms
``G^i z^j`` of ``P``, ``Q(u, z) = z^(-low) P(u/z, z)`` is a polynomial of low degree in
``z`` (2 for every theory §4 case, against 6 in ``P``), and for ``n = deg_G P``

    ``disc_G P = z^((n-1)(2 low + n)) disc_u Q``

(the roots ``G_k = u_k / z`` and ``lc_G P = z^(n + low) lc_u Q``). ``Res_u(Q, Q_u)`` is the
determinant of a Sylvester matrix whose entries have degree at most ``d = deg_z Q``, so a
polynomial of degree at most ``(2n - 1) d``: it is evaluated at the integers
``0 .. (2n - 1) d`` (fraction-free Bareiss elimination), interpolated exactly (Newton's
forward differences, integers throughout) and divided exactly by ``lc_u Q``; a non-zero
remainder is an error, never a silent answer. :func:`squarefree_part` takes the
square-free part (primitive pseudo-remainder sequence over ZZ).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

#: an exact coefficient
Exact = Fraction | int


def _lcm_denominators(values: Sequence[Exact]) -> int:
    out = 1
    for v in values:
        out = math.lcm(out, Fraction(v).denominator)
    return out


def _subresultant(a: list[int], b: list[int]) -> int:
    """``Res(a, b)`` over ZZ (ascending coefficients, ``deg a >= deg b >= 1``, leading
    coefficients non-zero): the sub-resultant pseudo-remainder sequence (Cohen, *A
    Course in Computational Algebraic Number Theory*, Algorithm 3.3.7; every division is
    exact)."""
    content_a, content_b = _content(a), _content(b)
    a, b = [c // content_a for c in a], [c // content_b for c in b]
    sign, g, h = 1, 1, 1
    scale = content_a ** (len(b) - 1) * content_b ** (len(a) - 1)
    while True:
        da, db = len(a) - 1, len(b) - 1
        delta = da - db
        if da % 2 and db % 2:
            sign = -sign
        r = _pseudo_remainder(a, b)
        if not r:
            return 0
        divisor = g * h**delta
        a, b = b, [c // divisor for c in r]
        g = a[-1]
        h = g**delta if delta == 1 else g**delta // h ** (delta - 1) if delta else h
        if len(b) == 1:
            da = len(a) - 1
            return sign * scale * (b[0] ** da // h ** (da - 1))


def _resultant_with_derivative(coeffs: list[int]) -> int:
    """``Res(f, f')`` of ``f = sum coeffs[i] x^i`` (ascending) of *formal* degree
    ``n = len(coeffs) - 1 >= 2``: the determinant of the ``(2n - 1)``-square Sylvester
    matrix, 0 where ``coeffs[-1]`` is 0 (its first column vanishes)."""
    if coeffs[-1] == 0:
        return 0
    derivative = [k * c for k, c in enumerate(coeffs)][1:]
    return _subresultant(coeffs, derivative)


def _interpolate(values: list[int]) -> list[Fraction]:
    """Ascending coefficients of the polynomial of degree ``< len(values)`` taking
    ``values[k]`` at ``x = k`` (Newton's forward differences, ``sum D^k f(0) C(x, k)``,
    over the common denominator ``(len - 1)!``: integers until the last division)."""
    diffs, row = [], list(values)
    while row:
        diffs.append(row[0])
        row = [b - a for a, b in zip(row, row[1:], strict=False)]
    top = math.factorial(len(values) - 1)
    out = [0] * len(values)
    falling = [1]  # x (x - 1) ... (x - k + 1), ascending integer coefficients
    for k, d in enumerate(diffs):
        if d:
            scale = d * (top // math.factorial(k))
            for i, c in enumerate(falling):
                out[i] += scale * c
        falling = [(falling[i - 1] if i else 0) - k * (falling[i] if i < len(falling) else 0)
                   for i in range(len(falling) + 1)]
    return [Fraction(c, top) for c in out]


def _divide_exactly(num: list[Fraction], den: list[Exact]) -> list[Fraction]:
    """``num / den`` (ascending coefficients), ArithmeticError unless the remainder is 0."""
    num = list(num)
    while den and den[-1] == 0:
        den = den[:-1]
    dn = len(den) - 1
    if dn < 0:
        raise ArithmeticError("division by the zero polynomial")
    quotient = [Fraction(0)] * max(len(num) - dn, 1)
    for k in range(len(num) - 1, dn - 1, -1):
        q = Fraction(num[k]) / den[-1]
        quotient[k - dn] = q
        if q:
            for i, c in enumerate(den):
                num[k - dn + i] -= q * c
    if any(num[:dn]):
        raise ArithmeticError("the discriminant's division left a remainder")
    return quotient


def _trim(poly: list[Fraction]) -> list[Fraction]:
    while poly and poly[-1] == 0:
        poly = poly[:-1]
    return poly


def discriminant(rows: Sequence[Sequence[Exact]]) -> list[Fraction]:
    """``disc_G P`` as ascending coefficients in ``z``, exactly (the module docstring's
    route), for ``P = sum rows[i][j] G^i z^j`` with exact rational entries and degree
    ``n >= 1`` in ``G``. Equal to ``sympy.discriminant(P, G)``: ``1`` for ``n = 1``."""
    terms = {(i, j): Fraction(c) for i, row in enumerate(rows) for j, c in enumerate(row)
             if c != 0}
    if not terms:
        raise ValueError("the zero polynomial has no discriminant")
    n = max(i for i, _ in terms)
    if n < 1:
        raise ValueError("a polynomial of degree 0 in G has no discriminant")
    if n == 1:
        return [Fraction(1)]
    low = min(j - i for i, j in terms)
    width = max(j - i - low for i, j in terms) + 1
    scale = _lcm_denominators(list(terms.values()))
    q = [[0] * width for _ in range(n + 1)]  # Q[i][k]: u^i z^k, integers
    for (i, j), c in terms.items():
        q[i][j - i - low] = int(c * scale)
    bound = (2 * n - 1) * (width - 1)
    # the Sylvester determinant of the formal degree n is a polynomial in the
    # coefficients, so a point where lc_u Q vanishes interpolates exactly too
    values = [_resultant_with_derivative([sum(c * x**k for k, c in enumerate(row))
                                          for row in q]) for x in range(bound + 1)]
    disc_u = _divide_exactly(_interpolate(values), q[n])
    sign = -1 if (n * (n - 1) // 2) % 2 else 1
    factor = Fraction(sign, scale ** (2 * n - 2))
    disc_u = [factor * c for c in disc_u]
    shift = (n - 1) * (2 * low + n)
    if shift >= 0:
        return _trim([Fraction(0)] * shift + disc_u)
    if any(disc_u[:-shift]):
        raise ArithmeticError("the discriminant in u lacks the expected power of z")
    return _trim(disc_u[-shift:])


# --------------------------------------------------------------------- square-free part
def _content(poly: list[int]) -> int:
    """The gcd of the coefficients (0 for the zero polynomial)."""
    content = 0
    for c in poly:
        content = math.gcd(content, c)
    return content


def _primitive(poly: list[int]) -> list[int]:
    """``poly`` divided by its content, leading coefficient positive (ascending)."""
    content = _content(poly)
    if content == 0:
        return []
    if poly[-1] < 0:
        content = -content
    return [c // content for c in poly]


def _pseudo_remainder(a: list[int], b: list[int]) -> list[int]:
    """``lc(b)^(deg a - deg b + 1) a mod b`` over ZZ (ascending, ``b`` non-zero)."""
    a = list(a)
    lead, db = b[-1], len(b) - 1
    steps = len(a) - db  # deg a - deg b + 1 multiplications by lc(b) in all
    while len(a) - 1 >= db and a:
        head, shift = a[-1], len(a) - 1 - db
        a = [lead * c for c in a]
        steps -= 1
        for i, c in enumerate(b):
            a[shift + i] -= head * c
        a = a[:-1]
        while a and a[-1] == 0:
            a = a[:-1]
    if steps > 0:  # the degree fell by more than one somewhere: the missing factors
        a = [c * lead**steps for c in a]
    return a


def _gcd(a: list[int], b: list[int]) -> list[int]:
    """The primitive gcd over ZZ[x] (ascending, positive leading coefficient): by
    :func:`_modular_gcd`, else the primitive pseudo-remainder sequence."""
    found = _modular_gcd(a, b)
    if found is not None:
        return found
    a, b = _primitive(a), _primitive(b)
    while b:
        a, b = b, _primitive(_pseudo_remainder(a, b))
    return a


#: primes below 2^62 for the modular gcd, found once (deterministic Miller-Rabin)
_PRIMES: list[int] = []
#: the most primes the modular gcd tries before the pseudo-remainder sequence
MODULAR_PRIMES = 60


def _is_prime(n: int) -> bool:
    """Deterministic Miller-Rabin for ``n < 3.3e24`` (the first 13 prime bases)."""
    bases = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    if n < 2 or any(n % p == 0 for p in bases):
        return n in bases
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for base in bases:
        x = pow(base, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _prime(k: int) -> int:
    """The ``k``-th prime below ``2^62`` counting down."""
    candidate = _PRIMES[-1] - 2 if _PRIMES else (1 << 62) - 1
    while len(_PRIMES) <= k:
        if _is_prime(candidate):
            _PRIMES.append(candidate)
        candidate -= 2
    return _PRIMES[k]


def _gcd_mod(a: list[int], b: list[int], p: int) -> list[int]:
    """The monic gcd of ``a`` and ``b`` over GF(p) (ascending)."""
    def trim(poly: list[int]) -> list[int]:
        while poly and poly[-1] == 0:
            poly = poly[:-1]
        return poly

    a, b = trim([c % p for c in a]), trim([c % p for c in b])
    while b:
        inv = pow(b[-1], -1, p)
        while len(a) >= len(b):
            head, shift = a[-1] * inv % p, len(a) - len(b)
            for i, c in enumerate(b):
                a[shift + i] = (a[shift + i] - head * c) % p
            a = trim(a)
        a, b = b, a
    inv = pow(a[-1], -1, p)
    return [c * inv % p for c in a]


def _rational(residue: int, modulus: int) -> Fraction | None:
    """The fraction ``n/d`` with ``|n|, d <= sqrt(modulus / 2)`` congruent to ``residue``
    (rational reconstruction), or None."""
    bound = math.isqrt(modulus // 2)
    r0, r1, t0, t1 = modulus, residue % modulus, 0, 1
    while r1 > bound:
        q = r0 // r1
        r0, r1, t0, t1 = r1, r0 - q * r1, t1, t0 - q * t1
    if t1 == 0 or abs(t1) > bound or math.gcd(r1, t1) != 1:
        return None
    return Fraction(r1, t1)


def _divides(divisor: list[int], poly: list[int]) -> bool:
    """Whether ``divisor`` divides ``poly`` in QQ[x] (exact long division)."""
    try:
        _divide_exactly([Fraction(c) for c in poly], divisor)
    except ArithmeticError:
        return False
    return True


def _modular_gcd(a: list[int], b: list[int]) -> list[int] | None:
    """The primitive gcd by images modulo primes: the degree of the gcd mod ``p`` bounds
    the true one from above (``p`` dividing neither leading coefficient), the monic
    images of that least degree are joined by the Chinese remainder theorem and read
    back by rational reconstruction; a candidate that divides both ``a`` and ``b`` is
    the gcd (a common divisor of the bounding degree). None after
    :data:`MODULAR_PRIMES` primes."""
    best: list[int] | None = None
    modulus, residues = 1, []
    for k in range(MODULAR_PRIMES):
        p = _prime(k)
        if a[-1] % p == 0 or b[-1] % p == 0:
            continue
        image = _gcd_mod(a, b, p)
        if len(image) == 1:
            return [1]
        if best is not None and len(image) > len(best):
            continue  # an unlucky prime
        if best is None or len(image) < len(best):
            best, modulus, residues = image, 1, [0] * len(image)
        residues = [r + modulus * ((c - r) * pow(modulus, -1, p) % p)
                    for r, c in zip(residues, image, strict=True)]
        modulus *= p
        candidate = [_rational(r, modulus) for r in residues]
        if any(c is None for c in candidate):
            continue
        scale = _lcm_denominators(candidate)
        ints = _primitive([int(c * scale) for c in candidate])
        if _divides(ints, a) and _divides(ints, b):
            return ints
    return None


def squarefree_part(poly: Sequence[Exact]) -> list[int]:
    """The square-free part of a non-zero rational polynomial (ascending coefficients) as
    a primitive integer polynomial with a positive leading coefficient: the same roots,
    each simple."""
    poly = _trim([Fraction(c) for c in poly])
    if not poly:
        raise ValueError("the zero polynomial has no square-free part")
    zeros = next(k for k, c in enumerate(poly) if c != 0)  # z^zeros divides poly
    scale = _lcm_denominators(poly)
    ints = _primitive([int(c * scale) for c in poly[zeros:]])
    root_zero = [0] if zeros else []
    if len(ints) <= 2:
        return root_zero + ints
    derivative = [k * c for k, c in enumerate(ints)][1:]
    common = _gcd(ints, derivative)
    if len(common) > 1:
        quotient = _divide_exactly([Fraction(c) for c in ints], common)
        ints = _primitive([int(c * _lcm_denominators(quotient)) for c in quotient])
    return root_zero + ints


__all__ = ["discriminant", "squarefree_part"]
