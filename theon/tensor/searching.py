"""Finding and counting: ``unique``, ``searchsorted``, ``bincount``, ``ravel_multi_index``,
``unravel_index``; and the index compositions ``compress``, ``nonzero_values``,
``inverse_permutation``, ``permute_row_elements``, ``put_along_axis``.

The Ops (:class:`Unique`, :class:`SearchSorted`, :class:`Bincount`,
:class:`RavelMultiIndex`, :class:`UnravelIndex`) compute with NumPy, so their values,
dtypes and errors are NumPy's; their JAX rules are in
``theon.backends.jax.searching``.

>>> import theon.tensor as tt
>>> v = tt.dvector("v")
>>> searchsorted([1.0, 2.0, 3.0], v).eval({v: [0.5, 2.0, 9.0]})
array([0, 1, 3])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type
from theon.graph.op import Op
from theon.tensor.arguments import as_int
from theon.tensor.basic import TensorOp, as_tensor_variable, cast
from theon.tensor.type import TensorType, integer_dtypes, tensor_type, tensor_vars
from theon.tensor.variable import TensorVariable

__all__ = [
    "Bincount",
    "RavelMultiIndex",
    "SearchSorted",
    "Unique",
    "UnravelIndex",
    "bincount",
    "compress",
    "inverse_permutation",
    "nonzero_values",
    "permute_row_elements",
    "put_along_axis",
    "ravel_multi_index",
    "searchsorted",
    "unique",
    "unravel_index",
]


def _int_input(v: Any, what: str) -> TensorVariable:
    t = as_tensor_variable(v)
    if t.type.dtype not in integer_dtypes:
        raise TypeError(f"{what} must be integers, got {describe(t)}")
    return t


def _int64(shape: tuple[int | None, ...]) -> TensorVariable:
    return TensorType("int64", shape=shape)()


# --------------------------------------------------------------------------- unique
class Unique(Op):
    """``numpy.unique(x, return_index, return_inverse, return_counts, axis)``: the sorted
    unique values (nan counted once), then the requested int64 outputs in NumPy's order.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> vals, counts = Unique(return_counts=True)(x)
    >>> counts.eval({x: [3.0, 1.0, 3.0]})
    array([1, 2])
    """

    __props__ = ("return_index", "return_inverse", "return_counts", "axis")

    def __init__(self, return_index: bool = False, return_inverse: bool = False,
                 return_counts: bool = False, axis: int | None = None) -> None:
        self.return_index = bool(return_index)
        self.return_inverse = bool(return_inverse)
        self.return_counts = bool(return_counts)
        self.axis = axis

    def make_node(self, x: Any) -> Apply:
        v = as_tensor_variable(x)
        if self.axis is None:
            vals = TensorType(v.type.dtype, shape=(None,))()
            inverse = _int64(v.type.shape)  # NumPy 2: the inverse has x's shape
        else:
            if not 0 <= self.axis < v.type.ndim:
                raise ValueError(f"unique: axis {self.axis} is out of range for {describe(v)}")
            shape = list(v.type.shape)
            shape[self.axis] = None
            vals = TensorType(v.type.dtype, shape=tuple(shape))()
            inverse = _int64((v.type.shape[self.axis],))
        outs = [vals]
        if self.return_index:
            outs.append(_int64((None,)))
        if self.return_inverse:
            outs.append(inverse)
        if self.return_counts:
            outs.append(_int64((None,)))
        return Apply(self, [v], outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        fn: Any = np.unique  # (its overloads want literal flags)
        res = fn(inputs[0], return_index=self.return_index,
                        return_inverse=self.return_inverse, return_counts=self.return_counts,
                        axis=self.axis)
        parts = res if isinstance(res, tuple) else (res,)
        for k, (cell, value) in enumerate(zip(output_storage, parts)):
            dt = tensor_type(node.outputs[k]).dtype
            cell[0] = np.asarray(value, dtype=dt)

    def _count(self, x: TensorVariable) -> Any:
        """The number of unique values (axis None) as a graph of a sort, not of Unique."""
        from theon.tensor.math import isnan, neq
        from theon.tensor.reduction import sum as tsum
        from theon.tensor.reshaping import flatten
        from theon.tensor.sort import sort

        s = sort(flatten(x))
        a, b = s[1:], s[:-1]
        new = neq(a, b)
        if x.type.dtype.startswith(("float", "complex")):
            new = new & ~(isnan(a) & isnan(b))  # nan equals nan here, as in NumPy
        n = s.shape[0]
        return cast(n > 0, "int64") + tsum(new, dtype="int64")

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        (x,) = tensor_vars(node.inputs)
        if self.axis is None:
            n: Any = self._count(x)
        else:  # the number of unique slices: a unique of its own (no cheaper graph)
            n = Unique(axis=self.axis)(x).shape[self.axis]
        shapes: list[Any] = []
        xs = list(input_shapes[0])
        if self.axis is None:
            shapes.append((n,))
        else:
            shapes.append(tuple(n if d == self.axis else s for d, s in enumerate(xs)))
        if self.return_index:
            shapes.append((n,))
        if self.return_inverse:
            shapes.append(tuple(xs) if self.axis is None else (xs[self.axis],))
        if self.return_counts:
            shapes.append((n,))
        return shapes

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        """Where no two entries are equal, the unique values are the entries at ``index``:
        their gradient goes to those entries (the other outputs are integers)."""
        from theon.graph.null_type import DisconnectedType
        from theon.tensor.math import zeros_like
        from theon.tensor.reshaping import flatten, reshape
        from theon.tensor.subtensor import inc_subtensor

        (x,) = tensor_vars(inputs)
        gz = output_grads[0]
        if isinstance(gz.type, DisconnectedType) or not x.type.dtype.startswith("float"):
            return [disconnected_type()]
        index = Unique(return_index=True, axis=self.axis)(x)[1]
        if self.axis is None:
            g = inc_subtensor(flatten(zeros_like(x))[index], gz)
            return [reshape(g, x.shape, ndim=x.type.ndim)]
        key = (slice(None),) * self.axis + (index,)
        return [inc_subtensor(zeros_like(x)[key], gz)]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        """Only the unique values depend differentiably on ``x``."""
        return [[True] + [False] * (len(node.outputs) - 1)]


def unique(ar: Any, return_index: bool = False, return_inverse: bool = False,
           return_counts: bool = False, axis: int | None = None) -> Any:
    """The sorted unique elements of ``ar`` (of its slices along ``axis``), like
    ``numpy.unique``: one variable, or a list with the indices of first occurrences,
    the inverse (``ar``'s shape when ``axis`` is None, as in NumPy 2) and the counts
    as requested.

    >>> import theon.tensor as tt
    >>> x = tt.lvector("x")
    >>> unique(x).eval({x: [3, 1, 3, 2]})
    array([1, 2, 3])
    """
    v = as_tensor_variable(ar)
    ax = None
    if axis is not None:
        ax = as_int(axis, "unique: axis")
        if not -v.type.ndim <= ax < v.type.ndim:
            raise ValueError(f"unique: axis {axis} is out of range for {describe(v)}")
        ax %= v.type.ndim
    op = Unique(return_index, return_inverse, return_counts, ax)
    if not (return_index or return_inverse or return_counts):
        out: TensorVariable = op(v)
        return out
    return op(v, return_list=True)


# --------------------------------------------------------------------------- searchsorted
class SearchSorted(TensorOp):
    """``numpy.searchsorted(a, v, side, sorter)``: int64 insertion points, ``v``'s shape.

    >>> import theon.tensor as tt
    >>> a = tt.dvector("a")
    >>> SearchSorted("right")(a, 2.0).eval({a: [1.0, 2.0, 3.0]})
    array(2)
    """

    __props__ = ("side",)

    def __init__(self, side: str = "left") -> None:
        if side not in ("left", "right"):
            raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
        self.side = side

    def make_node(self, a: Any, v: Any, sorter: Any = None) -> Apply:
        x, val = as_tensor_variable(a), as_tensor_variable(v)
        if x.type.ndim != 1:
            raise ValueError(f"searchsorted: the sorted array must be 1-d, got {describe(x)}")
        ins = [x, val]
        if sorter is not None:
            s = _int_input(sorter, "searchsorted: sorter")
            if s.type.ndim != 1:
                raise ValueError(f"searchsorted: sorter must be 1-d, got {describe(s)}")
            ins.append(s)
        return Apply(self, ins, [_int64(val.type.shape)])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        a, v = inputs[0], inputs[1]
        sorter = inputs[2] if len(inputs) > 2 else None
        fn: Any = np.searchsorted
        out = fn(a, v, side=self.side, sorter=sorter)
        output_storage[0][0] = np.asarray(out, dtype="int64")

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        return [tuple(input_shapes[1])]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [disconnected_type() for _ in inputs]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        """Insertion points are integers: no input is differentiably connected."""
        return [[False] for _ in node.inputs]


def searchsorted(x: Any, v: Any, side: str = "left", sorter: Any = None) -> TensorVariable:
    """The indices at which the values ``v`` would be inserted into the sorted vector
    ``x`` to keep it sorted, like ``numpy.searchsorted`` (``sorter``: the permutation
    that sorts ``x``).

    >>> import theon.tensor as tt
    >>> searchsorted([1, 2, 3, 4, 5], 3, side="right").eval()
    array(3)
    """
    return SearchSorted(side)(x, v, sorter)


# --------------------------------------------------------------------------- bincount
class Bincount(TensorOp):
    """``numpy.bincount(x, weights, minlength)``: int64 counts, or float64 sums of
    ``weights``; NumPy's error for a negative entry.

    >>> import theon.tensor as tt
    >>> x = tt.lvector("x")
    >>> Bincount(4)(x).eval({x: [0, 2, 2]})
    array([1, 0, 2, 0])
    """

    __props__ = ("minlength",)

    def __init__(self, minlength: int = 0) -> None:
        self.minlength = int(minlength)

    def make_node(self, x: Any, weights: Any = None) -> Apply:
        v = _int_input(x, "bincount: x")
        if v.type.ndim != 1:
            raise ValueError(f"bincount: x must be 1-d, got {describe(v)}")
        ins = [v]
        dtype = "int64"
        if weights is not None:
            w = as_tensor_variable(weights)
            if w.type.ndim != 1 or w.type.dtype.startswith("complex"):
                raise TypeError(f"bincount: weights must be a real vector, got {describe(w)}")
            ins.append(w)
            dtype = "float64"
        return Apply(self, ins, [TensorType(dtype, shape=(None,))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        w = inputs[1] if len(inputs) > 1 else None
        out = np.bincount(inputs[0], weights=w, minlength=self.minlength)
        output_storage[0][0] = np.asarray(out, dtype=tensor_type(node.outputs[0]).dtype)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        from theon.tensor.joining import concatenate
        from theon.tensor.math import maximum
        from theon.tensor.reduction import max as tmax

        x = tensor_vars(node.inputs)[0]
        top = tmax(concatenate([cast(x, "int64"), np.array([-1], dtype="int64")]))
        return [(maximum(top + 1, self.minlength),)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        (gz,) = output_grads
        if len(inputs) == 1:
            return [disconnected_type()]
        x, w = tensor_vars(inputs)
        gw = tensor_vars([gz])[0][x]
        if w.type.dtype != gw.type.dtype:
            gw = cast(gw, w.type.dtype)
        return [disconnected_type(), gw]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        """The counts do not depend differentiably on ``x``; the sums do on ``weights``."""
        return [[False]] + [[True] for _ in node.inputs[1:]]


def bincount(x: Any, weights: Any = None, minlength: Any = None,
             assert_nonneg: bool = False) -> TensorVariable:
    """The number of occurrences of each value ``0 .. max(x)`` in the non-negative
    integer vector ``x`` (at least ``minlength`` bins), or the sum of ``weights`` at
    each value, like ``numpy.bincount`` (int64 counts, float64 sums; a negative entry
    raises, whatever PyTensor's ``assert_nonneg`` says).

    >>> import theon.tensor as tt
    >>> x = tt.lvector("x")
    >>> bincount(x, weights=[0.5, 1.0, 2.0]).eval({x: [1, 1, 3]})
    array([0. , 1.5, 0. , 2. ])
    """
    m = 0 if minlength is None else as_int(minlength, "bincount: minlength")
    if m < 0:
        raise ValueError(f"bincount: minlength must be non-negative, got {m}")
    return Bincount(m)(x, weights)


# --------------------------------------------------------------------------- multi-index
def _dims_input(dims: Any, what: str) -> TensorVariable:
    d = _int_input(dims if isinstance(dims, Variable) else np.asarray(dims, dtype="int64"),
                   f"{what}: dims")
    if d.type.ndim != 1:
        raise ValueError(f"{what}: dims must be a vector of lengths, got {describe(d)}")
    return d


class RavelMultiIndex(TensorOp):
    """``numpy.ravel_multi_index(multi_index, dims, mode, order)``; the inputs are the
    index arrays, then ``dims``.

    >>> import theon.tensor as tt
    >>> i, j = tt.lvector("i"), tt.lvector("j")
    >>> RavelMultiIndex()(i, j, [3, 4]).eval({i: [1, 2], j: [0, 3]})
    array([ 4, 11])
    """

    __props__ = ("mode", "order")

    def __init__(self, mode: Any = "raise", order: str = "C") -> None:
        modes = (mode,) if isinstance(mode, str) else tuple(mode)
        for m in modes:
            if m not in ("raise", "wrap", "clip"):
                raise ValueError(f"ravel_multi_index: mode must be 'raise', 'wrap' or 'clip', "
                                 f"got {m!r}")
        if order not in ("C", "F"):
            raise ValueError(f"ravel_multi_index: order must be 'C' or 'F', got {order!r}")
        self.mode = mode if isinstance(mode, str) else modes
        self.order = order

    def make_node(self, *args: Any) -> Apply:
        if len(args) < 2:
            raise TypeError("RavelMultiIndex takes the index arrays, then dims")
        idx = [_int_input(a, "ravel_multi_index: multi_index") for a in args[:-1]]
        dims = _dims_input(args[-1], "ravel_multi_index")
        if dims.type.shape[0] not in (None, len(idx)):
            raise ValueError(f"ravel_multi_index: {len(idx)} index arrays for "
                             f"{dims.type.shape[0]} dims")
        nd = max(i.type.ndim for i in idx)
        shape: list[int | None] = [1] * nd
        for i in idx:
            for d, s in enumerate(i.type.shape, start=nd - i.type.ndim):
                shape[d] = s if shape[d] == 1 else shape[d] if s in (1, None) else s
        return Apply(self, [*idx, dims], [_int64(tuple(shape))])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        *idx, dims = inputs
        fn: Any = np.ravel_multi_index
        out = fn(tuple(idx), tuple(int(d) for d in dims), mode=self.mode,
                                   order=self.order)
        output_storage[0][0] = np.asarray(out, dtype="int64")

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        from theon.tensor.math import maximum

        shapes = input_shapes[:-1]
        nd = max(len(s) for s in shapes)
        out: list[Any] = []
        for d in range(nd):
            dims = [s[d - (nd - len(s))] for s in shapes if d >= nd - len(s)]
            known = [tensor_type(node.inputs[k]).shape[d - (nd - len(s))]
                     for k, s in enumerate(shapes) if d >= nd - len(s)]
            picks = [s for s, k in zip(dims, known) if k != 1]
            if not picks:
                out.append(1)
                continue
            m = picks[0]
            for s in picks[1:]:
                m = maximum(m, s)
            out.append(m)
        return [tuple(out)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [disconnected_type() for _ in inputs]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        """Flat indices are integers: nothing is differentiably connected."""
        return [[False] for _ in node.inputs]


def ravel_multi_index(multi_index: Sequence[Any], dims: Any, mode: Any = "raise",
                      order: str = "C") -> TensorVariable:
    """The flat indices of the index tuples ``multi_index`` into an array of shape
    ``dims``, like ``numpy.ravel_multi_index``.

    >>> ravel_multi_index(([1, 2], [0, 3]), (3, 4)).eval()
    array([ 4, 11])
    """
    return RavelMultiIndex(mode, order)(*multi_index, dims)


class UnravelIndex(Op):
    """``numpy.unravel_index(indices, dims, order)``: one int64 array per dimension.

    >>> import theon.tensor as tt
    >>> i = tt.lvector("i")
    >>> [v.eval({i: [4, 11]}).tolist() for v in UnravelIndex()(i, [3, 4])]
    [[1, 2], [0, 3]]
    """

    __props__ = ("order",)

    def __init__(self, order: str = "C") -> None:
        if order not in ("C", "F"):
            raise ValueError(f"unravel_index: order must be 'C' or 'F', got {order!r}")
        self.order = order

    def make_node(self, indices: Any, dims: Any) -> Apply:
        idx = _int_input(indices, "unravel_index: indices")
        d = _dims_input(dims, "unravel_index")
        n = d.type.shape[0]
        if n is None:
            raise ValueError(f"unravel_index: the number of dims must be known, got {describe(d)}")
        return Apply(self, [idx, d], [_int64(idx.type.shape) for _ in range(n)])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        idx, dims = inputs
        fn: Any = np.unravel_index
        res = fn(idx, tuple(int(x) for x in dims), order=self.order)
        for cell, value in zip(output_storage, res):
            cell[0] = np.asarray(value, dtype="int64")

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        return [tuple(input_shapes[0]) for _ in node.outputs]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [disconnected_type() for _ in inputs]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        """Indices are integers: nothing is differentiably connected."""
        return [[False] * len(node.outputs) for _ in node.inputs]


def unravel_index(indices: Any, dims: Any, order: str = "C") -> tuple[TensorVariable, ...]:
    """The index tuple of each flat index into an array of shape ``dims`` (whose length
    must be known), like ``numpy.unravel_index``.

    >>> [v.eval().tolist() for v in unravel_index([4, 11], (3, 4))]
    [[1, 2], [0, 3]]
    """
    outs: list[TensorVariable] = UnravelIndex(order)(indices, dims, return_list=True)
    return tuple(outs)


# --------------------------------------------------------------------------- compositions
def compress(condition: Any, x: Any, axis: int | None = None) -> TensorVariable:
    """The slices of ``x`` along ``axis`` (of the flattened ``x`` when None) where the
    1-d ``condition`` is true, like ``numpy.compress``.

    >>> import theon.tensor as tt
    >>> m = tt.dmatrix("m")
    >>> compress([True, False, True], m, axis=1).eval({m: [[1.0, 2.0, 3.0]]})
    array([[1., 3.]])
    """
    from theon.tensor.extra_ops import nonzero
    from theon.tensor.subtensor import take

    c = as_tensor_variable(condition)
    if c.type.ndim != 1:
        raise ValueError(f"compress: condition must be 1-d, got {describe(c)}")
    return take(x, nonzero(c)[0], axis=axis)


def nonzero_values(a: Any) -> TensorVariable:
    """The non-zero elements of ``a``, flattened in C order (``a[nonzero(a)]``).

    >>> import theon.tensor as tt
    >>> m = tt.dmatrix("m")
    >>> nonzero_values(m).eval({m: [[0.0, 2.0], [3.0, 0.0]]})
    array([2., 3.])
    """
    from theon.tensor.extra_ops import flatnonzero
    from theon.tensor.reshaping import flatten

    v = as_tensor_variable(a)
    return flatten(v)[flatnonzero(v)]


def inverse_permutation(perm: Any) -> TensorVariable:
    """The inverse of each permutation along the last axis of ``perm``
    (``argsort(perm, axis=-1)``, computed by one scatter).

    >>> import theon.tensor as tt
    >>> p = tt.lvector("p")
    >>> inverse_permutation(p).eval({p: [2, 0, 1]})
    array([1, 2, 0])
    """
    from theon.tensor.creation import arange, broadcast_to
    from theon.tensor.math import zeros_like
    from theon.tensor.sort import PutAlongAxis

    p = _int_input(perm, "inverse_permutation: perm")
    if p.type.ndim < 1:
        raise ValueError(f"inverse_permutation: needs at least 1 dimension, got {describe(p)}")
    ax = p.type.ndim - 1
    positions = broadcast_to(cast(arange(p.shape[ax]), p.type.dtype), p.shape)
    return PutAlongAxis(ax, accumulate=False)(zeros_like(p), p, positions)


def permute_row_elements(x: Any, y: Any, inverse: bool = False) -> TensorVariable:
    """Each row (last axis) of ``x`` permuted by the matching row of the permutations
    ``y``: ``out[..., i] = x[..., y[..., i]]`` (``out[..., y[..., i]] = x[..., i]`` when
    ``inverse``); the leading axes of ``x`` and ``y`` broadcast.

    >>> import theon.tensor as tt
    >>> m, p = tt.dmatrix("m"), tt.lvector("p")
    >>> permute_row_elements(m, p).eval({m: [[1.0, 2.0, 3.0]], p: [2, 0, 1]})
    array([[3., 1., 2.]])
    """
    from theon.tensor.creation import broadcast_to
    from theon.tensor.layout import broadcast_shape
    from theon.tensor.sort import TakeAlongAxis

    v = as_tensor_variable(x)
    p = _int_input(y, "permute_row_elements: y")
    if v.type.ndim < 1 or p.type.ndim < 1:
        raise ValueError(f"permute_row_elements: needs rows, got {describe(v)} and {describe(p)}")
    if inverse:
        p = inverse_permutation(p)
    nd = max(v.type.ndim, p.type.ndim)
    vl = v[(None,) * (nd - v.type.ndim)] if v.type.ndim < nd else v
    pl = p[(None,) * (nd - p.type.ndim)] if p.type.ndim < nd else p
    lead = broadcast_shape(vl[..., 0], pl[..., 0])
    vb = broadcast_to(vl, (*lead, vl.shape[-1])) if nd > 1 else vl
    pb = broadcast_to(pl, (*lead, pl.shape[-1])) if nd > 1 else pl
    return TakeAlongAxis(nd - 1)(vb, pb)


def put_along_axis(arr: Any, indices: Any, values: Any, axis: int | None) -> TensorVariable:
    """A copy of ``arr`` with ``values`` (broadcast to ``indices``' shape) written at
    ``indices`` along ``axis`` (of the flattened ``arr`` when None), like
    ``numpy.put_along_axis`` (which writes in place and returns None).

    >>> import theon.tensor as tt
    >>> m, i = tt.dmatrix("m"), tt.lmatrix("i")
    >>> put_along_axis(m, i, 9.0, axis=1).eval({m: [[1.0, 2.0]], i: [[1]]})
    array([[1., 9.]])
    """
    from theon.tensor.creation import broadcast_to
    from theon.tensor.reshaping import flatten
    from theon.tensor.sort import PutAlongAxis

    a = as_tensor_variable(arr)
    idx = _int_input(indices, "put_along_axis: indices")
    if axis is None:
        a = flatten(a)
        ax = 0
    else:
        ax = as_int(axis, "put_along_axis: axis")
        if not -a.type.ndim <= ax < a.type.ndim:
            raise ValueError(f"put_along_axis: axis {axis} is out of range for {describe(a)}")
        ax %= a.type.ndim
    v = cast(as_tensor_variable(values), a.type.dtype)
    return PutAlongAxis(ax, accumulate=False)(a, idx, broadcast_to(v, idx.shape))
