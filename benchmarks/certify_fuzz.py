"""Fuzz of the certified support edges over the declared domain (theory §7; issue 16).

    python benchmarks/certify_fuzz.py [--laws 500] [--seed 16] [--out FILE] [--rtol 1e-30]
                                      [--pdf]

Random laws of all seven theory §4 cases over the domain :mod:`freege.params` declares
(``beta`` in [1e-3, 4], ``h`` in [1, 1e4], ``gK, gV, gO`` in [1e-4, 1e4], log-uniform, four
significant digits; one law in four puts a ratio at, or a hair away from, 1 or a domain
end, where the atom and hard edges meet). For each law: :func:`certified_support` with its
default relative radius (1e-30), the time it took, the working precision used and the
largest relative radius of its edges; as a sanity check, the edges are compared with the
float64 law's (relative difference, informative only: a float64 refusal is recorded, not
counted against the certificate). With ``--pdf`` the density is also certified at the
middle of every interval and at ``1e-6`` (relative) inside each edge (issue 16's refused
point was ``4e-5`` inside), and refusals there are counted.

Each law's result is one JSON line appended to ``--out`` as soon as it is known; a rerun
skips the laws already there (a truncated last line from a crash is detected and redone).
The summary prints: laws, certified, edges, edges wider than ``--rtol``, refusals, time.
Seeds are fixed: law ``k`` of seed ``s`` is the same on every machine.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from fractions import Fraction
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.random_laws import draw, one_corner  # noqa: E402
from freege import numeric  # noqa: E402
from freege.numeric import certify  # noqa: E402
from freege.params import CASES, TIED_CASES, Ratios  # noqa: E402


def random_law(seed: int, k: int) -> tuple[str, dict[str, Any]]:
    """Law ``k`` of the fuzz with ``seed``: its case (``k`` mod 7) and its ratios (decimal
    strings), drawn by :func:`benchmarks.random_laws.draw` with :func:`one_corner`."""
    case, params = draw(random.Random(f"{seed}:{k}"), one_corner, CASES[k % len(CASES)])
    return case, {**params, "sharing": "tied" if case in TIED_CASES else "none"}


def _relative(value: Fraction, ref: float) -> float:
    return float(abs(value - Fraction(ref)) / max(abs(value), Fraction(1, 10**300)))


def pdf_points(support: list[tuple[Any, Any]]) -> list[Fraction]:
    """The middle of every certified interval and the points ``1e-6`` of its width inside
    each edge (the lower edge 0 excepted)."""
    out = []
    for lo, hi in support:
        a, b = lo.mid_exact, hi.mid_exact
        out += [(a + b) / 2, b - (b - a) / 10**6] + ([a + (b - a) / 10**6] if a else [])
    return out


def run_one(case: str, params: dict[str, Any], rtol: Fraction, pdf: bool = False
            ) -> dict[str, Any]:
    the_law = numeric.law(case, Ratios(**params))
    start = time.perf_counter()
    try:
        support = certify.certified_support(the_law)
    except Exception as exc:  # noqa: BLE001 - a crash is a finding: recorded, counted
        support = certify.Uncertified(f"crash: {type(exc).__name__}: {exc}")
    seconds = time.perf_counter() - start
    out: dict[str, Any] = {"case": case, "params": params, "seconds": round(seconds, 3)}
    if isinstance(support, certify.Uncertified):
        return {**out, "certified": False, "reason": support.reason}
    edges = [e for pair in support for e in pair]
    rel = [float(e.rad_exact / abs(e.mid_exact)) if e.mid_exact else 0.0 for e in edges]
    out.update(certified=True, edges=[str(e) for e in edges],
               prec=max([e.prec for e in edges], default=0),
               max_rel_rad=max(rel, default=0.0),
               wide=sum(r > rtol for r in rel))
    if pdf:
        start = time.perf_counter()
        xs = pdf_points(support)
        balls = certify.certified_pdf(the_law, xs)
        out["pdf_seconds"] = round(time.perf_counter() - start, 3)
        out["pdf_refused"] = [(str(x), b.reason) for x, b in zip(xs, balls, strict=True)
                              if not b.certified]
        out["pdf_not_positive"] = [str(x) for x, b in zip(xs, balls, strict=True)
                                   if b.certified and not b.mid_exact > b.rad_exact]
    try:
        f64 = [e for pair in the_law.intervals() for e in pair]
    except Exception as exc:  # noqa: BLE001 - informative only: the float64 layer refused
        out["float64"] = f"refused: {type(exc).__name__}: {str(exc)[:120]}"
        return out
    if len(f64) != len(edges):
        out["float64"] = f"{len(f64) // 2} intervals (certified: {len(edges) // 2})"
    else:
        out["float64_rel_diff"] = max((_relative(e.mid_exact, f) for e, f in
                                       zip(edges, f64, strict=True)), default=0.0)
    return out


def _done(path: Path) -> dict[int, dict[str, Any]]:
    """Results already in ``path`` (a line that does not parse is dropped and redone)."""
    out: dict[int, dict[str, Any]] = {}
    if not path.exists():
        return out
    good = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
            out[int(record["k"])] = record
            good.append(line)
        except (ValueError, KeyError, TypeError):
            continue
    path.write_text("".join(f"{line}\n" for line in good), encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--laws", type=int, default=500)
    parser.add_argument("--seed", type=int, default=16)
    parser.add_argument("--rtol", default="1e-30")
    parser.add_argument("--out", type=Path, default=Path("certify_fuzz.jsonl"))
    parser.add_argument("--pdf", action="store_true", help="certify densities too")
    args = parser.parse_args(argv)
    rtol = Fraction(args.rtol)
    done = _done(args.out)
    with args.out.open("a", encoding="utf-8") as sink:
        for k in range(args.laws):
            if k in done and done[k].get("seed") == args.seed:
                continue
            case, params = random_law(args.seed, k)
            record = {"k": k, "seed": args.seed, **run_one(case, params, rtol, args.pdf)}
            sink.write(json.dumps(record) + "\n")
            sink.flush()
            done[k] = record
            print(f"{k:4d} {case:<24} {record['seconds']:8.2f}s "
                  f"{'certified' if record['certified'] else 'REFUSED'} "
                  f"rel rad {record.get('max_rel_rad', float('nan')):.2e} "
                  f"prec {record.get('prec', '-')}"
                  + (f" pdf refused {len(record['pdf_refused'])}" if "pdf_refused" in record
                     else ""), flush=True)
    records = [done[k] for k in range(args.laws)]
    certified = [r for r in records if r["certified"]]
    edges = sum(len(r["edges"]) for r in certified)
    wide = sum(r["wide"] for r in certified)
    print(json.dumps({
        "laws": len(records), "certified": len(certified),
        "refused": [(r["k"], r["case"], r["reason"]) for r in records if not r["certified"]],
        "edges": edges, "edges_wider_than_rtol": wide, "rtol": args.rtol,
        "max_rel_rad": max((r["max_rel_rad"] for r in certified), default=0.0),
        "precisions": sorted({r["prec"] for r in certified}),
        "seconds_total": round(sum(r["seconds"] for r in records), 1),
        "seconds_max": max((r["seconds"] for r in records), default=0.0),
        "float64_mismatch": [(r["k"], r.get("float64")) for r in certified if "float64" in r],
        "float64_rel_diff_max": max((r.get("float64_rel_diff", 0.0) for r in certified),
                                    default=0.0),
        "pdf_refused": [(r["k"], p) for r in certified for p in r.get("pdf_refused", [])],
        "pdf_not_positive": [(r["k"], x) for r in certified
                             for x in r.get("pdf_not_positive", [])],
        "pdf_seconds_total": round(sum(r.get("pdf_seconds", 0) for r in certified), 1),
    }, indent=1))
    bad_pdf = any(r.get("pdf_refused") or r.get("pdf_not_positive") for r in certified)
    return 0 if len(certified) == len(records) and wide == 0 and not bad_pdf else 1


if __name__ == "__main__":
    raise SystemExit(main())
