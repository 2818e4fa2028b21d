"""Published model dimensions of SPEC §6.1, by name (beta = 1)."""

from __future__ import annotations

from freege.params import Dims

#: SPEC §6.1 table: name -> finite configuration (dK = dV, beta = 1)
PRESETS: dict[str, Dims] = {
    "bert-base": Dims(n=512, d=768, h=12, h_kv=12, dK=64, dV=64, dO=768),
    "modernbert-large": Dims(n=1024, d=1024, h=16, h_kv=16, dK=64, dV=64, dO=1024),
    "dinov3-l16": Dims(n=261, d=1024, h=16, h_kv=16, dK=64, dV=64, dO=1024),
    "llada-8b": Dims(n=4096, d=4096, h=32, h_kv=32, dK=128, dV=128, dO=4096),
    "gpt3-175b": Dims(n=2048, d=12288, h=96, h_kv=96, dK=128, dV=128, dO=12288),
    "falcon-7b": Dims(n=2048, d=4544, h=71, h_kv=1, dK=64, dV=64, dO=4544, sharing="mqa"),
    "kayyam-1.2b": Dims(n=2048, d=2048, h=32, h_kv=32, dK=64, dV=64, dO=2048, sharing="tied"),
}


def get_preset(name: str) -> Dims:
    """The SPEC §6.1 configuration called ``name``; ValueError listing the valid names."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ValueError(
            f"unknown preset {name!r}; valid presets: {', '.join(PRESETS)}"
        ) from None
