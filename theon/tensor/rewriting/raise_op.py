"""Rewrites of checks (:mod:`theon.tensor.raise_op`): a condition known true is dropped.

Registered by ``theon.tensor.raise_op`` (through ``register_rewrite_module``) when it is
imported.  A check whose conditions cannot be told true at compile time stays, so it
raises when the function runs.

``local_remove_all_assert`` drops every ``Assert`` (not other checks): it runs only
when a mode includes the ``"unsafe"`` tag, as in PyTensor.

>>> import numpy as np, theon, theon.tensor as tt
>>> from theon.tensor.raise_op import Assert
>>> x = tt.tensor("float64", shape=(3,), name="x")
>>> y = Assert("three entries")(x, tt.eq(x.shape[0], 3))
>>> f = theon.function([x], y)
>>> [type(n.op).__name__ for n in f.maker.fgraph.apply_nodes]  # the check is gone
['DeepCopyOp']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from theon.graph.basic import Apply, Variable
from theon.rewriting import node_rewriter, register_useless
from theon.rewriting.db import rewrite_db
from theon.tensor.basic import get_underlying_scalar_constant_value
from theon.tensor.exceptions import NotScalarConstantError
from theon.tensor.raise_op import Assert, CheckAndRaise

if TYPE_CHECKING:
    from theon.graph.fg import FunctionGraph

__all__ = ["local_remove_all_assert", "local_remove_useless_assert"]


def _known_true(c: Variable) -> bool:
    """Whether the condition ``c`` is true, as far as can be told without running."""
    try:
        return bool(get_underlying_scalar_constant_value(c))
    except NotScalarConstantError:
        return False


@register_useless
@node_rewriter([CheckAndRaise])
def local_remove_useless_assert(fgraph: FunctionGraph, node: Apply) -> Any:
    """``check(x, c_1, ..., c_n) -> check(x, c_j, ...)`` without the conditions known to
    be true (constants, or computed from constants and static lengths); with none left,
    ``-> x``."""
    value, *conds = node.inputs
    keep = [c for c in conds if not _known_true(c)]
    if len(keep) == len(conds):
        return None
    if not keep:
        return [value]
    return [node.op(value, *keep)]


@node_rewriter([Assert])
def local_remove_all_assert(fgraph: FunctionGraph, node: Apply) -> Any:
    """``Assert(x, c_1, ..., c_n) -> x``, whatever the conditions: unsafe, so it runs
    only when a mode includes the ``"unsafe"`` tag."""
    return [node.inputs[0]]


rewrite_db.register(
    "local_remove_all_assert", local_remove_all_assert, "unsafe",
    phase=("canonicalize", "stabilize", "specialize"), phase_tag=False,
)
