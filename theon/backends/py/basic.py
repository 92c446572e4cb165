"""The py linker's emitters for the small structural Ops PyMC's graphs are full of:
the identities and copies of ``theon.compile.ops`` (``ViewOp`` and its kin, the
``DeepCopyOp`` of an output that is an input), ``MakeVector`` and ``Alloc``.

Each writes in one line what its ``perform`` computes, so a call makes no
``perform`` call for them. ``theon.tensor`` registers this module for the py linker.
"""

from __future__ import annotations

import numpy as np

from theon.compile.ops import DeepCopyOp, TypeCastingOp
from theon.graph.basic import Apply
from theon.link.pyfunc.codegen import NodeEmitter, Rep
from theon.link.pyfunc.dispatch import py_emit
from theon.tensor.creation import Alloc
from theon.tensor.shape import MakeVector
from theon.tensor.type import TensorType, tensor_type

__all__: list[str] = []


@py_emit.register(TypeCastingOp)
def _emit_identity(op: TypeCastingOp, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """The input itself (a view), as ``TypeCastingOp.perform`` gives it."""
    if type(op).perform is not TypeCastingOp.perform:
        return None
    x = ctx.arg(0)
    return [f"{ctx.out(0, reuse=True)} = {x}"]


@py_emit.register(DeepCopyOp)
def _emit_deep_copy(op: DeepCopyOp, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """``x.copy()`` of an array (other values: perform's ``copy.deepcopy``)."""
    if type(op).perform is not DeepCopyOp.perform or not isinstance(
            node.outputs[0].type, TensorType):
        return None
    x = ctx.arg(0)
    return [f"{ctx.out(0, fresh=True)} = {x}.copy()"]


@py_emit.register(MakeVector)
def _emit_make_vector(op: MakeVector, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """``np.array((a, b, ...), dtype)``: the scalars as one vector."""
    if type(op).perform is not MakeVector.perform:
        return None
    arr = ctx.bind(np.array, "array")
    dt = ctx.bind(np.dtype(op.dtype), "dt")
    items = [ctx.arg(i, Rep.NPS) for i in range(len(node.inputs))]
    tup = f"({', '.join(items)},)" if items else "()"
    return [f"{ctx.out(0, fresh=True)} = {arr}({tup}, {dt})"]


@py_emit.register(Alloc)
def _emit_alloc(op: Alloc, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """A new array of the given shape, filled with the value (broadcast)."""
    if type(op).perform is not Alloc.perform:
        return None
    empty = ctx.bind(np.empty, "empty")
    dt = ctx.bind(np.dtype(tensor_type(node.outputs[0]).dtype), "dt")
    v = ctx.arg(0)
    dims = [f"int({ctx.arg(i, Rep.NPS)})" for i in range(1, len(node.inputs))]
    shape = f"({', '.join(dims)},)" if dims else "()"
    out = ctx.out(0, fresh=True)
    return [f"{out} = {empty}({shape}, {dt})", f"{out}[...] = {v}"]
