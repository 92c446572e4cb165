"""PyMC runs on theon through the alias: installed before anything imports PyMC.

Without PyMC installed, every test here skips (``pytest.importorskip``); ``.ci/run``
installs it (``pip install --no-deps pymc==5.28.5`` and its other dependencies).
"""

import importlib.util

import numpy as np
import pytest

import theon.compat

if importlib.util.find_spec("pymc") is not None:
    theon.compat.alias("pytensor")


@pytest.fixture(autouse=True)
def _fixed_numpy_seed() -> None:
    """``pymc.testing`` samples its grid points with NumPy's global generator (and the
    random testers draw with it): a fixed seed per test makes each run the same."""
    np.random.seed(20261129)
