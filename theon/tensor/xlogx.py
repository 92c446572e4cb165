"""Theano's and PyTensor's module ``tensor.xlogx``: ``xlogx(x) = x log x`` and
``xlogy0(x, y) = x log y``, both 0 where ``x`` is 0, with their gradients.

They are the rows ``xlogx`` and ``xlogy0`` of the scalar table (``theon.scalar``);
this module gives them their old home.  ``theon.tensor.xlogx`` is this module (as in
Theano and PyTensor: ``T.xlogx.xlogx(x)``), and calling it applies :data:`xlogx`
(``T.xlogx(x)``, theon's earlier spelling); its other attributes are the function's.

>>> import theon.tensor as T
>>> x = T.dvector("x")
>>> T.xlogx.xlogx(x).eval({x: [0.0, 1.0, 2.0]}).round(6).tolist()
[0.0, 0.0, 1.386294]
>>> T.xlogx(x).eval({x: [0.0]}).tolist()
[0.0]
"""

from __future__ import annotations

import sys
import types
from typing import Any

from theon.scalar import XlogX, XlogY0
from theon.scalar import xlogx as scalar_xlogx
from theon.scalar import xlogy0 as scalar_xlogy0
from theon.tensor.elemwise import Elemwise
from theon.tensor.math import xlogx, xlogy0

__all__ = ["Elemwise", "XlogX", "XlogY0", "scalar_xlogx", "scalar_xlogy0", "xlogx", "xlogy0"]


class _CallableModule(types.ModuleType):
    """This module, callable as :data:`xlogx`."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return xlogx(*args, **kwargs)


def __getattr__(name: str) -> Any:
    """The elementwise function's attributes (``T.xlogx.scalar_op``), as before this
    module existed."""
    return getattr(xlogx, name)


sys.modules[__name__].__class__ = _CallableModule
