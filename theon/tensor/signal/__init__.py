"""Signal processing, as in Theano's ``theano.tensor.signal``: pooling (``pool``).

>>> from theon.tensor.signal import pool
>>> pool.pool_2d.__name__
'pool_2d'
"""

import importlib as _importlib
from typing import Any as _Any

_SUBMODULES = ("pool",)


def __getattr__(name: str) -> _Any:
    """``theon.tensor.signal.pool`` is imported on first use."""
    if name in _SUBMODULES:
        return _importlib.import_module(f"theon.tensor.signal.{name}")
    raise AttributeError(f"module 'theon.tensor.signal' has no attribute {name!r}")
