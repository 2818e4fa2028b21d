"""The sampling path loads neither sympy nor scipy.stats (issue 8, item 5): a draw, the
runner's module and a float32 draw in a fresh interpreter."""

import subprocess
import sys

from freege.params import Dims
from freege.validation.runner import validate

HEAVY = "('sympy', 'scipy.stats')"


def _fresh(code: str) -> None:
    check = f"\nbad = [m for m in {HEAVY} if m in sys.modules]\nassert not bad, bad\n"
    subprocess.run([sys.executable, "-c", "import sys\n" + code + check], check=True,
                   timeout=120)


def test_one_draw_loads_neither_sympy_nor_scipy_stats():
    _fresh("from freege.params import Dims\n"
           "import freege.validation.runner\n"
           "from freege.validation.sampling.sample import draw\n"
           "d = draw(Dims(n=24, h=2, dK=6, dV=6, dO=16), seed=(0, 0))\n"
           "assert d.softmax.shape == (24,) and d.ge.shape == (24,)\n")


def test_float32_draw_and_other_cases_load_neither():
    _fresh("from freege.params import Dims\n"
           "from freege.validation.sampling.sample import case_eigenvalues, draw\n"
           "dims = Dims(n=24, h=2, dK=6, dV=6, dO=16)\n"
           "draw(dims, seed=1, dtype='float32')\n"
           "case_eigenvalues('attention', dims, seed=1, model='softmax')\n")


def test_a_warm_validate_loads_neither_sympy_nor_scipy_stats():
    """:func:`validate` needs the theory §4 limiting moments: sympy derives them once
    (cold cache; here in-process first), a warm run reads their generated source; the
    summary's Student-t quantile comes from scipy.special, never scipy.stats (issue 18)."""
    dims = Dims(n=24, h=2, dK=6, dV=6, dO=16)
    validate(dims, draws=2, backend="numpy")  # warms the cache if it is cold
    _fresh("from freege.params import Dims\n"
           "from freege.validation.runner import validate\n"
           "v = validate(Dims(n=24, h=2, dK=6, dV=6, dO=16), draws=2, backend='numpy')\n"
           "v.summary()\n")
