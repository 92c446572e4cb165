"""Shapes as graph values: ``shape``, ``shape_i``, ``make_vector``, ``specify_shape``.

``shape(x)`` is an int64 vector, ``shape_i(x, i)`` an int64 scalar (a constant when
the static shape knows it).  The ops that change a tensor's shape without touching
data (``reshape``, ``flatten``, ``transpose``, ``squeeze``, ``expand_dims``, ...) are in
:mod:`theon.tensor.reshaping`; they stay importable from here.

>>> import theon.tensor as tt
>>> shape(tt.dmatrix("x")).type
TensorType(int64, shape=(2,))
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
from theon.tensor.arguments import as_int_tuple, axis_index, int_value
from theon.tensor.basic import TensorOp, as_tensor_variable, constant
from theon.tensor.type import TensorType, tensor_type, tensor_vars
from theon.tensor.variable import TensorConstant, TensorVariable

__all__ = [
    "MakeVector",
    "Shape",
    "Shape_i",
    "SpecifyShape",
    "Unbroadcast",
    "addbroadcast",
    "make_vector",
    "shape",
    "shape_i",
    "shape_tuple",
    "specify_broadcastable",
    "specify_shape",
    "patternbroadcast",
    "unbroadcast",
]

_INT64 = TensorType("int64", shape=())


# --------------------------------------------------------------------------- helpers
def _is_int_dtype(dtype: Any) -> bool:
    return np.dtype(dtype).kind in "iu"


def int64_constant(v: int) -> TensorConstant:
    """A 0-d int64 constant.

    >>> c = int64_constant(3)
    >>> c.type, c.data
    (TensorType(int64, shape=()), array(3))
    """
    return constant(np.asarray(v, dtype=np.int64))


def static_int(v: Any) -> int | None:
    """The value of an integer scalar known at build time (Python int, constant, static dim).

    >>> import theon.tensor as tt
    >>> static_int(3), static_int(int64_constant(4)), static_int(tt.lscalar("n"))
    (3, 4, None)
    """
    r = int_value(v)
    if r is not None or isinstance(v, Constant):
        return r
    if isinstance(v, Variable) and v.owner is not None:
        op = v.owner.op
        if isinstance(op, Shape_i):
            return tensor_type(v.owner.inputs[0]).shape[op.i]
    return None


def as_int_scalar(v: Any, what: str = "value") -> TensorVariable:
    """``v`` as a 0-d integer tensor variable (Python ints become int64 constants).

    >>> as_int_scalar(3).type
    TensorType(int64, shape=())
    """
    if isinstance(v, (bool, np.bool_)):
        raise TypeError(f"{what} must be an integer, got the boolean {v!r}")
    r = int_value(v)
    if r is not None and not isinstance(v, Variable):
        return int64_constant(r)
    var = as_tensor_variable(v)
    if var.type.ndim != 0 or not _is_int_dtype(var.type.dtype):
        raise TypeError(
            f"{what} must be an integer scalar, got {describe(var)}"
            if isinstance(v, Variable)
            else f"{what} must be an integer scalar, got {v!r}"
        )
    return var


def _as_int64_scalar(v: Any, what: str) -> TensorVariable:
    var = as_int_scalar(v, what)
    if var.type.dtype != "int64":
        from theon.tensor.basic import cast

        var = cast(var, "int64")
    return var


def static_vector_entries(v: TensorVariable) -> tuple[int | None, ...] | None:
    """The entries of an integer vector known at build time (``None`` where unknown).

    Returns ``None`` when even the vector's length is unknown.

    >>> import theon.tensor as tt
    >>> static_vector_entries(make_vector(2, tt.lscalar("n")))
    (2, None)
    """
    n = v.type.shape[0] if v.type.ndim == 1 else None
    if isinstance(v, Constant):
        return tuple(int(e) for e in np.asarray(v.data).reshape(-1))
    owner = v.owner
    if owner is not None:
        if isinstance(owner.op, MakeVector):
            return tuple(static_int(i) for i in owner.inputs)
        if isinstance(owner.op, Shape):
            return tuple(tensor_type(owner.inputs[0]).shape)
    if n is None:
        return None
    return (None,) * n


def shape_scalars(shape: Any, what: str = "shape") -> list[Variable]:
    """A shape given as an int, a sequence of ints/scalars, or an int vector, as int64 scalars.

    Integers may be NumPy's (``np.int64(2)``, ``np.array(2)``, ``np.array([2, 3])``; see
    :mod:`theon.tensor.arguments`); an empty vector of any dtype is the empty shape
    (``np.array([])``, ``constant([])``), as for NumPy.

    >>> [static_int(s) for s in shape_scalars((2, 3))]
    [2, 3]
    >>> shape_scalars(constant([]))
    []
    """
    if int_value(shape) is not None and not isinstance(shape, Variable):
        return [_as_int64_scalar(shape, what)]
    if isinstance(shape, Variable):
        st = tensor_type(shape)
        if st.ndim == 0:
            return [_as_int64_scalar(shape, what)]
        if st.ndim == 1 and st.shape[0] == 0:
            return []
        if st.ndim != 1 or not _is_int_dtype(st.dtype):
            raise TypeError(f"{what} must be an integer vector, got {describe(shape)}")
        owner = shape.owner
        if owner is not None and isinstance(owner.op, MakeVector):
            return [_as_int64_scalar(i, what) for i in owner.inputs]
        if owner is not None and isinstance(owner.op, Shape):
            return list(shape_tuple(owner.inputs[0]))
        if isinstance(shape, Constant):
            return [int64_constant(int(e)) for e in np.asarray(shape.data)]
        n = st.shape[0]
        if n is None:
            raise ValueError(
                f"the length of the {what} vector {describe(shape)} must be known statically"
            )
        from theon.tensor.subtensor import getitem

        return [_as_int64_scalar(getitem(shape, i), what) for i in range(n)]
    if isinstance(shape, np.ndarray):
        return [int64_constant(e) for e in as_int_tuple(shape, what)]
    if isinstance(shape, Iterable):
        return [_as_int64_scalar(e, what) for e in shape]
    raise TypeError(f"{what} must be an int, a sequence of ints or an int vector, got {shape!r}")


def normalize_axis(axis: Any, ndim: int, what: str = "axis", of: Variable | None = None) -> int:
    """``axis`` (an integer: see :mod:`theon.tensor.arguments`) as a non-negative int
    below ``ndim``; NumPy's ``AxisError`` naming ``of`` when it is out of range.

    >>> normalize_axis(-1, 3)
    2
    """
    return axis_index(axis, ndim, what, of)


def normalize_axes(axes: Any, ndim: int, what: str = "axis", of: Variable | None = None
                   ) -> tuple[int, ...]:
    """A sequence of axes (or one, or a 1-d integer array), normalized and checked for
    repeats.

    >>> normalize_axes((0, -1), 3)
    (0, 2)
    """
    items = as_int_tuple(axes, what)
    out = tuple(axis_index(a, ndim, what, of) for a in items)
    if len(set(out)) != len(out):
        raise ValueError(f"repeated {what} in {items}"
                         + (f" for {describe(of)}" if of is not None else ""))
    return out


def _shape_text(v: Variable) -> str:
    return str(tuple(tensor_type(v).shape))


# --------------------------------------------------------------------------- MakeVector
class MakeVector(TensorOp):
    """Scalars to a vector of ``dtype``: ``make_vector(a, b)`` is ``[a, b]``.

    >>> import theon.tensor as tt
    >>> n = tt.lscalar("n")
    >>> MakeVector("int64")(n, 3).eval({n: 2})
    array([2, 3])
    """

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
        for k, i in enumerate(tensor_vars(inputs)):
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


def make_vector(*scalars: Any, dtype: str = "int64") -> TensorVariable:
    """A vector from scalars; a constant when all are known.

    >>> make_vector(2, 3).data
    array([2, 3])
    """
    known = [
        None if isinstance(s, Variable) and not _is_int_dtype(tensor_type(s).dtype)
        else static_int(s)
        for s in scalars
    ]
    if all(k is not None for k in known) and _is_int_dtype(dtype):
        return constant(np.array(known, dtype=dtype).reshape(len(known)))
    return MakeVector(dtype)(*[as_tensor_variable(s) if isinstance(s, Variable) else
                               constant(np.asarray(s, dtype=dtype)) for s in scalars])


# --------------------------------------------------------------------------- Shape
class Shape(TensorOp):
    """The shape of a tensor, as an int64 vector.

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> Shape()(x).eval({x: np.zeros((2, 3))})
    array([2, 3])
    """

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        return Apply(self, [x], [TensorType("int64", shape=(x.type.ndim,))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        output_storage[0][0] = np.array(inputs[0].shape, dtype=np.int64).reshape(-1)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        return [(int64_constant(tensor_type(node.inputs[0]).ndim),)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [disconnected_type()]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        return [None]


_shape = Shape()


def shape(x: Any) -> TensorVariable:
    """The symbolic shape of ``x``: an int64 vector of length ``x.ndim``.

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> shape(x).eval({x: [[1.0, 2.0, 3.0]]})
    array([1, 3])
    """
    return _shape(as_tensor_variable(x))


class Shape_i(TensorOp):
    """One dimension of a tensor's shape, as an int64 scalar.

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> Shape_i(1)(x).eval({x: np.zeros((2, 3))})
    array(3)
    """

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


def shape_i(x: Any, i: int) -> TensorVariable:
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
    """The shape of ``x`` as a tuple of int64 scalars (constants where known).

    >>> import theon.tensor as tt
    >>> x = tt.TensorType("float64", shape=(2, None))("x")
    >>> [static_int(s) for s in shape_tuple(x)]
    [2, None]
    """
    x = as_tensor_variable(x)
    return tuple(shape_i(x, i) for i in range(x.type.ndim))


# --------------------------------------------------------------------------- SpecifyShape
class SpecifyShape(TensorOp):
    """Asserts (at run time) and records (in the type) some dimensions of a tensor.

    ``specified[d]`` says whether dimension ``d`` is given; its size is the next
    scalar input.  The output is the input itself (a view).

    >>> import theon.tensor as tt
    >>> specify_shape(tt.dmatrix("x"), (None, 3)).type.shape
    (None, 3)
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


def specify_shape(x: Any, shape: Any) -> TensorVariable:
    """``x`` with some dimensions fixed: ``None`` entries leave a dimension free.

    The sizes are checked when the graph runs.

    >>> import theon.tensor as tt
    >>> specify_shape(tt.dmatrix("x"), (None, 3)).type.shape
    (None, 3)
    """
    v = as_tensor_variable(x)
    if (int_value(shape) is not None and not isinstance(shape, Variable)) or (
        isinstance(shape, Variable) and tensor_type(shape).ndim == 0
    ):
        shape = (shape,)
    if isinstance(shape, (Variable, np.ndarray)):
        entries: list[Any] = list(shape_scalars(shape))
    else:
        entries = list(shape)
    specified = [e is not None for e in entries]
    if len(entries) != v.type.ndim:
        raise ValueError(
            f"specify_shape: {describe(v)} has {v.type.ndim} dims, but the shape "
            f"given has {len(entries)}"
        )
    if not any(specified):
        return v
    return SpecifyShape(specified)(v, *[e for e in entries if e is not None])


def specify_broadcastable(x: Any, *axes: int) -> TensorVariable:
    """``x`` with the given axes declared to have size 1 (checked at run time).

    >>> import theon.tensor as tt
    >>> specify_broadcastable(tt.dmatrix("x"), 0).type.shape
    (1, None)
    """
    v = as_tensor_variable(x)
    if not axes:
        return v
    ax = normalize_axes(axes, v.type.ndim)
    return specify_shape(v, [1 if d in ax else None for d in range(v.type.ndim)])


def addbroadcast(x: Any, *axes: int) -> TensorVariable:
    """Theano's name of :func:`specify_broadcastable`: the ``axes`` have length 1.

    >>> import theon.tensor as tt
    >>> tt.addbroadcast(tt.dmatrix("x"), 1).broadcastable
    (False, True)
    """
    return specify_broadcastable(x, *axes)


class Unbroadcast(TensorOp):
    """The input with the static length 1 of some axes forgotten (a view, no check).

    Theano's ``Rebroadcast`` with ``False`` flags: the output may no longer be
    broadcast along those axes by the type's rules.
    """

    __props__ = ("axes",)
    view_map = {0: [0]}

    def __init__(self, axes: Sequence[int]) -> None:
        self.axes = tuple(sorted({int(a) for a in axes}))

    def make_node(self, x: Any) -> Apply:
        x = as_tensor_variable(x)
        nd = x.type.ndim
        if any(a < 0 or a >= nd for a in self.axes):
            raise ValueError(f"unbroadcast: axes {self.axes} out of range for {describe(x)}")
        shape = tuple(
            None if d in self.axes and s == 1 else s for d, s in enumerate(x.type.shape)
        )
        return Apply(self, [x], [TensorType(x.type.dtype, shape=shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        output_storage[0][0] = inputs[0]

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        return [tuple(input_shapes[0])]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        g = as_tensor_variable(output_grads[0])
        x_shape = tensor_type(inputs[0]).shape
        if g.type.shape == x_shape:
            return [g]
        return [specify_shape(g, x_shape)]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        return [None if eval_points[0] is None else self(eval_points[0])]


def unbroadcast(x: Any, *axes: int) -> TensorVariable:
    """``x`` with the given axes no longer statically of length 1 (Theano's spelling).

    >>> import theon.tensor as tt
    >>> tt.unbroadcast(tt.row("r"), 0).broadcastable
    (False, False)
    """
    v = as_tensor_variable(x)
    ax = normalize_axes(axes, v.type.ndim) if axes else ()
    if not any(v.type.shape[a] == 1 for a in ax):
        return v
    return Unbroadcast(ax)(v)


def patternbroadcast(x: Any, broadcastable: Sequence[bool]) -> TensorVariable:
    """``x`` with the broadcastable pattern ``broadcastable`` (Theano's spelling): a
    True axis has length 1 (checked at run time), a False one is free.

    >>> import theon.tensor as tt
    >>> tt.patternbroadcast(tt.row("r"), (False, True)).broadcastable
    (False, True)
    """
    x = as_tensor_variable(x)
    pattern = tuple(bool(b) for b in broadcastable)
    if len(pattern) != x.type.ndim:
        raise ValueError(
            f"patternbroadcast: pattern {pattern} has {len(pattern)} entries, "
            f"{describe(x)} has {x.type.ndim} dimensions"
        )
    x = unbroadcast(x, *[d for d, b in enumerate(pattern) if not b])
    return specify_broadcastable(x, *[d for d, b in enumerate(pattern) if b])


# moved to theon.tensor.reshaping; importable from here (lazily: reshaping imports this module)
_MOVED = frozenset(
    {
        "Reshape",
        "expand_dims",
        "flatten",
        "int64_constant_vec",
        "moveaxis",
        "ravel",
        "reshape",
        "shape_padaxis",
        "shape_padleft",
        "shape_padright",
        "squeeze",
        "swapaxes",
        "transpose",
        "_cast_vec",
        "_dimshuffle",
        "_reshape_static",
    }
)


def __getattr__(name: str) -> Any:
    """The names that moved to :mod:`theon.tensor.reshaping`, for old import paths."""
    if name in _MOVED:
        from theon.tensor import reshaping

        return getattr(reshaping, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
