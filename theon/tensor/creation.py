"""Making arrays: alloc, zeros, ones, full, arange, linspace, eye, and ``sum_to_shape``.

>>> import theon.tensor as tt
>>> zeros((2, 3), dtype="int32").eval()
array([[0, 0, 0],
       [0, 0, 0]], dtype=int32)
>>> arange(3).eval()
array([0, 1, 2])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type
from theon.tensor.basic import TensorOp, as_tensor_variable, cast, constant, is_weak_scalar
from theon.tensor.math import zeros_like
from theon.tensor.shape import (
    _as_int64_scalar,
    int64_constant,
    shape,
    shape_i,
    shape_scalars,
    shape_tuple,
    static_int,
    static_vector_entries,
)
from theon.tensor.type import TensorType, tensor_type, tensor_vars
from theon.tensor.variable import TensorVariable

__all__ = [
    "ARange",
    "Alloc",
    "AllocEmpty",
    "Eye",
    "Linspace",
    "SumToShape",
    "alloc",
    "arange",
    "broadcast_to",
    "eye",
    "full",
    "full_like",
    "identity",
    "linspace",
    "ones",
    "sum_to_shape",
    "zeros",
]


def _floatx() -> str:
    from theon.config import config

    return str(config.floatX)


def _is_float(v: Variable) -> bool:
    return np.dtype(tensor_type(v).dtype).kind in "fc"


def _grad_like(g: Variable, x: Variable) -> Variable:
    """``g`` with ``x``'s dtype (gradients keep their input's dtype)."""
    dtype = tensor_type(x).dtype
    return g if tensor_type(g).dtype == dtype else cast(g, dtype)




# --------------------------------------------------------------------------- SumToShape
class SumToShape(TensorOp):
    """Sum ``g`` down to the shape ``shp`` it was broadcast from (leading axes, and axes
    where ``shp`` is 1); the gradient of broadcasting when static shapes cannot tell.

    >>> import theon.tensor as tt
    >>> g = tt.dmatrix("g")
    >>> SumToShape()(g, [1, 2]).eval({g: np.ones((3, 2))})
    array([[3., 3.]])
    """

    __props__ = ()
    view_map = {0: [0]}

    def make_node(self, g: Any, shp: Any) -> Apply:
        g = as_tensor_variable(g)
        shp = as_tensor_variable(shp)
        entries = static_vector_entries(shp)
        if entries is None:
            raise ValueError(f"SumToShape: the length of {describe(shp)} must be static")
        if len(entries) > g.type.ndim:
            raise ValueError(f"SumToShape: cannot sum {describe(g)} to {len(entries)} dims")
        return Apply(self, [g, shp], [TensorType(g.type.dtype, shape=entries)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        g, shp = inputs
        target = tuple(int(s) for s in shp)
        lead = g.ndim - len(target)
        dtype = tensor_type(node.outputs[0]).dtype
        if lead:
            g = g.sum(axis=tuple(range(lead)), dtype=dtype)
        axes = tuple(d for d, s in enumerate(target) if s == 1 and g.shape[d] != 1)
        if axes:
            g = g.sum(axis=axes, keepdims=True, dtype=dtype)
        if g.shape != target:
            raise ValueError(f"SumToShape: cannot sum an array of shape {g.shape} to {target}")
        output_storage[0][0] = np.asarray(g)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        return [tuple(shape_scalars(node.inputs[1]))]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [alloc(output_grads[0], *shape_tuple(inputs[0])), disconnected_type()]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], inputs[1])]


def sum_to_shape(g: Any, like: Any) -> TensorVariable:
    """Sum ``g`` over the axes along which ``like`` was broadcast to reach ``g``'s shape.

    >>> import theon.tensor as tt
    >>> g, b = tt.dmatrix("g"), tt.TensorType("float64", shape=(1, None))("b")
    >>> sum_to_shape(g, b).type.shape
    (1, None)
    """
    from theon.tensor import sum as tsum

    gv = as_tensor_variable(g)
    like = as_tensor_variable(like)
    lead = gv.type.ndim - like.type.ndim
    if lead < 0:
        raise ValueError(f"sum_to_shape: {describe(gv)} has fewer dims than {describe(like)}")
    keep = []
    for d, ls in enumerate(like.type.shape):
        gs = gv.type.shape[lead + d]
        if ls == 1 and gs != 1:
            keep.append(lead + d)
        elif ls is None and gs != 1:
            return SumToShape()(gv, shape(like))
    out = gv
    if keep:
        out = tsum(out, axis=tuple(keep), keepdims=True)
    if lead:
        out = tsum(out, axis=tuple(range(lead)))
    return out


# --------------------------------------------------------------------------- Alloc
class Alloc(TensorOp):
    """A new array of shape ``dims`` filled with ``value`` (broadcast).

    >>> Alloc()(0.5, 2, 3).type.shape
    (2, 3)
    """

    __props__ = ()

    def make_node(self, value: Any, *dims: Any) -> Apply:
        v = as_tensor_variable(value)
        ds = [_as_int64_scalar(d, "alloc dimension") for d in dims]
        if len(ds) < v.type.ndim:
            raise ValueError(
                f"alloc: the value {describe(v)} has {v.type.ndim} dims, more than the "
                f"{len(ds)} of the requested shape"
            )
        lead = len(ds) - v.type.ndim
        out: list[int | None] = []
        for d, dim in enumerate(ds):
            c = static_int(dim)
            vs = v.type.shape[d - lead] if d >= lead else None
            if c is not None and c < 0:
                raise ValueError(f"alloc: negative dimension {c} in the requested shape")
            if c is not None and vs is not None and vs not in (1, c):
                raise ValueError(
                    f"alloc: cannot broadcast {describe(v)} of static shape "
                    f"{tuple(v.type.shape)} to shape "
                    f"{tuple(static_int(x) for x in ds)}"
                )
            out.append(c if c is not None else (vs if vs is not None and vs != 1 else None))
        return Apply(self, [v, *ds], [TensorType(v.type.dtype, shape=tuple(out))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        v = inputs[0]
        shp = tuple(int(s) for s in inputs[1:])
        dtype = tensor_type(node.outputs[0]).dtype
        if v.ndim == 0 and not v:
            out = np.zeros(shp, dtype=dtype)
        else:
            out = np.empty(shp, dtype=dtype)
            out[...] = v
        output_storage[0][0] = out

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        return [tuple(node.inputs[1:])]

    def do_constant_folding(self, node: Apply) -> bool:
        # Folding would store the whole array in the graph: only small ones are worth it.
        size = 1
        for d in node.inputs[1:]:
            if not isinstance(d, Constant):
                return True
            size *= int(d.data)
        return size <= 1024

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        v, *dims = inputs
        rest = [disconnected_type() for _ in dims]
        if not _is_float(v):
            return [disconnected_type(), *rest]
        return [_grad_like(sum_to_shape(output_grads[0], v), v), *rest]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], *inputs[1:])]


_alloc = Alloc()


class AllocEmpty(TensorOp):
    """A new array of shape ``dims`` whose values are not set (``numpy.empty``):
    PyTensor's ``AllocEmpty(dtype)(*dims)``, for buffers that are written before read.

    It is never folded into a constant (its values are whatever the memory held).

    >>> AllocEmpty("float32")(2, 3).type
    TensorType(float32, shape=(2, 3))
    """

    __props__ = ("dtype",)

    def __init__(self, dtype: Any) -> None:
        self.dtype = np.dtype(_floatx() if dtype == "floatX" else dtype).name

    def make_node(self, *dims: Any) -> Apply:
        ds = [_as_int64_scalar(d, "AllocEmpty dimension") for d in dims]
        out: list[int | None] = []
        for dim in ds:
            c = static_int(dim)
            if c is not None and c < 0:
                raise ValueError(f"AllocEmpty: negative dimension {c} in the requested shape")
            out.append(c)
        return Apply(self, ds, [TensorType(self.dtype, shape=tuple(out))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        output_storage[0][0] = np.empty(tuple(int(s) for s in inputs), dtype=self.dtype)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        return [tuple(node.inputs)]

    def do_constant_folding(self, node: Apply) -> bool:
        return False

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [disconnected_type() for _ in inputs]


def alloc(value: Any, *shape: Any) -> TensorVariable:
    """An array of the given shape filled with ``value`` (which broadcasts to it).

    >>> alloc(1.5, 2, 2).eval()
    array([[1.5, 1.5],
           [1.5, 1.5]])
    """
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)) and not (
        isinstance(shape[0], Variable) and tensor_type(shape[0]).ndim == 0
    ):
        shape = tuple(shape_scalars(shape[0]))
    return _alloc(value, *shape)


def broadcast_to(x: Any, shape: Any) -> TensorVariable:
    """``x`` broadcast to ``shape`` (a new array, unlike NumPy's read-only view).

    >>> import theon.tensor as tt
    >>> broadcast_to(tt.dvector("v"), (3, 2)).type.shape
    (3, 2)
    """
    return _alloc(x, *shape_scalars(shape))


def _fill_value(value: Any, dtype: str | None) -> TensorVariable:
    if isinstance(value, Variable):
        v = as_tensor_variable(value)
        return v if dtype is None or v.type.dtype == dtype else cast(v, dtype)
    arr = np.asarray(value)
    if dtype is None and is_weak_scalar(value) and type(value) is float:
        dtype = "float64"
    return constant(arr if dtype is None else arr.astype(dtype))


def full(shape: Any, fill_value: Any, dtype: Any = None) -> TensorVariable:
    """An array of ``shape`` filled with ``fill_value`` (dtype as ``np.full``).

    >>> full((2,), 7).eval()
    array([7, 7])
    """
    return alloc(_fill_value(fill_value, None if dtype is None else str(np.dtype(dtype))),
                 *shape_scalars(shape))


def zeros(shape: Any, dtype: Any = None) -> TensorVariable:
    """An array of zeros (``dtype`` defaults to ``floatX``).

    >>> zeros(3).eval()
    array([0., 0., 0.])
    """
    return alloc(np.zeros((), dtype=dtype or _floatx()), *shape_scalars(shape))


def ones(shape: Any, dtype: Any = None) -> TensorVariable:
    """An array of ones (``dtype`` defaults to ``floatX``).

    >>> ones((1, 2), dtype="int8").eval()
    array([[1, 1]], dtype=int8)
    """
    return alloc(np.ones((), dtype=dtype or _floatx()), *shape_scalars(shape))


def full_like(x: Any, fill_value: Any, dtype: Any = None) -> TensorVariable:
    """An array shaped like ``x`` filled with ``fill_value`` (dtype: ``x``'s by default).

    >>> import theon.tensor as tt
    >>> x = tt.ivector("x")
    >>> full_like(x, 2.7).eval({x: [1, 2]})
    array([2, 2], dtype=int32)
    """
    x = as_tensor_variable(x)
    dt = str(np.dtype(dtype)) if dtype is not None else x.type.dtype
    return alloc(_fill_value(fill_value, dt), *shape_tuple(x))


# --------------------------------------------------------------------------- ranges
def _sample(v: Any) -> Any:
    """A representative value for NumPy's dtype rules: Python numbers stay weak."""
    if isinstance(v, Variable):
        return np.dtype(tensor_type(v).dtype).type(1)
    if is_weak_scalar(v):
        return type(v)(1)
    return np.asarray(v).dtype.type(1)


def _scalar_input(v: Any, what: str) -> TensorVariable:
    var = as_tensor_variable(v)
    if var.type.ndim != 0:
        raise TypeError(f"{what} must be a scalar, got {describe(var)}")
    return var


class ARange(TensorOp):
    """``np.arange(start, stop, step)`` of a fixed dtype.

    >>> ARange("int32")(0, 6, 2).eval()
    array([0, 2, 4], dtype=int32)
    """

    __props__ = ("dtype",)

    def __init__(self, dtype: str) -> None:
        self.dtype = str(np.dtype(dtype))

    def make_node(self, start: Any, stop: Any, step: Any) -> Apply:
        ins = [_scalar_input(v, f"arange's {n}") for v, n in
               ((start, "start"), (stop, "stop"), (step, "step"))]
        vals: list[Any] = [np.asarray(v.data)[()] if isinstance(v, Constant) else None
                           for v in ins]
        length: int | None = None
        if all(v is not None for v in vals):
            if vals[2] == 0:
                raise ZeroDivisionError("arange: step is zero")
            length = len(np.arange(*vals, dtype=self.dtype))
        return Apply(self, ins, [TensorType(self.dtype, shape=(length,))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        vals: list[Any] = [np.asarray(v)[()] for v in inputs]
        start, stop, step = vals
        if step == 0:
            raise ZeroDivisionError(
                f"arange: the step {describe(node.inputs[2])} is 0 at run time (start "
                f"{start}, stop {stop}); a step must be nonzero"
            )
        output_storage[0][0] = np.arange(start, stop, step, dtype=self.dtype)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        from theon import tensor as tt

        n = tensor_type(node.outputs[0]).shape[0]
        if n is not None:
            return [(int64_constant(n),)]
        start, stop, step = (cast(v, "float64") for v in node.inputs)
        length = tt.maximum(tt.ceil((stop - start) / step), 0.0)
        return [(cast(length, "int64"),)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        from theon import tensor as tt

        (gz,) = tensor_vars(output_grads)
        if np.dtype(self.dtype).kind not in "fc":
            return [disconnected_type() for _ in inputs]
        start, stop, step = inputs
        out: list[Any] = []
        out.append(_grad_like(tt.sum(gz), start) if _is_float(start) else disconnected_type())
        out.append(zeros_like(stop) if _is_float(stop) else disconnected_type())
        if _is_float(step):
            idx = cast(arange(shape_i(gz, 0)), gz.type.dtype)
            out.append(_grad_like(tt.sum(gz * idx), step))
        else:
            out.append(disconnected_type())
        return out


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None) -> TensorVariable:
    """Evenly spaced values in ``[start, stop)``, as ``np.arange`` (same dtype rules).

    >>> arange(3).eval()
    array([0, 1, 2])
    >>> arange(1, 2, 0.25).eval()
    array([1.  , 1.25, 1.5 , 1.75])
    """
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        dtype = np.arange(_sample(start) * 0, _sample(stop), _sample(step)).dtype
    return ARange(str(np.dtype(dtype)))(start, stop, step)


class Linspace(TensorOp):
    """``np.linspace(start, stop, num, endpoint)`` for scalar bounds, of a fixed dtype.

    >>> Linspace(False, "float64")(0.0, 1.0, 4).eval()
    array([0.  , 0.25, 0.5 , 0.75])
    """

    __props__ = ("endpoint", "dtype")

    def __init__(self, endpoint: bool, dtype: str) -> None:
        self.endpoint = bool(endpoint)
        self.dtype = str(np.dtype(dtype))

    def make_node(self, start: Any, stop: Any, num: Any) -> Apply:
        a = _scalar_input(start, "linspace's start")
        b = _scalar_input(stop, "linspace's stop")
        n = _as_int64_scalar(num, "linspace's num")
        k = static_int(n)
        if k is not None and k < 0:
            raise ValueError(f"linspace: number of samples, {k}, must be non-negative")
        return Apply(self, [a, b, n], [TensorType(self.dtype, shape=(k,))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        a, b, n = inputs
        output_storage[0][0] = np.linspace(
            np.asarray(a)[()], np.asarray(b)[()], int(n), endpoint=self.endpoint, dtype=self.dtype
        )

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        return [(node.inputs[2],)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        from theon import tensor as tt

        (gz,) = tensor_vars(output_grads)
        a, b, n = tensor_vars(inputs)
        if np.dtype(self.dtype).kind not in "fc":
            return [disconnected_type() for _ in inputs]
        div = n - 1 if self.endpoint else n
        t = cast(arange(n), gz.type.dtype) / cast(tt.maximum(div, 1), gz.type.dtype)
        ga = _grad_like(tt.sum(gz * (1 - t)), a) if _is_float(a) else disconnected_type()
        gb = _grad_like(tt.sum(gz * t), b) if _is_float(b) else disconnected_type()
        return [ga, gb, disconnected_type()]


def linspace(
    start: Any, stop: Any, num: Any = 50, endpoint: bool = True, dtype: Any = None
) -> TensorVariable:
    """``num`` evenly spaced samples from ``start`` to ``stop`` (scalar bounds), as
    ``np.linspace``.

    >>> linspace(0, 1, 5).eval()
    array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    """
    if dtype is None:
        dtype = np.linspace(_sample(start), _sample(stop), 2).dtype
    return Linspace(endpoint, str(np.dtype(dtype)))(start, stop, num)


class Eye(TensorOp):
    """``np.eye(n, m, k)`` of a fixed dtype.

    >>> Eye("int8")(2, 2, 0).eval()
    array([[1, 0],
           [0, 1]], dtype=int8)
    """

    __props__ = ("dtype",)

    def __init__(self, dtype: str) -> None:
        self.dtype = str(np.dtype(dtype))

    def make_node(self, n: Any, m: Any, k: Any) -> Apply:
        ins = [_as_int64_scalar(v, f"eye's {w}") for v, w in ((n, "N"), (m, "M"), (k, "k"))]
        shp = tuple(static_int(v) for v in ins[:2])
        for s in shp:
            if s is not None and s < 0:
                raise ValueError(f"eye: negative dimension {s}")
        return Apply(self, ins, [TensorType(self.dtype, shape=shp)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        n, m, k = (int(v) for v in inputs)
        output_storage[0][0] = np.eye(n, m, k, dtype=self.dtype)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        return [(node.inputs[0], node.inputs[1])]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [disconnected_type() for _ in inputs]


def eye(n: Any, m: Any = None, k: Any = 0, dtype: Any = None) -> TensorVariable:
    """A 2-d array with ones on diagonal ``k`` (``dtype`` defaults to ``floatX``).

    >>> eye(2, 3, 1, dtype="int8").eval()
    array([[0, 1, 0],
           [0, 0, 1]], dtype=int8)
    """
    return Eye(str(np.dtype(dtype or _floatx())))(n, n if m is None else m, k)


def identity(n: Any, dtype: Any = None) -> TensorVariable:
    """The ``n`` by ``n`` identity matrix.

    >>> identity(2).eval()
    array([[1., 0.],
           [0., 1.]])
    """
    return eye(n, dtype=dtype)
