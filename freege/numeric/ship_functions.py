"""Regenerate the generated functions shipped with freege (:data:`compiled.SHIPPED`;
issue 41: an empty cache folder derives nothing in sympy on a first use).

    python -m freege.numeric.ship_functions [--check]

Runs the first use of each theory §4 case -- ``freege law --case C ... --pdf 1.0`` (the
summary: support, atoms, moments) and ``law(C, ...).pdf`` in a fresh process -- with an
empty temporary cache folder, then copies the generated functions it wrote
(``<cache>/numeric/*.py``, the coefficient matrices and moments of theory §3-§5, not the
exact results at those parameters) to :data:`compiled.SHIPPED` as ``<name>.gen``,
removing the old ones. Each keeps its cache entry's header (its key's checksum), so
:func:`compiled.shipped` reads it only under the same symbolic sources and sympy version.
``--check``: exit 1 when a shipped file is not named for the current sources (an edit of
:mod:`freege.symbolic` since; run without ``--check`` to regenerate), 0 otherwise.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from freege import safe_files
from freege.numeric import compiled

#: the theory §4 cases whose first use is shipped
CASES = ("attention", "head-average", "head-average-shared-key", "value", "mha", "value-tied",
         "mha-tied")
ROOT = Path(__file__).resolve().parents[2]

FIRST_USE = """
import sys
from freege.numeric import law
from freege.params import Ratios
law(sys.argv[1], Ratios(*sys.argv[2:])).pdf(1.0)
"""


def _ratios(case: str) -> list[str]:
    """``(beta, h, gK, gV, gO)`` of the first use (gV = gK for the tied cases)."""
    return ["1", "3", "1.5", "1.5" if "tied" in case else "1.25", "0.75"]


def first_uses(cache: Path) -> None:
    """Every case's first use (module docstring) in fresh processes, caching in ``cache``."""
    env = {**os.environ, "FREEGE_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    for k, case in enumerate(CASES, start=1):
        print(f"[{k}/{len(CASES)}] {case}", file=sys.stderr, flush=True)
        beta, h, gk, gv, go = _ratios(case)
        for args in (["-m", "freege", "law", "--case", case, "--beta", beta, "--h", h,
                      "--gK", gk, "--gV", gv, "--gO", go, "--pdf", "1.0"],
                     ["-c", FIRST_USE, case, beta, h, gk, gv, go]):
            subprocess.run([sys.executable, *args], env=env, cwd=ROOT, check=True,
                           capture_output=True)


def stale() -> list[str]:
    """The shipped files not named for the current sources (:func:`compiled.disk_entry`)."""
    out = []
    for path in sorted(compiled.SHIPPED.glob("*.gen")):
        name = path.stem.rsplit("-", 1)[0]
        if compiled.disk_entry(name)[0].stem != path.stem:
            out.append(path.name)
    return out


def regenerate() -> int:
    """Write :data:`compiled.SHIPPED` afresh; the number of files shipped."""
    with tempfile.TemporaryDirectory() as folder:
        first_uses(Path(folder))
        written = sorted((Path(folder) / "numeric").glob("*.py"))
        safe_files.make_folder(compiled.SHIPPED, "shipped functions")
        for old in compiled.SHIPPED.glob("*.gen"):
            old.unlink()
        for path in written:
            safe_files.write_text(compiled.SHIPPED / f"{path.stem}.gen",
                                  path.read_text(encoding="utf-8"), "shipped functions")
    return len(written)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m freege.numeric.ship_functions",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="exit 1 when a shipped file is stale")
    args = parser.parse_args(argv)
    if args.check:
        old = stale()
        shipped = len(list(compiled.SHIPPED.glob("*.gen")))
        print(f"shipped functions: {len(old)} of {shipped} stale" + (
            f" ({', '.join(old)}): run python -m freege.numeric.ship_functions" if old else ""))
        return 1 if old or not shipped else 0
    print(f"shipped functions: {regenerate()} written to {compiled.SHIPPED}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
