"""Batching rules for the tensor Ops (see :mod:`theon.graph.vectorize`).

Each rule gets the new inputs (a leading batch axis on those flagged) and
returns batched outputs.  Unbatched inputs are broadcast over the batch axis,
which NumPy broadcasting does for free wherever the Op broadcasts.  A rule
returning ``None`` hands the node to the fallback registered here: a
:class:`~theon.tensor.blockwise.Blockwise` that runs the Op once per batch index.
``theon.tensor`` registers this module with
:func:`theon.graph.vectorize.register_vectorize_module`; it is imported on the
first vectorization.
"""

from __future__ import annotations

from typing import Any

from theon.graph.basic import Apply, Variable
from theon.graph.type import Type
from theon.graph.vectorize import (
    CannotVectorizeError,
    register_batch_type,
    register_vectorize,
    register_vectorize_fallback,
)
from theon.tensor.blas import Dot, Einsum, MatMul
from theon.tensor.blockwise import Blockwise
from theon.tensor.broadcast_grad import BroadcastGrad
from theon.tensor.creation import Alloc, SumToShape, alloc
from theon.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from theon.tensor.extra_ops import CumOp
from theon.tensor.joining import Join, Split, concatenate, static_axis
from theon.tensor.math import sum as tsum
from theon.tensor.reshaping import Reshape
from theon.tensor.shape import MakeVector, Shape, Shape_i, SpecifyShape, make_vector, shape, shape_i
from theon.tensor.sort import ArgSort, PutAlongAxis, Sort, TakeAlongAxis
from theon.tensor.special import LogSoftmax, Softmax
from theon.tensor.subtensor import (
    AdvancedIncSubtensor,
    AdvancedSubtensor,
    IncSubtensor,
    Subtensor,
)
from theon.tensor.type import TensorType, tensor_type

FULL = slice(None)


def _ndim(v: Variable) -> int:
    return tensor_type(v).ndim


def _batch_len(inputs: list[Variable], batched: list[bool]) -> Variable:
    """The batch length, from the first batched input."""
    for v, b in zip(inputs, batched):
        if b:
            return shape_i(v, 0)
    raise ValueError("no batched input")


def _pad_batched(x: Variable, ndim: int) -> Variable:
    """Batched ``x`` with length-1 axes inserted after the batch axis, to ``ndim`` + 1 dims."""
    k = _ndim(x) - 1
    if k == ndim:
        return x
    order = (0, *("x",) * (ndim - k), *range(1, k + 1))
    return DimShuffle(k + 1, order)(x)


def _lead(x: Variable) -> Variable:
    """Unbatched ``x`` with a length-1 batch axis in front."""
    n = _ndim(x)
    return DimShuffle(n, ("x", *range(n)))(x)


def _tile(x: Variable, n: Variable) -> Variable:
    """Unbatched ``x`` materialized ``n`` times along a new batch axis."""
    return alloc(x, n, *[shape_i(x, i) for i in range(_ndim(x))])


@register_vectorize(Elemwise)
def _elemwise(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    if op.inplace_pattern:
        op = Elemwise(op.scalar_op)
    ins = [x if b else _lead(x) for x, b in zip(inputs, batched)]
    return op.make_node(*ins).outputs


@register_vectorize(DimShuffle)
def _dimshuffle(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    order = (0, *("x" if o == "x" else o + 1 for o in op.new_order))
    return [DimShuffle(op.input_ndim + 1, order)(inputs[0])]


@register_vectorize(CAReduce)
def _careduce(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    nd = _ndim(node.inputs[0])
    axes = range(nd) if op.axis is None else op.axis
    return [op._with_axis(tuple(a + 1 for a in axes))(inputs[0])]


@register_vectorize(Shape)
def _shape(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    return [shape(inputs[0])[1:]], [False]


@register_vectorize(Shape_i)
def _shape_i(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    return [Shape_i(op.i + 1)(inputs[0])], [False]


@register_vectorize(SpecifyShape)
def _specify_shape(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    if any(batched[1:]):
        return None
    return [inputs[0]]


@register_vectorize(Alloc)
def _alloc(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    if any(batched[1:]):
        return None
    value, *dims = inputs
    value = _pad_batched(value, len(dims))
    return [alloc(value, shape_i(value, 0), *dims)]


@register_vectorize(BroadcastGrad)
def _broadcast_grad(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    """One more batch axis, kept by the reduction (decided when compiled, as unbatched)."""
    if not batched[0] or (op.batch_ndim and batched[1] != op.x_batched):
        return None  # x would have some batch axes but not all: loop
    return [BroadcastGrad(op.batch_ndim + 1, batched[1])(*inputs)]


@register_vectorize(SumToShape)
def _sum_to_shape(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    g, shp = inputs
    if batched[1]:
        return None
    target = tensor_type(node.outputs[0]).ndim  # the length of the shape input
    lead = _ndim(node.inputs[0]) - target
    if lead:
        g = tsum(g, axis=tuple(range(1, 1 + lead)))
    new_shp = concatenate([make_vector(shape_i(g, 0)), shp])
    return [SumToShape()(g, new_shp)]


@register_vectorize(Reshape)
def _reshape(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    x, shp = inputs
    if batched[1]:
        return None
    new_shp = concatenate([make_vector(shape_i(x, 0)), shp])
    return [Reshape(op.ndim + 1)(x, new_shp)]


@register_vectorize(MakeVector)
def _make_vector(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    n = _batch_len(inputs, batched)
    cols = [x if b else alloc(x, n) for x, b in zip(inputs, batched)]
    cols = [DimShuffle(1, (0, "x"))(c) for c in cols]
    out = Join()(1, *cols)
    if out.type.dtype != op.dtype:
        from theon.tensor.basic import cast

        out = cast(out, op.dtype)
    return [out]


@register_vectorize(Join)
def _join(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    k = static_axis(node)
    if k is None or batched[0]:
        return None
    n = _batch_len(inputs, batched)
    ins = [x if b else _tile(x, n) for x, b in zip(inputs[1:], batched[1:])]
    return op.make_node(k + 1, *ins).outputs


@register_vectorize(Split)
def _split(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    k = static_axis(node)
    if k is None or batched[1] or batched[2]:
        return None
    x, _, splits = inputs
    return op.make_node(x, k + 1, splits).outputs


@register_vectorize(Subtensor)
def _subtensor(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    if any(batched[1:]):
        return None
    return [Subtensor((FULL, *op.idx_list))(*inputs)]


def _inc_common(op: Any, node: Apply, inputs: list[Variable], batched: list[bool],
                sub_op: Any) -> Any:
    if any(batched[2:]):
        return None
    x, y, *idx = inputs
    n = _batch_len(inputs, batched)
    if not batched[0]:
        x = _tile(x, n)
    if batched[1]:
        sub_nd = _ndim(sub_op.make_node(node.inputs[0], *node.inputs[2:]).outputs[0])
        y = _pad_batched(y, sub_nd)
    kw = {"set_instead_of_inc": op.set_instead_of_inc}
    if isinstance(op, AdvancedIncSubtensor):
        kw["ignore_duplicates"] = op.ignore_duplicates
    return [type(op)((FULL, *op.idx_list), **kw)(x, y, *idx)]


@register_vectorize(IncSubtensor)
def _inc_subtensor(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    return _inc_common(op, node, inputs, batched, Subtensor(op.idx_list))


def _adv_contiguous(idx_list: tuple[Any, ...]) -> bool:
    """Whether the advanced (non-slice) entries are adjacent, so the batch axis stays first."""
    pos = [k for k, e in enumerate(idx_list) if not isinstance(e, slice)]
    if any(e is None for e in idx_list):
        return False
    return not pos or pos == list(range(pos[0], pos[-1] + 1))


@register_vectorize(AdvancedSubtensor)
def _adv_subtensor(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    if any(batched[1:]) or not _adv_contiguous(op.idx_list):
        return None
    return [AdvancedSubtensor((FULL, *op.idx_list))(*inputs)]


@register_vectorize(AdvancedIncSubtensor)
def _adv_inc_subtensor(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    if not _adv_contiguous(op.idx_list):
        return None
    return _inc_common(op, node, inputs, batched, AdvancedSubtensor(op.idx_list))


# --------------------------------------------------------------------------- products
def _mm_operand(x: Variable, batched: bool, core_ndim: int, is_left: bool) -> Variable:
    """A Dot operand as a MatMul operand: vectors become 1-row (left) or 1-column (right)."""
    if core_ndim == 2:
        return x
    nd = 2 if batched else 1
    lead = (0,) if batched else ()
    last = nd - 1
    order = (*lead, "x", last) if is_left else (*lead, last, "x")
    return DimShuffle(nd, order)(x)


def _transpose(x: Variable) -> Variable:
    return DimShuffle(2, (1, 0))(x)


@register_vectorize(Dot)
def _dot(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    """A batched vector against an unbatched operand is one matrix product (rows of
    the batch): ``[a @ v_k]_k = V @ a.T``, ``[v_k @ b]_k = V @ b``; other cases MatMul."""
    da, db = (_ndim(v) for v in node.inputs)
    a, b = inputs
    if batched == [False, True] and db == 1:
        return [Dot()(b, _transpose(a) if da == 2 else a)]
    if batched == [True, False] and da == 1:
        return [Dot()(a, b)]
    a = _mm_operand(inputs[0], batched[0], da, True)
    b = _mm_operand(inputs[1], batched[1], db, False)
    out = MatMul()(a, b)  # (B, n|1, m|1): unbatched operands broadcast over B
    keep = (0, *((1,) if da == 2 else ()), *((2,) if db == 2 else ()))
    return [DimShuffle(3, keep)(out)]


@register_vectorize(MatMul)
def _matmul(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    nd = max(_ndim(v) for v in node.inputs)
    ins = []
    for x, b in zip(inputs, batched):
        if b:
            ins.append(_pad_batched(x, nd))
        else:
            k = _ndim(x)
            ins.append(DimShuffle(k, ("x",) * (nd + 1 - k) + tuple(range(k)))(x))
    return [MatMul()(*ins)]


@register_vectorize(Einsum)
def _einsum(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    subs = op.subscripts.replace(" ", "")
    if "->" not in subs or "." in subs:
        return None
    lhs, out = subs.split("->")
    free = [c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA" if c not in subs]
    z = free[0]
    specs = [(z + s) if b else s for s, b in zip(lhs.split(","), batched)]
    return [Einsum(f"{','.join(specs)}->{z}{out}")(*inputs)]


# --------------------------------------------------------------------------- axis ops
def _shift(axis: Any) -> Any:
    """An axis of the unbatched input, as an axis of the batched one (None: no rule)."""
    return axis if axis < 0 else axis + 1


def _axis_rule(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    """Ops with one array input and an ``axis`` prop (None meaning 'flattened')."""
    if op.axis is None or any(batched[1:]):
        return None
    props = op._props_dict()
    props["axis"] = _shift(op.axis)
    return type(op)(**props).make_node(*inputs).outputs


register_vectorize(Softmax, LogSoftmax, CumOp, Sort, ArgSort)(_axis_rule)


@register_vectorize(TakeAlongAxis, PutAlongAxis)
def _along_axis(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    n = _batch_len(inputs, batched)
    ins = [x if b else _tile(x, n) for x, b in zip(inputs, batched)]
    props = op._props_dict()
    props["axis"] = _shift(op.axis)
    return type(op)(**props).make_node(*ins).outputs


# --------------------------------------------------------------------------- Blockwise
_LETTERS = "abcdefghijklmnopqrstuvwxyz"


def _signature_of(node: Apply) -> str:
    """The core Op's ``gufunc_signature`` if it fits ``node``, else distinct names per axis."""
    sig = getattr(node.op, "gufunc_signature", None)
    if isinstance(sig, str):
        from theon.tensor.blockwise import parse_signature

        ins, outs = parse_signature(sig)
        if [len(c) for c in ins] == [getattr(v.type, "ndim", 0) for v in node.inputs] and [
            len(c) for c in outs
        ] == [getattr(v.type, "ndim", -1) for v in node.outputs]:
            return sig
    names = iter(f"{a}{k or ''}" for k in range(100) for a in _LETTERS)

    def part(vs: list[Variable]) -> str:
        return ",".join(
            "(" + ",".join(next(names) for _ in range(getattr(v.type, "ndim", 0))) + ")"
            for v in vs
        )

    return f"{part(node.inputs)}->{part(node.outputs)}"


@register_vectorize_fallback
def _fallback(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    """Any Op: a Blockwise running it once per batch index."""
    for v, b in zip(inputs, batched):
        if b and not isinstance(v.type, TensorType):
            raise CannotVectorizeError(f"cannot batch {op}: {v} is not a tensor ({v.type})")
    for o in node.outputs:
        if not isinstance(o.type, TensorType):
            raise CannotVectorizeError(f"cannot batch {op}: {o} is not a tensor ({o.type})")
    return Blockwise(op, _signature_of(node))(*inputs, return_list=True)


@register_vectorize(Blockwise)
def _blockwise(op: Any, node: Apply, inputs: list[Variable], batched: list[bool]) -> Any:
    """One more batch axis in front; the others stay aligned on the right."""
    nb = tensor_type(node.outputs[0]).ndim - len(op.outputs_sig[0])
    bs = op.batch_ndims(node.inputs)
    ins = []
    for x, b, k in zip(inputs, batched, bs):
        if b and k < nb:  # its batch axes were aligned on the right: pad after the new one
            nd = _ndim(x)
            x = DimShuffle(nd, (0, *("x",) * (nb - k), *range(1, nd)))(x)
        ins.append(x)
    return op(*ins, return_list=True)


@register_batch_type
def _batch_type(v: Variable, k: int) -> Type:
    """``v``'s tensor type without its ``k`` leading axes."""
    t = tensor_type(v)
    return TensorType(t.dtype, shape=t.shape[k:])
