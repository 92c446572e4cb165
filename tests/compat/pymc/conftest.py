"""PyMC runs on theon through the alias: installed before anything imports PyMC.

Without PyMC installed, every test here skips (``pytest.importorskip``); ``.ci/run``
installs it (``pip install --no-deps pymc==5.28.5`` and its other dependencies).
"""

import importlib.util

import theon.compat

if importlib.util.find_spec("pymc") is not None:
    theon.compat.alias("pytensor")
