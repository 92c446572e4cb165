"""Batching a graph along a new leading axis: the gradient layer's view of
:mod:`theon.graph.vectorize` (where the rule registry and the graph walk live).

``vectorize_graph(outputs, {v: V})`` here takes replacements with *one* leading
batch axis and returns ``(new_outputs, batched_flags)``, as the jacobian uses it;
:func:`theon.graph.replace.vectorize_graph` is the general form (any number of
batch axes, returns the outputs).  A node without a batching rule becomes a
:class:`~theon.tensor.blockwise.Blockwise` (``LoopedApply`` is its old name).

>>> import numpy as np, theon.tensor as tt
>>> v, V = tt.dvector("v"), tt.dmatrix("V")
>>> [total], [batched] = vectorize_graph([tt.exp(v).sum()], {v: V})
>>> total.eval({V: np.zeros((2, 3))})
array([3., 3.])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from theon.graph.basic import Variable
from theon.graph.vectorize import (
    CannotVectorizeError,
    VectorizeFallbackWarning,
    register_vectorize,
    vectorize_graph_1,
    vectorize_node,
)
from theon.tensor.blockwise import Blockwise

__all__ = [
    "CannotVectorizeError",
    "LoopedApply",
    "VectorizeFallbackWarning",
    "register_vectorize",
    "vectorize_graph",
    "vectorize_node",
]

#: the looped fallback of a node without a batching rule (its old name)
LoopedApply = Blockwise


def vectorize_graph(
    outputs: Sequence[Variable], replace: Mapping[Variable, Variable]
) -> tuple[list[Variable], list[bool]]:
    """Rebuild ``outputs`` with each key of ``replace`` swapped for its batched value.

    Each value has one leading batch axis more than its key.  Returns the new
    outputs and, for each, whether it has the batch axis (an output that does not
    depend on any replaced variable is returned unchanged).

    Examples
    --------
    >>> import numpy as np, theon.tensor as tt
    >>> v = tt.dvector("v"); V = tt.dmatrix("V")
    >>> [out], [batched] = vectorize_graph([tt.exp(v) * 2], {v: V})
    >>> batched, out.ndim
    (True, 2)
    """
    return vectorize_graph_1(outputs, replace)
