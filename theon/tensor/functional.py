"""PyTensor's ``pytensor.tensor.functional``: :func:`vectorize` (a function of core
arrays applied over leading batch axes) and :func:`vectorize_graph`.

>>> import theon.tensor as tt
>>> from theon.tensor.functional import vectorize
>>> inner = vectorize(lambda v: v.sum(), signature="(n)->()")
>>> inner(tt.dmatrix("m")).type.ndim
1
"""

from __future__ import annotations

from theon.graph.replace import vectorize_graph
from theon.tensor.blockwise import vectorize

__all__ = ["vectorize", "vectorize_graph"]
