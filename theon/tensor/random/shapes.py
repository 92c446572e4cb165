"""Shapes of random draws: the ``size`` argument, batch shapes and broadcast parameters.

A draw's shape is its *batch* shape followed by its *support* shape (the shape of one
draw: ``()`` for a scalar distribution, ``(k,)`` for a ``k``-category multinomial).
The batch shape is ``size`` when given, else the broadcast of the parameters' batch
shapes (each parameter's shape without its last ``ndims_params[i]`` core dimensions).
These functions are also ``theon.tensor.random.utils``' (PyTensor's module path).

>>> import numpy as np
>>> normalize_size_param((2, 3)).data
array([2, 3])
>>> is_none_size(normalize_size_param(None))
True
>>> params_broadcast_shapes([(3, 1), (4, 2)], [0, 1], use_pytensor=False)
[(3, 4), (3, 4, 2)]
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import zip_longest
from typing import Any, cast

import numpy as np

from theon.graph.basic import Constant, Variable
from theon.graph.fg import describe
from theon.scalar.basic import Cast
from theon.tensor.arguments import as_int_tuple, int_value
from theon.tensor.basic import (
    NotScalarConstantError,
    as_tensor_variable,
    constant,
    get_scalar_constant_value,
)
from theon.tensor.basic import cast as tcast
from theon.tensor.elemwise import DimShuffle, Elemwise
from theon.tensor.joining import Join, static_axis
from theon.tensor.reshaping import shape_padleft
from theon.tensor.shape import (
    MakeVector,
    Shape,
    SpecifyShape,
    make_vector,
    shape_scalars,
    static_int,
)
from theon.tensor.type_other import NoneConst, NoneTypeT
from theon.tensor.variable import TensorVariable

__all__ = [
    "broadcast_params",
    "broadcast_static",
    "compute_batch_shape",
    "explicit_expand_dims",
    "is_none_size",
    "normalize_size_param",
    "params_broadcast_shapes",
    "static_size",
    "supp_shape_from_ref_param_shape",
]


def is_none_size(size: Any) -> bool:
    """Whether ``size`` is "no size" (``None`` or ``NoneConst``)."""
    return size is None or (isinstance(size, Variable) and isinstance(size.type, NoneTypeT))


def _is_int(dtype: str) -> bool:
    return np.dtype(dtype).kind in "iu"


def _check_lengths(lengths: Sequence[int | None], size: Any, what: str) -> None:
    """``ValueError`` naming the argument when a length known now is negative."""
    if any(n is not None and n < 0 for n in lengths):
        shown = tuple(size) if isinstance(size, (tuple, list)) else size
        raise ValueError(f"{what}: argument 'size' {shown!r} has a negative length; lengths "
                         f"must be >= 0")


def normalize_size_param(size: Any, what: str = "random variable") -> Variable:
    """``size`` as an int64 vector of known length, or ``NoneConst`` for ``None``.

    ``size`` is ``None``, an int, a sequence of ints and integer scalars, or an integer
    vector (of a length known when building).  ``TypeError`` (or ``ValueError`` for a
    negative length) names the argument and ``what`` otherwise.

    >>> import theon.tensor as tt
    >>> normalize_size_param(3).data
    array([3])
    >>> n = tt.lscalar("n")
    >>> normalize_size_param((n, 2)).type
    TensorType(int64, shape=(2,))
    """
    if is_none_size(size):
        return NoneConst
    if isinstance(size, np.ndarray) or (int_value(size) is not None
                                        and not isinstance(size, Variable)):
        size = as_int_tuple(size, f"{what}: argument 'size'")
    if isinstance(size, (tuple, list)):
        if not any(isinstance(s, Variable) for s in size):
            if any(int_value(s) is None for s in size):
                raise TypeError(f"{what}: argument 'size' must be None, an int or a tuple of "
                                f"ints, got {size!r}")
            lengths = as_int_tuple(size, f"{what}: argument 'size'")
            _check_lengths(lengths, size, what)
            return constant(np.asarray(lengths, dtype="int64").reshape(len(lengths)))
        parts = [as_tensor_variable(s) for s in size]
        for p in parts:
            if p.type.ndim != 0 or not _is_int(p.type.dtype):
                raise TypeError(f"{what}: argument 'size' must hold integer scalars, got "
                                f"{describe(p)}")
        _check_lengths([static_int(p) for p in parts], size, what)
        return make_vector(*[p if p.type.dtype == "int64" else tcast(p, "int64")
                             for p in parts])
    if isinstance(size, Variable):
        v = as_tensor_variable(size)
        if v.type.ndim == 0 and _is_int(v.type.dtype):
            return normalize_size_param((v,), what)
        if v.type.ndim != 1 or not _is_int(v.type.dtype) or v.type.shape[0] is None:
            raise TypeError(f"{what}: argument 'size' must be an integer vector of known "
                            f"length, got {describe(v)}")
        return v if v.type.dtype == "int64" else tcast(v, "int64")
    raise TypeError(f"{what}: argument 'size' must be None, an int or a tuple of ints, got "
                    f"{type(size).__name__} {size!r}")


def _static_scalar(v: Variable) -> int | None:
    r = static_int(v)
    if r is not None or isinstance(v, Constant):
        return r
    try:
        return int(get_scalar_constant_value(v))
    except (NotScalarConstantError, TypeError, ValueError):
        return None


def _static_entries(v: Variable, n: int) -> tuple[int | None, ...]:
    """The entries of an integer vector of length ``n`` known when building, looking
    through the graphs that build sizes (stacks of scalars, casts, shapes)."""
    if isinstance(v, Constant):
        return tuple(int(s) for s in np.asarray(v.data).reshape(-1))
    owner = v.owner
    if owner is not None:
        op = owner.op
        if isinstance(op, MakeVector):
            return tuple(_static_scalar(i) for i in owner.inputs)
        if isinstance(op, Shape):
            return tuple(cast(TensorVariable, owner.inputs[0]).type.shape)
        if isinstance(op, SpecifyShape) or (
                isinstance(op, Elemwise) and isinstance(op.scalar_op, Cast)):
            return _static_entries(owner.inputs[0], n)
        if isinstance(op, Join) and static_axis(owner) == 0:
            parts: list[int | None] = []
            for i in owner.inputs[1:]:
                ti = cast(TensorVariable, i)
                if ti.type.ndim == 1 and ti.type.shape[0] is not None:
                    parts.extend(_static_entries(ti, ti.type.shape[0]))
                else:
                    return (None,) * n
            return tuple(parts) if len(parts) == n else (None,) * n
        if isinstance(op, DimShuffle) and op.new_order == ("x",):
            return (_static_scalar(owner.inputs[0]),)
    return (None,) * n


def static_size(size: Variable) -> tuple[int | None, ...] | None:
    """The lengths of a normalized ``size`` known when building (``None`` where unknown);
    ``None`` for ``NoneConst``.

    >>> import theon.tensor as tt
    >>> static_size(normalize_size_param((tt.lscalar("n"), 3)))
    (None, 3)
    >>> static_size(normalize_size_param(tt.as_tensor_variable([4, tt.dmatrix("m").shape[1]])))
    (4, None)
    """
    if is_none_size(size):
        return None
    n = cast(TensorVariable, size).type.shape[0]
    if n is None:
        return None
    return _static_entries(size, n)


def broadcast_static(shapes: Sequence[tuple[int | None, ...]]) -> tuple[int | None, ...] | None:
    """The broadcast of static shapes (``None`` = unknown), or None when they clash.

    >>> broadcast_static([(3, 1), (None, 4)])
    (3, 4)
    """
    nd = max((len(s) for s in shapes), default=0)
    out: list[int | None] = []
    for d in range(nd):
        dims = [s[len(s) - nd + d] for s in shapes if len(s) - nd + d >= 0]
        known = {x for x in dims if x is not None and x != 1}
        if len(known) > 1:
            return None
        if known:
            out.append(known.pop())
        elif any(x is None for x in dims):
            out.append(None)
        else:
            out.append(1)
    return tuple(out)


def explicit_expand_dims(params: Sequence[TensorVariable], ndims_params: Sequence[int],
                         size_length: int | None = None) -> list[TensorVariable]:
    """The parameters with leading length-1 axes added so that each has the same number
    of batch dimensions: ``size_length`` when given, else the most any parameter has.

    >>> import theon.tensor as tt
    >>> [p.type.ndim for p in explicit_expand_dims([tt.dvector("m"), tt.dscalar("s")], [0, 0])]
    [1, 1]
    """
    batch = [p.type.ndim - nd for p, nd in zip(params, ndims_params, strict=True)]
    want = size_length if size_length is not None else max(batch, default=0)
    return [p if want <= b else shape_padleft(p, want - b)
            for p, b in zip(params, batch)]


def params_broadcast_shapes(param_shapes: Sequence[Any], ndims_params: Sequence[int],
                            use_pytensor: bool = True) -> list[tuple[Any, ...]]:
    """Each parameter's shape with the batch dimensions of all of them broadcast together.

    A length equal to 1 gives way to the other; two unknown lengths are combined with
    ``maximum`` (symbolic when ``use_pytensor``, Python's ``max`` otherwise).

    >>> params_broadcast_shapes([(2, 1), (1, 3, 4)], [0, 1], use_pytensor=False)
    [(2, 3), (2, 3, 4)]
    """
    from theon.tensor.math import maximum

    def is_one(x: Any) -> bool:
        data = x.data if isinstance(x, Constant) else x
        try:
            return bool(np.all(np.asarray(data) == 1)) and not isinstance(data, Variable)
        except TypeError:
            return False

    rev: list[Any] = []
    for nd, shp in zip(ndims_params, param_shapes):
        s = tuple(shp)
        extra = s[: len(s) - nd]
        merged = []
        for a, b in zip_longest(reversed(extra), rev, fillvalue=1):
            if is_one(a):
                merged.append(b)
            elif is_one(b):
                merged.append(a)
            elif not use_pytensor:
                merged.append(max(a, b))
            else:
                merged.append(maximum(a, b))
        rev = merged
    batch = tuple(reversed(rev))
    return [batch + (tuple(shp)[len(tuple(shp)) - nd:] if nd else ())
            for nd, shp in zip(ndims_params, param_shapes)]


def broadcast_params(params: Sequence[Any], ndims_params: Sequence[int]) -> list[Any]:
    """The parameters broadcast against each other in their batch dimensions (NumPy
    arrays stay NumPy arrays; symbolic ones become graphs).

    >>> mean, cov = np.array([1, 2]), np.stack([np.eye(2)] * 3)
    >>> [p.shape for p in broadcast_params([mean, cov], [1, 2])]
    [(3, 2), (3, 2, 2)]
    """
    symbolic = any(isinstance(p, Variable) for p in params)
    shapes = []
    for p in params:
        if isinstance(p, Variable):
            tv = as_tensor_variable(p)
            shapes.append(tuple(1 if s == 1 else d
                                for s, d in zip(tv.type.shape, shape_scalars(tv.shape))))
        else:
            shapes.append(tuple(np.shape(p)))
    bshapes = params_broadcast_shapes(shapes, ndims_params, use_pytensor=symbolic)
    if symbolic:
        from theon.tensor.creation import broadcast_to

        return [broadcast_to(p, s) for p, s in zip(params, bshapes)]
    return [np.broadcast_to(p, s) for p, s in zip(params, bshapes)]


def compute_batch_shape(params: Sequence[TensorVariable], ndims_params: Sequence[int]
                        ) -> TensorVariable:
    """The broadcast batch shape of the parameters, as an int64 vector.

    >>> import theon.tensor as tt
    >>> compute_batch_shape([tt.constant(np.zeros((2, 1))), tt.constant(np.ones((3, 4)))],
    ...                     [0, 1]).eval()
    array([2, 3])
    """
    exp = explicit_expand_dims([as_tensor_variable(p) for p in params], ndims_params)
    if not exp:
        return cast(TensorVariable, constant(np.zeros(0, dtype="int64")))
    nb = exp[0].type.ndim - ndims_params[0]
    batch = params_broadcast_shapes([tuple(shape_scalars(p.shape))[:nb] for p in exp],
                                    [0] * len(exp))[0]
    return make_vector(*batch) if nb else cast(TensorVariable,
                                                constant(np.zeros(0, dtype="int64")))


def supp_shape_from_ref_param_shape(*, ndim_supp: int, dist_params: Sequence[Any],
                                    param_shapes: Sequence[Sequence[Any]] | None = None,
                                    ref_param_idx: int) -> tuple[Any, ...]:
    """The support shape of a draw: the last ``ndim_supp`` lengths of a parameter.

    >>> import theon.tensor as tt
    >>> s = supp_shape_from_ref_param_shape(ndim_supp=1, dist_params=[tt.dmatrix("m")],
    ...                                     ref_param_idx=0)
    >>> len(s)
    1
    """
    if ndim_supp <= 0:
        raise ValueError(f"supp_shape_from_ref_param_shape: ndim_supp must be > 0, got "
                         f"{ndim_supp}")
    if param_shapes is not None:
        ref = tuple(param_shapes[ref_param_idx])
        return ref[len(ref) - ndim_supp:]
    p = as_tensor_variable(dist_params[ref_param_idx])
    if p.type.ndim < ndim_supp:
        raise ValueError(f"the reference parameter {describe(p)} has fewer than {ndim_supp} "
                         "dimensions")
    return tuple(shape_scalars(p.shape))[p.type.ndim - ndim_supp:]
