"""Benchmark of the exact polynomial pushforward (docs/algebra.md, "How the exact objects
are derived"): the cold time of ``P(G, z)`` of ``phi_* mu`` by the power-sum/trace
elimination (``freege.symbolic.additive.polynomial_image``), by degree, for a semicircle,
``MP_{1/2}`` and the tied jump law (symbolic parameters), and at degree 2 a hand-written
baseline: the two-resultant elimination (``g_2`` and then ``x_1``, as in
``symbolic/pushforward.py``) written here with sympy alone, followed by sympy's
``factor_list`` of the eliminant (the selection of the physical factor not counted).

Each measurement runs in a fresh process with an empty ``FREEGE_CACHE_DIR``; the clock
starts after the imports and includes everything the call derives (the base law's
moments, the factorisation, the moment-series check). Usage:
``python benchmarks/pushforward_degree.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

BASES = ("semicircle", "mp", "tied")
TASKS = ([f"freege:{b}:2" for b in BASES] + [f"baseline:{b}:2" for b in BASES]
         + [f"freege:{b}:{d}" for b in ("semicircle", "mp") for d in (3, 4)])


def base_law(name: str):  # noqa: ANN201 - a FreeLaw, imported in the worker
    import sympy as sp

    from freege.symbolic import additive, laws
    from freege.symbolic.symbols import gK, h

    if name == "semicircle":
        return additive.semicircle(1)
    if name == "mp":
        return laws.marchenko_pastur(sp.Rational(1, 2))
    return laws.free_poisson(gK / h)


def coefficients(name: str, degree: int) -> list:
    from freege.symbolic.symbols import gK, h, theta1, theta2

    if name == "tied":
        return [0, theta1 - theta2, h * theta2 / gK]
    return [0, -1] + [0] * (degree - 2) + [1]


def baseline(law, coeffs) -> None:  # noqa: ANN001
    """Two resultants by hand: ``b (x_1 - x_2) G = g(x_1) - g(x_2)`` with
    ``x_2 = -a/b - x_1``; then sympy's factorisation of the eliminant."""
    import sympy as sp

    from freege.symbolic.symbols import G, z

    _, a, b = (sp.sympify(c) for c in coeffs)
    x1, g2 = sp.symbols("x1 g2")
    expr = law.cauchy_polynomial.as_expr()
    at_x1 = sp.expand(expr.subs({G: g2 + G * (2 * b * x1 + a), z: x1}, simultaneous=True))
    at_x2 = sp.numer(sp.together(expr.subs({G: g2, z: -a / b - x1}, simultaneous=True)))
    no_g = sp.resultant(sp.Poly(at_x1, g2), sp.Poly(sp.expand(at_x2), g2)).as_expr()
    eliminant = sp.resultant(sp.Poly(sp.expand(no_g), x1),
                             sp.Poly(b * x1**2 + a * x1 - z, x1)).as_expr()
    sp.factor_list(sp.expand(eliminant), G, z)


def run_task(task: str) -> None:
    """Worker: time one task cold; print JSON."""
    from freege.symbolic import additive

    route, name, degree = task.split(":")
    law, coeffs = base_law(name), coefficients(name, int(degree))
    start = time.perf_counter()
    if route == "freege":
        additive.polynomial_image(law, coeffs).cauchy_polynomial  # noqa: B018
    else:
        baseline(law, coeffs)
    print(json.dumps(time.perf_counter() - start))


def main() -> None:
    for task in TASKS:
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "FREEGE_CACHE_DIR": cache}
            out = subprocess.run([sys.executable, __file__, "--worker", task], env=env,
                                 capture_output=True, text=True, check=True).stdout
        print(f"{task:<24} {json.loads(out.strip().splitlines()[-1]):8.2f} s", flush=True)
    print("columns: route:base:degree | cold time (fresh process, empty cache)")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        run_task(sys.argv[2])
    else:
        main()
