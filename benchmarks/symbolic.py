"""Benchmark of the exact layer: cold and warm time of the symbolic derivations.

For each task -- m1..m6 of every theory §4 case, the Cauchy polynomial P(G, z) of every
case, the tied-K/V S-relation -- three times are measured:

* cold: a fresh process with an empty ``FREEGE_CACHE_DIR`` (imports excluded);
* warm, memory: the same call again in that process (in-process cache);
* warm, disk: a fresh process reading the disk cache the cold run wrote.

Every task runs in its own processes, so a cold time includes whatever intermediate
derivations (laws, relations) that task needs. Usage: ``python benchmarks/symbolic.py``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time

ORDER = 6
CASES = ("attention", "head-average", "head-average-shared-key", "value", "mha",
         "value-tied", "mha-tied")
TASKS = (
    [f"moments:{case}" for case in CASES]
    + [f"cauchy:{case}" for case in CASES]
    + ["tied-s-relation"]
)


def run_task(task: str) -> None:
    """Worker: time the task twice (cold or disk-warm, then memory-warm); print JSON."""
    import freege.symbolic as fs
    from freege.symbolic import equations, pushforward

    kind, _, case = task.partition(":")
    if kind == "moments":
        def call():
            return fs.moments(case, ORDER)
    elif kind == "cauchy":
        def call():
            return equations.cauchy_polynomial(case)
    else:
        call = pushforward.tied_jump_relation
    times = []
    for _ in range(2):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    print(json.dumps(times))


def measure(task: str, cache: str) -> list[float]:
    env = {**os.environ, "FREEGE_CACHE_DIR": cache}
    out = subprocess.run([sys.executable, __file__, "--worker", task], env=env,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    rows = []
    for task in TASKS:
        with tempfile.TemporaryDirectory() as cache:
            cold, memory = measure(task, cache)
            disk, _ = measure(task, cache)
        rows.append((task, cold, memory, disk))
        print(f"{task:<32} {cold:9.3f} s {memory * 1e6:10.1f} us {disk * 1e3:9.2f} ms",
              flush=True)
    total = [sum(r[i] for r in rows) for i in (1, 2, 3)]
    print(f"{'total':<32} {total[0]:9.3f} s {total[1] * 1e6:10.1f} us {total[2] * 1e3:9.2f} ms")
    print("columns: task | cold (fresh process, empty cache) | warm in-process | "
          "warm from disk (fresh process)")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker":
        run_task(sys.argv[2])
    else:
        main()
