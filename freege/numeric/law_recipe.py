"""How a law travels: a plain *recipe* it is rebuilt from (pickle, process pools, Dask).

A law is a pure function of its parameters, precision and options (theory §7): nothing it
keeps while it works (support edges, anchors, memos) changes an answer. So a law is sent
as the recipe it was built from, ``(constructor name, plain arguments)``, and rebuilt on
arrival by :func:`rebuild`; its memos are recomputed there, to the same bits.

A recipe holds only plain values (str, bool, int, None, bytes, ``fractions.Fraction`` and
tuples of them), so it pickles anywhere and hashes; two laws built from equal recipes give the
same answers. :data:`CONSTRUCTORS` names the function each constructor name rebuilds
through, as ``"module:function"``: a new kind of law (for example one built from an
expression of the law algebra, theory §3) adds its name here and returns its recipe from
``__reduce__`` through :func:`reduce`, and range-checks its arguments before building.

**Load only pickles you trust.** Unpickling runs code: Python's :mod:`pickle` can run any
code when it loads a pickle made by someone else, whatever freege does. freege's own
recipes rebuild only through the whitelisted constructors of :data:`CONSTRUCTORS`, and
every parameter is range-checked before anything is built (a recipe's ``dps`` in the
command line's range, ``15 .. MAX_DPS``, by :func:`check_dps`; ratios by
:class:`freege.params.Ratios`; ``normalized`` a bool; an expression's text through the
grammar), so a bad recipe is a ValueError on load instead of a law that hangs on first
use. That limits what a *freege* pickle can ask for; it does not make ``pickle.load`` of
untrusted data safe. The numeric API itself (``law(..., dps=...)``) accepts precisions
above ``MAX_DPS`` on purpose (its reference routes go beyond them); such a law does not
travel as a recipe.
"""

from __future__ import annotations

import importlib
import inspect
from fractions import Fraction
from typing import Any

from freege import params

#: constructor name -> ``"module:function"`` called with the recipe's arguments
CONSTRUCTORS: dict[str, str] = {"law": "freege.numeric.case_law:from_recipe",
                                "expression": "freege.algebra.grammar:law_of",
                                "data": "freege.numeric.data_law:law_of_spec",
                                "finite-width": "freege.numeric.finite_width_law:from_recipe"}

Recipe = tuple[str, tuple[Any, ...]]

_PLAIN = (str, bool, int, Fraction, bytes, type(None))


def check_plain(value: Any) -> Any:
    """``value`` when it is plain (see the module docstring), else a ValueError."""
    if isinstance(value, tuple):
        for item in value:
            check_plain(item)
        return value
    if not isinstance(value, _PLAIN):
        raise ValueError(f"recipe arguments must be plain values (got {type(value).__name__})")
    return value


def check_dps(value: Any) -> int | None:
    """A recipe's precision: None (float64) or an integer in the command line's range
    ``15 .. MAX_DPS`` (:func:`freege.params.check_dps`), else a ValueError naming it."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"recipe dps must be None or an integer in [15, {params.MAX_DPS}] "
                         f"(got {value!r})")
    return params.check_dps(value)


def check_flag(name: str, value: Any) -> bool:
    """A recipe's boolean option ``name``: True or False, else a ValueError naming it."""
    if not isinstance(value, bool):
        raise ValueError(f"recipe {name} must be True or False (got {value!r})")
    return value


def recipe(name: str, *arguments: Any) -> Recipe:
    """The recipe of a law built by constructor ``name`` from ``arguments``."""
    if name not in CONSTRUCTORS:
        raise ValueError(f"name must be one of {sorted(CONSTRUCTORS)} (got {name!r})")
    return name, check_plain(tuple(arguments))


def rebuild(made_from: Recipe) -> Any:
    """The law a recipe describes, built afresh (the target of :func:`reduce`). Only the
    constructors of :data:`CONSTRUCTORS` are called, with plain arguments that each
    constructor range-checks before building (a ValueError names the bad one)."""
    if not (isinstance(made_from, tuple) and len(made_from) == 2
            and isinstance(made_from[1], tuple)):
        raise ValueError("a recipe is (constructor name, tuple of arguments)")
    name, arguments = made_from
    if not isinstance(name, str) or name not in CONSTRUCTORS:
        raise ValueError(f"name must be one of {sorted(CONSTRUCTORS)} (got {name!r})")
    module, function = CONSTRUCTORS[name].split(":")
    build = getattr(importlib.import_module(module), function)
    check_plain(arguments)
    try:
        inspect.signature(build).bind(*arguments)
    except TypeError as exc:
        raise ValueError(f"recipe {name!r}: {exc}") from None
    return build(*arguments)


def reduce(made_from: Recipe) -> tuple[Any, tuple[Recipe]]:
    """``__reduce__``'s value for a law with this recipe: pickle stores the recipe only."""
    return rebuild, (made_from,)
