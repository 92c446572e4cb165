"""Reshaping without touching data: ``reshape`` (with ``-1``), ``flatten``, ``ravel``, and
the DimShuffle-based ``transpose``, ``swapaxes``, ``moveaxis``, ``squeeze``, ``expand_dims``
and ``shape_pad*``.

>>> import theon.tensor as tt
>>> x = tt.dmatrix("x")
>>> reshape(x, (-1,)).type.ndim
1
>>> transpose(tt.TensorType("float64", shape=(2, 3))("m")).type.shape
(3, 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type
from theon.tensor.arguments import as_int, as_int_tuple
from theon.tensor.basic import TensorOp, as_tensor_variable, constant
from theon.tensor.elemwise import DimShuffle
from theon.tensor.shape import (
    MakeVector,
    _as_int64_scalar,
    _is_int_dtype,
    _shape_text,
    int64_constant,
    make_vector,
    normalize_axes,
    normalize_axis,
    shape,
    shape_scalars,
    shape_tuple,
    specify_broadcastable,
    static_int,
    static_vector_entries,
)
from theon.tensor.type import TensorType, tensor_type, tensor_vars
from theon.tensor.variable import TensorConstant, TensorVariable

__all__ = [
    "expand_dims",
    "flatten",
    "int64_constant_vec",
    "moveaxis",
    "ravel",
    "Reshape",
    "reshape",
    "shape_padaxis",
    "shape_padleft",
    "shape_padright",
    "squeeze",
    "swapaxes",
    "transpose",
]


# --------------------------------------------------------------------------- Reshape
def _reshape_static(
    in_shape: Sequence[int | None], entries: Sequence[int | None], where: str
) -> tuple[int | None, ...]:
    """Static output shape of a reshape, raising on impossible or ambiguous constants."""
    neg = [k for k, e in enumerate(entries) if e is not None and e < 0]
    for k in neg:
        if entries[k] != -1:
            raise ValueError(f"{where}: invalid size {entries[k]} in the new shape")
    if len(neg) > 1:
        raise ValueError(f"{where}: can only specify one unknown dimension (-1)")
    out = [e if e is not None and e >= 0 else None for e in entries]
    in_known = [s for s in in_shape if s is not None]
    size = None if len(in_known) < len(in_shape) else int(np.prod(in_known, dtype=np.int64))
    known = [e for e in entries if e is not None and e >= 0]
    if size is not None and len(known) == len(entries):
        if int(np.prod(known, dtype=np.int64)) != size:
            raise ValueError(
                f"{where}: cannot reshape an array of shape {tuple(in_shape)} "
                f"(size {size}) into shape {tuple(entries)}"
            )
    if neg and len(known) == len(entries) - 1 and size is not None:
        p = int(np.prod(known, dtype=np.int64))
        if p == 0 or size % p:
            raise ValueError(
                f"{where}: cannot reshape an array of shape {tuple(in_shape)} "
                f"(size {size}) into shape {tuple(entries)}"
            )
        out[neg[0]] = size // p
    return tuple(out)


class Reshape(TensorOp):
    """Reshape to the int vector ``shp`` (of static length ``ndim``; one entry may be -1).

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> Reshape(2)(x, [2, -1]).eval({x: [1.0, 2.0, 3.0, 4.0]})
    array([[1., 2.],
           [3., 4.]])
    """

    __props__ = ("ndim",)
    view_map = {0: [0]}

    def __init__(self, ndim: int) -> None:
        self.ndim = int(ndim)

    def make_node(self, x: Any, shp: Any) -> Apply:
        x = as_tensor_variable(x)
        shp = as_tensor_variable(shp)
        if shp.type.ndim != 1 or not _is_int_dtype(shp.type.dtype):
            raise TypeError(f"Reshape: the new shape must be an int vector, got {describe(shp)}")
        if shp.type.shape[0] not in (None, self.ndim):
            raise ValueError(f"Reshape{{{self.ndim}}}: the new shape {describe(shp)} has the "
                             f"wrong length")
        entries = static_vector_entries(shp) or (None,) * self.ndim
        out_shape = _reshape_static(
            x.type.shape, entries, f"reshape of {describe(x)}"
        )
        return Apply(self, [x, shp], [TensorType(x.type.dtype, shape=out_shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        x, shp = inputs
        if len(shp) != self.ndim:
            raise ValueError(f"Reshape{{{self.ndim}}}: got a shape of length {len(shp)}")
        output_storage[0][0] = np.reshape(x, tuple(int(s) for s in shp))

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        from theon import tensor as tt
        from theon.tensor.subtensor import getitem

        x, shp = tensor_vars(node.inputs)
        static_out = tensor_type(node.outputs[0]).shape
        entries = static_vector_entries(shp) or (None,) * self.ndim
        owner = shp.owner
        scal: list[Any] = []
        for k in range(self.ndim):
            sk = static_out[k]
            if sk is not None:
                scal.append(int64_constant(sk))
            elif owner is not None and isinstance(owner.op, MakeVector):
                scal.append(_as_int64_scalar(owner.inputs[k], "shape"))
            else:
                scal.append(_as_int64_scalar(getitem(shp, k), "shape"))
        maybe_neg = [
            k for k in range(self.ndim)
            if static_out[k] is None and (entries[k] is None or entries[k] == -1)
        ]
        if not maybe_neg:
            return [tuple(scal)]
        # One entry may be -1: it stands for size(x) / prod(other entries).
        size = int64_constant(1)
        for s in input_shapes[0]:
            size = size * s
        prod = int64_constant(1)
        for s in scal:
            prod = prod * s
        missing = tt.int_div(size, tt.maximum(-prod, int64_constant(1)))
        out = list(scal)
        for k in maybe_neg:
            if entries[k] == -1:
                out[k] = missing
            else:
                out[k] = tt.switch(tt.eq(scal[k], -1), missing, scal[k])
        return [tuple(out)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        x, _ = inputs
        ndim = tensor_type(x).ndim
        return [reshape(output_grads[0], shape(x), ndim=ndim), disconnected_type()]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], inputs[1])]


def reshape(x: Any, newshape: Any, ndim: int | None = None) -> TensorVariable:
    """``x`` with a new shape; one entry of ``newshape`` may be ``-1``.

    ``newshape`` is an int, a sequence of ints and int scalars, or an int vector
    (then its length must be static, or given as ``ndim``).

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> reshape(x, (2, -1)).eval({x: [1.0, 2.0, 3.0, 4.0]})
    array([[1., 2.],
           [3., 4.]])
    """
    x = as_tensor_variable(x)
    if ndim is not None:
        ndim = as_int(ndim, "reshape: ndim")
    st = tensor_type(newshape) if isinstance(newshape, Variable) else None
    if st is not None and st.ndim == 1 and st.shape[0] != 0:
        if not _is_int_dtype(st.dtype):
            raise TypeError(f"reshape: the new shape must be integers, got {describe(newshape)}")
        n = st.shape[0]
        if n is None:
            if ndim is None:
                raise ValueError(
                    f"reshape: the length of the new shape {describe(newshape)} is not "
                    "known statically; pass ndim"
                )
            n = ndim
        if ndim is not None and ndim != n:
            raise ValueError(f"reshape: ndim={ndim} but the new shape has length {n}")
        shp = newshape if st.dtype == "int64" else _cast_vec(newshape)
        return Reshape(n)(x, shp)
    scal = shape_scalars(newshape, "new shape")
    if ndim is not None and ndim != len(scal):
        raise ValueError(f"reshape: ndim={ndim} but the new shape has length {len(scal)}")
    return Reshape(len(scal))(x, make_vector(*scal))


def _cast_vec(v: Variable) -> TensorVariable:
    from theon.tensor.basic import cast

    return cast(v, "int64")


def flatten(x: Any, ndim: int = 1) -> TensorVariable:
    """Collapse the trailing dimensions of ``x`` so that it has ``ndim`` dimensions.

    >>> import theon.tensor as tt
    >>> x = tt.tensor3("x")
    >>> flatten(x, 2).type.ndim
    2
    """
    x = as_tensor_variable(x)
    ndim = as_int(ndim, "flatten: ndim")
    if ndim < 1 or ndim > max(x.type.ndim, 1):
        raise ValueError(f"flatten: ndim={ndim} is invalid for {describe(x)}")
    if ndim == 1:
        return Reshape(1)(x, int64_constant_vec([-1]))
    dims = list(shape_tuple(x))
    lead = dims[: ndim - 1]
    rest = dims[ndim - 1 :]
    known = [k for k in (static_int(d) for d in rest) if k is not None]
    if len(known) == len(rest):
        last: Any = int(np.prod(known, dtype=np.int64))
    else:
        last = rest[0]
        for d in rest[1:]:
            last = last * d
    return Reshape(ndim)(x, make_vector(*lead, last))


def int64_constant_vec(v: Sequence[int]) -> TensorConstant:
    """A constant int64 vector.

    >>> int64_constant_vec([2, 3]).data
    array([2, 3])
    """
    return constant(np.array(v, dtype=np.int64).reshape(len(v)))


def ravel(x: Any) -> TensorVariable:
    """``x`` as a vector (same as ``flatten(x)``).

    >>> import theon.tensor as tt
    >>> ravel(tt.dmatrix("x")).type.ndim
    1
    """
    return flatten(x, 1)


# --------------------------------------------------------------------------- DimShuffle-based
def _dimshuffle(x: TensorVariable, new_order: Sequence[Any]) -> TensorVariable:
    new_order = tuple(new_order)
    if new_order == tuple(range(x.type.ndim)):
        return x
    return DimShuffle(x.type.ndim, new_order)(x)


def transpose(x: Any, axes: Sequence[int] | None = None) -> TensorVariable:
    """Permute the dimensions of ``x`` (reverse them when ``axes`` is None).

    >>> import theon.tensor as tt
    >>> transpose(tt.tensor3("x"), (1, 2, 0)).type.ndim
    3
    """
    x = as_tensor_variable(x)
    nd = x.type.ndim
    if axes is None:
        perm = tuple(range(nd - 1, -1, -1))
    else:
        perm = normalize_axes(axes, nd, "transpose: axis", x)
        if len(perm) != nd:
            raise ValueError(f"transpose: axes {perm} don't match {describe(x)}")
    return _dimshuffle(x, perm)


def swapaxes(x: Any, axis1: int, axis2: int) -> TensorVariable:
    """``x`` with two axes interchanged.

    >>> import theon.tensor as tt
    >>> swapaxes(tt.TensorType("float64", shape=(2, 3))("x"), 0, 1).type.shape
    (3, 2)
    """
    x = as_tensor_variable(x)
    a1 = normalize_axis(axis1, x.type.ndim, "swapaxes: axis1", x)
    a2 = normalize_axis(axis2, x.type.ndim, "swapaxes: axis2", x)
    perm = list(range(x.type.ndim))
    perm[a1], perm[a2] = perm[a2], perm[a1]
    return _dimshuffle(x, perm)


def moveaxis(x: Any, source: Any, destination: Any) -> TensorVariable:
    """Move axes of ``x`` to new positions, the others keeping their order.

    >>> import theon.tensor as tt
    >>> moveaxis(tt.TensorType("float64", shape=(2, 3, 4))("x"), 0, -1).type.shape
    (3, 4, 2)
    """
    x = as_tensor_variable(x)
    nd = x.type.ndim
    src = normalize_axes(source, nd, "moveaxis: source", x)
    dst = normalize_axes(destination, nd, "moveaxis: destination", x)
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination must have the same number of axes")
    order = [a for a in range(nd) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _dimshuffle(x, order)


def squeeze(x: Any, axis: Any = None) -> TensorVariable:
    """Remove dimensions of size 1.

    With ``axis=None`` only dimensions whose static size is 1 are removed;
    dimensions named in ``axis`` whose size is not known are checked at run time.

    >>> import theon.tensor as tt
    >>> squeeze(tt.TensorType("float64", shape=(1, None))("x")).type.shape
    (None,)
    """
    x = as_tensor_variable(x)
    nd = x.type.ndim
    if axis is None:
        axes = tuple(d for d in range(nd) if x.type.shape[d] == 1)
    else:
        axes = normalize_axes(axis, nd, "squeeze: axis", x)
    bad = [d for d in axes if x.type.shape[d] not in (None, 1)]
    if bad:
        raise ValueError(
            f"squeeze: cannot remove axis {bad[0]} of {describe(x)} with static shape "
            f"{_shape_text(x)}: its size is not 1"
        )
    unknown = [d for d in axes if x.type.shape[d] is None]
    if unknown:
        x = specify_broadcastable(x, *unknown)
    return _dimshuffle(x, [d for d in range(nd) if d not in axes])


def expand_dims(x: Any, axis: Any) -> TensorVariable:
    """Insert new dimensions of size 1 at the positions ``axis`` of the result.

    >>> import theon.tensor as tt
    >>> expand_dims(tt.dvector("x"), (0, -1)).type.shape
    (1, None, 1)
    """
    x = as_tensor_variable(x)
    new = as_int_tuple(axis, "expand_dims: axis")
    out_nd = x.type.ndim + len(new)
    axes = set(normalize_axes(new, out_nd, "expand_dims: axis (of the result)"))
    it = iter(range(x.type.ndim))
    order = ["x" if d in axes else next(it) for d in range(out_nd)]
    return _dimshuffle(x, order)


def shape_padleft(x: Any, n_ones: int = 1) -> TensorVariable:
    """``x`` with ``n_ones`` new leading dimensions of size 1.

    >>> import theon.tensor as tt
    >>> shape_padleft(tt.dvector("x"), 2).type.shape
    (1, 1, None)
    """
    x = as_tensor_variable(x)
    return _dimshuffle(x, ["x"] * n_ones + list(range(x.type.ndim)))


def shape_padright(x: Any, n_ones: int = 1) -> TensorVariable:
    """``x`` with ``n_ones`` new trailing dimensions of size 1.

    >>> import theon.tensor as tt
    >>> shape_padright(tt.dvector("x")).type.shape
    (None, 1)
    """
    x = as_tensor_variable(x)
    return _dimshuffle(x, list(range(x.type.ndim)) + ["x"] * n_ones)


def shape_padaxis(x: Any, axis: int) -> TensorVariable:
    """``x`` with a new dimension of size 1 at position ``axis`` (``expand_dims``).

    >>> import theon.tensor as tt
    >>> shape_padaxis(tt.dmatrix("x"), 1).type.shape
    (None, 1, None)
    """
    return expand_dims(x, axis)
