"""Benchmark of the law algebra's numeric laws (docs/algebra.md) on the peers' laws of issue
32, with the peers side by side.

    python benchmarks/algebra.py [--points 1000] [--rounds 5] [--peers-python PATH]
                                 [--json FILE]

Laws: MP_1/2, MP_2 (atom 1/2 at 0), MP_1 ⊠ MP_1, MP_1/2 ⊠ MP_1/2, semicircle(1) ⊞ MP_1/2.
Points: the midpoints of ``--points`` equal cells of the exact support. Reference: the
30-digit densities and edges of ``tests/algebra/peer_references.py``, written by hand
(closed forms for MP; the Cauchy equation typed from the S- or R-transform and solved for
all roots with ``mpmath.polyroots`` otherwise), independent of freege's code path.

Rounds (``--rounds``, issue 41): in each round every law's fresh freege time is taken in
this process, then the peers' in a new process of theirs; the table gives medians over
the rounds of CPU time (``time.process_time``: the machine is shared) and of wall time,
and the load average before and after.

freege, per law: ``fresh_s`` (parse the text, build the law, locate support and atoms,
density at every point; the disk cache warm, as after a first use), ``cold_s`` (the
same in a new process with an empty cache folder: derivation of the Cauchy polynomial and
the exact edges included, imports excluded; wall and CPU time), ``reused_s`` (the density
again on the same law), the largest relative density error, the edge errors and the atoms
with their masses.

Peers (optional benchmark dependencies, never freege's): ``rmtool`` 1.0 and ``freealg``
0.12 from PyPI, installed into a throwaway venv (``python -m venv /tmp/peers-venv &&
/tmp/peers-venv/bin/pip install rmtool freealg``) whose python is passed as
``--peers-python``; they run in that process (freege is not installed there), so the
times of the two sides come from two processes on the same machine. rmtool: the law's
polynomial by ``wishartpol``/``wignerpol``/``AtimesB``/``AplusB``, then ``Lmz2pdf`` on
the points (its polynomial construction included in the time); its density, and its
``multipleroots`` (candidate edges, which the user must sort) and ``poles`` (atom
locations without masses). freealg: its closed-form classes where it has one
(``MarchenkoPastur(lam)``, ``FussCatalan(2)`` for MP_1 ⊠ MP_1); it has no ⊠ or ⊞ of given
laws, so the other two laws are not expressible there.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import mpmath
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from freege import algebra  # noqa: E402
from tests.algebra.peer_references import CASES, REF_DPS  # noqa: E402

#: rmtool's polynomial and freealg's class for each law (None: not expressible)
PEER_LAWS = {
    "mp(1/2)": ("wishartpol(sp.Rational(1, 2))", "MarchenkoPastur(0.5)"),
    "mp(2)": ("wishartpol(2)", "MarchenkoPastur(2.0)"),
    "mp(1) * mp(1)": ("AtimesB(wishartpol(1), wishartpol(1))", "FussCatalan(2)"),
    "mp(1/2) * mp(1/2)": ("AtimesB(wishartpol(sp.Rational(1, 2)), "
                          "wishartpol(sp.Rational(1, 2)))", None),
    "semicircle(1) + mp(1/2)": ("AplusB(wignerpol(), wishartpol(sp.Rational(1, 2)))", None),
}

PEER_SCRIPT = r"""
import json, sys, time
import numpy as np
import sympy as sp
laws = json.loads(sys.argv[1])
out = {}
import rmtool
from rmtool import AplusB, AtimesB, Lmz2pdf, wignerpol, wishartpol
import freealg
from freealg.distributions import FussCatalan, MarchenkoPastur
out["versions"] = {"rmtool": rmtool.__version__, "freealg": freealg.__version__}
for text, (rm_code, fa_code, xs) in laws.items():
    xs = np.array(xs)
    row = {}
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        info = Lmz2pdf(eval(rm_code), xs)
        row["rmtool_s"] = time.perf_counter() - t0
        row["rmtool_cpu_s"] = time.process_time() - c0
        dens = info.best_density() if hasattr(info, "best_density") else info.density
        row["rmtool_pdf"] = [None if not np.isfinite(v) else float(v) for v in dens]
        row["rmtool_edges"] = sorted(float(np.real(v)) for v in info.multipleroots)
        row["rmtool_poles"] = sorted(float(np.real(v)) for v in info.poles)
    except Exception as exc:
        row["rmtool_error"] = f"{type(exc).__name__}: {exc}"
    if fa_code is not None:
        try:
            t0, c0 = time.perf_counter(), time.process_time()
            dist = eval(fa_code)
            dens = dist.density(xs)
            row["freealg_s"] = time.perf_counter() - t0
            row["freealg_cpu_s"] = time.process_time() - c0
            dens = np.asarray(dens[0] if isinstance(dens, tuple) else dens, dtype=float)
            row["freealg_pdf"] = [float(v) for v in dens]
        except Exception as exc:
            row["freealg_error"] = f"{type(exc).__name__}: {exc}"
    out[text] = row
print(json.dumps(out))
"""

COLD_SCRIPT = r"""
import json, sys, time
import numpy as np
from freege import algebra
text, xs = sys.argv[1], np.array(json.loads(sys.argv[2]))
t0, c0 = time.perf_counter(), time.process_time()
law = algebra.parse(text).law()
law.intervals(); law.atoms(); law.pdf(xs)
print(json.dumps([time.perf_counter() - t0, time.process_time() - c0]))
"""


def points(edges: list, n: int) -> np.ndarray:
    """Midpoints of ``n`` equal cells of the support ``[lo, hi]``."""
    lo, hi = float(min(edges)), float(max(edges))
    return lo + (hi - lo) * (np.arange(n) + 0.5) / n


def support_of(text: str, candidates: list) -> tuple[float, float]:
    """The reference support: the reference edge candidates nearest freege's interval
    (the candidates include spurious critical values; the reference density decides)."""
    law = algebra.parse(text).law()
    (lo, hi), = law.intervals()
    pick = lambda e: float(min(candidates, key=lambda c: abs(float(c) - e)))  # noqa: E731
    return pick(lo), pick(hi)


def relative_errors(values: np.ndarray, ref: np.ndarray) -> float:
    return float(np.max(np.abs(values - ref) / ref))


def fresh(text: str, xs: np.ndarray) -> tuple[Any, dict[str, float]]:
    """A fresh law of ``text`` with its edges, atoms and densities at ``xs``, and the wall
    and CPU time that took."""
    t0, c0 = time.perf_counter(), time.process_time()
    law = algebra.parse(text).law()
    law.intervals()
    law.atoms()
    law.pdf(xs)
    return law, {"fresh_s": time.perf_counter() - t0, "fresh_cpu_s": time.process_time() - c0}


def freege_side(text: str, xs: np.ndarray, ref: np.ndarray, edges: tuple) -> dict[str, Any]:
    row: dict[str, Any] = {}
    algebra.parse(text).law().pdf(xs[:3])  # the disk cache warm (a first use)
    law, times = fresh(text, xs)
    row.update(times)
    (lo, hi), = law.intervals()
    atoms = law.atoms()
    pdf = law.pdf(xs)
    t0 = time.perf_counter()
    again = law.pdf(xs)
    row["reused_s"] = time.perf_counter() - t0
    assert np.array_equal(pdf, again)
    row["pdf_max_rel_err"] = relative_errors(pdf, ref)
    row["intervals"] = law.intervals()
    row["edge_errors"] = [abs(lo - edges[0]), abs(hi - edges[1])]
    row["atoms"] = {str(k): v for k, v in atoms.items()}
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "FREEGE_CACHE_DIR": cache}
        proc = subprocess.run([sys.executable, "-c", COLD_SCRIPT, text, json.dumps(list(xs))],
                              capture_output=True, text=True, cwd=ROOT, env=env, check=True)
        row["cold_s"], row["cold_cpu_s"] = json.loads(proc.stdout)
    return row


def peer_side(python: str | None, grid: dict[str, np.ndarray]) -> dict[str, Any]:
    if python is None:
        return {"note": "not run (no --peers-python)"}
    payload = {text: (*PEER_LAWS[text], list(xs)) for text, xs in grid.items()}
    proc = subprocess.run([python, "-c", PEER_SCRIPT, json.dumps(payload)],
                          capture_output=True, text=True)
    if proc.returncode:
        return {"note": f"failed: {proc.stderr.strip().splitlines()[-1:]}"}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def peer_errors(row: dict[str, Any], ref: np.ndarray) -> dict[str, Any]:
    out = {}
    for name in ("rmtool", "freealg"):
        values = row.get(f"{name}_pdf")
        if values is None:
            continue
        vals = np.array([np.nan if v is None else v for v in values])
        bad = ~np.isfinite(vals)
        out[f"{name}_pdf_max_rel_err"] = relative_errors(np.where(bad, 0, vals), ref)
        out[f"{name}_nan_points"] = int(bad.sum())
        with np.errstate(all="ignore"):
            out[f"{name}_points_off_1e-6"] = int(np.sum(~(np.abs(vals - ref) <= 1e-6 * ref)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    default = "/tmp/peers-venv/bin/python"
    parser.add_argument("--peers-python", default=default if Path(default).exists() else None,
                        help="python of a venv with rmtool and freealg installed")
    parser.add_argument("--json", help="write the report here")
    args = parser.parse_args()
    report: dict[str, Any] = {"load_before": os.getloadavg()}
    grid, refs = {}, {}
    for text, density, candidates, _ in CASES:
        edges = support_of(text, candidates)
        xs = points(list(edges), args.points)
        with mpmath.workdps(REF_DPS):
            refs[text] = np.array([float(density(mpmath.mpf(float(x)))) for x in xs])
        grid[text] = xs
        report[text] = {"reference_edges": edges, **freege_side(text, xs, refs[text], edges)}
    samples: dict[str, dict[str, list[float]]] = {text: {} for text in grid}
    for _ in range(args.rounds):  # interleaved: every law's freege time, then the peers'
        for text, xs in grid.items():
            for key, value in fresh(text, xs)[1].items():
                samples[text].setdefault(key, []).append(value)
        peers = peer_side(args.peers_python, grid)
        for text in grid:
            for key, value in peers.get(text, {}).items():
                if key.endswith("_s"):
                    samples[text].setdefault(key, []).append(value)
    report["peer_versions"] = peers.get("versions", peers.get("note"))
    for text in grid:
        row = peers.get(text, {})
        report[text].update({k: v for k, v in row.items() if not k.endswith("_pdf")})
        report[text].update(peer_errors(row, refs[text]))
        report[text].update({k: statistics.median(v) for k, v in samples[text].items()})
        report[text]["samples"] = samples[text]
    report["load_after"] = os.getloadavg()
    for text in grid:
        r = report[text]
        line = (f"{text:<26} freege fresh {r['fresh_cpu_s']:.4f}s cpu ({r['fresh_s']:.4f}s "
                f"wall) cold {r['cold_cpu_s']:.2f}s cpu ({r['cold_s']:.2f}s wall) reused "
                f"{r['reused_s']:.4f}s err "
                f"{r['pdf_max_rel_err']:.1e} edges {max(r['edge_errors']):.1e} "
                f"atoms {r['atoms']}")
        if "rmtool_s" in r:
            line += (f" | rmtool {r['rmtool_cpu_s']:.4f}s cpu ({r['rmtool_s']:.4f}s wall) "
                     f"err {r['rmtool_pdf_max_rel_err']:.1e} edges {r['rmtool_edges']} "
                     f"poles {r['rmtool_poles']} | rmtool/freege cpu "
                     f"{r['rmtool_cpu_s'] / r['fresh_cpu_s']:.2f}")
        if "freealg_s" in r:
            line += (f" | freealg {r['freealg_cpu_s']:.5f}s cpu ({r['freealg_s']:.5f}s "
                     f"wall) err {r['freealg_pdf_max_rel_err']:.1e} "
                     f"({r['freealg_points_off_1e-6']} points off by > 1e-6) | "
                     f"freege/freealg cpu {r['fresh_cpu_s'] / r['freealg_cpu_s']:.1f}")
        print(line)
    print("peers:", report["peer_versions"])
    print(f"medians of {args.rounds} interleaved rounds; load average before "
          f"{report['load_before']}, after {report['load_after']} (2 cores shared)")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=1, default=str))


if __name__ == "__main__":
    main()
