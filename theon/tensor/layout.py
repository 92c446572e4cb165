"""Arranging arrays: ``atleast_1d``/``2d``/``3d``/``Nd``, ``broadcast_arrays`` and
``broadcast_shape``, ``horizontal_stack``/``vertical_stack``, ``stacklists``,
``concat_with_broadcast``, ``matrix_transpose``, ``split_dims``/``join_dims`` and
``pack``/``unpack`` (PyTensor's: several tensors as one, and back), and the helpers
``get_vector_length``, ``is_flat``, ``slice_at_axis``.

All are compositions of reshapes, dimshuffles, allocations and joins.

>>> import theon.tensor as tt
>>> x, y = tt.dmatrix("x"), tt.dvector("y")
>>> packed, shapes = pack(x, y)
>>> [t.type.ndim for t in unpack(packed, shapes)]
[2, 1]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Variable
from theon.graph.fg import describe
from theon.tensor.arguments import as_int, int_value
from theon.tensor.basic import as_tensor_variable
from theon.tensor.shape import int64_constant, shape_scalars, static_int
from theon.tensor.variable import TensorVariable

__all__ = [
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "atleast_Nd",
    "broadcast_arrays",
    "broadcast_shape",
    "concat_with_broadcast",
    "get_vector_length",
    "horizontal_stack",
    "is_flat",
    "join_dims",
    "matrix_transpose",
    "pack",
    "slice_at_axis",
    "split_dims",
    "stacklists",
    "unpack",
    "vertical_stack",
]


# --------------------------------------------------------------------------- dimensions
def atleast_Nd(arry: Any, *, n: int = 1, left: bool = True) -> TensorVariable:
    """``arry`` with axes of length 1 added on the left (``left=False``: on the right)
    up to ``n`` dimensions (PyTensor's ``atleast_Nd``).

    >>> import theon.tensor as tt
    >>> atleast_Nd(tt.dvector("v"), n=3, left=False).type.shape
    (None, 1, 1)
    """
    v = as_tensor_variable(arry)
    k = n - v.type.ndim
    if k <= 0:
        return v
    return v[(None,) * k] if left else v[(..., *(None,) * k)]


def _each(arys: tuple[Any, ...], fn: Any, what: str) -> Any:
    if not arys:
        raise TypeError(f"{what} needs at least one array")
    outs = [fn(a) for a in arys]
    return outs[0] if len(outs) == 1 else tuple(outs)


def atleast_1d(*arys: Any) -> Any:
    """Each array with at least one dimension, like ``numpy.atleast_1d``: one variable
    for one argument, else a tuple.

    >>> import theon.tensor as tt
    >>> atleast_1d(tt.dscalar("s")).type.shape
    (1,)
    """
    return _each(arys, lambda a: atleast_Nd(a, n=1), "atleast_1d")


def atleast_2d(*arys: Any) -> Any:
    """Each array with at least two dimensions (new axes in front), like
    ``numpy.atleast_2d``.

    >>> import theon.tensor as tt
    >>> atleast_2d(tt.dvector("v")).type.shape
    (1, None)
    """
    return _each(arys, lambda a: atleast_Nd(a, n=2), "atleast_2d")


def _3d(a: Any) -> TensorVariable:
    v = as_tensor_variable(a)
    if v.type.ndim == 0:
        return v[None, None, None]
    if v.type.ndim == 1:  # NumPy: (N,) -> (1, N, 1)
        return v[None, :, None]
    if v.type.ndim == 2:  # (M, N) -> (M, N, 1)
        return v[:, :, None]
    return v


def atleast_3d(*arys: Any) -> Any:
    """Each array with at least three dimensions, like ``numpy.atleast_3d``: a vector
    ``(N,)`` becomes ``(1, N, 1)`` and a matrix ``(M, N)`` becomes ``(M, N, 1)``
    (PyTensor's ``atleast_3d`` adds all new axes in front: that is
    ``atleast_Nd(x, n=3)``).

    >>> import theon.tensor as tt
    >>> atleast_3d(tt.dvector("v")).type.shape
    (1, None, 1)
    """
    return _each(arys, _3d, "atleast_3d")


# --------------------------------------------------------------------------- broadcasting
def broadcast_shape(*arrays: Any, arrays_are_shapes: bool = False) -> tuple[TensorVariable, ...]:
    """The shape the arrays broadcast to, as int64 scalars (``numpy.broadcast_shapes``
    of their shapes); with ``arrays_are_shapes`` the arguments are shapes.

    Lengths known statically are checked now; the others are compared when the graph
    runs (a length of 1 gives way to the other).

    >>> import theon.tensor as tt
    >>> [static_int(s) for s in broadcast_shape(tt.dcol("c"), np.zeros(3))]
    [None, 3]
    """
    from theon.tensor.math import eq, switch

    shapes: list[list[tuple[int | None, Any]]] = []
    for a in arrays:
        if arrays_are_shapes:
            given = shape_scalars(a, "broadcast_shape: shape")
            shapes.append([(static_int(e), e) for e in given])
        else:
            v = as_tensor_variable(a)
            shapes.append([(s, v.shape[d]) for d, s in enumerate(v.type.shape)])
    nd = max((len(s) for s in shapes), default=0)
    out: list[TensorVariable] = []
    for d in range(nd):
        entries = [s[d - (nd - len(s))] for s in shapes if d >= nd - len(s)]
        wide = [e for e in entries if e[0] != 1]
        known = {e[0] for e in wide if e[0] is not None}
        if len(known) > 1:
            raise ValueError(f"broadcast_shape: lengths {sorted(known)} at axis {d} do not "
                             "broadcast")
        if not wide:
            out.append(int64_constant(1))
        elif known:
            out.append(int64_constant(known.pop()))
        else:  # NumPy's rule on the lengths when run: a 1 gives way to the other
            dim = as_tensor_variable(wide[0][1])
            for _, other in wide[1:]:
                dim = switch(eq(dim, 1), other, dim)
            out.append(dim)
    return tuple(out)


def broadcast_arrays(*args: Any) -> tuple[TensorVariable, ...]:
    """The arrays broadcast against each other, like ``numpy.broadcast_arrays``
    (new arrays, not read-only views).

    >>> import theon.tensor as tt
    >>> [t.type.shape for t in broadcast_arrays(tt.dcol("c"), np.zeros(3))]
    [(None, 3), (None, 3)]
    """
    from theon.tensor.creation import broadcast_to

    vs = [as_tensor_variable(a) for a in args]
    shape = broadcast_shape(*vs)
    return tuple(broadcast_to(v, shape) for v in vs)


# --------------------------------------------------------------------------- joining
def horizontal_stack(*args: Any) -> TensorVariable:
    """The arrays joined along their second axis (their first when they are vectors),
    like ``numpy.hstack`` (PyTensor's name).

    >>> import theon.tensor as tt
    >>> horizontal_stack(tt.dmatrix("a"), tt.dmatrix("b")).type.ndim
    2
    """
    from theon.tensor.joining import hstack

    return hstack(args)


def vertical_stack(*args: Any) -> TensorVariable:
    """The arrays joined along their first axis, vectors as rows, like ``numpy.vstack``
    (PyTensor's name).

    >>> import theon.tensor as tt
    >>> vertical_stack(tt.dvector("a"), tt.dvector("b")).type.ndim
    2
    """
    from theon.tensor.joining import vstack

    return vstack(args)


def stacklists(arg: Any) -> TensorVariable:
    """Nested lists of tensors of one shape stacked into one tensor whose leading axes
    follow the nesting (``stacklists([[a, b], [c, d]])`` of scalars is a 2x2 matrix).

    >>> import theon.tensor as tt
    >>> a, b, c, d = tt.dscalars("abcd")
    >>> stacklists([[a, b], [c, d]]).type.shape
    (2, 2)
    """
    from theon.tensor.joining import stack

    if isinstance(arg, (list, tuple)):
        return stack([stacklists(a) for a in arg])
    return as_tensor_variable(arg)


def concat_with_broadcast(tensor_list: Sequence[Any], axis: int = 0) -> TensorVariable:
    """The tensors (of one number of dimensions) joined along ``axis`` after their other
    axes are broadcast against each other (PyTensor's ``concat_with_broadcast``).

    >>> import theon.tensor as tt
    >>> concat_with_broadcast([tt.dmatrix("a"), tt.dcol("c")], axis=1).type.ndim
    2
    """
    from theon.tensor.creation import broadcast_to
    from theon.tensor.joining import concatenate

    vs = [as_tensor_variable(t) for t in tensor_list]
    if not vs:
        raise ValueError("concat_with_broadcast: no tensors")
    nd = vs[0].type.ndim
    if any(v.type.ndim != nd for v in vs):
        raise ValueError("concat_with_broadcast: the tensors need one number of dimensions, got "
                         + ", ".join(describe(v) for v in vs))
    ax = as_int(axis, "concat_with_broadcast: axis")
    if not -nd <= ax < nd:
        raise ValueError(f"concat_with_broadcast: axis {axis} is out of range for {nd} dims")
    ax %= nd
    others = broadcast_shape(*[v[(slice(None),) * ax + (0,)] for v in vs])
    parts = [broadcast_to(v, (*others[:ax], v.shape[ax], *others[ax:])) for v in vs]
    return concatenate(parts, axis=ax)


def matrix_transpose(x: Any) -> TensorVariable:
    """The matrices in the last two axes transposed (``numpy.matrix_transpose``).

    >>> import theon.tensor as tt
    >>> matrix_transpose(tt.tensor("x", shape=(2, 3, 4))).type.shape
    (2, 4, 3)
    """
    from theon.tensor.reshaping import swapaxes

    v = as_tensor_variable(x)
    if v.type.ndim < 2:
        raise ValueError(f"matrix_transpose: needs at least 2 dimensions, got {describe(v)}")
    return swapaxes(v, -1, -2)


# --------------------------------------------------------------------------- reshaping
def _axis(axis: Any, nd: int, what: str) -> int:
    ax = as_int(axis, what)
    if not -nd <= ax < nd:
        raise ValueError(f"{what} {axis} is out of range for {nd} dimensions")
    return ax % nd


def _entries(shape: Any, what: str) -> list[Any]:
    """A shape (int, sequence, or int vector of static length) as its entries."""
    if isinstance(shape, (int, np.integer)) or (
            isinstance(shape, Variable) and as_tensor_variable(shape).type.ndim == 0):
        return [shape]
    return list(shape_scalars(shape, what))


def split_dims(x: Any, shape: Any, axis: int = 0) -> TensorVariable:
    """``x`` with axis ``axis`` split into axes of lengths ``shape`` (PyTensor's
    ``split_dims``: a reshape).

    >>> import theon.tensor as tt
    >>> split_dims(tt.tensor("x", shape=(6, 4, 6)), (2, 3), axis=-1).type.shape
    (6, 4, 2, 3)
    """
    from theon.tensor.reshaping import reshape

    v = as_tensor_variable(x)
    ax = _axis(axis, v.type.ndim, "split_dims: axis")
    parts = _entries(shape, "split_dims: shape")
    dims = _dims(v)
    return reshape(v, [*dims[:ax], *parts, *dims[ax + 1:]], ndim=v.type.ndim - 1 + len(parts))


def _dims(v: TensorVariable) -> list[Any]:
    """``v``'s lengths: Python ints where static, else int64 scalars."""
    return [s if s is not None else v.shape[d] for d, s in enumerate(v.type.shape)]


def _product(dims: Sequence[Any]) -> Any:
    """The product of lengths, a Python int while all are static."""
    out: Any = 1
    for d in dims:
        k = static_int(d) if isinstance(d, Variable) else int(d)
        out = out * (k if k is not None else d)
    return out


def join_dims(x: Any, start_axis: int = 0, n_axes: int | None = None) -> TensorVariable:
    """``x`` with ``n_axes`` axes from ``start_axis`` (all the rest when None) joined into
    one; ``n_axes=0`` inserts an axis of length 1 (PyTensor's ``join_dims``).

    >>> import theon.tensor as tt
    >>> join_dims(tt.tensor("x", shape=(2, 3, 4, 5)), start_axis=1, n_axes=2).type.shape
    (2, 12, 5)
    """
    from theon.tensor.reshaping import reshape

    v = as_tensor_variable(x)
    nd = v.type.ndim
    s = as_int(start_axis, "join_dims: start_axis")
    if not -nd <= s <= nd:
        raise ValueError(f"join_dims: start_axis {start_axis} is out of range for {describe(v)}")
    s = s % nd if s < 0 else s
    n = nd - s if n_axes is None else as_int(n_axes, "join_dims: n_axes")
    if n < 0 or s + n > nd:
        raise ValueError(f"join_dims: cannot join {n} axes from axis {s} of {describe(v)}")
    if n == 1:
        return v
    dims = _dims(v)
    return reshape(v, [*dims[:s], _product(dims[s:s + n]), *dims[s + n:]], ndim=nd - n + 1)


def _keep_axes(keep_axes: Any, min_nd: int) -> tuple[int, int]:
    """The numbers of kept leading and trailing axes PyTensor's ``keep_axes`` names."""
    if keep_axes is None:
        return 0, 0
    axes = [keep_axes] if int_value(keep_axes) is not None else list(keep_axes)
    axes = [as_int(a, "pack: keep_axes") for a in axes]
    pos = sorted(a for a in axes if a >= 0)
    neg = sorted(a for a in axes if a < 0)
    if pos != list(range(len(pos))):
        raise ValueError(f"pack: the kept positive axes must be 0, 1, ... (got {keep_axes!r}); "
                         "to keep trailing axes use negative ones")
    if neg != list(range(-len(neg), 0)):
        raise ValueError(f"pack: the kept negative axes must be ..., -2, -1 (got {keep_axes!r})")
    if len(pos) + len(neg) > min_nd:
        raise ValueError(f"pack: keep_axes {keep_axes!r} keeps more axes than an input has")
    return len(pos), len(neg)


def pack(*tensors: Any, keep_axes: Any = None) -> tuple[TensorVariable, list[TensorVariable]]:
    """Several tensors as one: each tensor's axes other than the kept ones (``keep_axes``:
    leading ones ``0, 1, ...`` and/or trailing ones ``..., -2, -1``, equal in every
    tensor) raveled into one axis, and the tensors joined along it; also the shape of
    each tensor's raveled axes (PyTensor's ``pack``; :func:`unpack` undoes it).

    >>> import theon.tensor as tt
    >>> x, y = tt.tensor("x", shape=(2, 3)), tt.tensor("y", shape=(2, 5, 6))
    >>> packed, shapes = pack(x, y, keep_axes=0)
    >>> packed.type.shape
    (2, 33)
    """
    from theon.tensor.joining import concatenate
    from theon.tensor.shape import make_vector

    vs = [as_tensor_variable(t) for t in tensors]
    if not vs:
        raise ValueError("pack: no tensors")
    left, right = _keep_axes(keep_axes, min(v.type.ndim for v in vs))
    flat = [join_dims(v, left, v.type.ndim - left - right) for v in vs]
    shapes = [make_vector(*_dims(v)[left:v.type.ndim - right]) for v in vs]
    return concatenate(flat, axis=left), shapes


def unpack(packed_input: Any, packed_shapes: Sequence[Any],
           keep_axes: Any = None) -> list[TensorVariable]:
    """The tensors :func:`pack` joined, from the packed tensor, the shapes of their
    raveled axes, and the same ``keep_axes``.

    >>> import theon.tensor as tt
    >>> p = tt.dvector("p")
    >>> [t.eval({p: np.arange(5.0)}).tolist() for t in unpack(p, [(2, 2), (1,)])]
    [[[0.0, 1.0], [2.0, 3.0]], [4.0]]
    """
    from theon.tensor.reshaping import reshape

    p = as_tensor_variable(packed_input)
    left, right = _keep_axes(keep_axes, p.type.ndim - 1)
    if p.type.ndim != left + right + 1:
        raise ValueError(f"unpack: {describe(p)} must have the kept axes and one packed axis")
    dims = _dims(p)
    outs: list[TensorVariable] = []
    start: Any = 0
    for shp in packed_shapes:
        parts = _entries(shp, "unpack: packed shape")
        size = _product(parts)
        stop = start + size
        piece = p[(slice(None),) * left + (slice(start, stop),)]
        outs.append(reshape(piece, [*dims[:left], *parts, *dims[left + 1:]],
                            ndim=left + len(parts) + right))
        start = stop
    return outs


# --------------------------------------------------------------------------- helpers
def get_vector_length(v: Any) -> int:
    """The length of the vector ``v`` when it is known before running (its static
    length, or the number of dimensions behind a ``shape``); ``ValueError`` otherwise.

    >>> import theon.tensor as tt
    >>> get_vector_length(tt.dmatrix("m").shape)
    2
    """
    from theon.tensor.shape import static_vector_entries

    t = as_tensor_variable(v)
    if t.type.ndim != 1:
        raise TypeError(f"get_vector_length: needs a vector, got {describe(t)}")
    entries = static_vector_entries(t)
    if entries is None:
        raise ValueError(f"get_vector_length: the length of {describe(t)} is not known")
    return len(entries)


def is_flat(var: Any, ndim: int = 1) -> bool:
    """Whether ``var`` has exactly ``ndim`` dimensions (PyTensor's ``is_flat``).

    >>> import theon.tensor as tt
    >>> is_flat(tt.dvector("v")), is_flat(tt.dmatrix("m"), ndim=1)
    (True, False)
    """
    return as_tensor_variable(var).type.ndim == ndim


def slice_at_axis(sl: slice, axis: int) -> tuple[Any, ...]:
    """The index that applies the slice ``sl`` to axis ``axis`` only.

    >>> slice_at_axis(slice(None, 1), 1)
    (slice(None, None, None), slice(None, 1, None), Ellipsis)
    """
    return (slice(None),) * axis + (sl, ...)
