"""Loops: Theano's ``scan`` and the carry-style ``loop``, on one :class:`Scan` Op.

``theon.scan`` is this package, and calling it calls :func:`scan`
(``theon.scan(fn, ...)``, as in Theano), while ``theon.scan.utils`` and the
other modules stay importable.

The same loop written both ways, a running sum with a decay ``a``:

>>> import numpy as np, theon, theon.tensor as tt
>>> xs, a = tt.dvector("xs"), tt.dscalar("a")

With :func:`scan`, the step receives the sequence value, then the previous
output, then the non-sequences:

>>> hs, _ = theon.scan(lambda x, h, a: a * h + x, sequences=xs,
...                    outputs_info=tt.constant(0.0), non_sequences=a)

With :func:`loop`, the step maps ``(carry, x)`` to ``(carry, y)``:

>>> last, ys = theon.loop(lambda h, x: (a * h + x, a * h + x), tt.constant(0.0), xs)
>>> f = theon.function([xs, a], [hs, last, ys])
>>> [v.tolist() for v in f(np.array([1.0, 2.0, 3.0]), 0.5)]
[[1.0, 2.5, 4.25], 4.25, [1.0, 2.5, 4.25]]

Both are one ``Scan`` node: gradients (backpropagation through time), ``R_op``
and the scan rewrites serve both.
"""

import sys as _sys
import types as _types
from typing import Any as _Any

from theon.link.registry import register_linker_backend as _register_linker_backend
from theon.rewriting.db import register_rewrite_module as _register_rewrite_module
from theon.scan.basic import scan
from theon.scan.loop import loop
from theon.scan.op import Scan, ScanInfo
from theon.scan.utils import ScanUpdates, until
from theon.scan.views import filter, foldl, foldr, map, reduce

__all__ = ["Scan", "ScanInfo", "ScanUpdates", "filter", "foldl", "foldr", "loop", "map",
           "reduce", "scan", "until"]


class _CallableModule(_types.ModuleType):
    """The ``theon.scan`` module, callable as :func:`scan` (Theano's ``theano.scan``)."""

    def __call__(self, *args: _Any, **kwargs: _Any) -> _Any:
        return scan(*args, **kwargs)


_sys.modules[__name__].__class__ = _CallableModule
# the scan rewrites, imported by the first query of the rewrite database
_register_rewrite_module("theon.scan.rewriting")


# the JAX rules of these Ops (mode="JAX"), imported by the JAX linker before its first link
_register_linker_backend("jax", "theon.backends.jax.control")
_register_linker_backend("numba", "theon.backends.numba.scan")  # (the whole-graph tier)
