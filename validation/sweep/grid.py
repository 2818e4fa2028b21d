"""Grids of a validation sweep: axes -> points, from options or a TOML campaign (theory §6.1).

A grid maps keys of :data:`GRID_KEYS` to lists of values; its points are the Cartesian
product. A model base (``preset`` names or Hugging Face ``config`` files,
:mod:`freege.validation.models.hf_config`) gives every dimension; the other axes override them.
Without
a base, ``n``, ``h``, ``dk`` and ``do`` are required (``dv`` defaults to ``dk``). ``beta``
values may be ranges ``start:stop:step`` (stop included, decimal arithmetic). ``d`` only
enters parameter counts (theory §1): when an ``n`` on the grid exceeds the base's ``d``,
``d`` is raised to ``n``. Changing ``h`` resets ``h_kv`` to its default for the sharing
scheme unless ``h_kv`` is an axis too.

A TOML campaign (stdlib :mod:`tomllib`) has optional ``description``, ``draws``,
``seed``, and ``grid``: one table, or an array of tables ``[[grid]]`` whose points are
joined (e.g. the ``heads`` campaign, where ``h dK`` is fixed). Shipped campaigns live in
``validation/sweep/campaigns/*.toml`` and are named by file stem.

Each :class:`Point` has a canonical JSON form; its SHA-256 names it in the store and
keys its random seeds, so a point's draws do not depend on the grid around it.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import itertools
import json
import math
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from freege.params import (
    BETA,
    DIM,
    MAX_POINTS,
    POSITIVE,
    Dims,
    Domain,
    parse_number,
    positive,
)
from freege.validation.models.hf_config import load_hf_config
from freege.validation.models.presets import PRESETS, get_preset
from freege.validation.sampling.sample import _check_case as check_case
from freege.validation.sampling.sample import case_for

#: grid axes, in the order points are expanded (the first varies slowest)
GRID_KEYS: tuple[str, ...] = ("preset", "config", "n", "beta", "h", "h_kv", "dk", "dv",
                              "do", "d", "sharing", "case")
#: grid keys mapped to :class:`Dims` fields
_DIMS_FIELD = {"n": "n", "h": "h", "h_kv": "h_kv", "dk": "dK", "dv": "dV", "do": "dO",
               "d": "d", "sharing": "sharing", "beta": "beta"}
_CAMPAIGN_KEYS = ("description", "draws", "seed", "grid")
#: most values of one ``start:stop:step`` range
MAX_RANGE = 10_000


@dataclass(frozen=True)
class Point:
    """One grid point: a configuration, its theory §4 case, and the model it came from
    (preset name, config file, or ``None`` for explicit dimensions)."""

    dims: Dims
    case: str
    model: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The canonical JSON-ready form (key names as in the ``sweep-report`` contract)."""
        d = self.dims
        return {"model": self.model, "n": d.n, "d": d.d, "h": d.h, "h_kv": d.h_kv,
                "dk": d.dK, "dv": d.dV, "do": d.dO, "beta": float(d.beta),
                "sharing": d.sharing, "case": self.case}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Point:
        dims = Dims(n=data["n"], d=data["d"], h=data["h"], h_kv=data["h_kv"], dK=data["dk"],
                    dV=data["dv"], dO=data["do"], beta=data["beta"], sharing=data["sharing"])
        return cls(dims, data["case"], data["model"])

    @functools.cached_property
    def key(self) -> str:
        """16 hex digits of the SHA-256 of the canonical JSON form (computed once)."""
        text = json.dumps(self.as_dict(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def seed_word(self) -> int:
        """The key as a 64-bit integer: entropy of the point's seeds."""
        return int(self.key, 16)


def parse_range(text: str, name: str = "beta", domain: Domain = BETA) -> list[float]:
    """``start:stop:step`` -> ``[start, start + step, ..., <= stop]`` (exact decimal steps,
    so ``0.25:2:0.25`` ends exactly at 2); start and stop in ``domain``, at most
    :data:`MAX_RANGE` values."""
    parts = text.split(":")
    if len(parts) != 3:
        raise ValueError(f"{name} range must be start:stop:step with numbers (got {text!r})")
    start = parse_number(f"{name} range start", parts[0], domain)
    stop = parse_number(f"{name} range stop", parts[1], domain)
    step = parse_number(f"{name} range step", parts[2], POSITIVE)
    if stop < start:
        raise ValueError(f"{name} range {text!r} needs stop >= start")
    count = int((stop - start) / step) + 1
    if count > MAX_RANGE:
        raise ValueError(f"{name} range {text!r} has {count} values (at most {MAX_RANGE})")
    return [float(start + k * step) for k in range(count)]


def _values(key: str, raw: object) -> list[Any]:
    """The list of values of axis ``key`` (a scalar is a one-value list; ``beta``
    strings with ``:`` are ranges)."""
    items = raw if isinstance(raw, list) else [raw]
    if not items:
        raise ValueError(f"grid key {key} is empty: give at least one value")
    out: list[Any] = []
    for item in items:
        if len(out) >= MAX_POINTS:  # checked as it grows: a list of ranges stays cheap
            raise ValueError(f"grid key {key} has more than {MAX_POINTS} values")
        if key == "beta" and isinstance(item, str) and ":" in item:
            out.extend(parse_range(item))
        elif key in ("preset", "config", "sharing", "case"):
            if not isinstance(item, str):
                raise ValueError(f"grid key {key} takes names (got {item!r})")
            out.append(item)
        elif key == "beta":
            out.append(float(positive("beta", item)))
        else:
            out.append(int(parse_number(key, item, DIM)))
    return out


def _check_keys(grid: dict[str, Any]) -> None:
    unknown = sorted(set(grid) - set(GRID_KEYS))
    if unknown:
        raise ValueError(f"unknown grid key(s) {', '.join(unknown)}; valid keys: "
                         f"{', '.join(GRID_KEYS)}")


def _config_label(path: str) -> str:
    """A config file's model name: its stem, or its folder's name for ``config.json``
    (a Hugging Face checkout is a folder named after the model)."""
    p = Path(path)
    return (p.parent.name or p.stem) if p.stem == "config" else p.stem


def _bases(grid: dict[str, list[Any]]) -> list[tuple[str | None, Any]]:
    """``(model label, Dims or a config path)`` of the grid's model axes, or one
    ``(None, None)`` for explicit dimensions."""
    if "preset" in grid and "config" in grid:
        raise ValueError("grid keys preset and config exclude each other")
    if "preset" in grid:
        return [(name, get_preset(name)) for name in grid["preset"]]
    if "config" in grid:
        return [(_config_label(p), p) for p in grid["config"]]
    missing = [k for k in ("n", "h", "dk", "do") if k not in grid]
    if missing:
        raise ValueError(f"an explicit grid needs n, h, dk and do (missing "
                         f"{', '.join(missing)}), or give preset or config "
                         f"(presets: {', '.join(PRESETS)})")
    return [(None, None)]


def _override(dims: Dims, fields: dict[str, Any]) -> Dims:
    """``dims`` with the grid's values (module docstring: ``h_kv`` reset when ``h`` or
    the sharing changes, ``dv`` following ``dk`` when they were equal, ``d >= n``)."""
    fields = dict(fields)
    if ("h" in fields or "sharing" in fields) and "h_kv" not in fields:
        fields["h_kv"] = dims.h_kv if fields.get("sharing", dims.sharing) == "gqa" else None
    if "dK" in fields and "dV" not in fields and dims.dV == dims.dK:
        fields["dV"] = fields["dK"]
    if "n" in fields and "d" not in fields:
        fields["d"] = max(dims.d, fields["n"])
    return dataclasses.replace(dims, **fields)


def _point(base: Any, model: str | None, values: dict[str, Any], case: str | None) -> Point:
    fields = {_DIMS_FIELD[k]: v for k, v in values.items()}
    if base is None:
        fields.setdefault("dV", fields["dK"])
        dims = Dims(**fields)
    else:
        dims = load_hf_config(base, n=fields.get("n")) if isinstance(base, str) else base
        dims = _override(dims, fields)
    resolved = case or case_for(dims)
    check_case(resolved, dims)
    return Point(dims, resolved, model)


def expand(grid: dict[str, Any] | list[dict[str, Any]]) -> list[Point]:
    """The points of ``grid`` (a table or a list of tables, joined), first occurrence
    kept when two coincide. ValueError on an unknown key, an empty axis or grid, or an
    invalid configuration (the message names the point)."""
    grids = grid if isinstance(grid, list) else [grid]
    if not grids:
        raise ValueError("empty grid: give at least one grid table")
    tables = []
    for sub in grids:
        if not isinstance(sub, dict) or not sub:
            raise ValueError("empty grid: give preset, config, or n, h, dk and do")
        _check_keys(sub)
        axes = {k: _values(k, sub[k]) for k in GRID_KEYS if k in sub}
        tables.append((axes, _bases(axes)))
    size = sum(len(bases) * math.prod(len(v) for k, v in axes.items()
                                      if k not in ("preset", "config"))
               for axes, bases in tables)
    if size > MAX_POINTS:
        raise ValueError(f"the grid has {size} points (at most {MAX_POINTS}); split the "
                         "sweep into several stores")
    points: dict[str, Point] = {}
    for axes, bases in tables:
        dim_keys = [k for k in axes if k in _DIMS_FIELD]
        for (model, base), combo, case in itertools.product(
                bases, itertools.product(*(axes[k] for k in dim_keys)),
                axes.get("case", [None])):
            values = dict(zip(dim_keys, combo, strict=True))
            try:
                p = _point(base, model, values, case)
            except ValueError as exc:
                where = ", ".join(f"{k}={v}" for k, v in values.items())
                raise ValueError(f"grid point {model or ''} {where}: {exc}") from None
            points.setdefault(p.key, p)
    return list(points.values())


@dataclass(frozen=True)
class Campaign:
    """A grid with optional defaults for draws and seed."""

    grid: dict[str, Any] | list[dict[str, Any]]
    draws: int | None = None
    seed: int | None = None
    description: str = ""


def shipped_campaigns() -> list[str]:
    """Names of the campaigns shipped in ``validation/sweep/campaigns``."""
    folder = resources.files("freege.validation.sweep") / "campaigns"
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


def load_campaign(name_or_path: str) -> Campaign:
    """A shipped campaign by name, or a TOML file; config paths in it are relative to
    the file. ValueError on malformed TOML or unknown keys."""
    path = Path(name_or_path)
    if name_or_path in shipped_campaigns():
        text = (resources.files("freege.validation.sweep") / "campaigns" /
                f"{name_or_path}.toml").read_text(encoding="utf-8")
        folder = None
    else:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise ValueError(f"campaign {name_or_path!r} is neither a shipped campaign "
                             f"({', '.join(shipped_campaigns())}) nor a readable TOML file "
                             f"({exc.strerror or exc})") from None
        folder = path.parent
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"campaign {name_or_path!r} is not valid TOML: {exc}") from None
    except RecursionError:
        raise ValueError(f"campaign {name_or_path!r} is nested too deeply") from None
    unknown = sorted(set(data) - set(_CAMPAIGN_KEYS))
    if unknown:
        raise ValueError(f"campaign {name_or_path!r}: unknown key(s) {', '.join(unknown)}; "
                         f"valid keys: {', '.join(_CAMPAIGN_KEYS)}")
    if "grid" not in data:
        raise ValueError(f"campaign {name_or_path!r}: empty grid (no [grid] table)")
    grid = data["grid"]
    tables = grid if isinstance(grid, list) else [grid]
    if not all(isinstance(sub, dict) for sub in tables):
        raise ValueError(f"campaign {name_or_path!r}: grid must be a table [grid] or an "
                         f"array of tables [[grid]] (got {type(grid).__name__} {grid!r:.40})")
    if folder is not None:
        for sub in grid if isinstance(grid, list) else [grid]:
            if isinstance(sub, dict) and "config" in sub:
                cfgs = sub["config"] if isinstance(sub["config"], list) else [sub["config"]]
                sub["config"] = [str(folder / c) if isinstance(c, str) else c for c in cfgs]
    for key in ("draws", "seed"):
        value = data.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise ValueError(f"campaign {name_or_path!r}: {key} must be an integer "
                             f"(got {value!r})")
    return Campaign(grid, data.get("draws"), data.get("seed"), str(data.get("description", "")))


def with_axes(grid: dict[str, Any] | list[dict[str, Any]],
              axes: dict[str, list[Any]]) -> dict[str, Any] | list[dict[str, Any]]:
    """``grid`` with the axes of ``axes`` set in every table (options override a
    campaign's values); a model axis (``preset``/``config``) replaces the other."""
    def merged(sub: dict[str, Any]) -> dict[str, Any]:
        out = dict(sub)
        if "preset" in axes or "config" in axes:
            out.pop("preset", None)
            out.pop("config", None)
        out.update(axes)
        return out

    if isinstance(grid, list):
        return [merged(sub) if isinstance(sub, dict) else sub for sub in grid]
    return merged(grid)

