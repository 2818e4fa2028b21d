"""A sweep store as a table, one row per draw (theory §6.1): ``sweep-report --format csv``
and :func:`load_store` (a pandas DataFrame; pandas is the optional extra ``data`` and is
imported only there).

Columns (:data:`COLUMNS`): the grid point (``model sharing case n d h h_kv dk dv do beta``)
and its key, the draw index and status, the metrics under the one name each has in the
store, the report, the JSON and the plots (:data:`freege.validation.sweep.report.METRICS`:
``rel_w1``, ``ks``, their noise floors ``floor_rel_w1``, ``floor_ks`` (empty in stores
written before the floor was recorded), ``softmax_m1`` ... ``ge_m2_rel_error``), the
theory §4 limits
``limit_m1``, ``limit_m2``, then ``w1``, ``seconds``, ``peak_bytes`` and ``error``. A failed
draw has empty metrics and its error. Rows come in grid order, then draw order, each
``(point, draw)`` once (its first ``ok`` record, else its failure), as the report reads
them.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import IO, Any

#: the grid point's fields, as ``Point.as_dict`` names them
POINT_COLUMNS: tuple[str, ...] = ("model", "sharing", "case", "n", "d", "h", "h_kv", "dk",
                                  "dv", "do", "beta")
MOMENT_COLUMNS: tuple[str, ...] = tuple(f"{model}_m{q}" for model in ("softmax", "ge")
                                        for q in (1, 2))
COLUMNS: tuple[str, ...] = (
    *POINT_COLUMNS, "point", "draw", "status", "rel_w1", "ks", "floor_rel_w1", "floor_ks",
    *MOMENT_COLUMNS,
    *(f"{c}_rel_error" for c in MOMENT_COLUMNS), "limit_m1", "limit_m2", "w1", "seconds",
    "peak_bytes", "error",
)


def draw_rows(path: str | Path) -> list[dict[str, Any]]:
    """One dict per draw of the store at ``path`` (keys :data:`COLUMNS`; ``None`` where a
    value is absent). ValueError when the store is missing or has no header."""
    from freege.validation.sweep.grid import Point
    from freege.validation.sweep.report import load

    head, records = load(path)
    identity = head["identity"]
    chosen: dict[tuple[str, int], dict[str, Any]] = {}
    for r in records:
        key = (r["point"], r["draw"])
        if key not in chosen or (chosen[key].get("status") != "ok" and r.get("status") == "ok"):
            chosen[key] = r
    rows = []
    for pd in identity["points"]:
        pkey = Point.from_dict(pd).key
        limits = head["theory"][pkey]
        for i in range(identity["draws"]):
            r = chosen.get((pkey, i))
            if r is not None:
                rows.append(_row(pd, pkey, r, limits))
    return rows


def _row(point: dict[str, Any], key: str, r: dict[str, Any],
         limits: list[float]) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(COLUMNS)
    row.update({c: point[c] for c in POINT_COLUMNS})
    row.update(point=key, draw=r["draw"], status=r.get("status"), limit_m1=limits[0],
               limit_m2=limits[1])
    if r.get("status") != "ok":
        row["error"] = r.get("error", "")
        return row
    row.update({c: r.get(c) for c in ("rel_w1", "ks", "w1", "seconds", "peak_bytes")})
    if "floor" in r:
        row.update(floor_rel_w1=r["floor"]["rel_w1"], floor_ks=r["floor"]["ks"])
    for model in ("softmax", "ge"):
        for q in (1, 2):
            value = r["moments"][model][q - 1]
            row[f"{model}_m{q}"] = value
            row[f"{model}_m{q}_rel_error"] = value / limits[q - 1] - 1.0
    return row


def write_csv(path: str | Path, stream: IO[str]) -> None:
    """The rows of :func:`draw_rows` as CSV on ``stream`` (a header line, then one line per
    draw; an absent value is an empty field)."""
    writer = csv.DictWriter(stream, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in draw_rows(path):
        writer.writerow({k: "" if v is None else v for k, v in row.items()})


def load_store(path: str | Path) -> Any:
    """The sweep store at ``path`` as a :class:`pandas.DataFrame`, one row per draw
    (columns :data:`COLUMNS`; absent values NaN). Needs pandas (``pip install
    'freege[data]'``)."""
    import numpy as np

    from freege.extras import require

    pd = require("pandas", "data", "load_store")

    frame = pd.DataFrame(draw_rows(path), columns=list(COLUMNS))
    # absent values (None) as NaN, columns typed as read_csv types them
    return frame.astype(object).where(frame.notna(), np.nan).infer_objects()
