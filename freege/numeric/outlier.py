"""The leading singular value of MHA: its almost-sure limit and finite-size spread
(theory §4.1).

``MHA - MHA^perp = 1 vbar^T`` with ``vbar = W^O^T u``, ``u = [V_r^T 1 / n]_r``; this
rank-one common component has squared norm ``n |vbar|^2`` of order n, while the bulk
``MHA^perp`` is O(1) in operator norm, so

* ``s_1(MHA)^2 / n -> gO`` almost surely, for independent, GQA/MQA and tied projections
  and every beta;
* at finite size ``E[n |vbar|^2] = dO`` exactly, and the relative variance of
  ``|vbar|^2`` is ``(1 + 2/dO) 2 sum_g |g|^2 / (h^2 dV) + 2/dO`` (sum over K/V groups of
  sizes ``|g|``; every group of size one when independent or tied): sharing the values
  across heads widens the spread, it does not move the limit;
* the next order: ``E s_1(MHA)^2 = dO + c + o(1)`` with
  ``c = gO kappa + (mu_V / gV) (1 + gO / gV)``, ``mu_V`` the mean of the theory §4 value
  law (``gV theta1``; tied ``gK theta1 + h theta2``) and
  ``kappa = theta1 + h theta2^2 / (2 gK)`` (tied: ``+ h theta2 / gK``): the column sums
  of attention and the bulk seen along the outlier's directions; so
  ``E s_1^2 / n = gO + c / n + o(1/n)``.

Pure functions of the configuration.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath

from freege.params import Dims, Ratios, to_mpf

#: extra digits the dps values are computed with before rounding to dps
GUARD_DIGITS = 10

#: the cases whose matrix is MHA (theory §4)
MHA_CASES: tuple[str, ...] = ("mha", "mha-tied")


def limit(ratios: Ratios) -> Fraction:
    """The almost-sure limit of ``s_1(MHA)^2 / n``: ``gO`` (theory §4.1)."""
    return Fraction(ratios.gO)


def second_order(ratios: Ratios, dps: int | None = None) -> Any:
    """``c`` of ``E s_1(MHA)^2 = dO + c + o(1)`` (module docstring, theory §4.1): a float,
    or (``dps``) an mpmath number correct to ``dps`` digits (every term is positive, so
    the guard digits of the thetas carry through)."""
    if dps is None:
        theta1, theta2, _ = ratios.thetas()
        return _second_order(theta1, theta2, ratios.h, float(ratios.gK), float(ratios.gV),
                             float(ratios.gO), ratios.tied)
    with mpmath.workdps(dps + GUARD_DIGITS):
        theta1, theta2, _ = ratios.thetas(dps + GUARD_DIGITS)
        c = _second_order(theta1, theta2, mpmath.mpf(ratios.h), to_mpf(ratios.gK),
                          to_mpf(ratios.gV), to_mpf(ratios.gO), ratios.tied)
    with mpmath.workdps(dps):
        return +c


def _second_order(theta1: Any, theta2: Any, h: Any, gk: Any, gv: Any, go: Any,
                  tied: bool) -> Any:
    kappa = theta1 + h * theta2**2 / (2 * gk)
    value_mean = gk * theta1 + h * theta2 if tied else gv * theta1
    if tied:
        kappa += h * theta2 / gk
    return go * kappa + value_mean / gv * (1 + go / gv)


def group_sizes(dims: Dims) -> list[int]:
    """Sizes of the K/V groups (one value matrix each; theory §1.1): one head per group
    unless shared."""
    sizes: dict[int, int] = {}
    for r in range(dims.h):
        sizes[dims.kv_group(r)] = sizes.get(dims.kv_group(r), 0) + 1
    return list(sizes.values())


def relative_variance(dims: Dims) -> Fraction:
    """``Var(|vbar|^2) / (E |vbar|^2)^2 = (1 + 2/dO) 2 sum_g |g|^2 / (h^2 dV) + 2/dO``,
    exact at finite size (theory §4.1)."""
    spread = Fraction(2 * sum(g * g for g in group_sizes(dims)), dims.h**2 * dims.dV)
    return (1 + Fraction(2, dims.dO)) * spread + Fraction(2, dims.dO)


def summary(case: str, config: Ratios | Dims, dps: int | None = None) -> dict | None:
    """What ``freege law`` prints about the outlier of an MHA case (None for the other
    cases): the limit of ``s_1(MHA)^2 / n`` and the second-order constant ``c``; with
    finite dimensions also the finite-size mean ``gO + c / n`` and the standard deviation
    of ``|vbar|^2`` (theory §4.1). Floats, or (``dps``) mpmath numbers correct to ``dps``
    digits."""
    if case not in MHA_CASES:
        return None
    ratios = config if isinstance(config, Ratios) else config.ratios
    c = second_order(ratios, dps)
    if dps is None:
        out: dict = {"quantity": "s_1(MHA)^2 / n", "limit": float(limit(ratios)),
                     "second_order": c}
        if isinstance(config, Dims):
            out["finite_n_mean"] = float(limit(ratios)) + c / config.n
            out["sd"] = float(limit(ratios)) * math.sqrt(relative_variance(config))
        return out
    with mpmath.workdps(dps + GUARD_DIGITS):
        go = to_mpf(limit(ratios))
        values = {"limit": go, "second_order": c}
        if isinstance(config, Dims):
            values["finite_n_mean"] = go + c / config.n
            values["sd"] = go * mpmath.sqrt(to_mpf(relative_variance(config)))
    with mpmath.workdps(dps):
        return {"quantity": "s_1(MHA)^2 / n", **{k: +v for k, v in values.items()}}


def text(top: dict | None, dps: int | None = None) -> str:
    """The lines ``freege law`` appends for :func:`summary` (nothing for None); with
    ``dps``, every number to ``dps`` significant digits, as the rest of the output."""
    if top is None:
        return ""

    def show(key: str, short: str) -> str:
        value = top[key]
        if dps:
            return mpmath.nstr(value, dps, strip_zeros=False)
        return repr(value) if short == "r" else format(value, short)

    line = (f"\noutlier s_1(MHA)^2/n -> {show('limit', 'r')} (theory §4.1); "
            f"E s_1^2 = dO + c, c = {show('second_order', '.6g')}")
    if "finite_n_mean" in top:
        line += (f"\n        at this n: mean {show('finite_n_mean', '.6g')}, "
                 f"sd {show('sd', '.6g')}")
    return line
