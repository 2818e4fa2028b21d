"""The theory §6.1 presets (:mod:`freege.validation.models.presets`)."""

import pytest

from freege.params import Dims
from freege.validation.models.presets import PRESETS, get_preset


def test_presets_are_valid_configs_with_the_spec_sharing():
    assert set(PRESETS) == {"bert-base", "modernbert-large", "dinov3-l16", "llada-8b",
                            "gpt3-175b", "falcon-7b", "kayyam-1.2b"}
    for name, dims in PRESETS.items():
        assert isinstance(dims, Dims) and dims.n <= dims.d and dims.beta == 1
        assert get_preset(name) is dims
    assert PRESETS["falcon-7b"].sharing == "mqa" and PRESETS["falcon-7b"].h_kv == 1
    assert PRESETS["kayyam-1.2b"].sharing == "tied"


def test_unknown_preset_lists_valid_names():
    with pytest.raises(ValueError, match="bert-base.*gpt3-175b"):
        get_preset("gpt5")
