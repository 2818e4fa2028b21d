"""The Cauchy transform far above the support (float64 tracking starts at the point when
it lies above the tracking's usual start, 4R + |x|): it agrees with the 30-digit route
and with the moment series there."""

from __future__ import annotations

import mpmath
import numpy as np

from freege import Dims
from freege.numeric import law


def test_far_points_agree_with_the_moment_series() -> None:
    nu = law("mha", Dims(n=261, h=16, dK=64, dV=64, dO=1024, beta=1))
    z = np.array([1 + 1507j, -3 + 400j, 2 + 5000j])
    g = nu.stieltjes(z)
    series = sum(nu.moment(k) / z ** (k + 1) for k in range(0, 5))
    np.testing.assert_allclose(g, series, rtol=1e-6)
    with mpmath.workdps(30):
        exact = [complex(nu.with_dps(30).stieltjes(mpmath.mpc(v.real, v.imag))) for v in z]
    np.testing.assert_allclose(g, exact, rtol=1e-13)
