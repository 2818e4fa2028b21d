"""Operands of the subordination engine: laws given by data, and how to read their Cauchy
transform (docs/data-laws.md, theory §3).

An :class:`Operand` is a law the engine (:mod:`freege.numeric.subordination`) only needs to
*evaluate*: its Cauchy transform ``G(z) = int dnu(x)/(z - x)`` and ``G'(z)`` at points off
its support, a closed interval holding the support, its atoms and its moments. The kinds:

* :class:`EmpiricalOperand` -- ``sum_i w_i delta_{x_i}`` (an empirical spectrum, up to
  :data:`MAX_ATOMS` atoms): ``G`` is the exact finite sum;
* :class:`LawOperand` -- any numeric law of the family (:class:`freege.numeric.law_family.Law`),
  through its own verified Cauchy transform;
* the nodes of :mod:`freege.numeric.subordination` (⊞, ⊠, compound free Poisson, affine
  maps, polynomial pushforwards), so trees compose;
* a density on an interval (:mod:`freege.numeric.density_operand`).

Every hook takes points with ``Im z >= 0``; the public :meth:`Operand.cauchy_f64` and
:meth:`Operand.cauchy_mp` reflect ``G(conj z) = conj G(z)`` for the lower half plane. A real
``z`` is ``z + i0``: outside the support ``G`` is real there.
"""

from __future__ import annotations

import abc
import contextlib
import hashlib
import threading
from collections.abc import Iterator
from typing import Any

import mpmath
import numpy as np

from freege.errors import ConvergenceError

#: the most atoms an empirical operand holds
MAX_ATOMS = 10**5
#: real entries per block of an evaluation (points x atoms): 1 MB, in cache's reach
BLOCK = 2**17


_SCRATCH = threading.local()
#: per thread: the warm-start memo of each :class:`LawOperand` inside an open session
_WARM = threading.local()
#: a warm-start memo keeps the points of this many of the latest evaluations
WARM_BATCHES = 3


def _scratch(size: int) -> tuple[np.ndarray, np.ndarray]:
    """Two work arrays of at least ``size`` float64 entries, kept per thread: a fresh
    array of a block's size costs its page faults at every evaluation."""
    have = getattr(_SCRATCH, "arrays", None)
    if have is None or have[0].size < size:
        have = (np.empty(size), np.empty(size))
        _SCRATCH.arrays = have
    return have


def exact(value: Any) -> mpmath.mpf:
    """An exact parameter (int, ``Fraction``, float or decimal text) at the ambient
    precision, rounded once."""
    num = getattr(value, "numerator", None)
    if num is not None and not isinstance(value, float):
        return mpmath.mpf(num) / value.denominator
    return mpmath.mpf(value)


class Operand(abc.ABC):
    """A law the engine evaluates (see the module docstring)."""

    #: named in error messages
    describe: dict[str, Any]
    #: the operation a subordination node performs (``"free-mult"``, ``"poisson"``,
    #: ``"affine"``; empty for a leaf): how :mod:`freege.numeric.data_support` recognises
    #: the nodes with an explicit support route without importing their module
    operation: str = ""

    # ------------------------------------------------------------------ hooks
    @abc.abstractmethod
    def _upper_f64(self, zs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(G, G')`` at a flat complex array with ``Im z >= 0``, float64."""

    @abc.abstractmethod
    def _upper_mp(self, z: Any) -> tuple[mpmath.mpc, mpmath.mpc]:
        """``(G, G')`` at one point with ``Im z >= 0``, at the ambient precision."""

    @abc.abstractmethod
    def hull(self) -> tuple[float, float]:
        """A closed interval ``[lo, hi]`` holding the support (float64, rounded outward)."""

    @abc.abstractmethod
    def atoms_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        """``[(location, mass), ...]`` of the point masses, sorted, at the ambient precision."""

    @abc.abstractmethod
    def moments_mp(self, q: int) -> list[mpmath.mpf]:
        """``[m_1, ..., m_q]`` at the ambient precision, from the data exactly (rounded once)."""

    @abc.abstractmethod
    def identity(self) -> tuple[Any, ...]:
        """What the answers depend on (hashable)."""

    @abc.abstractmethod
    def intervals_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        """The support intervals of the continuous part, sorted, at the ambient precision."""

    # ------------------------------------------------------------------ derived
    @property
    def nonnegative(self) -> bool:
        """Whether the support lies in ``[0, inf)``."""
        return self.hull()[0] >= 0

    def scale(self) -> float:
        """A length of the law: the size of its hull (at least its distance to 0); kept
        (the hull is a pure function of the operand)."""
        if "_scale" not in self.__dict__:
            lo, hi = self.hull()
            self.__dict__["_scale"] = max(hi - lo, abs(lo), abs(hi), 1e-300)
        return self.__dict__["_scale"]

    def cauchy_f64(self, zs: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(G(z), G'(z))`` at a complex array (any half plane), float64."""
        zs = np.asarray(zs, dtype=complex)
        flat = zs.ravel()
        lower = flat.imag < 0
        g, dg = self._upper_f64(np.where(lower, flat.conj(), flat))
        g = np.where(lower, g.conj(), g)
        dg = np.where(lower, dg.conj(), dg)
        return g.reshape(zs.shape), dg.reshape(zs.shape)

    def cauchy_mp(self, z: Any) -> tuple[mpmath.mpc, mpmath.mpc]:
        """``(G(z), G'(z))`` at one point (any half plane), at the ambient precision."""
        z = mpmath.mpmathify(z)
        if mpmath.im(z) < 0:
            g, dg = self._upper_mp(mpmath.conj(z))
            return mpmath.conj(g), mpmath.conj(dg)
        return self._upper_mp(z)

    def mean_mp(self) -> mpmath.mpf:
        return self.moments_mp(1)[0]

    @contextlib.contextmanager
    def warm(self) -> Iterator[None]:
        """A warm-start session of the operand's float64 evaluations (:class:`LawOperand`)
        and its children's, for the length of one solve of a node
        (:meth:`freege.numeric.subordination.Node.solve_value_f64`)."""
        with contextlib.ExitStack() as stack:
            for child in getattr(self, "children", ()):
                stack.enter_context(child.warm())
            yield

    def atoms_above_mp(self, mass: Any) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        """The atoms of mass above ``mass`` (those the Bercovici-Voiculescu rules pair)."""
        return [(x, p) for x, p in self.atoms_mp() if p > mass]

    def mass_at_mp(self, x: Any) -> mpmath.mpf:
        """The mass of the atom at ``x`` (0 when none)."""
        return mpmath.fsum(p for y, p in self.atoms_mp() if y == x)


class EmpiricalOperand(Operand):
    """``sum_i w_i delta_{x_i}``: finite ``values`` (at most :data:`MAX_ATOMS` distinct)
    with positive ``weights`` (None: equal), normalised to mass 1; equal values are merged.
    ``G(z) = sum_i w_i/(z - x_i)`` exactly (float64: blocks of :data:`BLOCK` terms; mpmath:
    ``fsum`` at the ambient precision, the values and weights read exactly)."""

    def __init__(self, values: Any, weights: Any = None, name: str = "empirical",
                 exact_points: Any = None) -> None:
        #: ``((location, mass), ...)`` exactly (``Fraction``), when the data is exact
        self.exact_points = None if exact_points is None else tuple(exact_points)
        if exact_points is not None:
            values = [float(a) for a, _ in exact_points]
            weights = [float(p) for _, p in exact_points]
        x = np.asarray(values, dtype=float)
        if x.ndim != 1:
            x = x.ravel()
        if x.size == 0:
            raise ValueError(f"{name}: values must hold at least one number")
        if not np.all(np.isfinite(x)):
            raise ValueError(f"{name}: values must be finite (got {int((~np.isfinite(x)).sum())} "
                             "non-finite)")
        if weights is None:
            w = np.ones_like(x)
        else:
            w = np.asarray(weights, dtype=float).ravel()
            if w.shape != x.shape:
                raise ValueError(f"{name}: weights must have one entry per value ({x.size}), "
                                 f"not {w.size}")
            if not np.all(np.isfinite(w)) or not np.all(w > 0):
                raise ValueError(f"{name}: weights must be finite and > 0")
        locs, inverse = np.unique(x, return_inverse=True)
        if locs.size > MAX_ATOMS:
            raise ValueError(f"{name}: {locs.size} distinct values; the limit is {MAX_ATOMS} "
                             "(docs/data-laws.md, Limits)")
        raw = np.zeros(locs.size)
        np.add.at(raw, inverse, w)
        if not np.isfinite(raw.sum()) or raw.sum() <= 0:
            raise ValueError(f"{name}: weights must have a finite positive sum")
        self.values = locs
        self.raw_weights = raw
        self.weights = raw / raw.sum()
        self.name = name
        digest = hashlib.sha256(locs.tobytes() + raw.tobytes()).hexdigest()[:16]
        self.describe = {"operand": f"{name}({locs.size} atoms, sha256 {digest})"}
        self._digest = digest
        self._mp: dict[int, tuple[list[mpmath.mpf], list[mpmath.mpf]]] = {}
        self._power_sums: list[int] = []
        self._terms: list[int] = []
        self._weights_int: list[int] = []
        self._ints: tuple[list[int], int] | None = None

    def identity(self) -> tuple[Any, ...]:
        if self.exact_points is not None:
            return ("atoms", tuple(sorted(self.exact_points)))
        return ("empirical", self.values.tobytes(), self.raw_weights.tobytes())

    def hull(self) -> tuple[float, float]:
        return float(self.values[0]), float(self.values[-1])

    def _data_mp(self) -> tuple[list[mpmath.mpf], list[mpmath.mpf]]:
        """Values and normalised weights at the ambient precision (kept per precision)."""
        prec = mpmath.mp.prec
        if prec not in self._mp and self.exact_points is not None:
            merged: dict[Any, Any] = {}
            for a, p in self.exact_points:
                merged[a] = merged.get(a, 0) + p
            keys = sorted(merged)
            self._mp[prec] = ([exact(a) for a in keys], [exact(merged[a]) for a in keys])
        if prec not in self._mp:
            idx = np.arange(self.values.size)
            self._mp[prec] = (self._values_mp(idx), self._weights_mp(idx))
        return self._mp[prec]

    def _values_mp(self, idx: np.ndarray) -> list[mpmath.mpf]:
        return [mpmath.mpf(v) for v in self.values[idx].tolist()]

    def _weights_mp(self, idx: np.ndarray) -> list[mpmath.mpf]:
        """The normalised weights ``R_i / sum_j R_j`` (exact integers), each rounded once."""
        ints, total = self._weight_ints(), self._power_sum(0)
        with mpmath.workprec(mpmath.mp.prec + 64):
            out = [mpmath.mpf(ints[i]) / total for i in idx.tolist()]
        return [+w for w in out]

    def atoms_above_mp(self, mass: Any) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        """Only the candidates whose float64 weight is within ``1e-9`` of ``mass`` or above
        are read at the ambient precision and compared exactly."""
        if self.exact_points is not None:
            return super().atoms_above_mp(mass)
        idx = np.flatnonzero(self.weights >= float(mass) * (1 - 1e-9))
        return [(x, p) for x, p in zip(self._values_mp(idx), self._weights_mp(idx),
                                       strict=True) if p > mass]

    def mass_at_mp(self, x: Any) -> mpmath.mpf:
        if self.exact_points is not None:
            return super().mass_at_mp(x)
        k = int(np.searchsorted(self.values, float(x)))
        if k < self.values.size and mpmath.mpf(float(self.values[k])) == x:
            return self._weights_mp(np.array([k]))[0]
        return mpmath.mpf(0)

    def atoms_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        xs, ws = self._data_mp()
        return list(zip(xs, ws, strict=True))

    def intervals_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        return []

    def moments_mp(self, q: int) -> list[mpmath.mpf]:
        """Exactly from the data: the float64 values and weights are dyadic rationals, so
        ``sum_i r_i x_i^k`` is an exact integer over a power of two
        (:meth:`_power_sum`); each moment is rounded once to the ambient precision."""
        if self.exact_points is not None:
            xs, ws = self._data_mp()
            return [mpmath.fsum(w * x**k for x, w in zip(xs, ws, strict=True))
                    for k in range(1, q + 1)]
        total, base = self._power_sum(0), self._exponents()[1]
        out = []
        for k in range(1, q + 1):
            num = self._power_sum(k)
            with mpmath.workprec(mpmath.mp.prec + 64):  # exact ratio, then one rounding
                value = mpmath.ldexp(mpmath.mpf(num), k * base) / total
            out.append(+value)
        return out

    def _exponents(self) -> tuple[list[int], int]:
        """The values as integers ``X_i`` with ``x_i = X_i 2^base`` (exact)."""
        if self._ints is None:
            mant, expo = np.frexp(self.values)
            ints = (mant * 2.0**53).astype(np.int64)
            shift = expo.astype(np.int64) - 53
            base = int(shift.min())
            self._ints = ([int(m) << int(e - base) for m, e in zip(ints, shift, strict=True)],
                          base)
        return self._ints

    def _weight_ints(self) -> list[int]:
        """The raw weights as integers ``R_i`` over one power of two (exact)."""
        if not self._weights_int:
            mant, expo = np.frexp(self.raw_weights)
            ints = (mant * 2.0**53).astype(np.int64)
            shift = expo.astype(np.int64) - 53
            low = int(shift.min())
            self._weights_int = [int(m) << int(e - low)
                                 for m, e in zip(ints, shift, strict=True)]
        return self._weights_int

    def _power_sum(self, k: int) -> int:
        """``sum_i R_i X_i^k`` exactly (:meth:`_weight_ints`: the power of two cancels in
        every moment); kept, a pure function of the data."""
        sums = self._power_sums
        if not sums:
            self._terms = list(self._weight_ints())
            sums.append(sum(self._terms))
        xs = self._exponents()[0]
        while len(sums) <= k:
            self._terms = [t * x for t, x in zip(self._terms, xs, strict=True)]
            sums.append(sum(self._terms))
        return sums[k]

    def _upper_f64(self, zs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """In real arithmetic: with ``a_i = Re z - x_i``, ``b = Im z`` and
        ``R_i = 1/(a_i^2 + b^2)``, ``G = sum w_i a_i R_i - i b sum w_i R_i`` and
        ``G' = -sum w_i R_i + 2 b^2 sum w_i R_i^2 + 2 i b sum w_i a_i R_i^2``, in blocks of
        :data:`BLOCK` entries, in place in the thread's work arrays (:func:`_scratch`)."""
        zs = np.asarray(zs, dtype=complex).ravel()
        g = np.empty(zs.shape, dtype=complex)
        dg = np.empty(zs.shape, dtype=complex)
        n = self.values.size
        rows = max(1, BLOCK // n)
        w = self.weights
        work_a, work_r = _scratch(rows * n)
        for start in range(0, zs.size, rows):
            part = slice(start, start + rows)
            b = zs.imag[part]
            a = work_a[:b.size * n].reshape(b.size, n)
            r = work_r[:b.size * n].reshape(b.size, n)
            np.subtract.outer(zs.real[part], self.values, out=a)
            np.multiply(a, a, out=r)
            r += (b * b)[:, None]
            with np.errstate(divide="ignore", invalid="ignore"):
                np.reciprocal(r, out=r)
                a *= r
                s1, s2 = r @ w, a @ w
                a *= r
                r *= r
                s3, s4 = r @ w, a @ w
                g[part] = s2 - 1j * (b * s1)
                dg[part] = (2 * b * b * s3 - s1) + 2j * (b * s4)
        return g, dg

    def _upper_mp(self, z: Any) -> tuple[mpmath.mpc, mpmath.mpc]:
        xs, ws = self._data_mp()
        terms = [w / (z - x) for x, w in zip(xs, ws, strict=True)]
        g = mpmath.fsum(terms)
        dg = -mpmath.fsum(t * t / w for t, w in zip(terms, ws, strict=True))
        return mpmath.mpc(g), mpmath.mpc(dg)


class SemicircleOperand(Operand):
    """The semicircle law of variance ``v``: ``G = (z - q)/(2v)``, ``q = z sqrt(1 - 4v/z^2)``
    (principal root: the cut is the support), ``q = i sqrt(4v - z^2)`` on the support."""

    def __init__(self, variance: Any) -> None:
        self._v = variance
        self.describe = {"law": f"semicircle({variance})"}

    def identity(self) -> tuple[Any, ...]:
        return ("semicircle", str(self._v))

    def hull(self) -> tuple[float, float]:
        r = 2 * float(self._v) ** 0.5 * (1 + 1e-14)
        return -r, r

    def atoms_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        return []

    def intervals_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        r = 2 * mpmath.sqrt(exact(self._v))
        return [(-r, r)]

    def moments_mp(self, q: int) -> list[mpmath.mpf]:
        v = exact(self._v)
        return [mpmath.mpf(0) if k % 2 else v ** (k // 2) * mpmath.binomial(k, k // 2)
                / (k // 2 + 1) for k in range(1, q + 1)]

    def _upper_f64(self, zs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        v = float(self._v)
        with np.errstate(all="ignore"):
            q = zs * np.sqrt(1 - 4 * v / zs**2)
            cut = (zs.imag == 0) & (np.abs(zs.real) < 2 * v**0.5)
            q = np.where(cut, 1j * np.sqrt(np.maximum(4 * v - zs.real**2, 0)), q)
            return (zs - q) / (2 * v), (1 - zs / q) / (2 * v)

    def _upper_mp(self, z: Any) -> tuple[mpmath.mpc, mpmath.mpc]:
        v = exact(self._v)
        if mpmath.im(z) == 0 and abs(mpmath.re(z)) < 2 * mpmath.sqrt(v):
            q = mpmath.mpc(0, mpmath.sqrt(4 * v - mpmath.re(z) ** 2))
        else:
            q = z * mpmath.sqrt(1 - 4 * v / z**2)
        return mpmath.mpc((z - q) / (2 * v)), mpmath.mpc((1 - z / q) / (2 * v))


class FreePoissonOperand(Operand):
    """The free Poisson law ``pi_t`` (all free cumulants ``t``): ``G = 1/w`` with ``w`` the
    root of ``w^2 - (z + 1 - t) w + z = 0`` that has ``Im w > Im z/2`` off the axis (the
    roots' imaginary parts add up to ``Im z`` and the physical one has ``Im w >= Im z``),
    and ``w' > 1/2`` on the axis off the support (the two roots' ``w'`` add up to 1)."""

    def __init__(self, rate: Any) -> None:
        self._t = rate
        self.describe = {"law": f"poisson({rate})"}

    def identity(self) -> tuple[Any, ...]:
        return ("free-poisson", str(self._t))

    def hull(self) -> tuple[float, float]:
        t = float(self._t)
        return 0.0, (1 + t**0.5) ** 2 * (1 + 1e-14)

    def atoms_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        t = exact(self._t)
        return [(mpmath.mpf(0), 1 - t)] if t < 1 else []

    def intervals_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        r = mpmath.sqrt(exact(self._t))
        return [((1 - r) ** 2, (1 + r) ** 2)]

    def moments_mp(self, q: int) -> list[mpmath.mpf]:
        from freege.numeric.free_series import cumulants_to_moments

        return cumulants_to_moments([exact(self._t)] * q)

    def _upper_f64(self, zs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        t = float(self._t)
        with np.errstate(all="ignore"):
            b = zs + 1 - t
            d = np.sqrt(b * b - 4 * zs + 0j)
            w1, w2 = (b + d) / 2, (b - d) / 2
            off = zs.imag > 0
            inside = (~off) & (np.abs(w1.imag) > 0)
            pick1 = np.where(off | inside, w1.imag > w2.imag,
                             ((w1 - 1) / (2 * w1 - b)).real > 0.5)
            w = np.where(pick1, w1, w2)
            dw = (w - 1) / (2 * w - b)
            return 1 / w, -dw / w**2

    def _upper_mp(self, z: Any) -> tuple[mpmath.mpc, mpmath.mpc]:
        t = exact(self._t)
        b = z + 1 - t
        d = mpmath.sqrt(b * b - 4 * z)
        roots = [(b + d) / 2, (b - d) / 2]
        if mpmath.im(z) > 0 or mpmath.im(d) != 0:
            w = max(roots, key=lambda r: mpmath.im(r))
        else:
            w = max(roots, key=lambda r: mpmath.re((r - 1) / (2 * r - b)))
        dw = (w - 1) / (2 * w - b)
        return mpmath.mpc(1 / w), mpmath.mpc(-dw / w**2)


class LawOperand(Operand):
    """A numeric law of the family as an operand: ``G`` from the law's own verified
    Cauchy transform (at the ambient precision, or float64), ``G'`` from the law's
    :meth:`freege.numeric.law_family.Law.cauchy_pair_f64` / ``cauchy_pair_mp``."""

    def __init__(self, law: Any) -> None:
        self.law = law
        self.describe = dict(law.describe)
        self._f64 = law.with_dps(None)
        self._laws: dict[int, Any] = {}

    def identity(self) -> tuple[Any, ...]:
        return ("law", self._f64._identity())

    def _at_dps(self) -> Any:
        dps = mpmath.mp.dps
        if dps not in self._laws:
            self._laws[dps] = self.law.with_dps(max(dps, 15))
        return self._laws[dps]

    def hull(self) -> tuple[float, float]:
        lo, hi = self._f64.support()
        pad = 1e-12 * max(hi - lo, abs(lo), abs(hi), 1.0)
        return (lo - pad if lo < 0 or lo - pad >= 0 else 0.0), hi + pad

    @property
    def nonnegative(self) -> bool:
        return bool(self._f64.nonnegative) and self._f64.support()[0] >= 0

    def atoms_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        law = self._at_dps()
        with mpmath.workdps(law.dps):
            return [(+x, +p) for x, p in law._atoms_mp()]

    def intervals_mp(self) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
        law = self._at_dps()
        with mpmath.workdps(law.dps):
            return [(+a, +b) for a, b in law._intervals_mp()]

    def moments_mp(self, q: int) -> list[mpmath.mpf]:
        law = self._at_dps()
        return [mpmath.mpf(law.moment(k)) for k in range(1, q + 1)]

    @contextlib.contextmanager
    def warm(self) -> Iterator[None]:
        """A warm-start session (re-entrant; per thread): while it is open, float64
        ``G`` at a point is first continued from the nearest point of the latest
        :data:`WARM_BATCHES` evaluations (:meth:`_warm_f64`); it is forgotten when the
        outermost session closes, so a value depends only on the points of the one
        solve that asked for it (as the engine's anchored solves do)."""
        memos = _WARM.__dict__.setdefault("memos", {})
        key = id(self)
        fresh = key not in memos
        if fresh:
            memos[key] = []
        try:
            yield
        finally:
            if fresh:
                del memos[key]

    def _warm_ready(self) -> bool:
        """Whether the law's ``G`` is the standard float64 route of a Cauchy polynomial
        on ``[0, inf)`` (:class:`freege.numeric.algebraic_law.AlgebraicLaw`), which the
        warm start shortcuts."""
        if "_warm_ok" not in self.__dict__:
            from freege.numeric.algebraic_law import AlgebraicLaw

            law = self._f64
            self.__dict__["_warm_ok"] = (
                isinstance(law, AlgebraicLaw)
                and type(law)._stieltjes_f64 is AlgebraicLaw._stieltjes_f64
                and self.hull()[0] >= 0)
        return self.__dict__["_warm_ok"]

    def _singular(self) -> np.ndarray:
        """``(lo, hi)`` rows: the support intervals (widened by ``1e-9`` of the scale for
        rounding), the atoms, 0 and the law's other singular points (kept)."""
        if "_singular_rows" not in self.__dict__:
            law = self._f64
            pad = 1e-9 * self.scale()
            rows = [(float(a) - pad, float(b) + pad) for a, b in law._intervals_mp()]
            rows += [(float(x), float(x)) for x, _ in law._atoms_mp()]
            rows += [(float(x), float(x)) for x in law._singular_f64()]
            self.__dict__["_singular_rows"] = np.array(rows + [(0.0, 0.0)], dtype=float)
        return self.__dict__["_singular_rows"]

    def _warm_f64(self, zs: np.ndarray, memo: list[tuple[np.ndarray, np.ndarray]]
                  ) -> tuple[np.ndarray, np.ndarray]:
        """``(G, ok)``: each point continued from the nearest remembered point
        (:meth:`freege.numeric.tracking_f64.Float64Tracking.warm_f64`: accepted steps,
        Herglotz signs), kept under the tests of :meth:`_verified`; near 0 too (theory
        §7.1: there the error estimate decides)."""
        from scipy.spatial import cKDTree

        za = np.concatenate([z for z, _ in memo])
        ga = np.concatenate([g for _, g in memo])
        tree = cKDTree(np.column_stack([za.real, za.imag]))
        _, near = tree.query(np.column_stack([zs.real, zs.imag]))
        eq = self._f64.equation
        g, err, ok = eq.warm_f64(zs, za[near], ga[near], self._singular())
        return g, ok & self._verified(zs, g, err)

    def _near_zero_f64(self, zs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(G, ok)`` off the real axis within ``NEAR_ZERO S`` of 0, where the law's
        own route tracks in mpmath (theory §7.1): the float64 vertical track
        (:meth:`freege.numeric.tracking_f64.Float64Tracking.stieltjes_f64`, every step
        accepted by Smale's gamma), kept under the tests of :meth:`_verified` (the
        error estimate measures the digits the expanded polynomial loses near 0;
        at the atom's pole with no hard edge, ``|G| ~ p/|z|``, it stays near
        ``1e-15 |G|``)."""
        eq = self._f64.equation
        g, err = eq.stieltjes_f64(zs)
        with np.errstate(all="ignore"):
            u = zs * g
            tol = 1e-8 * (np.abs(u) + 1)
            ok = (g.imag <= tol / np.abs(zs)) & (u.imag <= tol)
        return g, ok & self._verified(zs, g, err)

    def _verified(self, zs: np.ndarray, g: np.ndarray, err: np.ndarray) -> np.ndarray:
        """The refined root's error estimate plus the float64 rounding within
        :data:`freege.numeric.roots.FLOAT64_RTOL` of ``|G|`` (as the law's own float64
        route asks off the support) and the root isolated: the estimate within
        ``ACCEPT / gamma`` of it (Smale's gamma), so the first-order estimate holds."""
        from freege.numeric.cauchy_polynomial import _gamma
        from freege.numeric.roots import ACCEPT, FLOAT64_RTOL

        eq = self._f64.equation
        with np.errstate(all="ignore"):
            size = np.abs(g)
            ok = np.isfinite(g) & (err + np.finfo(float).eps * size <= FLOAT64_RTOL * size)
            return ok & (err * _gamma(eq.coeffs_f64(zs), g) <= ACCEPT)

    def _upper_f64(self, zs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The law's own ``(G, G')``; a point the law refuses (a Newton iterate of the
        engine at a branch point, say) is nan, the others are kept. Inside a warm-start
        session (:meth:`warm`) a point is first continued from the latest evaluations
        (:meth:`_warm_f64`), its ``G' = -P_z/P_G`` as the law's; the law's own route
        takes the points that are not verified so."""
        zs = np.asarray(zs, dtype=complex).ravel()
        memo = _WARM.__dict__.get("memos", {}).get(id(self))
        if memo is None or not zs.size or not self._warm_ready():
            return self._cold_f64(zs)
        from freege.numeric.roots import NEAR_ZERO

        eq = self._f64.equation
        g = np.full(zs.shape, np.nan + 0j)
        dg = np.full(zs.shape, np.nan + 0j)
        ok = np.zeros(zs.shape, dtype=bool)
        if any(z.size for z, _ in memo):
            g, ok = self._warm_f64(zs, memo)
        near = np.flatnonzero(~ok & (zs.imag > 0) & (np.abs(zs) < NEAR_ZERO * eq.scale()))
        if near.size:
            g[near], ok[near] = self._near_zero_f64(zs[near])
        if ok.any():
            zo, go = zs[ok], g[ok]
            _, p_g = eq._horner(eq.coeffs_f64(zo), go)
            with np.errstate(all="ignore"):
                dg[ok] = -eq._dz(zo, go) / p_g
        if not ok.all():
            g[~ok], dg[~ok] = self._cold_f64(zs[~ok])
        from freege.numeric.tracking_f64 import _distance

        # a point on the support (``x + i0``) cannot start a continuation
        keep = np.isfinite(g) & np.isfinite(dg) & (_distance(zs, self._singular()) > 0)
        memo.append((zs[keep], g[keep]))
        del memo[:-WARM_BATCHES]
        return g, dg

    def _cold_f64(self, zs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The law's own float64 ``(G, G')``, point by point where the batch fails."""
        try:
            return self._f64.cauchy_pair_f64(zs)
        except ConvergenceError:
            g = np.full(zs.shape, np.nan + 0j)
            dg = np.full(zs.shape, np.nan + 0j)
            for k in range(zs.size):
                try:
                    g[k], dg[k] = (v[0] for v in self._f64.cauchy_pair_f64(zs[k:k + 1]))
                except ConvergenceError:
                    continue
            return g, dg

    def _upper_mp(self, z: Any) -> tuple[mpmath.mpc, mpmath.mpc]:
        law = self._at_dps()
        with mpmath.workprec(mpmath.mp.prec):
            return law.cauchy_pair_mp(z)


__all__ = ["BLOCK", "EmpiricalOperand", "FreePoissonOperand", "LawOperand", "MAX_ATOMS",
           "Operand", "SemicircleOperand", "exact"]
