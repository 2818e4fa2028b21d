"""Chain benchmark (issue #20): ``freege chain`` at its documented size must run in under a
minute on the 2-core CPU.

Times, side by side in one run (a shared machine is noisy: compare ratios): one draw of
the six-step chain (:func:`freege.validation.chain.draw`) against one draw of
``freege validate`` (:func:`freege.validation.sampling.sample.draw`, two models) at the same
dimensions, and the whole command ``freege chain --n 512 --h 8 --dk 64 --dv 64 --do 512
--draws 10`` in a fresh process (imports and the limiting moments included).

Run: ``OPENBLAS_NUM_THREADS=1 python benchmarks/chain.py [--draws 3]``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COMMAND = ["chain", "--n", "512", "--h", "8", "--dk", "64", "--dv", "64", "--do", "512",
           "--draws", "10"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=3, help="draws timed per sampler")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from freege.params import Dims
    from freege.validation import chain
    from freege.validation.sampling import sample

    dims = Dims(n=512, h=8, dK=64, dV=64, dO=512)
    chain.draw(dims, seed=(0, 0))  # warm-up
    times = {}
    for name, fn in (("chain draw", lambda i: chain.draw(dims, seed=(1, i))),
                     ("validate draw", lambda i: sample.draw(dims, seed=(1, i)))):
        start = time.perf_counter()
        for i in range(args.draws):
            fn(i)
        times[name] = (time.perf_counter() - start) / args.draws
        print(f"{name:<14} {times[name]:.3f} s")
    print(f"ratio chain / validate: {times['chain draw'] / times['validate draw']:.2f}")
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "freege", *COMMAND], cwd=ROOT, check=True,
                   capture_output=True, env={**os.environ})
    print(f"freege {' '.join(COMMAND)}: {time.perf_counter() - start:.1f} s (limit 60 s)")


if __name__ == "__main__":
    main()
