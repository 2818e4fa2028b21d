"""G(-lam) at tiny lam next to an atom or a hard edge (seen wrong by 1e-7 relative before
the u = zG selection): ``1 + lam G(-lam)`` from the Cauchy root must equal ``w(lam)`` from
the ridge route (theory §5), two independent computations."""

import pytest

from freege import Ratios
from freege.numeric import dof, law


@pytest.mark.parametrize("case, ratios", [
    ("mha", Ratios(beta="0.8", h=2, gK="0.3", gV="0.3", gO="0.3")),  # atom 0.7
    ("value", Ratios(beta="0.75", h=3, gK="0.5", gV="0.5", gO=2)),  # atom 0.5
    ("mha", Ratios(beta=1, h=8, gK=1, gV=1, gO=1)),  # hard edge, no atom
])
@pytest.mark.parametrize("lam", [1e-4, 1e-6, 1e-8])
def test_one_plus_lam_g_is_the_ridge_dof(case, ratios, lam):
    nu = law(case, ratios, normalized=True)
    via_cauchy = 1 + lam * nu.stieltjes(-lam).real
    assert via_cauchy == pytest.approx(dof(nu, lam), rel=1e-12)
