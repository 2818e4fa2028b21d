"""The guide's figures: run the guide's own commands with ``--plot`` (word for word but the
file name) and keep their PNGs here, committed beside the guide that shows them.

Run from the repository root after a change to a figure: ``python docs/figures/make.py``
(about a minute on the 2-core development machine; ``reproduce paper`` needs the
``plot`` extra). Each figure is what a user gets from the command quoted under it.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: (figure file, the guide's command writing it into the working folder, what it writes)
FIGURES: tuple[tuple[str, str, str], ...] = (
    ("law-mha.png", "freege law --case mha --beta 1 --h 4 --gK 0.5 --gV 0.5 --gO 2 "
     "--pdf 0.5 1 2 --plot mha.png", "mha.png"),
    ("validate-spectrum.png", "freege validate --n 128 --h 4 --dk 32 --dv 32 --do 64 "
     "--draws 3 --plot spectrum.png", "spectrum.png"),
    ("reproduce-temperature.png", "freege reproduce temperature --betas 0.5 1 1.5 --quiet "
     "--plot temperature.png", "temperature.png"),
    ("paper-3b.png", "freege reproduce paper --measure --scale 64 --draws 2 --panels 3b "
     "--out paper-demo --quiet", "paper-demo/panel_3b.png"),
)


def main() -> None:
    with tempfile.TemporaryDirectory() as work:
        for name, command, written in FIGURES:
            argv = [sys.executable, "-m", "freege", *shlex.split(command)[1:]]
            subprocess.run(argv, cwd=work, check=True, stdout=subprocess.DEVNULL)
            shutil.copyfile(Path(work) / written, HERE / name)
            print(f"{name}: {command}")


if __name__ == "__main__":
    main()
