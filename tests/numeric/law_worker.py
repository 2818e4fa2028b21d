"""What a process-pool worker computes from a pickled law (tests/numeric/test_law_citizen.py):
a module of its own, light to import in a spawned interpreter."""

from __future__ import annotations

import numpy as np

from freege.numeric.case_law import CaseLaw


def answers(L: CaseLaw, xs: np.ndarray, qs: np.ndarray) -> list[np.ndarray]:
    """pdf, cdf, sf at ``xs`` and ppf at ``qs``, one batch each."""
    return [L.pdf(xs), L.cdf(xs), L.sf(xs), L.ppf(qs)]


def in_worker(L: CaseLaw, xs: np.ndarray, qs: np.ndarray) -> list[np.ndarray]:
    """:func:`answers` and two moments (one symbolic, one from the series at infinity)."""
    return answers(L, xs, qs) + [np.array([L.moment(2), L.moment(7)])]
