"""Neural-network Ops, as in Theano's ``theano.tensor.nnet``.

The convolution functions load on first use:

>>> import theon.tensor as tt
>>> from theon.tensor.nnet import conv2d
>>> conv2d(tt.dtensor4("x"), tt.dtensor4("w")).type.ndim
4
"""

import importlib as _importlib
from typing import Any as _Any

#: name -> the module that defines it (loaded on first use)
_LAZY = {
    "conv2d": "theon.tensor.nnet.abstract_conv",
    "conv3d": "theon.tensor.nnet.abstract_conv",
    "abstract_conv": "theon.tensor.nnet.abstract_conv",
    "conv": "theon.tensor.nnet.conv",
}


def __getattr__(name: str) -> _Any:
    """The convolution names and modules, imported on first use."""
    where = _LAZY.get(name)
    if where is None:
        raise AttributeError(f"module 'theon.tensor.nnet' has no attribute {name!r}")
    module = _importlib.import_module(where)
    return module if where.endswith("." + name) else getattr(module, name)
