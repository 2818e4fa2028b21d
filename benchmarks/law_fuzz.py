"""Fuzz of float64 laws over the declared domain (issue 16 item 3; theory §4, §7).

    python benchmarks/law_fuzz.py [--n 500] [--seed 16] [--out FILE] [--timeout 120]
                                  [--only INDEX ...] [--dps D]

Draws ``--n`` laws (seeded, so every run draws the same ones) over the domain of
:mod:`freege.params`: all seven cases, ``beta`` log-uniform in [BETA_MIN, BETA_MAX], ``h``
log-uniform in [1, H_MAX], ratios log-uniform in [RATIO_MIN, RATIO_MAX]; a quarter of the
ratios are put at or next to 1 (``1 +- 10^-k``) or equal to another ratio, where the laws
have atoms, hard edges and tiny lower edges. For each law (a fresh float64 ``CaseLaw``):
support, atoms, pdf at a batch of points (a few within 1e-6..1e-12 of each edge), that
batch reversed and each point on a fresh CaseLaw (they must agree to 4 ulp), cdf at the
middle of the support, and ``mass()`` (must be 1 to 1e-12). A law that raises, disagrees
or exceeds ``--timeout`` seconds is a *refusal*. Results are appended to ``--out`` (JSON
lines) as they come, and a rerun resumes after the last law written. ``--only`` runs just
the laws of those indices (the same draws), e.g. the refusals of an earlier run.

``--dps D`` checks the working-precision route instead (a fresh ``CaseLaw(..., dps=D)`` for
each law): ``mass()`` is 1 to ``10^(3-D)``, the cdf at the middle of the support and the
pdf at three interior points agree with float64's (another route: Legendre series and
float64 continuation) to 1e-12, and the cdf on a fresh law equals the one after
``mass()``.

Last full run (2026-12-02, in two halves of the same draws with ``--only``): 500 laws
(91 attention, 89 value, 73 mha-tied, 72 value-tied, 65 mha, 61 head-average, 49
head-average-shared-key), 0 refusals, largest |mass - 1| 1.04e-14, batch versus single
and reversed 0 ulp, median 3.2 s and longest 86 s of wall time per law. With ``--dps 20``
(2026-12-02, the same 500 laws, one core, after working-precision panels were halved
too): 0 refusals, largest |mass - 1| 5.1e-21, pdf within 3.7e-16 (relative) of float64's,
median 2.0 s and longest 94 s per law; before that change law 228 refused. With
``--dps 30``, laws 0-149: 0 refusals, largest |mass - 1| 3.9e-31, median 1.8 s.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.random_laws import draw, near_one  # noqa: E402
from freege.numeric.case_law import CaseLaw  # noqa: E402
from freege.params import Ratios  # noqa: E402

ULP4 = 4 * np.finfo(float).eps


def random_law(rng: np.random.Generator) -> tuple[str, Ratios]:
    """The next law of the fuzz: :func:`benchmarks.random_laws.draw` with :func:`near_one`
    (the case drawn too)."""
    case, params = draw(rng, near_one)
    return case, Ratios(**params)


def points(law: CaseLaw) -> np.ndarray:
    """A batch: interior points and points 1e-6..1e-12 (absolute and relative) from each
    edge, inside the support."""
    out = []
    for a, b in law.intervals():
        width = b - a
        out += [a + width * t for t in (0.1, 0.5, 0.9)]
        for d in (1e-6, 1e-9, 1e-12):
            for gap in (d * width, d * max(abs(a), abs(b))):
                if a + gap < b - gap and gap > 0:
                    out += [a + gap, b - gap]
    out = np.array(out)
    return out[(out > 0) & np.isfinite(out)]


def check(case: str, ratios: Ratios) -> dict[str, Any]:
    law = CaseLaw(case, ratios)
    xs = points(law)
    batch = law.pdf(xs)
    reverse = CaseLaw(case, ratios).pdf(xs[::-1])[::-1]
    single = np.array([CaseLaw(case, ratios).pdf(float(x)) for x in xs])
    worst = float(np.max(np.abs(batch - single) / np.maximum(np.abs(single), 1e-300)))
    worst = max(worst, float(np.max(np.abs(batch - reverse) / np.maximum(np.abs(reverse),
                                                                         1e-300))))
    lo, hi = law.support()
    mid = (lo + hi) / 2
    cdf = float(law.cdf(mid))
    mass = float(law.mass())
    cdf_fresh = float(CaseLaw(case, ratios).cdf(mid))
    problems = []
    if worst > ULP4:
        problems.append(f"pdf batch/single/reversed differ by {worst:.3g} relative")
    if abs(mass - 1) > 1e-12:
        problems.append(f"mass {mass!r}")
    if abs(cdf - cdf_fresh) > 4 * np.finfo(float).eps:
        problems.append(f"cdf after pdf {cdf!r} vs fresh {cdf_fresh!r}")
    if not np.all(np.isfinite(batch)) or np.any(batch < 0):
        problems.append("pdf not finite and >= 0")
    return {"support": [lo, hi], "atoms": {str(k): v for k, v in law.atoms().items()},
            "points": int(xs.size), "mass": mass, "batch_vs_single": worst,
            "problems": problems}


def check_dps(case: str, ratios: Ratios, dps: int) -> dict[str, Any]:
    """The ``--dps`` checks (module docstring) of one law."""
    import mpmath

    law, f64 = CaseLaw(case, ratios, dps=dps), CaseLaw(case, ratios)
    lo, hi = f64.support()
    mid = (lo + hi) / 2
    mass = law.mass()
    cdf, cdf_f64 = law.cdf(mid), float(f64.cdf(mid))
    problems = []
    if abs(mass - 1) > mpmath.mpf(10) ** (3 - dps):
        problems.append(f"mass - 1 = {mpmath.nstr(mass - 1, 3)}")
    if abs(float(cdf) - cdf_f64) > 1e-12:
        problems.append(f"cdf {mpmath.nstr(cdf, 17)} vs float64 {cdf_f64!r}")
    if cdf != CaseLaw(case, ratios, dps=dps).cdf(mid):
        problems.append("cdf after mass() differs from a fresh law's")
    a, b = f64.intervals()[0]
    xs = [a + (b - a) * t for t in (0.1, 0.5, 0.9)]
    pairs = [(float(law.pdf(x)), float(f64.pdf(x))) for x in xs]
    worst = max(abs(mp - fl) / max(abs(fl), 1e-300) for mp, fl in pairs)
    if worst > 1e-12:
        problems.append(f"pdf differs from float64 by {worst:.3g} relative")
    return {"support": [lo, hi], "mass_minus_1": mpmath.nstr(mass - 1, 3),
            "pdf_vs_f64": worst, "problems": problems}


class _Timeout(Exception):
    pass


def _alarm(signum: int, frame: Any) -> None:
    raise _Timeout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--out", default="law_fuzz.jsonl")
    parser.add_argument("--timeout", type=int, default=120)
    parser.add_argument("--only", type=int, nargs="+", default=None)
    parser.add_argument("--dps", type=int, default=None,
                        help="check the working-precision route at this many digits")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    draws = [random_law(rng) for _ in range(args.n)]
    path = Path(args.out)
    done = set()
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                done.add(json.loads(line)["index"])
            except (ValueError, KeyError):
                continue  # a torn last line: that law is run again
    signal.signal(signal.SIGALRM, _alarm)
    with path.open("a") as handle:
        for k, (case, ratios) in enumerate(draws):
            if k in done or (args.only is not None and k not in args.only):
                continue
            row: dict[str, Any] = {"index": k, "case": case, **ratios.as_dict()}
            start = time.perf_counter()
            signal.alarm(args.timeout)
            try:
                row.update(check(case, ratios) if args.dps is None
                           else check_dps(case, ratios, args.dps))
            except _Timeout:
                row["problems"] = [f"timeout after {args.timeout} s"]
            except Exception as exc:  # a refusal: record it, go on
                row["problems"] = [f"{type(exc).__name__}: {exc}"]
                row["where"] = traceback.format_exc(limit=-3).splitlines()[-4:]
            finally:
                signal.alarm(0)
            row["seconds"] = round(time.perf_counter() - start, 2)
            handle.write(json.dumps(row, default=str) + "\n")
            handle.flush()
            print(k, case, ratios.as_dict(), row["seconds"], row["problems"], flush=True)
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    refused = [r for r in rows if r["problems"]]
    print(f"{len(rows)} laws, {len(refused)} refusals")


if __name__ == "__main__":
    main()
