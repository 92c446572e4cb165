"""Making arrays (alloc, zeros, full, arange, linspace, eye, ...) and joining them.

>>> import theon.tensor as tt
>>> zeros((2, 3), dtype="int32").eval()
array([[0, 0, 0],
       [0, 0, 0]], dtype=int32)
>>> a = tt.dvector("a")
>>> concatenate([a, a]).eval({a: [1.0, 2.0]})
array([1., 2., 1., 2.])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import describe
from theon.graph.null_type import DisconnectedType, disconnected_type
from theon.graph.op import Op
from theon.tensor.basic import as_tensor_variable, cast, constant, is_weak_scalar
from theon.tensor.math import zeros_like
from theon.tensor.shape import (
    _as_int64_scalar,
    _dimshuffle,
    expand_dims,
    int64_constant,
    make_vector,
    normalize_axes,
    normalize_axis,
    reshape,
    shape,
    shape_i,
    shape_padleft,
    shape_scalars,
    shape_tuple,
    static_int,
    static_vector_entries,
)
from theon.tensor.type import TensorType

__all__ = [
    "ARange",
    "Alloc",
    "Eye",
    "Join",
    "Linspace",
    "Split",
    "SumToShape",
    "alloc",
    "arange",
    "broadcast_to",
    "concatenate",
    "eye",
    "flip",
    "full",
    "full_like",
    "hstack",
    "identity",
    "join",
    "linspace",
    "ones",
    "roll",
    "split",
    "stack",
    "sum_to_shape",
    "tile",
    "vstack",
    "zeros",
]


def _floatx() -> str:
    from theon.config import config

    return str(config.floatX)


def _is_float(v: Variable) -> bool:
    return np.dtype(v.type.dtype).kind in "fc"


def _grad_like(g: Variable, x: Variable) -> Variable:
    """``g`` with ``x``'s dtype (gradients keep their input's dtype)."""
    return g if g.type.dtype == x.type.dtype else cast(g, x.type.dtype)


# --------------------------------------------------------------------------- SumToShape
class SumToShape(Op):
    """Sum ``g`` down to the shape ``shp`` it was broadcast from (leading axes, and axes
    where ``shp`` is 1); the gradient of broadcasting when static shapes cannot tell."""

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
        dtype = node.outputs[0].type.dtype
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


def sum_to_shape(g: Any, like: Any) -> Variable:
    """Sum ``g`` over the axes along which ``like`` was broadcast to reach ``g``'s shape.

    >>> import theon.tensor as tt
    >>> g, b = tt.dmatrix("g"), tt.TensorType("float64", shape=(1, None))("b")
    >>> sum_to_shape(g, b).type.shape
    (1, None)
    """
    from theon.tensor import sum as tsum

    g = as_tensor_variable(g)
    like = as_tensor_variable(like)
    lead = g.type.ndim - like.type.ndim
    if lead < 0:
        raise ValueError(f"sum_to_shape: {describe(g)} has fewer dims than {describe(like)}")
    keep = []
    for d, ls in enumerate(like.type.shape):
        gs = g.type.shape[lead + d]
        if ls == 1 and gs != 1:
            keep.append(lead + d)
        elif ls is None and gs != 1:
            return SumToShape()(g, shape(like))
    out = g
    if keep:
        out = tsum(out, axis=tuple(keep), keepdims=True)
    if lead:
        out = tsum(out, axis=tuple(range(lead)))
    return out


# --------------------------------------------------------------------------- Alloc
class Alloc(Op):
    """A new array of shape ``dims`` filled with ``value`` (broadcast)."""

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
        dtype = node.outputs[0].type.dtype
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


def alloc(value: Any, *shape: Any) -> Variable:
    """An array of the given shape filled with ``value`` (which broadcasts to it).

    >>> alloc(1.5, 2, 2).eval()
    array([[1.5, 1.5],
           [1.5, 1.5]])
    """
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)) and not (
        isinstance(shape[0], Variable) and shape[0].type.ndim == 0
    ):
        shape = tuple(shape_scalars(shape[0]))
    return _alloc(value, *shape)


def broadcast_to(x: Any, shape: Any) -> Variable:
    """``x`` broadcast to ``shape`` (a new array, unlike NumPy's read-only view).

    >>> import theon.tensor as tt
    >>> broadcast_to(tt.dvector("v"), (3, 2)).type.shape
    (3, 2)
    """
    return _alloc(x, *shape_scalars(shape))


def _fill_value(value: Any, dtype: str | None) -> Variable:
    if isinstance(value, Variable):
        v = as_tensor_variable(value)
        return v if dtype is None or v.type.dtype == dtype else cast(v, dtype)
    arr = np.asarray(value)
    if dtype is None and is_weak_scalar(value) and type(value) is float:
        dtype = "float64"
    return constant(arr if dtype is None else arr.astype(dtype))


def full(shape: Any, fill_value: Any, dtype: Any = None) -> Variable:
    """An array of ``shape`` filled with ``fill_value`` (dtype as ``np.full``).

    >>> full((2,), 7).eval()
    array([7, 7])
    """
    return alloc(_fill_value(fill_value, None if dtype is None else str(np.dtype(dtype))),
                 *shape_scalars(shape))


def zeros(shape: Any, dtype: Any = None) -> Variable:
    """An array of zeros (``dtype`` defaults to ``floatX``).

    >>> zeros(3).eval()
    array([0., 0., 0.])
    """
    return alloc(np.zeros((), dtype=dtype or _floatx()), *shape_scalars(shape))


def ones(shape: Any, dtype: Any = None) -> Variable:
    """An array of ones (``dtype`` defaults to ``floatX``).

    >>> ones((1, 2), dtype="int8").eval()
    array([[1, 1]], dtype=int8)
    """
    return alloc(np.ones((), dtype=dtype or _floatx()), *shape_scalars(shape))


def full_like(x: Any, fill_value: Any, dtype: Any = None) -> Variable:
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
        return np.dtype(v.type.dtype).type(1)
    if is_weak_scalar(v):
        return type(v)(1)
    return np.asarray(v).dtype.type(1)


def _scalar_input(v: Any, what: str) -> Variable:
    var = as_tensor_variable(v)
    if var.type.ndim != 0:
        raise TypeError(f"{what} must be a scalar, got {describe(var)}")
    return var


class ARange(Op):
    """``np.arange(start, stop, step)`` of a fixed dtype."""

    __props__ = ("dtype",)

    def __init__(self, dtype: str) -> None:
        self.dtype = str(np.dtype(dtype))

    def make_node(self, start: Any, stop: Any, step: Any) -> Apply:
        ins = [_scalar_input(v, f"arange's {n}") for v, n in
               ((start, "start"), (stop, "stop"), (step, "step"))]
        vals = [np.asarray(v.data)[()] if isinstance(v, Constant) else None for v in ins]
        length: int | None = None
        if all(v is not None for v in vals):
            if vals[2] == 0:
                raise ZeroDivisionError("arange: step is zero")
            length = len(np.arange(*vals, dtype=self.dtype))
        return Apply(self, ins, [TensorType(self.dtype, shape=(length,))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        start, stop, step = (np.asarray(v)[()] for v in inputs)
        output_storage[0][0] = np.arange(start, stop, step, dtype=self.dtype)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        from theon import tensor as tt

        n = node.outputs[0].type.shape[0]
        if n is not None:
            return [(int64_constant(n),)]
        start, stop, step = (cast(v, "float64") for v in node.inputs)
        length = tt.maximum(tt.ceil((stop - start) / step), 0.0)
        return [(cast(length, "int64"),)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        from theon import tensor as tt

        (gz,) = output_grads
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


def arange(start: Any, stop: Any = None, step: Any = 1, dtype: Any = None) -> Variable:
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


class Linspace(Op):
    """``np.linspace(start, stop, num, endpoint)`` for scalar bounds, of a fixed dtype."""

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

        (gz,) = output_grads
        a, b, n = inputs
        if np.dtype(self.dtype).kind not in "fc":
            return [disconnected_type() for _ in inputs]
        div = n - 1 if self.endpoint else n
        t = cast(arange(n), gz.type.dtype) / cast(tt.maximum(div, 1), gz.type.dtype)
        ga = _grad_like(tt.sum(gz * (1 - t)), a) if _is_float(a) else disconnected_type()
        gb = _grad_like(tt.sum(gz * t), b) if _is_float(b) else disconnected_type()
        return [ga, gb, disconnected_type()]


def linspace(
    start: Any, stop: Any, num: Any = 50, endpoint: bool = True, dtype: Any = None
) -> Variable:
    """``num`` evenly spaced samples from ``start`` to ``stop`` (scalar bounds), as
    ``np.linspace``.

    >>> linspace(0, 1, 5).eval()
    array([0.  , 0.25, 0.5 , 0.75, 1.  ])
    """
    if dtype is None:
        dtype = np.linspace(_sample(start), _sample(stop), 2).dtype
    return Linspace(endpoint, str(np.dtype(dtype)))(start, stop, num)


class Eye(Op):
    """``np.eye(n, m, k)`` of a fixed dtype."""

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


def eye(n: Any, m: Any = None, k: Any = 0, dtype: Any = None) -> Variable:
    """A 2-d array with ones on diagonal ``k`` (``dtype`` defaults to ``floatX``).

    >>> eye(2, 3, 1, dtype="int8").eval()
    array([[0, 1, 0],
           [0, 0, 1]], dtype=int8)
    """
    return Eye(str(np.dtype(dtype or _floatx())))(n, n if m is None else m, k)


def identity(n: Any, dtype: Any = None) -> Variable:
    """The ``n`` by ``n`` identity matrix.

    >>> identity(2).eval()
    array([[1., 0.],
           [0., 1.]])
    """
    return eye(n, dtype=dtype)


# --------------------------------------------------------------------------- Join / Split
class Join(Op):
    """``np.concatenate(tensors, axis)`` for tensors of equal ndim."""

    __props__ = ("axis",)

    def __init__(self, axis: int) -> None:
        self.axis = int(axis)

    def make_node(self, *tensors: Any) -> Apply:
        ts = [as_tensor_variable(t) for t in tensors]
        if not ts:
            raise ValueError("join: need at least one tensor to join")
        nd = ts[0].type.ndim
        if nd == 0:
            raise ValueError("join: zero-dimensional arrays cannot be concatenated")
        shapes = ", ".join(f"{describe(t)} {tuple(t.type.shape)}" for t in ts)
        if any(t.type.ndim != nd for t in ts):
            raise ValueError(f"join: all inputs must have the same number of dims, got {shapes}")
        if not 0 <= self.axis < nd:
            raise ValueError(f"join: axis {self.axis} is out of range for {nd}-d inputs")
        out: list[int | None] = []
        for d in range(nd):
            dims = [t.type.shape[d] for t in ts]
            if d == self.axis:
                out.append(None if None in dims else sum(dims))  # type: ignore[arg-type]
                continue
            known = {s for s in dims if s is not None}
            if len(known) > 1:
                raise ValueError(
                    f"join along axis {self.axis}: dimension {d} differs between {shapes}"
                )
            out.append(known.pop() if known else None)
        dtype = str(np.result_type(*[t.type.dtype for t in ts]))
        return Apply(self, ts, [TensorType(dtype, shape=tuple(out))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        output_storage[0][0] = np.concatenate(
            inputs, axis=self.axis, dtype=node.outputs[0].type.dtype
        )

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        out = []
        for d in range(node.inputs[0].type.ndim):
            dims = [s[d] for s in input_shapes]
            if d == self.axis:
                total = dims[0]
                for s in dims[1:]:
                    total = total + s
                out.append(total)
            else:
                known = [s for s in dims if static_int(s) is not None]
                out.append(known[0] if known else dims[0])
        return [tuple(out)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        (gz,) = output_grads
        sizes = make_vector(*[shape_i(t, self.axis) for t in inputs])
        parts = Split(len(inputs), self.axis)(gz, sizes, return_list=True)
        return [_grad_like(p, t) if _is_float(t) else disconnected_type()
                for p, t in zip(parts, inputs)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        if all(e is None for e in eval_points):
            return [None]
        evs = [zeros_like(t) if e is None else e for t, e in zip(inputs, eval_points)]
        return [self(*evs)]


def _axis_int(axis: Any) -> int:
    k = static_int(axis)
    if k is None:
        raise TypeError(f"the axis must be a constant integer, got {axis!r}")
    return k


def join(axis: Any, *tensors: Any) -> Variable:
    """Concatenate ``tensors`` along ``axis`` (PyTensor's argument order).

    >>> import theon.tensor as tt
    >>> join(0, tt.dmatrix("a"), tt.dmatrix("b")).type.ndim
    2
    """
    ts = [as_tensor_variable(t) for t in tensors]
    if not ts:
        raise ValueError("join: need at least one tensor to join")
    if ts[0].type.ndim == 0:
        raise ValueError("join: zero-dimensional arrays cannot be concatenated")
    ax = normalize_axis(_axis_int(axis), ts[0].type.ndim)
    if len(ts) == 1:
        return ts[0]
    return Join(ax)(*ts)  # type: ignore[no-any-return]


def concatenate(tensor_list: Sequence[Any], axis: Any = 0) -> Variable:
    """Concatenate tensors along ``axis`` (flattened first when ``axis`` is None).

    >>> import theon.tensor as tt
    >>> concatenate([tt.dvector("a"), [1.0, 2.0]]).type.ndim
    1
    """
    if axis is None:
        from theon.tensor.shape import flatten

        return join(0, *[flatten(t) for t in tensor_list])
    return join(axis, *tensor_list)


def stack(tensors: Sequence[Any], axis: int = 0) -> Variable:
    """Join tensors of one shape along a new axis.

    >>> import theon.tensor as tt
    >>> stack([tt.dvector("a"), tt.dvector("b")], axis=1).type.ndim
    2
    """
    ts = [as_tensor_variable(t) for t in tensors]
    if not ts:
        raise ValueError("stack: need at least one tensor to stack")
    nd = ts[0].type.ndim
    if any(t.type.ndim != nd for t in ts):
        raise ValueError(
            "stack: all inputs must have the same shape, got "
            + ", ".join(f"{describe(t)} {tuple(t.type.shape)}" for t in ts)
        )
    ax = normalize_axis(axis, nd + 1)
    return join(ax, *[expand_dims(t, ax) for t in ts])


def hstack(tensors: Sequence[Any]) -> Variable:
    """Stack horizontally: along axis 1, or axis 0 for vectors (as ``np.hstack``).

    >>> import theon.tensor as tt
    >>> hstack([tt.dmatrix("a"), tt.dmatrix("b")]).owner.op.axis
    1
    """
    ts = [as_tensor_variable(t) for t in tensors]
    ts = [shape_padleft(t) if t.type.ndim == 0 else t for t in ts]
    return join(0 if ts[0].type.ndim == 1 else 1, *ts)


def vstack(tensors: Sequence[Any]) -> Variable:
    """Stack vertically, vectors becoming rows (as ``np.vstack``).

    >>> import theon.tensor as tt
    >>> vstack([tt.dvector("a"), tt.dvector("b")]).type.ndim
    2
    """
    ts = [as_tensor_variable(t) for t in tensors]
    ts = [shape_padleft(t, 2 - t.type.ndim) if t.type.ndim < 2 else t for t in ts]
    return join(0, *ts)


class Split(Op):
    """``x`` cut along ``axis`` into ``len_splits`` pieces of the sizes in ``splits``.

    The outputs are views of ``x``.
    """

    __props__ = ("len_splits", "axis")

    def __init__(self, len_splits: int, axis: int = 0) -> None:
        self.len_splits = int(len_splits)
        self.axis = int(axis)
        self.view_map = {i: [0] for i in range(self.len_splits)}

    def make_node(self, x: Any, splits: Any) -> Apply:
        x = as_tensor_variable(x)
        sp = as_tensor_variable(splits)
        if sp.type.ndim != 1 or np.dtype(sp.type.dtype).kind not in "iu":
            raise TypeError(f"split: the sizes must be an int vector, got {describe(sp)}")
        if not 0 <= self.axis < x.type.ndim:
            raise ValueError(f"split: axis {self.axis} is out of range for {describe(x)}")
        entries = static_vector_entries(sp)
        if entries is None:
            entries = (None,) * self.len_splits
        if len(entries) != self.len_splits:
            raise ValueError(
                f"split: {self.len_splits} pieces wanted but {len(entries)} sizes given"
            )
        n = x.type.shape[self.axis]
        if n is not None and None not in entries and sum(entries) != n:  # type: ignore[arg-type]
            raise ValueError(
                f"split: the sizes {tuple(entries)} do not add up to dimension {self.axis} "
                f"of {describe(x)} (static shape {tuple(x.type.shape)})"
            )
        outs = []
        for e in entries:
            if e is not None and e < 0:
                raise ValueError(f"split: negative size {e}")
            shp = list(x.type.shape)
            shp[self.axis] = e
            outs.append(TensorType(x.type.dtype, shape=tuple(shp))())
        return Apply(self, [x, sp], outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        x, sizes = inputs
        if len(sizes) != self.len_splits:
            raise ValueError(f"Split: expected {self.len_splits} sizes, got {len(sizes)}")
        if np.any(sizes < 0) or int(np.sum(sizes)) != x.shape[self.axis]:
            raise ValueError(
                f"Split: sizes {list(sizes)} do not add up to {x.shape[self.axis]}, "
                f"dimension {self.axis} of an array of shape {x.shape}"
            )
        parts = np.split(x, np.cumsum(sizes)[:-1], axis=self.axis)
        for cell, p in zip(output_storage, parts):
            cell[0] = p

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        xs = list(input_shapes[0])
        sizes = shape_scalars(node.inputs[1]) if node.inputs[1].type.shape[0] is not None else [
            _as_int64_scalar(node.inputs[1][i], "split size") for i in range(self.len_splits)
        ]
        out = []
        for s in sizes:
            shp = list(xs)
            shp[self.axis] = s
            out.append(tuple(shp))
        return out

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        x, _ = inputs
        if not _is_float(x):
            return [disconnected_type(), disconnected_type()]
        outs = self(*inputs, return_list=True)
        gs = []
        for g, o in zip(output_grads, outs):
            if isinstance(g.type, DisconnectedType):
                gs.append(zeros_like(o))
            else:
                gs.append(g)
        return [_grad_like(join(self.axis, *gs), x), disconnected_type()]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        if eval_points[0] is None:
            return [None] * self.len_splits
        return list(self(eval_points[0], inputs[1], return_list=True))


def split(x: Any, splits_size: Any, n_splits: int | None = None, axis: int = 0) -> list[Variable]:
    """Cut ``x`` along ``axis`` into pieces of sizes ``splits_size`` (PyTensor's signature).

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> [p.eval({x: [1.0, 2.0, 3.0]}) for p in split(x, [1, 2])]
    [array([1.]), array([2., 3.])]
    """
    x = as_tensor_variable(x)
    sp = as_tensor_variable(splits_size) if isinstance(splits_size, Variable) else make_vector(
        *shape_scalars(splits_size, "split sizes")
    )
    if n_splits is None:
        n_splits = sp.type.shape[0] if sp.type.ndim == 1 else None
        if n_splits is None:
            raise ValueError("split: the number of pieces is not known statically; pass n_splits")
    ax = normalize_axis(axis, x.type.ndim)
    if sp.type.dtype != "int64":
        sp = cast(sp, "int64")
    return Split(n_splits, ax)(x, sp, return_list=True)  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- tile / roll / flip
def _mul_dims(a: Any, b: Any) -> Any:
    ka, kb = static_int(a), static_int(b)
    if ka is not None and kb is not None:
        return ka * kb
    if ka == 1:
        return b
    if kb == 1:
        return a
    return a * b


def tile(x: Any, reps: Any) -> Variable:
    """``x`` repeated ``reps`` times along each axis, as ``np.tile``.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> tile(x, (2, 2)).eval({x: [1.0, 2.0]})
    array([[1., 2., 1., 2.],
           [1., 2., 1., 2.]])
    """
    x = as_tensor_variable(x)
    rs: list[Any] = list(shape_scalars(reps, "tile reps"))
    d = max(len(rs), x.type.ndim)
    rs = [int64_constant(1)] * (d - len(rs)) + rs
    if x.type.ndim < d:
        x = shape_padleft(x, d - x.type.ndim)
    if all(static_int(r) == 1 for r in rs):
        return x
    order: list[Any] = []
    for i in range(d):
        order += ["x", i]
    dims = shape_tuple(x)
    big = alloc(_dimshuffle(x, order), *[v for i in range(d) for v in (rs[i], dims[i])])
    return reshape(big, [_mul_dims(rs[i], dims[i]) for i in range(d)])


def roll(x: Any, shift: Any, axis: Any = None) -> Variable:
    """Roll ``x`` by ``shift`` along ``axis`` (over the flattened array when None).

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> roll(x, 1).eval({x: [1.0, 2.0, 3.0]})
    array([3., 1., 2.])
    """
    from theon import tensor as tt
    from theon.tensor.shape import flatten
    from theon.tensor.subtensor import getitem

    x = as_tensor_variable(x)
    if axis is None:
        return reshape(roll(flatten(x), shift, 0), shape(x), ndim=x.type.ndim)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
    if len(shifts) == 1:
        shifts = tuple(shifts) * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError("roll: shift and axis must have the same length")
    out = x
    for s, a in zip(shifts, axes):
        ax = normalize_axis(a, x.type.ndim)
        n = shape_i(out, ax)
        kn, ks = static_int(n), static_int(s)
        if kn is not None and ks is not None:
            k: Any = ks % kn if kn else 0
            if k == 0:
                continue
            cut: Any = kn - k
        else:
            sv = _as_int64_scalar(s, "roll shift")
            cut = n - sv % tt.maximum(n, 1)
        pre = (slice(None),) * ax
        head = getitem(out, (*pre, slice(cut, None)))
        out = join(ax, head, getitem(out, (*pre, slice(None, cut))))
    return out


def flip(x: Any, axis: Any = None) -> Variable:
    """``x`` with the order of elements reversed along ``axis`` (all axes when None).

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> flip(x, 1).eval({x: [[1.0, 2.0]]})
    array([[2., 1.]])
    """
    from theon.tensor.subtensor import getitem

    x = as_tensor_variable(x)
    axes = range(x.type.ndim) if axis is None else normalize_axes(axis, x.type.ndim)
    idx = tuple(slice(None, None, -1) if d in axes else slice(None) for d in range(x.type.ndim))
    if not idx:
        return x
    return getitem(x, idx)
