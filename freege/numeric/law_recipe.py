"""How a law travels: a plain *recipe* it is rebuilt from (pickle, process pools, Dask).

A law is a pure function of its parameters, precision and options (theory §7): nothing it
keeps while it works (support edges, anchors, memos) changes an answer. So a law is sent
as the recipe it was built from, ``(constructor name, plain arguments)``, and rebuilt on
arrival by :func:`rebuild`; its memos are recomputed there, to the same bits.

A recipe holds only plain values (str, bool, int, None, ``fractions.Fraction`` and tuples
of them), so it pickles anywhere and hashes; two laws built from equal recipes give the
same answers. :data:`CONSTRUCTORS` names the function each constructor name rebuilds
through, as ``"module:function"``: a new kind of law (for example one built from an
expression of the law algebra, theory §3) adds its name here and returns its recipe from
``__reduce__`` through :func:`reduce`.
"""

from __future__ import annotations

import importlib
from fractions import Fraction
from typing import Any

#: constructor name -> ``"module:function"`` called with the recipe's arguments
CONSTRUCTORS: dict[str, str] = {"law": "freege.numeric.case_law:from_recipe",
                                "expression": "freege.algebra.grammar:law_of"}

Recipe = tuple[str, tuple[Any, ...]]

_PLAIN = (str, bool, int, Fraction, type(None))


def check_plain(value: Any) -> Any:
    """``value`` when it is plain (see the module docstring), else a ValueError."""
    if isinstance(value, tuple):
        for item in value:
            check_plain(item)
        return value
    if not isinstance(value, _PLAIN):
        raise ValueError(f"recipe arguments must be plain values (got {type(value).__name__})")
    return value


def recipe(name: str, *arguments: Any) -> Recipe:
    """The recipe of a law built by constructor ``name`` from ``arguments``."""
    if name not in CONSTRUCTORS:
        raise ValueError(f"name must be one of {sorted(CONSTRUCTORS)} (got {name!r})")
    return name, check_plain(tuple(arguments))


def rebuild(made_from: Recipe) -> Any:
    """The law a recipe describes, built afresh (the target of :func:`reduce`)."""
    name, arguments = made_from
    if name not in CONSTRUCTORS:
        raise ValueError(f"name must be one of {sorted(CONSTRUCTORS)} (got {name!r})")
    module, function = CONSTRUCTORS[name].split(":")
    return getattr(importlib.import_module(module), function)(*check_plain(arguments))


def reduce(made_from: Recipe) -> tuple[Any, tuple[Recipe]]:
    """``__reduce__``'s value for a law with this recipe: pickle stores the recipe only."""
    return rebuild, (made_from,)
