"""Inplace rewrites: let Elemwise and IncSubtensor overwrite an input that is dead.

``z = f(x, y)`` -> ``x := f(x, y)`` when nothing reads ``x`` after this node and
``x`` may be destroyed.  The DestroyHandler decides what may be destroyed: never
a function input not declared mutable, a Constant, a shared variable's value,
a graph output, or a value another node still reads.

>>> import numpy as np
>>> import theon, theon.tensor as tt
>>> x = tt.dvector("x")
>>> f = theon.function([x], tt.exp(x) * 2 + tt.sin(tt.exp(x)))
>>> arr = np.zeros(3)
>>> _ = f(arr)
>>> arr.tolist()  # the caller's array is never overwritten
[0.0, 0.0, 0.0]
"""

from __future__ import annotations

from typing import Any

from theon.graph.basic import Constant
from theon.graph.destroyhandler import can_destroy, ensure_destroy_handler
from theon.graph.fg import FunctionGraph
from theon.rewriting.basic import GraphRewriter, apply_replacements
from theon.rewriting.db import rewrite_db
from theon.tensor.elemwise import Elemwise
from theon.tensor.type import tensor_type

__all__ = ["InplaceElemwise", "InplaceFlag"]


def _mutable_inputs(fgraph: FunctionGraph) -> Any:
    return fgraph.mutable_inputs


class InplaceElemwise(GraphRewriter):
    """``Elemwise{op}(x, ...) -> Elemwise{op, inplace {0: i}}(x, ...)`` for a dead input ``i``.

    The input must have the output's dtype and broadcast pattern (its buffer can
    hold the result) and must not be read by any later node.
    """

    name = "inplace_elemwise"

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        ensure_destroy_handler(fgraph, _mutable_inputs(fgraph))

    def apply(self, fgraph: FunctionGraph) -> None:
        for node in fgraph.toposort():
            if node not in fgraph.apply_nodes:
                continue
            op = node.op
            if not isinstance(op, Elemwise) or op.inplace_pattern or len(node.outputs) != 1:
                continue
            out_t = tensor_type(node.outputs[0])
            if out_t.ndim == 0:
                continue  # a 0-d result costs nothing to allocate
            earlier: set[Any] = set()  # (a set: a sum may have 10^4 inputs)
            for i, inp in enumerate(node.inputs):
                if inp in earlier:
                    continue
                earlier.add(inp)
                if isinstance(inp, Constant) or inp.type != out_t:
                    continue
                if not can_destroy(fgraph, node, i):
                    continue
                new_op = Elemwise(op.scalar_op, {0: i})
                new_out = new_op.make_node(*node.inputs).outputs[0]
                if new_out.type != out_t:
                    continue
                if apply_replacements(fgraph, [(node.outputs[0], new_out)], self, node):
                    break


class InplaceFlag(GraphRewriter):
    """``op(x, ...) -> op{inplace=True}(x, ...)``, the result in ``x``'s own buffer, when
    ``x`` is dead, for the Ops whose class sets ``inplace_flag = True``: their
    ``inplace`` prop means "the result is written into input ``inplace_input``" (a class
    attribute, 0 by default: ``destroy_map = {0: [0]}``) and their other props are
    constructor arguments.  So ``inc_subtensor(x[idx], y) -> x[idx] += y``, ``AddDiag``,
    and in linalg ``BandPart``, ``Cholesky``, ``SolveTriangular`` and ``TriMatMul`` (both
    into ``b``) and ``CholeskyGrad`` (into the factor's gradient)."""

    name = "inplace_flag"

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        ensure_destroy_handler(fgraph, _mutable_inputs(fgraph))

    def apply(self, fgraph: FunctionGraph) -> None:
        for node in fgraph.toposort():
            if node not in fgraph.apply_nodes:
                continue
            op = node.op
            if not getattr(type(op), "inplace_flag", False) or getattr(op, "inplace", False):
                continue
            k = getattr(type(op), "inplace_input", 0)
            if isinstance(node.inputs[k], Constant) or not can_destroy(fgraph, node, k):
                continue
            props = op._props_dict()
            props["inplace"] = True
            new_op = type(op)(**props)
            new_out = new_op.make_node(*node.inputs).outputs[0]
            if new_out.type != node.outputs[0].type:
                continue
            apply_replacements(fgraph, [(node.outputs[0], new_out)], self, node)




rewrite_db.register("inplace_elemwise", InplaceElemwise(), "fast_run", "inplace",
                    phase="inplace")
rewrite_db.register("inplace_flag", InplaceFlag(), "fast_run", "inplace", phase="inplace")
