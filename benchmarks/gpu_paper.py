"""GPU run of the paper reproduction at the paper's scale (theory §6.4): ``python -m
benchmarks.gpu_paper [--panels 2a] [--scale 1] [--out DIR]`` runs
``freege reproduce paper --measure --backend cupy`` for the given panels (default 2(a),
the learning curves at n = 4096, S = 1) and prints its wall time. The store makes it
resumable: rerun with ``--resume`` after an interruption.

Without CuPy or a usable GPU it says so and exits with status 0 (nothing to run).
"""

from __future__ import annotations

import argparse
import time

from freege.validation.sampling.backend import cupy_problem


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.gpu_paper",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--panels", default="2a")
    parser.add_argument("--scale", default="1")
    parser.add_argument("--draws", default="10")
    parser.add_argument("--out", default="paper-gpu")
    parser.add_argument("--resume", action="store_true")
    args = parser.parse_args(argv)
    problem = cupy_problem()
    if problem is not None:
        print(f"gpu_paper: no usable GPU ({problem}); nothing to run.")
        return 0
    from freege.cli import main as freege

    start = time.perf_counter()
    code = freege(["reproduce", "paper", "--measure", "--backend", "cupy", "--yes",
                   "--scale", args.scale, "--panels", args.panels, "--draws", args.draws,
                   "--out", args.out, *(["--resume"] if args.resume else [])])
    print(f"gpu_paper: panels {args.panels} at S = {args.scale} in "
          f"{time.perf_counter() - start:.0f} s (exit {code})")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
