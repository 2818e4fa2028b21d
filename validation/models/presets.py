"""Published model dimensions of theory §6.1, by name (beta = 1), kept as Hugging
Face-style ``config.json`` data (:mod:`freege.validation.models.hf_config`): a user's own
``config.json`` is read the same way (``freege validate --config``)."""

from __future__ import annotations

from typing import Any

from freege.params import Dims
from freege.validation.models.hf_config import dims_from_hf_config


def _cfg(heads: int, hidden: int, context: int, kv_heads: int | None = None,
         **extra: Any) -> dict[str, Any]:
    return {"num_attention_heads": heads, "num_key_value_heads": kv_heads or heads,
            "hidden_size": hidden, "max_position_embeddings": context, **extra}


#: theory §6.1 table as config.json data: name -> config (dK = dV = hidden_size / heads)
PRESET_CONFIGS: dict[str, dict[str, Any]] = {
    "bert-base": _cfg(12, 768, 512),
    "modernbert-large": _cfg(16, 1024, 1024),
    "dinov3-l16": _cfg(16, 1024, 261),
    "llada-8b": _cfg(32, 4096, 4096),
    "gpt3-175b": _cfg(96, 12288, 2048),
    "falcon-7b": _cfg(71, 4544, 2048, kv_heads=1),
    "kayyam-1.2b": _cfg(32, 2048, 2048, freege_sharing="tied"),
}

#: theory §6.1 table: name -> finite configuration (dK = dV, beta = 1)
PRESETS: dict[str, Dims] = {
    name: dims_from_hf_config(cfg, source=f"preset {name}")
    for name, cfg in PRESET_CONFIGS.items()
}


def get_preset(name: str) -> Dims:
    """The theory §6.1 configuration called ``name``; ValueError listing the valid names."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(
            f"unknown preset {name!r}; valid presets: {', '.join(PRESETS)}"
        ) from None
