"""A model's attention dimensions from a Hugging Face-style ``config.json`` (theory §1, §1.1).

Read keys (the names ``transformers`` configs use):

=============================  ===============================================================
key                            meaning
=============================  ===============================================================
``num_attention_heads``        query heads ``h`` (required)
``hidden_size``                model width ``d`` and output width ``dO`` (required)
``num_key_value_heads``        K/V groups ``h_kv`` (default ``h``), a divisor of ``h`` (groups
                               of equal size, as ``transformers`` shares them): ``h`` ->
                               sharing ``none``, ``1`` -> ``mqa``, otherwise ``gqa`` (§1.1)
``head_dim``                   ``dK = dV`` (default ``hidden_size / num_attention_heads``,
                               which must then be an integer)
``max_position_embeddings``    tokens ``n`` unless ``n`` is given (one of the two is required)
``freege_sharing``             optional, ``"tied"`` for V_r = K_r (no transformers name)
=============================  ===============================================================

``d`` only enters parameter counts (theory §1) and must be ``>= n``; when the context
``n`` exceeds ``hidden_size``, ``d`` is raised to ``n`` (the sampled laws do not depend
on it). :func:`hf_config` writes the same keys back, so presets are such data
(:mod:`freege.validation.models.presets`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from freege.params import DIM, Dims, parse_number

_REQUIRED = ("num_attention_heads", "hidden_size")


def _int_key(cfg: dict[str, Any], key: str, source: str) -> int:
    value = cfg[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{source}: {key} must be an integer (got {value!r:.60})")
    try:
        return int(parse_number(key, value, DIM))
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None


def dims_from_hf_config(cfg: object, *, n: int | None = None, beta: object = 1,
                        source: str = "config.json") -> Dims:
    """The :class:`Dims` of a Hugging Face-style config (module table); ``n`` overrides
    ``max_position_embeddings``. ValueError naming ``source`` and the key on bad input."""
    if not isinstance(cfg, dict):
        raise ValueError(f"{source}: a config must be a JSON object (got {type(cfg).__name__})")
    missing = [k for k in _REQUIRED if k not in cfg]
    if missing:
        raise ValueError(f"{source}: missing key(s) {', '.join(missing)}")
    h = _int_key(cfg, "num_attention_heads", source)
    hidden = _int_key(cfg, "hidden_size", source)
    h_kv = _int_key(cfg, "num_key_value_heads", source) if "num_key_value_heads" in cfg else h
    if "head_dim" in cfg and cfg["head_dim"] is not None:
        dk = _int_key(cfg, "head_dim", source)
    elif hidden % h:
        raise ValueError(f"{source}: hidden_size {hidden} is not a multiple of "
                         f"num_attention_heads {h}; give head_dim")
    else:
        dk = hidden // h
    if n is None:
        if "max_position_embeddings" not in cfg:
            raise ValueError(f"{source}: no max_position_embeddings; give n (--n)")
        n = _int_key(cfg, "max_position_embeddings", source)
    n = int(parse_number("n", n, DIM))
    tied = cfg.get("freege_sharing", "none")
    if tied not in ("none", "tied"):
        raise ValueError(f"{source}: freege_sharing must be 'none' or 'tied' (got {tied!r})")
    if h_kv > h:
        raise ValueError(f"{source}: num_key_value_heads must be in [1, {h}] (got {h_kv})")
    if h % h_kv:
        divisors = ", ".join(str(k) for k in range(1, h + 1) if h % k == 0)
        raise ValueError(f"{source}: num_key_value_heads must divide num_attention_heads "
                         f"{h} (K/V groups of equal size: one of {divisors}; got {h_kv})")
    if tied == "tied":
        sharing = "tied"
    else:
        sharing = "none" if h_kv == h else "mqa" if h_kv == 1 else "gqa"
    try:
        return Dims(n=n, d=max(hidden, n), h=h, h_kv=h_kv, dK=dk, dV=dk, dO=hidden,
                    beta=beta, sharing=sharing)
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None


def load_hf_config(path: str | Path, *, n: int | None = None, beta: object = 1) -> Dims:
    """:func:`dims_from_hf_config` of the JSON file at ``path`` (unreadable or malformed
    JSON is a one-line ValueError)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot read config {str(path)!r}: {exc.strerror or exc}") from None
    try:
        cfg = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"config {str(path)!r} is not valid JSON: {exc}") from None
    except RecursionError:
        raise ValueError(f"config {str(path)!r} is nested too deeply") from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits
        raise ValueError(f"config {str(path)!r} is not usable JSON: {exc}") from None
    return dims_from_hf_config(cfg, n=n, beta=beta, source=f"config {str(path)!r}")


def hf_config(dims: Dims) -> dict[str, Any]:
    """The Hugging Face-style config of ``dims`` (needs ``dK == dV`` and ``dO == d``:
    the shapes that format describes); inverse of :func:`dims_from_hf_config` when
    ``d >= n``."""
    if dims.dK != dims.dV or dims.dO != dims.d:
        raise ValueError(f"a config.json describes dK == dV and dO == d (got dK={dims.dK}, "
                         f"dV={dims.dV}, dO={dims.dO}, d={dims.d})")
    cfg: dict[str, Any] = {
        "num_attention_heads": dims.h, "num_key_value_heads": dims.h_kv,
        "hidden_size": dims.d, "head_dim": dims.dK, "max_position_embeddings": dims.n,
    }
    if dims.sharing == "tied":
        cfg["freege_sharing"] = "tied"
    return cfg
