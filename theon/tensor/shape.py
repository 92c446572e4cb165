"""Shapes as graph values, and the ops that change a tensor's shape without touching data.

``shape(x)`` is an int64 vector, ``shape_i(x, i)`` an int64 scalar (a constant when
the static shape knows it).  ``reshape`` (with ``-1``), ``flatten``, ``specify_shape``
and the DimShuffle-based ``transpose``, ``squeeze`` and ``expand_dims`` live here.

>>> import theon.tensor as tt
>>> x = tt.dmatrix("x")
>>> y = reshape(x, (-1,))
>>> y.type.ndim
1
>>> shape_i(tt.TensorType("float64", shape=(3, None))("z"), 0).data
array(3)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type
from theon.graph.op import Op
from theon.tensor.basic import as_tensor_variable, constant
from theon.tensor.elemwise import DimShuffle
from theon.tensor.type import TensorType

__all__ = [
    "MakeVector",
    "Reshape",
    "Shape",
    "Shape_i",
    "SpecifyShape",
    "expand_dims",
    "flatten",
    "make_vector",
    "moveaxis",
    "ravel",
    "reshape",
    "shape",
    "shape_i",
    "shape_padaxis",
    "shape_padleft",
    "shape_padright",
    "shape_tuple",
    "specify_broadcastable",
    "specify_shape",
    "squeeze",
    "swapaxes",
    "transpose",
]

_INT64 = TensorType("int64", shape=())


# --------------------------------------------------------------------------- helpers
def _is_int_dtype(dtype: Any) -> bool:
    return np.dtype(dtype).kind in "iu"


def int64_constant(v: int) -> Variable:
    """A 0-d int64 constant."""
    return constant(np.asarray(v, dtype=np.int64))


def static_int(v: Any) -> int | None:
    """The value of an integer scalar known at build time (Python int, constant, static dim)."""
    if isinstance(v, (bool, np.bool_)):
        return None
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, Constant):
        data = np.asarray(v.data)
        if data.ndim == 0 and data.dtype.kind in "iu":
            return int(data)
        return None
    if isinstance(v, Variable) and v.owner is not None:
        op = v.owner.op
        if isinstance(op, Shape_i):
            return v.owner.inputs[0].type.shape[op.i]
    return None


def as_int_scalar(v: Any, what: str = "value") -> Variable:
    """``v`` as a 0-d integer tensor variable (Python ints become int64 constants)."""
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{what} must be an integer, got the boolean {v!r}")
    if isinstance(v, (int, np.integer)):
        return int64_constant(int(v))
    var = as_tensor_variable(v)
    if var.type.ndim != 0 or not _is_int_dtype(var.type.dtype):
        raise TypeError(
            f"{what} must be an integer scalar, got {describe(var)}"
            if isinstance(v, Variable)
            else f"{what} must be an integer scalar, got {v!r}"
        )
    return var


def _as_int64_scalar(v: Any, what: str) -> Variable:
    var = as_int_scalar(v, what)
    if var.type.dtype != "int64":
        from theon.tensor.basic import cast

        var = cast(var, "int64")
    return var


def static_vector_entries(v: Variable) -> tuple[int | None, ...] | None:
    """The entries of an integer vector known at build time (``None`` where unknown).

    Returns ``None`` when even the vector's length is unknown.
    """
    n = v.type.shape[0] if v.type.ndim == 1 else None
    if isinstance(v, Constant):
        return tuple(int(e) for e in np.asarray(v.data).reshape(-1))
    owner = v.owner
    if owner is not None:
        if isinstance(owner.op, MakeVector):
            return tuple(static_int(i) for i in owner.inputs)
        if isinstance(owner.op, Shape):
            return tuple(owner.inputs[0].type.shape)
    if n is None:
        return None
    return (None,) * n


def shape_scalars(shape: Any, what: str = "shape") -> list[Variable]:
    """A shape given as an int, a sequence of ints/scalars, or an int vector, as int64 scalars."""
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, (bool, np.bool_)):
        return [_as_int64_scalar(shape, what)]
    if isinstance(shape, Variable):
        if shape.type.ndim == 0:
            return [_as_int64_scalar(shape, what)]
        if shape.type.ndim != 1 or not _is_int_dtype(shape.type.dtype):
            raise TypeError(f"{what} must be an integer vector, got {describe(shape)}")
        owner = shape.owner
        if owner is not None and isinstance(owner.op, MakeVector):
            return [_as_int64_scalar(i, what) for i in owner.inputs]
        if owner is not None and isinstance(owner.op, Shape):
            return list(shape_tuple(owner.inputs[0]))
        if isinstance(shape, Constant):
            return [int64_constant(int(e)) for e in np.asarray(shape.data)]
        n = shape.type.shape[0]
        if n is None:
            raise ValueError(
                f"the length of the {what} vector {describe(shape)} must be known statically"
            )
        from theon.tensor.subtensor import getitem

        return [_as_int64_scalar(getitem(shape, i), what) for i in range(n)]
    if isinstance(shape, np.ndarray):
        if shape.ndim != 1:
            raise TypeError(f"{what} must be one-dimensional, got an array of shape {shape.shape}")
        return [_as_int64_scalar(int(e), what) for e in shape]
    if isinstance(shape, Iterable):
        return [_as_int64_scalar(e, what) for e in shape]
    raise TypeError(f"{what} must be an int, a sequence of ints or an int vector, got {shape!r}")


def normalize_axis(axis: Any, ndim: int, what: str = "axis") -> int:
    """``axis`` as a non-negative int below ``ndim``, or a NumPy-style AxisError-like ValueError."""
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"{what} must be an int, got {axis!r}")
    a = int(axis)
    if not -ndim <= a < ndim:
        raise np.exceptions.AxisError(
            f"{what} {a} is out of bounds for array of dimension {ndim}"
        )
    return a % ndim


def normalize_axes(axes: Any, ndim: int, what: str = "axis") -> tuple[int, ...]:
    """A sequence of axes, normalized and checked for repeats."""
    if isinstance(axes, (int, np.integer)):
        axes = (axes,)
    out = tuple(normalize_axis(a, ndim, what) for a in axes)
    if len(set(out)) != len(out):
        raise ValueError(f"repeated {what} in {tuple(axes)}")
    return out


def _shape_text(v: Variable) -> str:
    return str(tuple(v.type.shape))


# --------------------------------------------------------------------------- MakeVector
class MakeVector(Op):
    """Scalars to a vector of ``dtype``: ``make_vector(a, b)`` is ``[a, b]``."""

    __props__ = ("dtype",)

    def __init__(self, dtype: str = "int64") -> None:
        self.dtype = str(np.dtype(dtype))

    def make_node(self, *inputs: Any) -> Apply:
        ins = [as_tensor_variable(i) for i in inputs]
        for i in ins:
            if i.type.ndim != 0:
                raise TypeError(f"MakeVector takes scalars, got {describe(i)}")
            if not np.can_cast(i.type.dtype, self.dtype, "same_kind"):
                raise TypeError(f"MakeVector({self.dtype}) cannot hold {describe(i)}")
        return Apply(self, ins, [TensorType(self.dtype, shape=(len(ins),))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        output_storage[0][0] = np.array(inputs, dtype=self.dtype).reshape(len(inputs))

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        return [(int64_constant(len(node.inputs)),)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        if np.dtype(self.dtype).kind not in "fc":
            return [disconnected_type() for _ in inputs]
        from theon.tensor.basic import cast
        from theon.tensor.subtensor import getitem

        (gz,) = output_grads
        out: list[Any] = []
        for k, i in enumerate(inputs):
            if np.dtype(i.type.dtype).kind not in "fc":
                out.append(disconnected_type())
            else:
                g = getitem(gz, k)
                out.append(g if g.type.dtype == i.type.dtype else cast(g, i.type.dtype))
        return out

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        if any(e is None for e in eval_points):
            return [None]
        return [self(*eval_points)]


def make_vector(*scalars: Any, dtype: str = "int64") -> Variable:
    """A vector from scalars; a constant when all are known.

    >>> make_vector(2, 3).data
    array([2, 3])
    """
    known = [static_int(s) if not isinstance(s, Variable) or _is_int_dtype(s.type.dtype) else None
             for s in scalars]
    if all(k is not None for k in known) and _is_int_dtype(dtype):
        return constant(np.array(known, dtype=dtype).reshape(len(known)))
    return MakeVector(dtype)(*[as_tensor_variable(s) if isinstance(s, Variable) else
                               constant(np.asarray(s, dtype=dtype)) for s in scalars])


# --------------------------------------------------------------------------- Shape
class Shape(Op):
    """The shape of a tensor, as an int64 vector."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [TensorType("int64", shape=(x.type.ndim,))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        output_storage[0][0] = np.array(inputs[0].shape, dtype=np.int64).reshape(-1)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        return [(int64_constant(node.inputs[0].type.ndim),)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [disconnected_type()]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        return [None]


_shape = Shape()


def shape(x: Any) -> Variable:
    """The symbolic shape of ``x``: an int64 vector of length ``x.ndim``.

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> shape(x).eval({x: [[1.0, 2.0, 3.0]]})
    array([1, 3])
    """
    return _shape(as_tensor_variable(x))


class Shape_i(Op):
    """One dimension of a tensor's shape, as an int64 scalar."""

    __props__ = ("i",)

    def __init__(self, i: int) -> None:
        self.i = int(i)

    def __str__(self) -> str:
        return f"Shape_i{{{self.i}}}"

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        if not 0 <= self.i < x.type.ndim:
            raise ValueError(f"Shape_i{{{self.i}}} of {describe(x)}: it has {x.type.ndim} dims")
        return Apply(self, [x], [_INT64()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        output_storage[0][0] = np.asarray(inputs[0].shape[self.i], dtype=np.int64)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        return [()]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [disconnected_type()]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        return [None]


def shape_i(x: Any, i: int) -> Variable:
    """Dimension ``i`` of ``x`` as an int64 scalar (a constant when statically known).

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> shape_i(x, -1).eval({x: [[1.0, 2.0, 3.0]]})
    array(3)
    """
    x = as_tensor_variable(x)
    i = normalize_axis(i, x.type.ndim, "dimension")
    s = x.type.shape[i]
    if s is not None:
        return int64_constant(s)
    return Shape_i(i)(x)


def shape_tuple(x: Any) -> tuple[Variable, ...]:
    """The shape of ``x`` as a tuple of int64 scalars (constants where known)."""
    x = as_tensor_variable(x)
    return tuple(shape_i(x, i) for i in range(x.type.ndim))


# --------------------------------------------------------------------------- SpecifyShape
class SpecifyShape(Op):
    """Asserts (at run time) and records (in the type) some dimensions of a tensor.

    ``specified[d]`` says whether dimension ``d`` is given; its size is the next
    scalar input.  The output is the input itself (a view).
    """

    __props__ = ("specified",)
    view_map = {0: [0]}

    def __init__(self, specified: Sequence[bool]) -> None:
        self.specified = tuple(bool(s) for s in specified)

    def make_node(self, x: Any, *dims: Any) -> Apply:
        x = as_tensor_variable(x)
        if x.type.ndim != len(self.specified):
            raise ValueError(
                f"specify_shape: {describe(x)} has {x.type.ndim} dims, "
                f"but the shape given has {len(self.specified)}"
            )
        dims_v = [_as_int64_scalar(d, "specify_shape dimension") for d in dims]
        if len(dims_v) != sum(self.specified):
            raise ValueError(f"{self} expects {sum(self.specified)} dimension inputs")
        out_shape: list[int | None] = []
        it = iter(dims_v)
        for d, spec in enumerate(self.specified):
            have = x.type.shape[d]
            if not spec:
                out_shape.append(have)
                continue
            want = static_int(next(it))
            if want is not None and want < 0:
                raise ValueError(f"specify_shape: dimension {d} cannot be negative ({want})")
            if want is not None and have is not None and want != have:
                raise ValueError(
                    f"specify_shape: {describe(x)} has static shape {_shape_text(x)}, "
                    f"incompatible with size {want} at dimension {d}"
                )
            out_shape.append(have if want is None else want)
        out = TensorType(x.type.dtype, shape=tuple(out_shape))()
        return Apply(self, [x, *dims_v], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        x = inputs[0]
        if x.ndim != len(self.specified):
            raise ValueError(f"SpecifyShape: expected {len(self.specified)} dims, got {x.ndim}")
        it = iter(inputs[1:])
        for d, spec in enumerate(self.specified):
            if spec:
                want = int(next(it))
                if x.shape[d] != want:
                    raise AssertionError(
                        f"SpecifyShape: dimension {d} of an array of shape {x.shape} "
                        f"should be {want}"
                    )
        output_storage[0][0] = x

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        it = iter(node.inputs[1:])
        out = []
        for d, spec in enumerate(self.specified):
            out.append(next(it) if spec else input_shapes[0][d])
        return [tuple(out)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [output_grads[0]] + [disconnected_type() for _ in inputs[1:]]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], *inputs[1:])]


def specify_shape(x: Any, shape: Any) -> Variable:
    """``x`` with some dimensions fixed: ``None`` entries leave a dimension free.

    The sizes are checked when the graph runs.

    >>> import theon.tensor as tt
    >>> specify_shape(tt.dmatrix("x"), (None, 3)).type.shape
    (None, 3)
    """
    x = as_tensor_variable(x)
    if isinstance(shape, (int, np.integer)) or (
        isinstance(shape, Variable) and shape.type.ndim == 0
    ):
        shape = (shape,)
    if isinstance(shape, Variable):
        entries: list[Any] = list(shape_scalars(shape))
    else:
        entries = list(shape)
    specified = [e is not None for e in entries]
    if len(entries) != x.type.ndim:
        raise ValueError(
            f"specify_shape: {describe(x)} has {x.type.ndim} dims, but the shape "
            f"given has {len(entries)}"
        )
    if not any(specified):
        return x
    return SpecifyShape(specified)(x, *[e for e in entries if e is not None])


def specify_broadcastable(x: Any, *axes: int) -> Variable:
    """``x`` with the given axes declared to have size 1 (checked at run time)."""
    x = as_tensor_variable(x)
    if not axes:
        return x
    ax = normalize_axes(axes, x.type.ndim)
    return specify_shape(x, [1 if d in ax else None for d in range(x.type.ndim)])


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
    size = None if any(s is None for s in in_shape) else int(np.prod(in_shape, dtype=np.int64))
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


class Reshape(Op):
    """Reshape to the int vector ``shp`` (of static length ``ndim``; one entry may be -1)."""

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

        x, shp = node.inputs
        static_out = node.outputs[0].type.shape
        entries = static_vector_entries(shp) or (None,) * self.ndim
        owner = shp.owner
        scal: list[Any] = []
        for k in range(self.ndim):
            if static_out[k] is not None:
                scal.append(int64_constant(static_out[k]))
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
        return [reshape(output_grads[0], shape(x), ndim=x.type.ndim), disconnected_type()]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], inputs[1])]


def reshape(x: Any, newshape: Any, ndim: int | None = None) -> Variable:
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
    if isinstance(newshape, Variable) and newshape.type.ndim == 1:
        if not _is_int_dtype(newshape.type.dtype):
            raise TypeError(f"reshape: the new shape must be integers, got {describe(newshape)}")
        n = newshape.type.shape[0]
        if n is None:
            if ndim is None:
                raise ValueError(
                    f"reshape: the length of the new shape {describe(newshape)} is not "
                    "known statically; pass ndim"
                )
            n = ndim
        if ndim is not None and ndim != n:
            raise ValueError(f"reshape: ndim={ndim} but the new shape has length {n}")
        shp = newshape if newshape.type.dtype == "int64" else _cast_vec(newshape)
        return Reshape(n)(x, shp)
    scal = shape_scalars(newshape, "new shape")
    if ndim is not None and ndim != len(scal):
        raise ValueError(f"reshape: ndim={ndim} but the new shape has length {len(scal)}")
    return Reshape(len(scal))(x, make_vector(*scal))


def _cast_vec(v: Variable) -> Variable:
    from theon.tensor.basic import cast

    return cast(v, "int64")


def flatten(x: Any, ndim: int = 1) -> Variable:
    """Collapse the trailing dimensions of ``x`` so that it has ``ndim`` dimensions.

    >>> import theon.tensor as tt
    >>> x = tt.tensor3("x")
    >>> flatten(x, 2).type.ndim
    2
    """
    x = as_tensor_variable(x)
    if ndim < 1 or ndim > max(x.type.ndim, 1):
        raise ValueError(f"flatten: ndim={ndim} is invalid for {describe(x)}")
    if ndim == 1:
        return Reshape(1)(x, int64_constant_vec([-1]))
    dims = list(shape_tuple(x))
    lead = dims[: ndim - 1]
    rest = dims[ndim - 1 :]
    known = [static_int(d) for d in rest]
    if all(k is not None for k in known):
        last: Any = int(np.prod(known, dtype=np.int64))
    else:
        last = rest[0]
        for d in rest[1:]:
            last = last * d
    return Reshape(ndim)(x, make_vector(*lead, last))


def int64_constant_vec(v: Sequence[int]) -> Variable:
    """A constant int64 vector."""
    return constant(np.array(v, dtype=np.int64).reshape(len(v)))


def ravel(x: Any) -> Variable:
    """``x`` as a vector (same as ``flatten(x)``).

    >>> import theon.tensor as tt
    >>> ravel(tt.dmatrix("x")).type.ndim
    1
    """
    return flatten(x, 1)


# --------------------------------------------------------------------------- DimShuffle-based
def _dimshuffle(x: Variable, new_order: Sequence[Any]) -> Variable:
    new_order = tuple(new_order)
    if new_order == tuple(range(x.type.ndim)):
        return x
    return DimShuffle(x.type.ndim, new_order)(x)


def transpose(x: Any, axes: Sequence[int] | None = None) -> Variable:
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
        if isinstance(axes, (int, np.integer)):
            axes = (axes,)
        perm = normalize_axes(axes, nd)
        if len(perm) != nd:
            raise ValueError(f"transpose: axes {tuple(axes)} don't match {describe(x)}")
    return _dimshuffle(x, perm)


def swapaxes(x: Any, axis1: int, axis2: int) -> Variable:
    """``x`` with two axes interchanged.

    >>> import theon.tensor as tt
    >>> swapaxes(tt.TensorType("float64", shape=(2, 3))("x"), 0, 1).type.shape
    (3, 2)
    """
    x = as_tensor_variable(x)
    a1 = normalize_axis(axis1, x.type.ndim)
    a2 = normalize_axis(axis2, x.type.ndim)
    perm = list(range(x.type.ndim))
    perm[a1], perm[a2] = perm[a2], perm[a1]
    return _dimshuffle(x, perm)


def moveaxis(x: Any, source: Any, destination: Any) -> Variable:
    """Move axes of ``x`` to new positions, the others keeping their order.

    >>> import theon.tensor as tt
    >>> moveaxis(tt.TensorType("float64", shape=(2, 3, 4))("x"), 0, -1).type.shape
    (3, 4, 2)
    """
    x = as_tensor_variable(x)
    nd = x.type.ndim
    src = normalize_axes(source, nd, "source")
    dst = normalize_axes(destination, nd, "destination")
    if len(src) != len(dst):
        raise ValueError("moveaxis: source and destination must have the same number of axes")
    order = [a for a in range(nd) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _dimshuffle(x, order)


def squeeze(x: Any, axis: Any = None) -> Variable:
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
        axes = normalize_axes(axis, nd)
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


def expand_dims(x: Any, axis: Any) -> Variable:
    """Insert new dimensions of size 1 at the positions ``axis`` of the result.

    >>> import theon.tensor as tt
    >>> expand_dims(tt.dvector("x"), (0, -1)).type.shape
    (1, None, 1)
    """
    x = as_tensor_variable(x)
    if isinstance(axis, (int, np.integer)):
        axis = (axis,)
    out_nd = x.type.ndim + len(tuple(axis))
    axes = set(normalize_axes(axis, out_nd))
    it = iter(range(x.type.ndim))
    order = ["x" if d in axes else next(it) for d in range(out_nd)]
    return _dimshuffle(x, order)


def shape_padleft(x: Any, n_ones: int = 1) -> Variable:
    """``x`` with ``n_ones`` new leading dimensions of size 1.

    >>> import theon.tensor as tt
    >>> shape_padleft(tt.dvector("x"), 2).type.shape
    (1, 1, None)
    """
    x = as_tensor_variable(x)
    return _dimshuffle(x, ["x"] * n_ones + list(range(x.type.ndim)))


def shape_padright(x: Any, n_ones: int = 1) -> Variable:
    """``x`` with ``n_ones`` new trailing dimensions of size 1.

    >>> import theon.tensor as tt
    >>> shape_padright(tt.dvector("x")).type.shape
    (None, 1)
    """
    x = as_tensor_variable(x)
    return _dimshuffle(x, list(range(x.type.ndim)) + ["x"] * n_ones)


def shape_padaxis(x: Any, axis: int) -> Variable:
    """``x`` with a new dimension of size 1 at position ``axis`` (``expand_dims``).

    >>> import theon.tensor as tt
    >>> shape_padaxis(tt.dmatrix("x"), 1).type.shape
    (None, 1, None)
    """
    return expand_dims(x, axis)
