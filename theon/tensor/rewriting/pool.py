"""Rewrites of pooling with symbolic parameters (:mod:`theon.tensor.signal.pool_params`).

Registered by ``theon.tensor.signal.pool_params`` (through ``register_rewrite_module``)
when it is imported.

>>> import numpy as np, theon, theon.tensor as tt
>>> from theon.tensor.signal.pool import pool_2d
>>> x = tt.tensor("float64", shape=(4, 6), name="x")
>>> k = x.shape[0] // 2
>>> f = theon.function([x], pool_2d(x, ws=(k, k), ignore_border=True))
>>> [type(n.op).__name__ for n in f.maker.fgraph.toposort()]
['Pool']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from theon.graph.basic import Apply, Constant
from theon.rewriting import node_rewriter, register_canonicalize
from theon.tensor.signal.pool_params import PoolParams

if TYPE_CHECKING:
    from theon.graph.fg import FunctionGraph

__all__ = ["local_pool_params_constant"]


@register_canonicalize
@node_rewriter([PoolParams])
def local_pool_params_constant(fgraph: FunctionGraph, node: Apply) -> Any:
    """``PoolParams{base}(tensors..., ws, stride, pad) -> base{ws, stride, pad}(tensors...)``
    when the three parameter vectors are constants (the same Op, its parameters known)."""
    op = node.op
    assert isinstance(op, PoolParams)
    params = node.inputs[op.n_tensors:]
    if not all(isinstance(p, Constant) for p in params):
        return None
    try:
        const = op.constant_op(*(p.data for p in params))  # type: ignore[attr-defined]
    except (ValueError, NotImplementedError):
        return None  # bad parameters: left to raise when the function runs
    return [const(*node.inputs[: op.n_tensors])]
