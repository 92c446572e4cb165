"""Sorting: sort, argsort, and take_along_axis with its scatter-add transpose.

The gradient of ``sort`` sends each output gradient back to the position its
element came from: ``scatter(gz, argsort(x))``.

>>> import numpy as np
>>> import theon, theon.tensor as tt
>>> x = tt.dvector("x")
>>> theon.function([x], sort(x))([3.0, 1.0, 2.0]).tolist()
[1.0, 2.0, 3.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type
from theon.tensor.arguments import as_int
from theon.tensor.basic import TensorOp, as_tensor_variable
from theon.tensor.type import TensorType, tensor_type
from theon.tensor.variable import TensorVariable

__all__ = [
    "ArgSort",
    "PutAlongAxis",
    "Sort",
    "TakeAlongAxis",
    "argsort",
    "sort",
    "take_along_axis",
]

#: the sorting algorithms, as NumPy names them
SortKind = Literal["quicksort", "mergesort", "heapsort", "stable"]
_KINDS = ("quicksort", "mergesort", "heapsort", "stable")


def _axis(axis: int | None, x: TensorVariable, what: str) -> int | None:
    if axis is None:
        return None
    k, ndim = as_int(axis, f"{what}: axis"), x.type.ndim
    if not -ndim <= k < max(ndim, 1):
        raise ValueError(f"{what}: axis {k} is out of range for {describe(x)}")
    return k % max(ndim, 1)


def _prepare(
    x: Any, axis: int | None, kind: str, what: str
) -> tuple[TensorVariable, int | None]:
    x = as_tensor_variable(x)
    if kind not in _KINDS:
        raise ValueError(f"{what}: kind must be one of {_KINDS}, got {kind!r}")
    if x.type.ndim == 0:
        raise ValueError(f"{what} needs at least one dimension, got {describe(x)}")
    return x, _axis(axis, x, what)


class _SortBase(TensorOp):
    """Sort and ArgSort: ``x``'s shape along ``axis``, or the flattened length when None."""

    __props__ = ("axis", "kind")

    def __init__(self, axis: int | None = -1, kind: SortKind = "quicksort") -> None:
        self.axis = axis
        self.kind = kind

    def _out_shape(self, x: Variable) -> tuple[int | None, ...]:
        """The static output shape for input ``x``."""
        if self.axis is not None:
            return tuple(tensor_type(x).shape)
        known = [s for s in tensor_type(x).shape if s is not None]
        if len(known) == tensor_type(x).ndim:
            return (int(np.prod(known, dtype=np.int64)),)
        return (None,)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        if self.axis is None:
            from theon.tensor.reduction import prod
            from theon.tensor.shape import make_vector

            return [(prod(make_vector(*input_shapes[0])),)]
        return [tuple(input_shapes[0])]

    def __str__(self) -> str:
        return f"{type(self).__name__}{{axis={self.axis}}}"


class Sort(_SortBase):
    """``numpy.sort(x, axis, kind)``; ``axis=None`` sorts the flattened array.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> Sort(0)(x).eval({x: [3.0, 1.0, 2.0]})
    array([1., 2., 3.])
    """

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [TensorType(x.type.dtype, shape=self._out_shape(x))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        output_storage[0][0] = np.sort(inputs[0], axis=self.axis, kind=self.kind)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        (x,) = inputs
        (gz,) = output_grads
        if not tensor_type(x).dtype.startswith(("float", "complex")):
            return [disconnected_type()]
        if self.axis is None:
            from theon.tensor.reshaping import flatten, reshape
            from theon.tensor.shape import shape

            idx = argsort(flatten(x), axis=0, kind=self.kind)
            g = PutAlongAxis(0)(gz, idx)
            return [reshape(g, shape(x), ndim=tensor_type(x).ndim)]
        idx = argsort(x, axis=self.axis, kind=self.kind)
        return [PutAlongAxis(self.axis)(gz, idx)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        (ev,) = eval_points
        if ev is None:
            return [None]
        x = inputs[0]
        if self.axis is None:
            from theon.tensor.reshaping import flatten

            return [take_along_axis(flatten(ev), argsort(flatten(x), 0, self.kind), 0)]
        return [take_along_axis(ev, argsort(x, self.axis, self.kind), self.axis)]


class ArgSort(_SortBase):
    """``numpy.argsort(x, axis, kind)`` as int64 indices.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> ArgSort(0)(x).eval({x: [3.0, 1.0, 2.0]})
    array([1, 2, 0])
    """

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [TensorType("int64", shape=self._out_shape(x))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        res = np.argsort(inputs[0], axis=self.axis, kind=self.kind)
        output_storage[0][0] = res.astype(np.int64, copy=False)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [disconnected_type()]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        """The indices do not depend differentiably on the values."""
        return [[False]]


def sort(a: Any, axis: int | None = -1, kind: SortKind = "quicksort") -> TensorVariable:
    """A sorted copy of ``a`` along ``axis`` (flattened when None), like ``numpy.sort``.

    >>> import theon.tensor as tt
    >>> sort(tt.dmatrix("m"), axis=0).type.ndim
    2
    """
    x, ax = _prepare(a, axis, kind, "sort")
    return Sort(ax, kind)(x)


def argsort(a: Any, axis: int | None = -1, kind: SortKind = "quicksort") -> TensorVariable:
    """Indices that sort ``a`` along ``axis``, like ``numpy.argsort``.

    >>> import theon.tensor as tt
    >>> argsort(tt.dvector("v")).dtype
    'int64'
    """
    x, ax = _prepare(a, axis, kind, "argsort")
    return ArgSort(ax, kind)(x)


def _along_axis_index(idx: np.ndarray, axis: int) -> tuple[Any, ...]:
    """The full fancy index equivalent to using ``idx`` along ``axis``."""
    grids = np.ogrid[tuple(slice(0, n) for n in idx.shape)]
    full: list[Any] = list(grids)
    full[axis] = idx
    return tuple(full)


def _check_along(x: Variable, idx: Variable, axis: int, what: str) -> None:
    if tensor_type(x).ndim != tensor_type(idx).ndim:
        raise ValueError(
            f"{what}: {describe(x)} and indices {describe(idx)} must have the same ndim"
        )
    if not tensor_type(idx).dtype.startswith(("int", "uint")):
        raise TypeError(f"{what}: indices must be integers, got {describe(idx)}")
    if not 0 <= axis < tensor_type(x).ndim:
        raise ValueError(f"{what}: axis {axis} is out of range for {describe(x)}")


class TakeAlongAxis(TensorOp):
    """``numpy.take_along_axis(x, indices, axis)``.

    >>> import theon.tensor as tt
    >>> x, i = tt.dvector("x"), tt.lvector("i")
    >>> TakeAlongAxis(0)(x, i).eval({x: [3.0, 1.0, 2.0], i: [1, 2, 0]})
    array([1., 2., 3.])
    """

    __props__ = ("axis",)

    def __init__(self, axis: int) -> None:
        self.axis = axis

    def make_node(self, x: Any, idx: Any) -> Apply:
        x, idx = as_tensor_variable(x), as_tensor_variable(idx)
        _check_along(x, idx, self.axis, "take_along_axis")
        return Apply(self, [x, idx], [TensorType(x.type.dtype, shape=idx.type.shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        x, idx = inputs
        output_storage[0][0] = np.take_along_axis(x, idx, axis=self.axis)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        return [tuple(input_shapes[1])]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        x, idx = inputs
        (gz,) = output_grads
        from theon.tensor.math import zeros_like

        gx = PutAlongAxis(self.axis, accumulate=True)(zeros_like(x), idx, gz)
        return [gx, disconnected_type()]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        ev = eval_points[0]
        return [None if ev is None else self(ev, inputs[1])]


class PutAlongAxis(TensorOp):
    """Scatter along an axis: ``out = base.copy(); out[idx along axis] (+)= values``.

    With two inputs ``(values, idx)`` it scatters into zeros shaped like ``values``
    (the transpose of a permutation).  With ``accumulate`` repeated indices add up.

    >>> import theon.tensor as tt
    >>> v, i = tt.dvector("v"), tt.lvector("i")
    >>> PutAlongAxis(0)(v, i).eval({v: [10.0, 20.0, 30.0], i: [2, 0, 2]})
    array([20.,  0., 40.])
    """

    __props__ = ("axis", "accumulate")

    def __init__(self, axis: int, accumulate: bool = True) -> None:
        self.axis = axis
        self.accumulate = accumulate

    def make_node(self, *args: Any) -> Apply:
        ins = [as_tensor_variable(a) for a in args]
        if len(ins) == 2:
            values, idx = ins
            _check_along(values, idx, self.axis, "put_along_axis")
            out = TensorType(values.type.dtype, shape=values.type.shape)()
        elif len(ins) == 3:
            base, idx, values = ins
            _check_along(base, idx, self.axis, "put_along_axis")
            out = TensorType(base.type.dtype, shape=base.type.shape)()
        else:
            raise TypeError("PutAlongAxis takes (values, idx) or (base, idx, values)")
        return Apply(self, ins, [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        if len(inputs) == 2:
            values, idx = inputs
            out = np.zeros_like(values)
        else:
            base, idx, values = inputs
            out = np.array(base, copy=True)
        full = _along_axis_index(idx, self.axis)
        values = np.broadcast_to(values, idx.shape)
        if self.accumulate:
            np.add.at(out, full, values)
        else:
            out[full] = values
        output_storage[0][0] = out

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        return [tuple(input_shapes[0])]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        (gz,) = output_grads
        if len(inputs) == 2:
            _, idx = inputs
            return [TakeAlongAxis(self.axis)(gz, idx), disconnected_type()]
        base, idx, values = inputs
        g_values = TakeAlongAxis(self.axis)(gz, idx)
        if self.accumulate:
            g_base = gz
        else:
            from theon.tensor.math import zeros_like

            g_base = PutAlongAxis(self.axis, accumulate=False)(gz, idx, zeros_like(g_values))
        return [g_base, disconnected_type(), g_values]


def take_along_axis(arr: Any, indices: Any, axis: int) -> TensorVariable:
    """Pick values along ``axis`` at ``indices``, like ``numpy.take_along_axis``.

    >>> import theon.tensor as tt
    >>> take_along_axis(tt.dmatrix("m"), tt.lmatrix("i"), 1).type.ndim
    2
    """
    x = as_tensor_variable(arr)
    return TakeAlongAxis(axis % max(x.type.ndim, 1))(x, indices)
