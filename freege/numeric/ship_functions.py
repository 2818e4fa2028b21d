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
It also derives, in a fresh process with the same empty cache folder, the Cauchy
polynomials of the expression shapes of
:func:`freege.symbolic.expression_shapes.shipped_examples` and writes them to
:data:`expression_shapes.SHIPPED` (:func:`expression_shapes.shipped_entry`: named and
checksummed for the same key), so an algebra expression of those shapes derives nothing
in sympy at its first numbers. ``--check``: exit 1 when a shipped file is not named for
the current sources (an edit of :mod:`freege.symbolic` since; run without ``--check`` to
regenerate) or the shapes' file is missing, 0 otherwise.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from freege import cache_files, safe_files
from freege.numeric import compiled
from freege.symbolic import expression_shapes

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


SHAPES = """
import sys
from freege.symbolic import expression_shapes
sys.stdout.write(expression_shapes.shipped_text())
"""


def shapes_text(cache: Path) -> str:
    """The shipped shapes' file content (:func:`expression_shapes.shipped_text`), derived
    in a fresh process caching in ``cache``."""
    env = {**os.environ, "FREEGE_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    print("[shapes] expression shapes", file=sys.stderr, flush=True)
    return subprocess.run([sys.executable, "-c", SHAPES], env=env, cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout


def stale_shapes() -> list[str]:
    """The shipped shapes' files not named for the current sources, and the current one
    when it is missing (``<name> (missing)``)."""
    current = expression_shapes.shipped_entry()[0]
    out = [p.name for p in sorted(expression_shapes.SHIPPED.glob("shapes-*.gen"))
           if p != current]
    return out if current.is_file() else [*out, f"{current.name} (missing)"]


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
        shapes = shapes_text(Path(folder))
    path, key = expression_shapes.shipped_entry()
    safe_files.make_folder(expression_shapes.SHIPPED, "shipped shapes")
    for old in expression_shapes.SHIPPED.glob("shapes-*.gen"):
        old.unlink()
    safe_files.write_text(path, f"{cache_files.TAG}{cache_files.checksum(key, shapes)}\n{shapes}",
                          "shipped shapes")
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
        shapes = stale_shapes()
        print(f"shipped shapes: {', '.join(shapes) or 'current'}" + (
            ": run python -m freege.numeric.ship_functions" if shapes else ""))
        return 1 if old or not shipped or shapes else 0
    print(f"shipped functions: {regenerate()} written to {compiled.SHIPPED}, shapes to "
          f"{expression_shapes.shipped_entry()[0]}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
