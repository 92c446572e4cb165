"""Joining and cutting arrays: join, concatenate, stack, split, tile, roll, flip.

>>> import theon.tensor as tt
>>> a = tt.dvector("a")
>>> concatenate([a, a]).eval({a: [1.0, 2.0]})
array([1., 2., 1., 2.])
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.fg import describe
from theon.graph.null_type import DisconnectedType, disconnected_type
from theon.graph.op import Op
from theon.tensor.arguments import as_int_tuple
from theon.tensor.basic import TensorOp, as_tensor_variable, cast
from theon.tensor.creation import _grad_like, _is_float, alloc
from theon.tensor.math import zeros_like
from theon.tensor.reshaping import _dimshuffle, expand_dims, reshape, shape_padleft
from theon.tensor.shape import (
    _as_int64_scalar,
    int64_constant,
    make_vector,
    normalize_axes,
    normalize_axis,
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
    "Join",
    "Split",
    "static_axis",
    "concatenate",
    "flip",
    "hstack",
    "join",
    "roll",
    "split",
    "stack",
    "tile",
    "vstack",
]


# --------------------------------------------------------------------------- Join / Split
def _axis_input(axis: Any, ndim: int | None, what: str) -> TensorVariable:
    """``axis`` as an integer 0-d tensor; a constant one is made non-negative (checked
    against ``ndim`` when known)."""
    a = as_tensor_variable(axis)
    if a.type.ndim != 0 or np.dtype(a.type.dtype).kind not in "iu":
        raise TypeError(f"{what}: the axis must be an integer scalar, got {describe(a)}")
    k = static_int(a)
    if k is not None and ndim is not None:
        nk = normalize_axis(k, ndim, f"{what}: axis")
        if nk != k:
            a = int64_constant(nk)
    return a


def _if_axis(axis: Variable, ndim: int, d: int, then: Any, other: Any) -> TensorVariable:
    """``then`` where the run-time ``axis`` (possibly negative) is dimension ``d``."""
    from theon.tensor.math import eq, or_, switch

    return switch(or_(eq(axis, d), eq(axis, d - ndim)), then, other)


def static_axis(node: Apply) -> int | None:
    """The axis of a ``Join`` or ``Split`` node when it is a constant (non-negative, as
    ``make_node`` stores a constant one), else None.

    >>> import theon.tensor as tt
    >>> a = tt.dmatrix("a")
    >>> static_axis(join(-1, a, a).owner)
    1
    """
    axis = node.inputs[0] if isinstance(node.op, Join) else node.inputs[1]
    return static_int(axis)


class Join(TensorOp):
    """``np.concatenate(tensors, axis)`` for tensors of equal ndim, PyTensor's form:
    ``Join()(axis, *tensors)``, the axis an integer scalar input (its first).

    A constant axis is stored non-negative, and gives the output's static shape; an
    axis computed at run time is allowed (the static lengths are then unknown).

    >>> import theon.tensor as tt
    >>> a, b = tt.dvector("a"), tt.dvector("b")
    >>> Join()(0, a, b).eval({a: [1.0], b: [2.0, 3.0]})
    array([1., 2., 3.])
    """

    __props__ = ()

    def make_node(self, axis: Any, *tensors: Any) -> Apply:
        ts = [as_tensor_variable(t) for t in tensors]
        if not ts:
            raise ValueError("join: need at least one tensor to join")
        nd = ts[0].type.ndim
        if nd == 0:
            raise ValueError("join: zero-dimensional arrays cannot be concatenated")
        shapes = ", ".join(f"{describe(t)} {tuple(t.type.shape)}" for t in ts)
        if any(t.type.ndim != nd for t in ts):
            raise ValueError(f"join: all inputs must have the same number of dims, got {shapes}")
        ax = _axis_input(axis, nd, "join")
        k = static_int(ax)
        out: list[int | None] = []
        for d in range(nd):
            dims = [t.type.shape[d] for t in ts]
            if k is None or d == k:
                sizes = [s for s in dims if s is not None]
                out.append(sum(sizes) if k is not None and len(sizes) == len(dims) else None)
                continue
            known = {s for s in dims if s is not None}
            if len(known) > 1:
                raise ValueError(f"join along axis {k}: dimension {d} differs between {shapes}")
            out.append(known.pop() if known else None)
        dtype = str(np.result_type(*[t.type.dtype for t in ts]))
        return Apply(self, [ax, *ts], [TensorType(dtype, shape=tuple(out))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        axis, *arrays = inputs
        output_storage[0][0] = np.concatenate(
            arrays, axis=int(axis), dtype=tensor_type(node.outputs[0]).dtype
        )

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        k = static_axis(node)
        shapes = input_shapes[1:]
        out = []
        for d in range(tensor_type(node.outputs[0]).ndim):
            dims = [s[d] for s in shapes]
            total = dims[0]
            for s in dims[1:]:
                total = total + s
            known = [s for s in dims if static_int(s) is not None]
            other = known[0] if known else dims[0]
            if k is not None:
                out.append(total if d == k else other)
            else:  # the axis is known when the function runs
                out.append(_if_axis(node.inputs[0], len(shapes[0]), d, total, other))
        return [tuple(out)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        (gz,) = output_grads
        axis, *pieces = inputs
        k = static_int(axis)
        sizes = make_vector(*[shape_i(t, k) if k is not None else shape(t)[axis]
                              for t in pieces])
        parts = Split(len(pieces))(gz, axis, sizes, return_list=True)
        return [disconnected_type()] + [
            _grad_like(p, t) if _is_float(t) else disconnected_type()
            for p, t in zip(parts, pieces)
        ]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        axis, *pieces = inputs
        points = eval_points[1:]
        if all(e is None for e in points):
            return [None]
        evs = [zeros_like(t) if e is None else e for t, e in zip(pieces, points)]
        return [self(axis, *evs)]


_join = Join()


def join(axis: Any, *tensors: Any) -> TensorVariable:
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
    if len(ts) == 1:
        _axis_input(axis, ts[0].type.ndim, "join")  # (checked all the same)
        return ts[0]
    return _join(axis, *ts)


def concatenate(tensor_list: Sequence[Any], axis: Any = 0) -> TensorVariable:
    """Concatenate tensors along ``axis`` (flattened first when ``axis`` is None).

    >>> import theon.tensor as tt
    >>> concatenate([tt.dvector("a"), [1.0, 2.0]]).type.ndim
    1
    """
    if axis is None:
        from theon.tensor.reshaping import flatten

        return join(0, *[flatten(t) for t in tensor_list])
    return join(axis, *tensor_list)


def stack(*tensors: Any, axis: int = 0) -> TensorVariable:
    """Join tensors of one shape along a new axis: ``stack([a, b], axis)``, or
    Theano's ``stack(a, b, c)`` with the tensors as separate arguments.

    >>> import theon.tensor as tt
    >>> stack([tt.dvector("a"), tt.dvector("b")], axis=1).type.ndim
    2
    >>> a, b = tt.dscalars("ab")
    >>> stack(a, b).eval({a: 1.0, b: 2.0})
    array([1., 2.])
    """
    first = tensors[0] if tensors else None
    if (
        first is not None
        and (
            isinstance(first, (list, tuple, Iterator))
            or isinstance(first, np.ndarray) and first.ndim > 0
        )
        and (len(tensors) == 1 or len(tensors) == 2 and isinstance(tensors[1], (int, np.integer)))
    ):
        if len(tensors) == 2:  # stack([a, b], 1)
            axis = int(tensors[1])
        tensors = tuple(first)
    ts = [as_tensor_variable(t) for t in tensors]
    if not ts:
        raise ValueError("stack: need at least one tensor to stack")
    nd = ts[0].type.ndim
    if any(t.type.ndim != nd for t in ts):
        raise ValueError(
            "stack: all inputs must have the same shape, got "
            + ", ".join(f"{describe(t)} {tuple(t.type.shape)}" for t in ts)
        )
    ax = normalize_axis(axis, nd + 1, "stack: axis (of the result)")
    return join(ax, *[expand_dims(t, ax) for t in ts])


def hstack(tensors: Sequence[Any]) -> TensorVariable:
    """Stack horizontally: along axis 1, or axis 0 for vectors (as ``np.hstack``).

    >>> import theon.tensor as tt
    >>> static_axis(hstack([tt.dmatrix("a"), tt.dmatrix("b")]).owner)
    1
    """
    ts = [as_tensor_variable(t) for t in tensors]
    ts = [shape_padleft(t) if t.type.ndim == 0 else t for t in ts]
    return join(0 if ts[0].type.ndim == 1 else 1, *ts)


def vstack(tensors: Sequence[Any]) -> TensorVariable:
    """Stack vertically, vectors becoming rows (as ``np.vstack``).

    >>> import theon.tensor as tt
    >>> vstack([tt.dvector("a"), tt.dvector("b")]).type.ndim
    2
    """
    ts = [as_tensor_variable(t) for t in tensors]
    ts = [shape_padleft(t, 2 - t.type.ndim) if t.type.ndim < 2 else t for t in ts]
    return join(0, *ts)


class Split(Op):
    """``x`` cut along ``axis`` into ``len_splits`` pieces of the sizes in ``splits``,
    PyTensor's form: ``Split(len_splits)(x, axis, splits)``.

    The outputs are views of ``x``.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> parts = Split(2)(x, 0, [1, 2], return_list=True)
    >>> [p.eval({x: [1.0, 2.0, 3.0]}) for p in parts]
    [array([1.]), array([2., 3.])]
    """

    __props__ = ("len_splits",)

    def __init__(self, len_splits: int) -> None:
        self.len_splits = int(len_splits)
        self.view_map = {i: [0] for i in range(self.len_splits)}

    def make_node(self, x: Any, axis: Any, splits: Any) -> Apply:
        x = as_tensor_variable(x)
        ax = _axis_input(axis, x.type.ndim, "split")
        k = static_int(ax)
        sp = as_tensor_variable(splits)
        if sp.type.ndim != 1 or np.dtype(sp.type.dtype).kind not in "iu":
            raise TypeError(f"split: the sizes must be an int vector, got {describe(sp)}")
        entries = static_vector_entries(sp)
        if entries is None:
            entries = (None,) * self.len_splits
        if len(entries) != self.len_splits:
            raise ValueError(
                f"split: {self.len_splits} pieces wanted but {len(entries)} sizes given"
            )
        n = x.type.shape[k] if k is not None else None
        sizes = [s for s in entries if s is not None]
        if n is not None and len(sizes) == len(entries) and sum(sizes) != n:
            raise ValueError(
                f"split: the sizes {tuple(entries)} do not add up to dimension {k} "
                f"of {describe(x)} (static shape {tuple(x.type.shape)})"
            )
        outs = []
        for e in entries:
            if e is not None and e < 0:
                raise ValueError(f"split: negative size {e}")
            shp: list[int | None] = list(x.type.shape)
            if k is None:
                shp = [None] * len(shp)
            else:
                shp[k] = e
            outs.append(TensorType(x.type.dtype, shape=tuple(shp))())
        return Apply(self, [x, ax, sp], outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        x, axis, sizes = inputs
        axis = int(axis)
        if len(sizes) != self.len_splits:
            raise ValueError(f"Split: expected {self.len_splits} sizes, got {len(sizes)}")
        if np.any(sizes < 0) or int(np.sum(sizes)) != x.shape[axis]:
            raise ValueError(
                f"Split: sizes {list(sizes)} do not add up to {x.shape[axis]}, "
                f"dimension {axis} of an array of shape {x.shape}"
            )
        parts = np.split(x, np.cumsum(sizes)[:-1], axis=axis)
        for cell, p in zip(output_storage, parts):
            cell[0] = p

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        xs = list(input_shapes[0])
        k = static_axis(node)
        sp = tensor_vars(node.inputs)[2]
        sizes = shape_scalars(sp) if sp.type.shape[0] is not None else [
            _as_int64_scalar(sp[i], "split size") for i in range(self.len_splits)
        ]
        out = []
        for s in sizes:
            if k is not None:
                shp = list(xs)
                shp[k] = s
            else:  # the axis is known when the function runs
                shp = [_if_axis(node.inputs[1], len(xs), d, s, xd) for d, xd in enumerate(xs)]
            out.append(tuple(shp))
        return out

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        x, axis, _ = inputs
        rest = [disconnected_type(), disconnected_type()]
        if not _is_float(x):
            return [disconnected_type(), *rest]
        outs = self(*inputs, return_list=True)
        gs: list[Variable] = []
        for g, o in zip(output_grads, outs):
            if isinstance(g.type, DisconnectedType):
                gs.append(zeros_like(o))
            else:
                gs.append(g)
        return [_grad_like(_join(axis, *gs), x), *rest]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        if eval_points[0] is None:
            return [None] * self.len_splits
        return list(self(eval_points[0], inputs[1], inputs[2], return_list=True))


def split(
    x: Any, splits_size: Any, n_splits: int | None = None, axis: int = 0
) -> list[TensorVariable]:
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
    if sp.type.dtype != "int64":
        sp = cast(sp, "int64")
    parts: list[TensorVariable] = Split(n_splits)(x, axis, sp, return_list=True)
    return parts


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


def tile(x: Any, reps: Any) -> TensorVariable:
    """``x`` repeated ``reps`` times along each axis, as ``np.tile``.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> tile(x, (2, 2)).eval({x: [1.0, 2.0]})
    array([[1., 2., 1., 2.],
           [1., 2., 1., 2.]])
    """
    t = as_tensor_variable(x)
    rs: list[Any] = list(shape_scalars(reps, "tile reps"))
    d = max(len(rs), t.type.ndim)
    rs = [int64_constant(1)] * (d - len(rs)) + rs
    if t.type.ndim < d:
        t = shape_padleft(t, d - t.type.ndim)
    if all(static_int(r) == 1 for r in rs):
        return t
    order: list[Any] = []
    for i in range(d):
        order += ["x", i]
    dims = shape_tuple(t)
    big = alloc(_dimshuffle(t, order), *[v for i in range(d) for v in (rs[i], dims[i])])
    return reshape(big, [_mul_dims(rs[i], dims[i]) for i in range(d)])


def roll(x: Any, shift: Any, axis: Any = None) -> TensorVariable:
    """Roll ``x`` by ``shift`` along ``axis`` (over the flattened array when None).

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> roll(x, 1).eval({x: [1.0, 2.0, 3.0]})
    array([3., 1., 2.])
    """
    from theon import tensor as tt
    from theon.tensor.reshaping import flatten
    from theon.tensor.subtensor import getitem

    v = as_tensor_variable(x)
    if axis is None:
        return reshape(roll(flatten(v), shift, 0), shape(v), ndim=v.type.ndim)
    axes = as_int_tuple(axis, "roll: axis")
    many = isinstance(shift, (tuple, list)) or (isinstance(shift, np.ndarray) and shift.ndim)
    shifts = tuple(shift) if many else (shift,)
    if len(shifts) == 1:
        shifts = tuple(shifts) * len(axes)
    if len(axes) == 1 and len(shifts) > 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError("roll: shift and axis must have the same length")
    out = v
    for s, a in zip(shifts, axes):
        ax = normalize_axis(a, v.type.ndim, "roll: axis", v)
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


def flip(x: Any, axis: Any = None) -> TensorVariable:
    """``x`` with the order of elements reversed along ``axis`` (all axes when None).

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> flip(x, 1).eval({x: [[1.0, 2.0]]})
    array([[2., 1.]])
    """
    from theon.tensor.subtensor import getitem

    v = as_tensor_variable(x)
    axes = range(v.type.ndim) if axis is None else normalize_axes(axis, v.type.ndim,
                                                                  "flip: axis", v)
    idx = tuple(slice(None, None, -1) if d in axes else slice(None) for d in range(v.type.ndim))
    if not idx:
        return v
    return getitem(v, idx)
