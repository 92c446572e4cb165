"""Theano's ``theano.gof.fg``: :class:`FunctionGraph` and its errors.

>>> import theon.tensor as T
>>> from theon.gof.fg import FunctionGraph
>>> x = T.dvector("x")
>>> fg = FunctionGraph([x], [T.exp(x)])
>>> len(fg.apply_nodes)
1
"""

from theon.graph.features import InconsistencyError
from theon.graph.fg import FunctionGraph, MissingInputError

__all__ = ["FunctionGraph", "InconsistencyError", "MissingInputError"]
