"""Theano's ``theano.tensor.nnet``: activations, softmax, cross-entropies, convolution.

Reached as ``theon.tensor.nnet`` (``import theon.tensor as T; T.nnet.sigmoid(x)``)
or imported from (``from theon.tensor.nnet import softmax``).  The functions of
:mod:`.basic` load with the package; the convolutions (``conv2d``, ``conv3d``,
the :mod:`.abstract_conv` module) load on first use.

>>> import theon.tensor as T
>>> x = T.dvector("x")
>>> T.nnet.sigmoid(x).eval({x: [-1000.0, 0.0, 1000.0]}).tolist()
[0.0, 0.5, 1.0]
"""

from __future__ import annotations

import importlib
from typing import Any

from theon.tensor.nnet import basic
from theon.tensor.nnet.basic import *  # noqa: F403

__all__ = list(basic.__all__)

#: Submodules imported on first access (they need more than building a graph does).
_LAZY_MODULES = ("abstract_conv", "bn", "conv", "neighbours", "nnet", "sigm")
#: Functions of :mod:`.abstract_conv`, imported with it on first access.
_LAZY_CONV = ("conv2d", "conv3d", "conv2d_transpose", "conv2d_grad_wrt_inputs",
              "conv2d_grad_wrt_weights", "conv3d_grad_wrt_inputs", "conv3d_grad_wrt_weights")
#: Names Theano 1.0's ``nnet`` held from its submodules, imported with them on first access.
_LAZY_NAMES = {"batch_normalization": "bn", "images2neibs": "neighbours",
               "neibs2images": "neighbours", "Images2Neibs": "neighbours"}


def __getattr__(name: str) -> Any:
    """``conv2d``, ``conv3d``, the convolution, ``bn`` and ``neighbours`` modules are
    imported on first use."""
    if name in _LAZY_MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _LAZY_CONV:
        module = importlib.import_module(f"{__name__}.abstract_conv")
        return getattr(module, name)
    if name in _LAZY_NAMES:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY_NAMES[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
