"""``freege law --plot``'s title (freege/cli/law.py ``plot_title``): the limit law names its
ratios, the finite-width law (theory §2.3) its dimensions and profile."""

from __future__ import annotations

from freege.cli.law import LawSpec, plot_title
from freege.params import Dims

DIMS = Dims(n=512, h=12, dK=64, dV=64, dO=768, beta=1)


def test_limit_law_title_names_the_ratios() -> None:
    title = plot_title(LawSpec("mha", DIMS, False, None))
    assert title.startswith("limiting law of") and r"$\gamma_K$ = 1.5" in title


def test_finite_width_title_names_the_dimensions_and_profile() -> None:
    rows = plot_title(LawSpec("mha", DIMS, False, "finite-n", "row"))
    assert rows.startswith("finite-width law of") and "(rows and columns)" not in rows
    assert "$n$ = 512" in rows and "$d_K$ = 64" in rows and "gamma" not in rows
    both = plot_title(LawSpec("mha", DIMS, True, "finite-n", "row+column"))
    assert both.startswith("finite-width law (rows and columns) of") and "(normalized)" in both
