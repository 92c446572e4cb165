"""NumPy's extra array functions: cumsum, cumprod, diff, repeat, nonzero.

>>> import numpy as np
>>> import theon, theon.tensor as tt
>>> x = tt.dvector("x")
>>> theon.function([x], cumsum(x))([1.0, 2.0, 3.0]).tolist()
[1.0, 3.0, 6.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Any, Literal, overload

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type
from theon.graph.op import Op
from theon.tensor.arguments import as_int
from theon.tensor.basic import TensorOp, as_tensor_variable, cast
from theon.tensor.layout import broadcast_arrays, broadcast_shape  # PyTensor's path for them
from theon.tensor.type import TensorType, integer_dtypes, tensor_type, tensor_vars
from theon.tensor.variable import TensorVariable

__all__ = [
    "CumOp",
    "Nonzero",
    "Repeat",
    "broadcast_arrays",
    "broadcast_shape",
    "choose",
    "cumprod",
    "cumsum",
    "diag",
    "diagonal",
    "diff",
    "flatnonzero",
    "nonzero",
    "repeat",
    "to_one_hot",
]


@cache
def _cum_dtype(mode: str, dtype: str) -> str:
    fn = np.cumsum if mode == "add" else np.cumprod
    return str(fn(np.zeros(1, dtype=dtype)).dtype)


def _is_float(dtype: str) -> bool:
    return dtype.startswith(("float", "complex"))


class CumOp(TensorOp):
    """Cumulative sum (``mode='add'``) or product (``'mul'``) along ``axis`` (None: flattened).

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> CumOp(0, "mul")(x).eval({x: [1.0, 2.0, 3.0]})
    array([1., 2., 6.])
    """

    __props__ = ("axis", "mode")

    def __init__(self, axis: int | None = None, mode: str = "add") -> None:
        if mode not in ("add", "mul"):
            raise ValueError(f"CumOp mode must be 'add' or 'mul', got {mode!r}")
        self.axis = axis
        self.mode = mode

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if self.axis is None:
            n = x.type.shape
            shape: tuple[int | None, ...] = (
                (int(np.prod(n, dtype=np.int64)),) if all(s is not None for s in n) else (None,)
            )
        else:
            if not 0 <= self.axis < x.type.ndim:
                raise ValueError(f"cum{self.mode}: axis {self.axis} out of range for {describe(x)}")
            shape = x.type.shape
        out = TensorType(_cum_dtype(self.mode, x.type.dtype), shape=shape)()
        return Apply(self, [x], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        fn = np.cumsum if self.mode == "add" else np.cumprod
        output_storage[0][0] = np.asarray(fn(inputs[0], axis=self.axis))

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        if self.axis is None:
            from theon.tensor.reduction import prod
            from theon.tensor.shape import make_vector

            if not input_shapes[0]:
                return [(1,)]
            return [(prod(make_vector(*input_shapes[0])),)]
        return [tuple(input_shapes[0])]

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        from theon.tensor.joining import flip
        from theon.tensor.reshaping import flatten, reshape
        from theon.tensor.shape import shape

        (x,) = inputs
        (out,) = tensor_vars(outputs)
        (gz,) = output_grads
        if not _is_float(tensor_type(x).dtype):
            return [disconnected_type()]
        axis = 0 if self.axis is None else self.axis

        def rev_cumsum(g: Variable) -> TensorVariable:
            return flip(CumOp(axis, "add")(flip(g, axis)), axis)

        if self.mode == "add":
            g = rev_cumsum(gz)
        else:
            # g[i] = sum_{j >= i} gz[j] * prod_{k <= j, k != i} x[k] = prod(x[:i]) * s[i]
            # with s[i] = gz[i] + x[i+1] * s[i+1]: no division, so zeros are exact
            from theon.tensor.recurrence import LinearRecurrence, shift_along

            xf = flatten(x) if self.axis is None else x
            dt = tensor_type(out).dtype
            gz = cast(gz, dt) if tensor_type(gz).dtype != dt else gz
            xc = cast(xf, dt) if tensor_type(xf).dtype != dt else xf
            g = shift_along(out, axis, 1) * LinearRecurrence(axis, reverse=True)(xc, gz)
        if self.axis is None:
            g = reshape(g, shape(x), ndim=tensor_type(x).ndim)
        x_dt = tensor_type(x).dtype
        return [cast(g, x_dt) if tensor_type(g).dtype != x_dt else g]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        (ev,) = eval_points
        if ev is None or self.mode != "add":
            if ev is None:
                return [None]
            # (J ev)[j] = sum_{i <= j} ev[i] * prod_{k <= j, k != i} x[k]: the recurrence
            # t[j] = x[j] * t[j-1] + ev[j] * prod(x[:j]), with no division by x
            from theon.tensor.recurrence import LinearRecurrence, shift_along
            from theon.tensor.reshaping import flatten

            axis = 0 if self.axis is None else self.axis
            (x,) = tensor_vars(inputs)
            out = self(x)
            xf = flatten(x) if self.axis is None else x
            evf = flatten(ev) if self.axis is None else as_tensor_variable(ev)
            dt = tensor_type(out).dtype
            xf, evf = (cast(v, dt) if tensor_type(v).dtype != dt else v for v in (xf, evf))
            return [LinearRecurrence(axis)(xf, evf * shift_along(out, axis, 1))]
        return [self(ev)]

    def __str__(self) -> str:
        return f"Cum{self.mode}{{axis={self.axis}}}"


def _cum(x: Any, axis: int | None, mode: str) -> TensorVariable:
    x = as_tensor_variable(x)
    if axis is not None:
        nd = max(x.type.ndim, 1)
        axis = as_int(axis, f"cum{mode}: axis")
        if not -nd <= axis < nd:
            raise ValueError(f"cum{mode}: axis {axis} out of range for {describe(x)}")
        axis %= nd
        if x.type.ndim == 0:
            axis = None
    return CumOp(axis, mode)(x)


def cumsum(x: Any, axis: int | None = None) -> TensorVariable:
    """Cumulative sum along ``axis`` (flattened when None), like ``numpy.cumsum``.

    >>> import theon.tensor as tt
    >>> cumsum(tt.imatrix("m"), axis=1).dtype
    'int64'
    """
    return _cum(x, axis, "add")


def cumprod(x: Any, axis: int | None = None) -> TensorVariable:
    """Cumulative product along ``axis`` (flattened when None), like ``numpy.cumprod``.

    The gradient divides by nothing: zeros in ``x`` give the exact gradient.

    >>> import theon.tensor as tt
    >>> cumprod(tt.dvector("v")).type.ndim
    1
    """
    return _cum(x, axis, "mul")


def diff(x: Any, n: int = 1, axis: int = -1) -> TensorVariable:
    """``n``-th discrete difference along ``axis``, like ``numpy.diff``.

    >>> import theon.tensor as tt
    >>> diff(tt.dvector("v"), n=2).type.ndim
    1
    """
    v = as_tensor_variable(x)
    if n < 0:
        raise ValueError(f"diff: order n must be non-negative, got {n}")
    nd = v.type.ndim
    if nd == 0:
        raise ValueError(f"diff needs at least one dimension, got {describe(v)}")
    axis = as_int(axis, "diff: axis")
    if not -nd <= axis < nd:
        raise ValueError(f"diff: axis {axis} out of range for {describe(v)}")
    axis %= nd
    for _ in range(n):
        hi = tuple([slice(None)] * axis + [slice(1, None)])
        lo = tuple([slice(None)] * axis + [slice(None, -1)])
        v = v[hi] - v[lo]
    return v


class Repeat(TensorOp):
    """``numpy.repeat(x, repeats, axis)`` with a scalar or vector of int ``repeats``.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> Repeat(0)(x, 2).eval({x: [1.0, 2.0]})
    array([1., 1., 2., 2.])
    """

    __props__ = ("axis",)

    def __init__(self, axis: int | None = None) -> None:
        self.axis = axis

    def make_node(self, x: Any, repeats: Any) -> Apply:
        x = as_tensor_variable(x)
        repeats = as_tensor_variable(repeats)
        if not repeats.type.dtype.startswith(("int", "uint")):
            raise TypeError(f"repeat: repeats must be integers, got {describe(repeats)}")
        if repeats.type.ndim > 1:
            raise ValueError(f"repeat: repeats must be a scalar or vector, got {describe(repeats)}")
        if self.axis is None:
            shape: tuple[int | None, ...] = (None,)
        else:
            if not 0 <= self.axis < x.type.ndim:
                raise ValueError(f"repeat: axis {self.axis} out of range for {describe(x)}")
            s = list(x.type.shape)
            s[self.axis] = None
            shape = tuple(s)
        return Apply(self, [x, repeats], [TensorType(x.type.dtype, shape=shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        x, r = inputs
        output_storage[0][0] = np.repeat(x, r, axis=self.axis)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        from theon.tensor.reduction import prod
        from theon.tensor.reduction import sum as tsum
        from theon.tensor.shape import make_vector

        x, r = tensor_vars(node.inputs)
        sx = list(input_shapes[0])
        if self.axis is None:
            n = prod(make_vector(*sx)) if sx else 1
            total = n * r if tensor_type(r).ndim == 0 else tsum(r)
            return [(total,)]
        total = sx[self.axis] * r if tensor_type(r).ndim == 0 else tsum(r)
        sx[self.axis] = total
        return [tuple(sx)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        from theon.tensor.creation import arange
        from theon.tensor.reshaping import flatten, reshape
        from theon.tensor.shape import shape
        from theon.tensor.subtensor import inc_subtensor

        x, r = inputs
        (gz,) = output_grads
        if not _is_float(tensor_type(x).dtype):
            return [disconnected_type(), disconnected_type()]
        from theon.tensor.math import zeros_like

        if self.axis is None:
            xf = flatten(x)
            xf_shape: Any = shape(xf)  # (what xf.shape gives)
            idx = Repeat(0)(arange(xf_shape[0]), r)
            g = inc_subtensor(zeros_like(xf)[idx], gz)
            return [reshape(g, shape(x), ndim=tensor_type(x).ndim), disconnected_type()]
        x_shape: Any = shape(x)
        idx = Repeat(0)(arange(x_shape[self.axis]), r)
        key = tuple([slice(None)] * self.axis + [idx])
        return [inc_subtensor(zeros_like(x)[key], gz), disconnected_type()]

    def __str__(self) -> str:
        return f"Repeat{{axis={self.axis}}}"


def repeat(x: Any, repeats: Any, axis: int | None = None) -> TensorVariable:
    """Repeat elements of ``x``, like ``numpy.repeat``.

    >>> import theon.tensor as tt
    >>> repeat(tt.dmatrix("m"), 2, axis=0).type.ndim
    2
    """
    x = as_tensor_variable(x)
    if axis is not None:
        nd = x.type.ndim
        axis = as_int(axis, "repeat: axis")
        if not -nd <= axis < nd:
            raise ValueError(f"repeat: axis {axis} out of range for {describe(x)}")
        axis %= nd
    return Repeat(axis)(x, repeats)


class Nonzero(Op):
    """``numpy.nonzero``: one int64 index vector per dimension.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> [i.eval({x: [0.0, 3.0, 0.0, 4.0]}) for i in Nonzero()(x, return_list=True)]
    [array([1, 3])]
    """

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.type.ndim == 0:
            raise ValueError(f"nonzero needs at least one dimension, got {describe(x)}")
        outs = [TensorType("int64", shape=(None,))() for _ in range(x.type.ndim)]
        return Apply(self, [x], outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        for cell, idx in zip(output_storage, np.nonzero(inputs[0])):
            cell[0] = idx.astype(np.int64, copy=False)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        from theon.tensor.math import neq
        from theon.tensor.reduction import sum as tsum

        n = tsum(neq(node.inputs[0], 0), dtype="int64")
        return [(n,) for _ in node.outputs]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [disconnected_type()]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        """Indices are not differentiable functions of the values."""
        return [[False] * len(node.outputs)]


@overload
def nonzero(x: Any, return_matrix: Literal[False] = False) -> tuple[TensorVariable, ...]: ...
@overload
def nonzero(x: Any, return_matrix: Literal[True]) -> TensorVariable: ...
@overload
def nonzero(
    x: Any, return_matrix: bool = False
) -> tuple[TensorVariable, ...] | TensorVariable: ...
def nonzero(
    x: Any, return_matrix: bool = False
) -> tuple[TensorVariable, ...] | TensorVariable:
    """Indices of the non-zero elements, one vector per dimension, like ``numpy.nonzero``;
    with Theano's ``return_matrix=True``, one int64 matrix whose row ``d`` holds the
    indices along dimension ``d``.

    >>> import theon.tensor as tt
    >>> len(nonzero(tt.dmatrix("m")))
    2
    >>> v = tt.dvector("v")
    >>> nonzero(v, return_matrix=True).eval({v: [0.0, 2.0, 3.0]})
    array([[1, 2]])
    """
    parts: tuple[TensorVariable, ...] = tuple(Nonzero()(x, return_list=True))
    if not return_matrix:
        return parts
    from theon.tensor.joining import stack

    return stack(list(parts))


def to_one_hot(y: Any, nb_class: Any, dtype: Any = None) -> TensorVariable:
    """One row per entry of the integer vector ``y``, with a 1 in column ``y[i]`` of
    ``nb_class`` columns (Theano's ``extra_ops.to_one_hot``; ``dtype`` defaults to floatX).

    >>> import theon.tensor as tt
    >>> y = tt.ivector("y")
    >>> to_one_hot(y, 3).eval({y: [2, 0]})
    array([[0., 0., 1.],
           [1., 0., 0.]])
    """
    from theon.config import config
    from theon.tensor.creation import arange
    from theon.tensor.math import eq

    y = as_tensor_variable(y)
    if y.type.ndim != 1 or y.type.dtype not in integer_dtypes:
        raise TypeError(f"to_one_hot: y must be an integer vector, got {describe(y)}")
    return cast(eq(y[:, None], arange(nb_class)[None, :]), dtype or config.floatX)


def diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> TensorVariable:
    """The diagonal ``offset`` of the 2-d slices along ``axis1`` and ``axis2``, as a
    new last axis, like ``numpy.diagonal`` (a copy, not a view).

    >>> import numpy as np, theon.tensor as tt
    >>> m = tt.dmatrix("m")
    >>> diagonal(m, 1).eval({m: np.arange(9.0).reshape(3, 3)})
    array([1., 5.])
    """
    from theon.tensor.creation import arange
    from theon.tensor.math import maximum, minimum
    from theon.tensor.reduction import normalize_axis
    from theon.tensor.reshaping import transpose

    t = as_tensor_variable(a)
    nd = t.type.ndim
    if nd < 2:
        raise ValueError(f"diagonal: needs at least 2 dimensions, got {describe(t)}")
    (ax1,) = normalize_axis(axis1, nd, "diagonal: axis1", t) or (0,)
    (ax2,) = normalize_axis(axis2, nd, "diagonal: axis2", t) or (1,)
    if ax1 == ax2:
        raise ValueError(f"diagonal: axis1 and axis2 are both {ax1}")
    k = int(offset)
    rest = [d for d in range(nd) if d not in (ax1, ax2)]
    t = transpose(t, (*rest, ax1, ax2))
    n1, n2 = t.shape[-2], t.shape[-1]
    n = maximum(minimum(n1 + min(k, 0), n2 - max(k, 0)), 0)
    i = arange(n)
    return t[..., i - min(k, 0), i + max(k, 0)]


def diag(v: Any, k: int = 0) -> TensorVariable:
    """The diagonal ``k`` of a matrix, or a square matrix with the vector ``v`` on
    diagonal ``k``, like ``numpy.diag``.

    >>> import theon.tensor as tt
    >>> v = tt.dvector("v")
    >>> diag(v).eval({v: [1.0, 2.0]})
    array([[1., 0.],
           [0., 2.]])
    """
    from theon.tensor.creation import arange, zeros
    from theon.tensor.subtensor import set_subtensor

    v = as_tensor_variable(v)
    if v.type.ndim == 2:
        return diagonal(v, k)
    if v.type.ndim != 1:
        raise ValueError(f"diag: input must be 1-d or 2-d, got {describe(v)}")
    k = int(k)
    n = v.shape[0]
    size = n + abs(k)
    i = arange(n)
    out = zeros((size, size), dtype=v.type.dtype)
    return set_subtensor(out[i - min(k, 0), i + max(k, 0)], v)


def choose(a: Any, choices: Any, mode: str = "raise") -> TensorVariable:
    """``choices[a[i]][i]`` for every position ``i`` (all broadcast together), like
    ``numpy.choose``; ``mode`` ``'raise'``, ``'wrap'`` or ``'clip'`` handles indices out
    of ``range(len(choices))``.

    >>> import theon.tensor as tt
    >>> a = tt.ivector("a")
    >>> choose(a, [[1.0, 2.0], [10.0, 20.0]]).eval({a: [1, 0]})
    array([10.,  2.])
    """
    from theon.tensor.joining import stack
    from theon.tensor.math import clip, mod, zeros_like
    from theon.tensor.sort import take_along_axis

    a = as_tensor_variable(a)
    if a.type.dtype not in integer_dtypes:
        raise TypeError(f"choose: the index array must be integers, got {describe(a)}")
    if isinstance(choices, Variable):
        c = as_tensor_variable(choices)
    else:
        c = stack([as_tensor_variable(ch) for ch in choices])
    if c.type.ndim < 1:
        raise ValueError("choose: choices must be a sequence of arrays")
    n = c.shape[0]
    if mode == "wrap":
        a = mod(a, n)
    elif mode == "clip":
        a = clip(a, 0, n - 1)
    elif mode != "raise":
        raise ValueError(f"choose: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    nd = max(a.type.ndim, c.type.ndim - 1)
    c = c[(slice(None),) + (None,) * (nd - (c.type.ndim - 1))]
    a = a[(None,) * (nd - a.type.ndim)]
    cb = c + zeros_like(a, dtype=c.type.dtype)[None]  # both broadcast to one shape
    ab = a + zeros_like(cb[0], dtype=a.type.dtype)
    return take_along_axis(cb, ab[None], 0)[0]


def flatnonzero(x: Any) -> TensorVariable:
    """Indices of the non-zero elements of the flattened array, like ``numpy.flatnonzero``.

    >>> import theon.tensor as tt
    >>> flatnonzero(tt.dmatrix("m")).type.ndim
    1
    """
    from theon.tensor.reshaping import flatten

    return nonzero(flatten(as_tensor_variable(x)))[0]
