"""Matrix products: dot, matmul (batched), tensordot, outer and einsum.

``Dot`` and ``MatMul`` call NumPy, which calls BLAS for float and complex data.
``tensordot`` and ``outer`` are built from transposes, reshapes and ``Dot``, so
their gradients follow from those ops.

>>> import numpy as np
>>> import theon, theon.tensor as tt
>>> a, b = tt.dmatrix("a"), tt.dmatrix("b")
>>> f = theon.function([a, b], a @ b)
>>> f(np.eye(2), np.ones((2, 2))).tolist()
[[1.0, 1.0], [1.0, 1.0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type, grad_not_implemented
from theon.scalar.type import upcast
from theon.tensor.arguments import as_int_tuple, int_value
from theon.tensor.basic import TensorOp, as_tensor_variable, cast
from theon.tensor.type import TensorType, tensor_type, tensor_vars
from theon.tensor.variable import TensorVariable

__all__ = ["Dot", "Einsum", "MatMul", "dot", "einsum", "matmul", "outer", "tensordot"]


def _check_dim(a: Variable, b: Variable, ia: int, ib: int, what: str) -> None:
    na, nb = tensor_type(a).shape[ia], tensor_type(b).shape[ib]
    if na is not None and nb is not None and na != nb:
        raise ValueError(
            f"{what}: shapes {tensor_type(a).shape} and {tensor_type(b).shape} are not aligned "
            f"({na} != {nb}) for {describe(a)} and {describe(b)}"
        )


def _is_int(dtype: str) -> bool:
    return dtype.startswith(("int", "uint")) or dtype == "bool"


def _input_grads(*pairs: tuple[Variable, Variable]) -> list[Any]:
    """Each input's gradient in its dtype; integer inputs are disconnected."""
    res: list[Any] = []
    for inp, g in pairs:
        dtype = tensor_type(inp).dtype
        if _is_int(dtype):
            res.append(disconnected_type())
        else:
            res.append(cast(g, dtype) if tensor_type(g).dtype != dtype else g)
    return res


def _bilinear_rop(
    product: Any, inputs: Sequence[Variable], eval_points: Sequence[Any]
) -> list[Any]:
    """R_op of a bilinear product: ``product(ex, y) + product(x, ey)``."""
    x, y = inputs
    ex, ey = eval_points
    terms = []
    if ex is not None:
        terms.append(product(ex, y))
    if ey is not None:
        terms.append(product(x, ey))
    if not terms:
        return [None]
    return [terms[0] if len(terms) == 1 else terms[0] + terms[1]]


class Dot(TensorOp):
    """``numpy.dot`` for vectors and matrices (inputs of 1 or 2 dimensions).

    >>> import theon.tensor as tt
    >>> a, b = tt.dmatrix("a"), tt.dvector("b")
    >>> Dot()(a, b).eval({a: [[1.0, 2.0], [3.0, 4.0]], b: [1.0, 1.0]})
    array([3., 7.])
    """

    __props__ = ()

    def make_node(self, a: Any, b: Any) -> Apply:
        a, b = as_tensor_variable(a), as_tensor_variable(b)
        if a.type.ndim not in (1, 2) or b.type.ndim not in (1, 2):
            raise TypeError(
                f"Dot takes vectors or matrices, got {describe(a)} and {describe(b)}"
            )
        _check_dim(a, b, -1, 0, "dot")
        shape = a.type.shape[:-1] + b.type.shape[1:]
        out = TensorType(upcast(a.type.dtype, b.type.dtype), shape=shape)()
        return Apply(self, [a, b], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        a, b = inputs
        out = np.dot(a, b)
        dtype = tensor_type(node.outputs[0]).numpy_dtype
        output_storage[0][0] = np.asarray(out, dtype=dtype)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        sa, sb = input_shapes
        return [tuple(sa[:-1]) + tuple(sb[1:])]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        x, y = tensor_vars(inputs)
        (gz,) = tensor_vars(output_grads)
        from theon.tensor.reshaping import transpose

        xd, yd = tensor_type(x).ndim, tensor_type(y).ndim
        if xd == 1 and yd == 1:
            gx, gy = gz * y, gz * x
        elif xd == 2 and yd == 1:
            gx, gy = outer(gz, y), dot(transpose(x), gz)
        elif xd == 1 and yd == 2:
            gx, gy = dot(y, gz), outer(x, gz)
        else:
            gx, gy = dot(gz, transpose(y)), dot(transpose(x), gz)
        return _input_grads((x, gx), (y, gy))

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        return _bilinear_rop(dot, inputs, eval_points)

    def __str__(self) -> str:
        return "Dot"


_dot = Dot()


def dot(a: Any, b: Any) -> TensorVariable:
    """Dot product with NumPy's semantics (``numpy.dot``).

    Vectors and matrices use BLAS; higher ranks contract the last axis of ``a``
    with the second-to-last of ``b``.

    >>> import theon.tensor as tt
    >>> dot(tt.dmatrix("a"), tt.dvector("b")).type.shape
    (None,)
    """
    av, bv = as_tensor_variable(a), as_tensor_variable(b)
    if av.type.ndim == 0 or bv.type.ndim == 0:
        return av * bv
    if av.type.ndim <= 2 and bv.type.ndim <= 2:
        return _dot(av, bv)
    return tensordot(av, bv, [[av.type.ndim - 1], [max(0, bv.type.ndim - 2)]])


class MatMul(TensorOp):
    """``numpy.matmul`` of two arrays of at least 2 dimensions (batch dims broadcast).

    >>> import theon.tensor as tt
    >>> a, b = tt.dtensor3("a"), tt.dmatrix("b")
    >>> MatMul()(a, b).type.ndim
    3
    """

    __props__ = ()

    def make_node(self, a: Any, b: Any) -> Apply:
        a, b = as_tensor_variable(a), as_tensor_variable(b)
        if a.type.ndim < 2 or b.type.ndim < 2:
            raise TypeError(f"MatMul needs 2+ dimensions, got {describe(a)} and {describe(b)}")
        _check_dim(a, b, -1, -2, "matmul")
        ba, bb = a.type.shape[:-2], b.type.shape[:-2]
        n = max(len(ba), len(bb))
        ba = (1,) * (n - len(ba)) + ba
        bb = (1,) * (n - len(bb)) + bb
        batch: list[int | None] = []
        for sa, sb in zip(ba, bb):
            if sa == 1:
                batch.append(sb)
            elif sb == 1:
                batch.append(sa)
            elif sa is not None and sb is not None and sa != sb:
                raise ValueError(
                    f"matmul: batch shapes of {a.type.shape} and {b.type.shape} do not broadcast"
                )
            else:
                batch.append(sa if sa is not None else sb)
        shape = (*batch, a.type.shape[-2], b.type.shape[-1])
        out = TensorType(upcast(a.type.dtype, b.type.dtype), shape=shape)()
        return Apply(self, [a, b], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        dtype = tensor_type(node.outputs[0]).numpy_dtype
        output_storage[0][0] = np.asarray(np.matmul(*inputs), dtype=dtype)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        from theon.tensor.math import maximum

        a, b = node.inputs
        sa, sb = list(input_shapes[0]), list(input_shapes[1])
        ba0, bb0 = sa[:-2], sb[:-2]
        n = max(len(ba0), len(bb0))
        sta = (1,) * (n - len(ba0)) + tensor_type(a).shape[:-2]
        stb = (1,) * (n - len(bb0)) + tensor_type(b).shape[:-2]
        ba: list[Variable | None] = [None] * (n - len(ba0))
        bb: list[Variable | None] = [None] * (n - len(bb0))
        ba += ba0
        bb += bb0
        batch = []
        for x, y, s1, s2 in zip(ba, bb, sta, stb):
            if x is None or s1 == 1:
                batch.append(y)
            elif y is None or s2 == 1:
                batch.append(x)
            else:
                batch.append(maximum(x, y))
        return [(*batch, sa[-2], sb[-1])]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        from theon.tensor.creation import sum_to_shape
        from theon.tensor.reshaping import swapaxes

        x, y = inputs
        (gz,) = output_grads
        gx = sum_to_shape(matmul(gz, swapaxes(y, -1, -2)), x)
        gy = sum_to_shape(matmul(swapaxes(x, -1, -2), gz), y)
        return _input_grads((x, gx), (y, gy))

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        return _bilinear_rop(matmul, inputs, eval_points)

    def __str__(self) -> str:
        return "MatMul"


_matmul = MatMul()


def matmul(a: Any, b: Any) -> TensorVariable:
    """Matrix product with batching, like ``numpy.matmul`` and the ``@`` operator.

    A vector operand is promoted to a matrix and the added axis removed after.

    >>> import theon.tensor as tt
    >>> matmul(tt.dtensor3("a"), tt.dmatrix("b")).type.ndim
    3
    """
    from theon.tensor.reshaping import expand_dims, squeeze

    a, b = as_tensor_variable(a), as_tensor_variable(b)
    if a.type.ndim == 0 or b.type.ndim == 0:
        raise ValueError(
            f"matmul: scalar operands are not allowed ({describe(a)}, {describe(b)}); use *"
        )
    if a.type.ndim <= 2 and b.type.ndim <= 2:
        return _dot(a, b)
    squeeze_axes = []
    if a.type.ndim == 1:
        a = expand_dims(a, 0)
        squeeze_axes.append(-2)
    if b.type.ndim == 1:
        b = expand_dims(b, 1)
        squeeze_axes.append(-1)
    out = _matmul(a, b)
    if squeeze_axes:
        nd = out.type.ndim
        out = squeeze(out, axis=tuple(nd + ax for ax in squeeze_axes))
    return out


def _normalize_tensordot_axes(
    a: Variable, b: Variable, axes: Any
) -> tuple[list[int], list[int]]:
    na, nb = tensor_type(a).ndim, tensor_type(b).ndim
    k = int_value(axes)
    if k is not None:
        if k < 0 or k > na or k > nb:
            raise ValueError(f"tensordot: axes={k} is out of range for ndims {na} and {nb}")
        return list(range(na - k, na)), list(range(k))
    try:
        ax_a, ax_b = axes
    except (TypeError, ValueError):
        raise ValueError(
            f"tensordot: axes must be an int or a pair of sequences, got {axes!r}"
        ) from None
    ax_a = list(as_int_tuple(ax_a, "tensordot: the axes of a"))
    ax_b = list(as_int_tuple(ax_b, "tensordot: the axes of b"))
    if len(ax_a) != len(ax_b):
        raise ValueError(f"tensordot: axes {axes!r} name different numbers of axes")
    for ax, nd in ((ax_a, na), (ax_b, nb)):
        for i in ax:
            if not -nd <= i < nd:
                raise ValueError(f"tensordot: axis {i} out of range for ndim {nd}")
    return [i % na for i in ax_a], [i % nb for i in ax_b]


def tensordot(a: Any, b: Any, axes: Any = 2) -> TensorVariable:
    """Sum products over the given axes, like ``numpy.tensordot``.

    >>> import theon.tensor as tt
    >>> tensordot(tt.dtensor3("a"), tt.dmatrix("b"), axes=[[2], [0]]).type.ndim
    3
    """
    from theon.tensor.reduction import prod
    from theon.tensor.reshaping import reshape, transpose
    from theon.tensor.shape import shape_i

    a, b = as_tensor_variable(a), as_tensor_variable(b)
    ax_a, ax_b = _normalize_tensordot_axes(a, b, axes)
    for i, j in zip(ax_a, ax_b):
        _check_dim(a, b, i, j, "tensordot")
    free_a = [i for i in range(a.type.ndim) if i not in ax_a]
    free_b = [i for i in range(b.type.ndim) if i not in ax_b]
    at = transpose(a, free_a + ax_a) if free_a + ax_a != list(range(a.type.ndim)) else a
    bt = transpose(b, ax_b + free_b) if ax_b + free_b != list(range(b.type.ndim)) else b

    def size(x: Variable, dims: list[int]) -> Any:
        st = [tensor_type(x).shape[d] for d in dims]
        known = [s for s in st if s is not None]
        if len(known) == len(st):
            return int(np.prod(known, dtype=np.int64))
        if len(dims) == 1:
            return shape_i(x, dims[0])
        from theon.tensor.shape import make_vector

        return prod(make_vector(*[shape_i(x, d) for d in dims]))

    k = size(a, ax_a)
    a2 = reshape(at, (size(a, free_a), k)) if len(free_a) != 1 or len(ax_a) != 1 else at
    b2 = reshape(bt, (k, size(b, free_b))) if len(free_b) != 1 or len(ax_b) != 1 else bt
    out = _dot(a2, b2)
    out_dims = [shape_i(a, d) if a.type.shape[d] is None else a.type.shape[d] for d in free_a]
    out_dims += [shape_i(b, d) if b.type.shape[d] is None else b.type.shape[d] for d in free_b]
    if len(free_a) == 1 and len(free_b) == 1:
        return out
    return reshape(out, tuple(out_dims) if out_dims else (), ndim=len(out_dims))


def outer(a: Any, b: Any) -> TensorVariable:
    """Outer product of the flattened inputs, like ``numpy.outer``.

    >>> import theon.tensor as tt
    >>> outer(tt.dvector("a"), tt.dvector("b")).type.ndim
    2
    """
    from theon.tensor.reshaping import flatten

    av, bv = as_tensor_variable(a), as_tensor_variable(b)
    if av.type.ndim != 1:
        av = flatten(av)
    if bv.type.ndim != 1:
        bv = flatten(bv)
    return av.dimshuffle(0, "x") * bv.dimshuffle("x", 0)


def _parse_einsum(subscripts: str, ndims: Sequence[int]) -> tuple[list[str], str]:
    s = subscripts.replace(" ", "")
    if "." in s:
        raise NotImplementedError("einsum: ellipsis ('...') subscripts are not supported")
    if "->" in s:
        lhs, out = s.split("->")
    else:
        lhs = s
        counts: dict[str, int] = {}
        for c in lhs.replace(",", ""):
            counts[c] = counts.get(c, 0) + 1
        out = "".join(sorted(c for c, n in counts.items() if n == 1))
    specs = lhs.split(",")
    if len(specs) != len(ndims):
        raise ValueError(
            f"einsum: {subscripts!r} names {len(specs)} operands, {len(ndims)} were given"
        )
    for sp, nd in zip(specs, ndims):
        if len(sp) != nd:
            raise ValueError(f"einsum: subscript {sp!r} does not fit an operand of ndim {nd}")
        if sp and not sp.isalpha():
            raise ValueError(f"einsum: bad subscript {sp!r}")
    return specs, out


class Einsum(TensorOp):
    """``numpy.einsum`` with explicit subscripts (``"ij,jk->ik"``).

    >>> import theon.tensor as tt
    >>> a = tt.dmatrix("a")
    >>> Einsum("ij->ji")(a).eval({a: [[1.0, 2.0]]})
    array([[1.],
           [2.]])
    """

    __props__ = ("subscripts",)

    def __init__(self, subscripts: str) -> None:
        self.subscripts = subscripts

    def make_node(self, *operands: Any) -> Apply:
        ops = [as_tensor_variable(o) for o in operands]
        specs, out = _parse_einsum(self.subscripts, [o.type.ndim for o in ops])
        sizes: dict[str, int | None] = {}
        for sp, o in zip(specs, ops):
            for c, n in zip(sp, o.type.shape):
                old = sizes.get(c)
                if old is not None and n is not None and n != old and n != 1 and old != 1:
                    raise ValueError(
                        f"einsum {self.subscripts!r}: index {c!r} has sizes {old} and {n} "
                        f"(shapes {[op.type.shape for op in ops]})"
                    )
                if old is None or old == 1:
                    sizes[c] = n
        dtype = upcast(*[o.type.dtype for o in ops])
        return Apply(self, ops, [TensorType(dtype, shape=[sizes[c] for c in out])()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        dtype = tensor_type(node.outputs[0]).numpy_dtype
        res = np.einsum(self.subscripts, *inputs, optimize=len(inputs) > 2)
        output_storage[0][0] = np.asarray(res, dtype=dtype)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        specs, out = _parse_einsum(self.subscripts, [len(s) for s in input_shapes])
        where: dict[str, Any] = {}
        for sp, shp, inp in zip(specs, input_shapes, node.inputs):
            for k, c in enumerate(sp):
                if c not in where or tensor_type(inp).shape[k] != 1:
                    where.setdefault(c, shp[k])
                    if tensor_type(inp).shape[k] != 1:
                        where[c] = shp[k]
        return [tuple(where[c] for c in out)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        from theon.tensor.creation import alloc
        from theon.tensor.shape import shape

        specs, out = _parse_einsum(self.subscripts, [tensor_type(i).ndim for i in inputs])
        (gz,) = output_grads
        res: list[Any] = []
        for k, (sp, x) in enumerate(zip(specs, inputs)):
            if _is_int(tensor_type(x).dtype):
                res.append(disconnected_type())
                continue
            if len(set(sp)) != len(sp):
                res.append(grad_not_implemented(self, k, x, "repeated index in one operand"))
                continue
            others = [(s, o) for j, (s, o) in enumerate(zip(specs, inputs)) if j != k]
            avail = set(out).union(*[set(s) for s, _ in others]) if others else set(out)
            kept = "".join(c for c in sp if c in avail)
            spec = ",".join([out] + [s for s, _ in others]) + "->" + kept
            g = Einsum(spec)(gz, *[o for _, o in others])
            if kept != sp:
                # indices summed inside x alone: their gradient is broadcast back
                pattern = [kept.index(c) if c in kept else "x" for c in sp]
                g = g.dimshuffle(*pattern)
                x_shape: Any = shape(x)  # (what x.shape gives)
                g = alloc(g, *[x_shape[i] for i in range(len(sp))])
            if tensor_type(g).shape != tensor_type(x).shape:
                from theon.tensor.creation import sum_to_shape

                g = sum_to_shape(g, x)
            res.append(g.astype(tensor_type(x).dtype) if g.dtype != tensor_type(x).dtype else g)
        return res

    def __str__(self) -> str:
        return f"Einsum{{{self.subscripts}}}"


def einsum(subscripts: str, *operands: Any) -> TensorVariable:
    """Einstein summation, like ``numpy.einsum`` (explicit or implicit output, no ``...``).

    >>> import theon.tensor as tt
    >>> einsum("ij,jk->ik", tt.dmatrix("a"), tt.dmatrix("b")).type.ndim
    2
    """
    return Einsum(subscripts.replace(" ", ""))(*operands)
