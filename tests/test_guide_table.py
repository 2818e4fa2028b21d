"""docs/performance.md's per-draw table ("Cost of a draw") is what ``benchmarks/sampling.py
--sections table`` prints: the same configurations, FLOP floors and GPU model; the
measured columns are the benchmark's own (not recomputed here: they are timings)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.sampling import floor_flops, gpu_estimate, table_rows

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "performance.md"


def _guide_rows() -> list[list[str]]:
    lines = GUIDE.read_text().splitlines()
    start = next(i for i, line in enumerate(lines)
                 if line.startswith("| configuration | n | h | dK = dV | dO | floor GFLOP"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def test_guide_table_has_the_benchmarks_configurations_floors_and_gpu_model() -> None:
    rows = _guide_rows()
    expected = table_rows()
    assert [row[0] for row in rows] == [name for name, _ in expected]
    for row, (_, dims) in zip(rows, expected, strict=True):
        assert [int(c) for c in row[1:5]] == [dims.n, dims.h, dims.dK, dims.dO]
        assert float(row[5]) == pytest.approx(floor_flops(dims) / 1e9, rel=5e-3)
        assert float(row[9]) == pytest.approx(gpu_estimate(dims), rel=5e-2)
        # time = ratio x floor / rate at a dgemm rate of this machine's order (40-60 GFLOP/s)
        seconds, ratio = float(row[6].lstrip("~").split()[0]), float(row[7].strip("()"))
        assert 40e9 <= ratio * floor_flops(dims) / seconds <= 60e9
