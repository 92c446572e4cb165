"""py-linker emitters for the tensor Ops a PyMC log-density is full of, beyond the core
ones of :mod:`theon.backends.py.tensor`: ``fill`` (``Elemwise(Second)``) of a one-element
value, ``All``/``Any``, ``Split`` by constant sizes, the ``...1`` advanced indexing Ops,
cumulative sums and products, and the softmaxes.

Each writes in a line or two what its ``perform`` computes (the same NumPy calls, so the
same values, dtypes and errors), where ``perform`` costs its own call, a storage cell,
and NumPy's Python-level wrappers (``np.all``, ``np.split``, ``np.max``) on every call.
``theon.tensor`` registers this module for the py linker.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from theon.backends.py.tensor import ELEMWISE_EMITTERS
from theon.graph.basic import Apply, Constant
from theon.link.pyfunc.codegen import NodeEmitter, Rep
from theon.link.pyfunc.dispatch import py_emit
from theon.tensor.advanced_subtensor import AdvancedIncSubtensor1, AdvancedSubtensor1
from theon.tensor.elemwise import Elemwise
from theon.tensor.extra_ops import CumOp
from theon.tensor.joining import Split
from theon.tensor.math import Second
from theon.tensor.reduction import All
from theon.tensor.reduction import Any as AnyOp
from theon.tensor.special import LogSoftmax, Softmax, log_softmax_values, softmax_values
from theon.tensor.type import tensor_type

__all__ = ["inc_subtensor1", "split_error"]


def _emit_fill(op: Elemwise, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """``second(x, y)`` with ``y`` of one element (static shape all 1s): ``y`` in every
    entry of an array of ``x``'s shape; written into ``x`` itself when the op is inplace
    on it (``x[...] = y``), as ``Elemwise.perform`` writes its result there."""
    x, y = node.inputs
    tx, ty, to = tensor_type(x), tensor_type(y), tensor_type(node.outputs[0])
    if tx.ndim != to.ndim or ty.ndim > to.ndim or any(s != 1 for s in ty.shape):
        return None
    pattern = op.inplace_pattern
    if pattern and (pattern != {0: 0} or tx.dtype != to.dtype):
        return None
    xs, ys = ctx.arg(0), ctx.arg(1)
    if pattern:
        o = ctx.out(0, fresh=ctx.may_overwrite(0), reuse=True)
        return [f"{xs}[...] = {ys}"] + ([] if o == xs else [f"{o} = {xs}"])
    empty = ctx.bind(np.empty, "empty")
    dt = ctx.bind(to.numpy_dtype, "dt")
    o = ctx.out(0, fresh=True)
    return [f"{o} = {empty}({xs}.shape, {dt})", f"{o}[...] = {ys}"]


ELEMWISE_EMITTERS[Second] = _emit_fill


_LOGICAL = {All: np.logical_and, AnyOp: np.logical_or}


@py_emit.register(All)
@py_emit.register(AnyOp)
def _emit_all_any(op: All | AnyOp, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """``logical_and.reduce`` (``or``) of a boolean array, or ``np.all`` (``np.any``) of
    another dtype, as ``perform`` calls it."""
    if type(op).perform is not All.perform:  # (the perform All and Any share)
        return None
    x = node.inputs[0]
    if tensor_type(x).dtype == "bool":
        fn = ctx.bind(_LOGICAL[type(op)].reduce, "red")
    else:
        fn = ctx.bind(type(op)._np_fn, "np_fn")
    call = f"{fn}({ctx.arg(0)}, axis={op.axis!r})"
    if tensor_type(node.outputs[0]).ndim == 0:
        return [f"{ctx.out(0, Rep.NPS, reuse=True)} = {call}"]
    asarray = ctx.bind(np.asarray, "asarray")
    return [f"{ctx.out(0, fresh=True, reuse=True)} = {asarray}({call})"]


def split_error(op: Split, node: Apply, x: np.ndarray, axis: Any, sizes: Any) -> None:
    """Raise the error ``Split.perform`` raises for sizes that do not add up."""
    op.perform(node, [x, axis, sizes], [[None] for _ in node.outputs])
    raise AssertionError(f"{op}: sizes checked at compile time disagree with perform")


@py_emit.register(Split)
def _emit_split(op: Split, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """Views ``x[..., a:b]`` for constant sizes and axis (what ``np.split`` returns), after
    the check ``perform`` makes that the sizes add up to the axis' length."""
    if type(op).perform is not Split.perform:
        return None
    _, ax, sp = node.inputs
    if not (isinstance(ax, Constant) and isinstance(sp, Constant)):
        return None
    sizes = np.asarray(sp.data)
    if sizes.ndim != 1 or len(sizes) != op.len_splits or (sizes < 0).any():
        return None
    axis = int(np.asarray(ax.data))
    total = int(sizes.sum())
    x = ctx.arg(0)
    err = ctx.bind(split_error, "split_error")
    lines = [f"if {x}.shape[{axis}] != {total}: "
             f"{err}({ctx.bind(op, 'op')}, {ctx.bind(node, 'node')}, {x}, "
             f"{ctx.bind(ax.data, 'k')}, {ctx.bind(sp.data, 'k')})"]
    names = [ctx.out(j) for j in range(len(node.outputs))]
    start = 0
    for name, n in zip(names, sizes.tolist()):
        ix = (slice(None),) * axis + (slice(start, start + n),)
        lines.append(f"{name} = {x}[{ctx.bind(ix, 'ix')}]")
        start += n
    return lines


@py_emit.register(AdvancedSubtensor1)
def _emit_advanced_subtensor1(op: AdvancedSubtensor1, node: Apply, ctx: NodeEmitter
                              ) -> list[str] | None:
    """``x[i]`` for an integer vector ``i``: a new array, as ``perform`` gives it."""
    if type(op).perform is not AdvancedSubtensor1.perform:
        return None
    x, i = ctx.arg(0), ctx.arg(1)
    return [f"{ctx.out(0, fresh=True, reuse=True)} = {x}[{i}]"]


def inc_subtensor1(x: np.ndarray, y: Any, i: np.ndarray, inplace: bool, set_: bool
                   ) -> np.ndarray:
    """What ``AdvancedIncSubtensor1.perform`` computes: ``y`` written into (``set_``) or
    added to ``x[i]``, repeated indices accumulating.

    >>> inc_subtensor1(np.zeros(3), 1.0, np.array([2, 2, 0]), False, False)
    array([1., 0., 2.])
    """
    out = x if inplace else x.copy()
    if set_:
        out[i] = y
        return out
    y = np.asarray(y)
    if y.dtype != out.dtype:
        y = y.astype(out.dtype, casting="same_kind")
    np.add.at(out, (i,), y)
    return out


@py_emit.register(AdvancedIncSubtensor1)
def _emit_advanced_inc_subtensor1(op: AdvancedIncSubtensor1, node: Apply, ctx: NodeEmitter
                                  ) -> list[str] | None:
    """One call of :func:`inc_subtensor1`."""
    if type(op).perform is not AdvancedIncSubtensor1.perform or op.ignore_duplicates:
        return None
    fn = ctx.bind(inc_subtensor1, "inc1")
    call = (f"{fn}({ctx.arg(0)}, {ctx.arg(1)}, {ctx.arg(2)}, {op.inplace}, "
            f"{op.set_instead_of_inc})")
    fresh = ctx.may_overwrite(0) if op.inplace else True
    return [f"{ctx.out(0, fresh=fresh)} = {call}"]


@py_emit.register(CumOp)
def _emit_cumop(op: CumOp, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """``np.cumsum``/``np.cumprod`` along the axis, as ``perform`` calls it."""
    if type(op).perform is not CumOp.perform:
        return None
    fn = ctx.bind(np.cumsum if op.mode == "add" else np.cumprod, "cum")
    x = ctx.arg(0)
    return [f"{ctx.out(0, fresh=True, reuse=True)} = {fn}({x}, axis={op.axis!r})"]


_SOFTMAXES = {Softmax: softmax_values, LogSoftmax: log_softmax_values}


@py_emit.register(Softmax)
@py_emit.register(LogSoftmax)
def _emit_softmax(op: Softmax | LogSoftmax, node: Apply, ctx: NodeEmitter
                  ) -> list[str] | None:
    """The function ``perform`` itself calls (:func:`~theon.tensor.special.softmax_values`)."""
    fn = _SOFTMAXES.get(type(op))
    if fn is None:
        return None
    f = ctx.bind(fn, "softmax")
    x = ctx.arg(0)
    return [f"{ctx.out(0, fresh=True, reuse=True)} = {f}({x}, {op.axis!r})"]
