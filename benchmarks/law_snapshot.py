"""Bit-identity snapshot of float64 answers (issue 37: a refactor changes no number).

    python benchmarks/law_snapshot.py write FILE [--fuzz N]   # record every answer
    python benchmarks/law_snapshot.py compare OLD NEW          # list what differs

``write`` evaluates, through the public API only (``freege.numeric.law``,
``freege.algebra.parse(...).law()``, ``freege.numeric.readout``), a fixed set of laws: the
seven theory §4 cases at several ratios (atoms, hard edges, tied), the law-algebra
expressions that tests/algebra and docs/algebra.md use, the peers' laws of issue 32, and the
first ``--fuzz`` laws of ``benchmarks/law_fuzz.py`` (the same seeded draws). For each law:
support, intervals, atoms, pdf on a grid with points next to every edge, cdf, sf, ppf,
moments 1..6, mean/var, stieltjes off the axis, s_transform, mass, interval, rvs with a
seed, and for the case laws dof and the ridge error. Every float is written with ``float.hex`` (so
equal text means equal bits); an exception is written as its type and message. ``compare``
prints every key whose text differs and exits 1 if any does. The script is written
against the public API so that the same file runs before and after a refactor (run the
old tree from a ``git worktree``).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

CASE_POINTS = [
    ("attention", dict(beta=0.5, h=1, gK=0.5, gV=1.0, gO=1.0)),
    ("head-average", dict(beta=0.8, h=4, gK=0.25, gV=0.5, gO=2.0)),
    ("head-average-shared-key", dict(beta=0.8, h=4, gK=0.25, gV=0.5, gO=2.0)),
    ("value", dict(beta=0.5, h=2, gK=0.5, gV=2.0, gO=1.0)),
    ("mha", dict(beta=0.5, h=2, gK=0.5, gV=0.5, gO=0.5)),
    ("mha", dict(beta=1.0, h=8, gK=0.125, gV=0.125, gO=1.0)),
    ("mha", dict(beta=0.3, h=1, gK=1.0, gV=1.0, gO=1.0)),
    ("mha", dict(beta=0.5, h=3, gK=2.0, gV=0.7, gO=1.5)),
    ("value-tied", dict(beta=0.5, h=2, gK=0.5, gV=0.5, gO=1.0)),
    ("mha-tied", dict(beta=0.5, h=2, gK=0.5, gV=0.5, gO=0.5)),
    ("mha-tied", dict(beta=1.0, h=12, gK=0.0833, gV=0.0833, gO=1.0)),
]

EXPRESSIONS = [
    "mp(1/2)", "mp(2)", "mp(1)", "semicircle(1)", "mp(1/2) * mp(1/2)", "mp(1) * mp(1)",
    "semicircle(1) + mp(1/2)", "semicircle(1) + mp(1/2)*mp(1/2)", "2*mp(2) + 1",
    "-mp(1/2)", "atoms((1, 1/2), (3, 1/2)) + semicircle(1/4)",
    "poisson(1, 2*semicircle(1/4) - 1)", "poisson(2, atoms((1,3/4),(3,1/4)))",
    "mp(1) + 2", "pushforward(semicircle(1), x^2 + 2*x)", "pushforward(mp(1/2), x^2)",
    "atoms((-1,2/3),(2,1/3)) + semicircle(1)", "mp(1/3) * poisson(2, mp(1))",
    "pushforward(semicircle(1), x^3 - 3*x)",
]


def _text(value: Any) -> Any:
    """A JSON-able text of a value whose equality is bit equality."""
    if isinstance(value, dict):
        return {_text(k): _text(v) for k, v in sorted(value.items(), key=lambda kv: kv[0])}
    if isinstance(value, tuple | list):
        return [_text(v) for v in value]
    if isinstance(value, np.ndarray):
        return [_text(v) for v in value.ravel()] + [str(value.shape)]
    if isinstance(value, complex | np.complexfloating):
        return f"{float(value.real).hex()}+{float(value.imag).hex()}j"
    if isinstance(value, float | np.floating):
        return float(value).hex()
    return repr(value)


def _try(fn: Any) -> Any:
    try:
        return _text(fn())
    except Exception as exc:  # noqa: BLE001 -- the snapshot records refusals too
        return f"{type(exc).__name__}: {exc}"


def _grid(law: Any) -> np.ndarray:
    lo, hi = (float(v) for v in law.support())
    points = list(np.linspace(lo - 0.1 * (hi - lo + 1), hi + 0.1 * (hi - lo + 1), 23))
    for a, b in law.intervals():
        a, b = float(a), float(b)
        points += [a + (b - a) * t for t in (1e-9, 1e-6, 1e-3, 0.5, 1 - 1e-3, 1 - 1e-6)]
        points += [a / 2, a - 1e-9 * abs(a), 0.0]
    return np.array(points)


def record(law: Any, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every answer of one float64 law."""
    out: dict[str, Any] = {}
    out["support"] = _try(law.support)
    out["intervals"] = _try(law.intervals)
    out["atoms"] = _try(law.atoms)
    try:
        xs = _grid(law)
    except Exception as exc:  # noqa: BLE001
        out["grid"] = f"{type(exc).__name__}: {exc}"
        return out
    out["pdf"] = _try(lambda: law.pdf(xs))
    out["pdf-reversed"] = _try(lambda: law.pdf(xs[::-1]))
    out["cdf"] = _try(lambda: law.cdf(xs[::3]))
    out["sf"] = _try(lambda: law.sf(xs[1::5]))
    out["ppf"] = _try(lambda: law.ppf(np.array([0.0, 1e-9, 0.01, 0.3, 0.5, 0.9, 1.0])))
    out["interval"] = _try(lambda: law.interval(0.5))
    out["moments"] = _try(lambda: [law.moment(q) for q in range(1, 7)])
    out["mean-var"] = _try(lambda: (law.mean(), law.var()))
    out["stieltjes"] = _try(lambda: law.stieltjes(np.array([1 + 1j, -2 + 0.5j, 3 - 0.1j])))
    out["s_transform"] = _try(lambda: law.s_transform(np.array([-0.2, 0.1])))
    out["mass"] = _try(law.mass)
    out["rvs"] = _try(lambda: law.rvs(5, random_state=7))
    out.update(extra or {})
    return out


def case_record(case: str, ratios: Any) -> dict[str, Any]:
    from freege.numeric import law, readout

    the_law = law(case, ratios)
    extra = {"dof": _try(lambda: readout.dof(the_law, 0.1))}
    if case.startswith("mha"):
        extra["ridge"] = _try(lambda: readout.ridge_error(the_law, 0.1, 0.5))
    return record(the_law, extra)


def write(path: Path, fuzz: int) -> None:
    from freege import algebra
    from freege.params import Ratios

    out: dict[str, Any] = {}
    start = time.perf_counter()
    for case, params in CASE_POINTS:
        out[f"case {case} {params}"] = case_record(case, Ratios(**params))
        print(f"case {case} {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    for text in EXPRESSIONS:
        out[f"expr {text}"] = _try(lambda t=text: record(algebra.parse(t).law()))
        print(f"expr {text} {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    from benchmarks.law_fuzz import random_law

    rng = np.random.default_rng(16)
    for k in range(fuzz):
        case, ratios = random_law(rng)
        out[f"fuzz {k} {case} {ratios}"] = _try(
            lambda c=case, r=ratios: case_record(c, r))
        print(f"fuzz {k} {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    path.write_text(json.dumps(out, indent=1, sort_keys=True))


def compare(old: Path, new: Path) -> int:
    a, b = json.loads(old.read_text()), json.loads(new.read_text())
    bad = 0
    for key in sorted(set(a) | set(b)):
        if a.get(key) != b.get(key):
            bad += 1
            print(f"DIFFERS {key}")
    total = len(set(a) | set(b))
    print(f"{total - bad} of {total} laws bit-identical")
    return 1 if bad else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write")
    w.add_argument("file", type=Path)
    w.add_argument("--fuzz", type=int, default=60)
    c = sub.add_parser("compare")
    c.add_argument("old", type=Path)
    c.add_argument("new", type=Path)
    args = parser.parse_args()
    if args.command == "write":
        write(args.file, args.fuzz)
        return 0
    return compare(args.old, args.new)


if __name__ == "__main__":
    sys.exit(main())
