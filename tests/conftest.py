"""Test-suite settings: hypothesis runs the same examples in every process.

The default profile ``deterministic`` derandomizes hypothesis (its examples are
derived from each test's source, not from a random seed) and keeps no example
database, so a run never depends on an earlier one.  ``HYPOTHESIS_PROFILE=explore``
draws fresh random examples instead, to hunt for new failures.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("deterministic", derandomize=True, database=None)
settings.register_profile("explore", derandomize=False, database=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))
