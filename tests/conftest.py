"""Test configuration: hypothesis runs derandomized (seeded) everywhere, so the suite
is reproducible; ``HYPOTHESIS_PROFILE=dev`` gives more, randomized examples locally."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    max_examples=25,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=100)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
