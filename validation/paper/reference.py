"""The paper's published figures for its experimental section (theory §6.4), printed in
the report beside freege's own. Only the values the paper states are listed; every other
cell of the report's "paper" column stays blank."""

from __future__ import annotations

#: panel -> statistic -> the paper's value
PAPER: dict[str, dict[str, float]] = {
    "2a": {"max_abs_difference_bound": 0.003, "h128_t100_mean": 7.39e-5,
           "h128_t100_half_width": 9.84e-6, "max_bar_absolute": 0.00513,
           "max_bar_relative_percent": 13.314},
    "2c": {"max_relative_difference_percent": 1.72, "max_bar_absolute": 0.02381,
           "max_bar_relative_percent": 0.562},
    "2d": {"max_relative_difference_percent": 1.52, "crossover_beta": 0.559,
           "max_bar_absolute": 0.00168, "max_bar_relative_percent": 0.108},
    "3a": {"predicted_fixed_widths_full_sharing": 41.22,
           "measured_fixed_widths_full_sharing": 39.11,
           "predicted_fixed_npar_full_sharing": 7.80,
           "predicted_fixed_npar_full_sharing_rounded": 7.76,
           "measured_fixed_npar_full_sharing": 7.57, "max_gap_percent": 5.14,
           "max_bar_absolute_fixed_widths": 4.43476,
           "max_bar_relative_percent_fixed_widths": 10.425,
           "max_bar_absolute_fixed_npar": 2.75124,
           "max_bar_relative_percent_fixed_npar": 6.486,
           "max_bar_absolute_fixed_npar_shared": 0.40314,
           "max_bar_relative_percent_fixed_npar_shared": 3.365},
    "3b": {"max_relative_difference_percent": 0.75, "max_bar_absolute": 0.03015,
           "max_bar_relative_percent": 1.182},
}

#: table 2: preset -> (rel W1 %, its half-width, KS, its half-width)
TABLE2: dict[str, tuple[float, float, float, float]] = {
    "bert-base": (1.66, 0.23, 0.0109, 0.0010),
    "modernbert-large": (1.37, 0.21, 0.0052, 0.0005),
    "dinov3-l16": (2.82, 0.40, 0.0280, 0.0018),
    "llada-8b": (0.92, 0.06, 0.0022, 0.0001),
    "gpt3-175b": (0.62, 0.07, 0.0040, 0.0004),
    "kayyam-1.2b": (0.24, 0.01, 0.0020, 0.0001),
}
#: 3(b): "difference intervals exclude zero at all five h"
SHARING_DIFFERENCES_EXCLUDE_ZERO = True
