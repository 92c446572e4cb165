"""Making tensor variables: ``as_tensor_variable``, ``constant``, ``cast``, scalar <-> tensor.

>>> x = as_tensor_variable([[1, 2], [3, 4]])
>>> x.type
TensorType(int64, shape=(2, 2))
>>> cast(x, "float32").dtype
'float32'
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import describe
from theon.graph.op import Op
from theon.tensor.exceptions import NotScalarConstantError
from theon.tensor.type import TensorType, tensor_type
from theon.tensor.variable import TensorConstant, TensorValue, TensorVariable

__all__ = [
    "NotScalarConstantError",
    "ScalarFromTensor",
    "TensorFromScalar",
    "TensorOp",
    "as_tensor",
    "as_tensor_variable",
    "cast",
    "constant",
    "get_scalar_constant_value",
    "get_underlying_scalar_constant_value",
    "is_weak_scalar",
    "scalar_from_tensor",
    "tensor_from_scalar",
    "value",
    "weak_constant_dtype",
]


class TensorOp(Op):
    """An Op whose call gives one TensorVariable: its only output, or its ``default_output``.

    It adds nothing at run time; it tells type checkers what ``op(x)`` returns
    (``Op.__call__`` itself can only say ``Any``), so tensor code reads ``op(x).dtype``
    with a checked type.  ``op(x, return_list=True)`` gives the list of outputs.

    >>> import theon.tensor as tt
    >>> from theon.tensor.elemwise import DimShuffle
    >>> isinstance(DimShuffle(1, ("x", 0)), TensorOp)
    True
    """

    if TYPE_CHECKING:

        @overload
        def __call__(
            self,
            *inputs: Any,
            return_list: Literal[False] = False,
            name: str | None = None,
            **kwargs: Any,
        ) -> TensorVariable: ...

        @overload
        def __call__(
            self, *inputs: Any, return_list: Literal[True], name: str | None = None, **kwargs: Any
        ) -> list[TensorVariable]: ...

        @overload
        def __call__(
            self, *inputs: Any, return_list: bool = False, name: str | None = None, **kwargs: Any
        ) -> TensorVariable | list[TensorVariable]: ...

        def __call__(
            self, *inputs: Any, return_list: bool = False, name: str | None = None, **kwargs: Any
        ) -> TensorVariable | list[TensorVariable]: ...


def is_weak_scalar(x: Any) -> bool:
    """Whether ``x`` is a Python number, weak under NumPy 2's NEP 50 (not a NumPy scalar).

    >>> is_weak_scalar(3), is_weak_scalar(np.int64(3))
    (True, False)
    """
    return type(x) in (bool, int, float, complex)


_DEFAULT_WEAK = {bool: "bool", int: "int64", float: "float64", complex: "complex128"}


def weak_constant_dtype(value: Any, strong_dtypes: Sequence[str], overflow_ok: bool = False) -> str:
    """The dtype a Python number takes as a constant next to operands of ``strong_dtypes``.

    NumPy 2 gives ``np.result_type(*strong_dtypes, value)`` (NEP 50).  The
    constant keeps its default dtype (int64, float64, complex128) when that gives
    the same result, so ``dscalar + 1`` holds an int64 ``1`` as in seed 000;
    otherwise it takes the result dtype (``fvector + 1.0`` holds a float32).
    Raises ``OverflowError`` when an int does not fit, unless ``overflow_ok``.

    >>> weak_constant_dtype(1, ["float64"]), weak_constant_dtype(1, ["float32"])
    ('int64', 'float32')
    >>> weak_constant_dtype(2.5, ["int8"])
    'float64'
    """
    tv = type(value)
    default = _DEFAULT_WEAK[tv]
    if not strong_dtypes:
        return default
    key = (tv, tuple(strong_dtypes))
    rule = _WEAK_RULES.get(key)
    if rule is None:
        rule = _weak_rule(value, strong_dtypes, default)
        if len(_WEAK_RULES) < 4096:
            _WEAK_RULES[key] = rule
    target, keeps_default, lo, hi = rule
    if tv is int:
        if lo is not None and not lo <= value <= hi:
            if overflow_ok:
                return str(np.asarray(value).dtype) if -(2**63) <= value < 2**63 else "uint64"
            raise OverflowError(
                f"Python integer {value} is out of bounds for {target}, the dtype it takes "
                f"next to operands of dtype {', '.join(strong_dtypes)} (NumPy 2 rules)"
            )
        if keeps_default and -(2**63) <= value < 2**63:
            return default
        return target
    return default if keeps_default else target


# (type of the Python number, strong dtypes) -> (result dtype, whether the default dtype
# gives it too, exact int range of the result or None); NEP 50 makes these value-free
_WEAK_RULES: dict[tuple[type, tuple[str, ...]], tuple[str, bool, int | None, int | None]] = {}


def _weak_rule(
    value: Any, strong_dtypes: Sequence[str], default: str
) -> tuple[str, bool, int | None, int | None]:
    """The cached part of :func:`weak_constant_dtype` for numbers of ``type(value)``."""
    strong = [np.dtype(d) for d in strong_dtypes]
    target = np.result_type(*strong, value)
    lo = hi = None
    if target.kind in "iu":
        info = np.iinfo(target)
        lo, hi = int(info.min), int(info.max)
    keeps_default = bool(np.result_type(*strong, np.dtype(default)) == target)
    return str(target), keeps_default, lo, hi


def _floatx() -> str:
    from theon.config import config

    return str(config.floatX)


def _contains_variable(x: Any) -> bool:
    """Whether a (nested) list/tuple holds a Variable."""
    stack = [x]
    while stack:
        cur = stack.pop()
        if isinstance(cur, Variable):
            return True
        if isinstance(cur, (list, tuple)):
            stack.extend(cur)
    return False


def _fix_ndim(data: np.ndarray, ndim: int | None, what: Any) -> np.ndarray:
    """Add leading axes, or drop leading length-1 axes, to reach ``ndim``."""
    if ndim is None or data.ndim == ndim:
        return data
    if data.ndim < ndim:
        return data.reshape((1,) * (ndim - data.ndim) + data.shape)
    extra = data.ndim - ndim
    if all(s == 1 for s in data.shape[:extra]):
        return data.reshape(data.shape[extra:])
    raise ValueError(f"cannot make a {ndim}-d tensor from {what!r} of shape {data.shape}")


def constant(
    x: Any, name: str | None = None, ndim: int | None = None, dtype: Any = None
) -> TensorConstant:
    """A TensorConstant holding a read-only copy of ``x``.

    Parameters
    ----------
    x
        A Python number, nested list, NumPy scalar or array.
    name
        Optional name.
    ndim
        Number of dimensions wanted (leading axes are added or dropped).
    dtype
        The dtype; by default NumPy's, with Python floats as ``config.floatX``.

    The constant's static shape is the data's shape.

    >>> constant(2.0)
    TensorConstant{2.0}
    >>> constant([1, 2], dtype="int8").type
    TensorType(int8, shape=(2,))
    """
    if isinstance(x, TensorConstant):
        if (dtype is None or np.dtype(dtype) == x.type.numpy_dtype) and (
            ndim is None or ndim == x.type.ndim
        ):
            return x
        x = x.data
    if isinstance(x, Variable):
        raise TypeError(f"constant() needs a value, got the symbolic variable {x} of {x.type}")
    if dtype is not None:
        dt = np.dtype(_floatx() if dtype == "floatX" else dtype)
        try:
            data = np.array(x, dtype=dt)
        except OverflowError as e:
            raise OverflowError(f"constant({x!r}, dtype={dt}): {e}") from None
    else:
        data = np.array(x)
        if data.dtype == np.float64 and not isinstance(x, (np.ndarray, np.generic)):
            fx = _floatx()
            if fx != "float64":
                data = data.astype(fx)
    if data.dtype == object or data.dtype.kind in "SUVMm":
        raise TypeError(
            f"constant() needs numeric data, got {type(x).__name__} giving dtype {data.dtype}"
        )
    data = _fix_ndim(data, ndim, x)
    # ``data`` is a fresh array of ours (np.array copies): freeze it instead of copying again
    data.setflags(write=False)
    ttype = TensorType(data.dtype, data.shape)
    return TensorConstant(ttype, data, name=name)


def value(x: Any, name: str | None = None, dtype: Any = None) -> TensorValue:
    """A symbolic input holding ``x`` as its value (the seeds' ``tensor.value``).

    The dtype follows :func:`constant`; dimensions of length 1 are broadcastable,
    the others of any length.  Listed among a function's inputs it behaves like
    any input: the argument passed at each call is used, ``x`` is only recorded.

    >>> import theon, theon.tensor as tt
    >>> d, b = value(1.5), tt.fscalar("b")
    >>> f = theon.function([d, b], [d + b])
    >>> f(2.0, 2.5)[0]
    array(4.5)
    """
    data = constant(x, dtype=dtype).data
    ttype = TensorType(data.dtype, tuple(1 if s == 1 else None for s in data.shape))
    return TensorValue(ttype, None, None, name, data=data)


def as_tensor_variable(
    x: Any, name: str | None = None, ndim: int | None = None, dtype: Any = None, **kwargs: Any
) -> TensorVariable:
    """``x`` as a tensor Variable: variables pass through, values become constants.

    Parameters
    ----------
    x
        A TensorVariable, a single-output Apply, a scalar Variable, a number, list
        or array.  A list holding Variables is stacked.  Other types convert through
        the converters registered with :func:`_as_tensor_variable`.
    name
        Name for a new constant.
    ndim
        Required number of dimensions: leading broadcastable axes are added or
        dropped; anything else is an error.
    dtype
        Cast to this dtype.
    kwargs
        Passed on to a registered converter; theon's own take only
        ``allow_xtensor_conversion`` (PyTensor's; theon has no xtensor, so it does nothing).

    >>> as_tensor_variable(3).type
    TensorType(int64, shape=())
    >>> import theon.tensor as tt
    >>> v = tt.dvector("v")
    >>> as_tensor_variable(v) is v
    True
    """
    if type(x) in _TENSOR_CLASSES and not kwargs:  # theon's own variables: no dispatch
        v: TensorVariable = x
        if dtype is not None:
            v = cast(v, dtype)
        if ndim is not None and v.type.ndim != ndim:
            v = _variable_to_ndim(v, ndim)
        return v
    if dtype is not None:
        kwargs["dtype"] = dtype
    return _as_tensor_variable(x, name, ndim, **kwargs)


@functools.singledispatch
def _as_tensor_variable(
    x: Any, name: str | None, ndim: int | None, **kwargs: Any
) -> TensorVariable:
    """The conversion :func:`as_tensor_variable` dispatches on the type of ``x``
    (PyTensor's extension point): register a converter for a new type, as PyMC does for
    pandas objects.

    >>> import fractions
    >>> @_as_tensor_variable.register(fractions.Fraction)
    ... def _fraction(x, name, ndim, **kwargs):
    ...     return as_tensor_variable(float(x), name, ndim, **kwargs)
    >>> as_tensor_variable(fractions.Fraction(1, 4)).data
    array(0.25)

    This default makes a constant of a number, array or nested list (a list holding
    variables is stacked).
    """
    dtype = _conversion_options(kwargs)
    if isinstance(x, (list, tuple)) and _contains_variable(x):
        stacked = _stack_values(x)
        return as_tensor_variable(stacked, name=name, ndim=ndim, dtype=dtype)
    return constant(x, name=name, ndim=ndim, dtype=dtype)


def _conversion_options(kwargs: dict[str, Any]) -> Any:
    """The ``dtype`` among theon's converters' keyword arguments; others are errors."""
    dtype = kwargs.pop("dtype", None)
    kwargs.pop("allow_xtensor_conversion", None)  # (PyTensor's named dimensions)
    if kwargs:
        raise TypeError(f"as_tensor_variable: unexpected keyword arguments {sorted(kwargs)}")
    return dtype


@_as_tensor_variable.register(Apply)
def _apply_as_tensor(x: Apply, name: str | None, ndim: int | None, **kwargs: Any) -> TensorVariable:
    """An Apply stands for its default output, or its only one."""
    outs = x.outputs
    d = getattr(x.op, "default_output", None)
    if d is not None:
        return as_tensor_variable(outs[d], name, ndim, **kwargs)
    if len(outs) == 1:
        return as_tensor_variable(outs[0], name, ndim, **kwargs)
    raise TypeError(f"cannot use the Apply of {x.op} as a tensor: it has {len(outs)} outputs")


@_as_tensor_variable.register(Variable)
def _variable_as_tensor(
    x: Variable, name: str | None, ndim: int | None, **kwargs: Any
) -> TensorVariable:
    """A tensor variable passes through (cast to ``dtype``, to ``ndim`` dimensions); a
    scalar one becomes a 0-d tensor."""
    dtype = _conversion_options(kwargs)
    if isinstance(x.type, TensorType):
        v = typing.cast(TensorVariable, x)
    elif _is_scalar_type(x.type):
        v = tensor_from_scalar(x)
    else:
        raise TypeError(
            f"cannot use variable {x} of type {x.type} as a tensor (it is not a TensorType)"
        )
    if dtype is not None:
        v = cast(v, dtype)
    if ndim is not None and v.type.ndim != ndim:
        v = _variable_to_ndim(v, ndim)
    return v


# the classes as_tensor_variable passes through without dispatching (the common case)
_TENSOR_CLASSES = frozenset({TensorVariable, TensorConstant})


as_tensor = as_tensor_variable


def _stack_values(x: Sequence[Any]) -> TensorVariable:
    """Stack a list holding Variables (delegated to :mod:`theon.tensor.joining`)."""
    items = [
        _stack_values(i) if isinstance(i, (list, tuple)) else as_tensor_variable(i) for i in x
    ]
    from theon.tensor.joining import stack  # lazy: joining builds on this module

    return stack(items)


def _variable_to_ndim(v: TensorVariable, ndim: int) -> TensorVariable:
    """Add leading axes, or drop leading broadcastable ones, to reach ``ndim``."""
    from theon.tensor.elemwise import DimShuffle

    if v.type.ndim < ndim:
        order: list[Any] = ["x"] * (ndim - v.type.ndim) + list(range(v.type.ndim))
        return DimShuffle(v.type.ndim, order)(v)
    extra = v.type.ndim - ndim
    if all(s == 1 for s in v.type.shape[:extra]):
        return DimShuffle(v.type.ndim, list(range(extra, v.type.ndim)))(v)
    raise ValueError(
        f"cannot make {v} of {v.type} into a {ndim}-d tensor: its leading dimensions "
        "are not known to have length 1"
    )


def _is_scalar_type(t: Any) -> bool:
    from theon.scalar.type import ScalarType

    return isinstance(t, ScalarType)


# casting ---------------------------------------------------------------------
def cast(x: Any, dtype: Any) -> TensorVariable:
    """``x`` converted to ``dtype`` (``x`` itself when it already has it).

    Conversion follows ``ndarray.astype``: floats are truncated toward zero and
    integers wrap.  ``'floatX'`` means ``config.floatX``.  Complex to a real (or
    integer) dtype raises ``TypeError``: take ``real`` (``imag``, ``abs``) first.

    >>> import theon.tensor as tt
    >>> cast(tt.dvector("v"), "int32").type
    TensorType(int32, shape=(None,))
    """
    if dtype == "floatX":
        dtype = _floatx()
    elif isinstance(getattr(dtype, "dtype", None), str):  # a TensorType or ScalarType
        dtype = dtype.dtype
    dt = np.dtype(dtype).name
    from theon.scalar.basic import drops_imaginary

    if not isinstance(x, (Variable, Apply)):
        if np.iscomplexobj(x) and drops_imaginary("complex128", dt):
            raise TypeError(
                f"cast: casting the complex value {x!r} to {dt} would drop the imaginary "
                "part; take its real part, imaginary part or absolute value first"
            )
        return constant(x, dtype=dt)
    v = as_tensor_variable(x)
    if v.type.dtype == dt:
        return v
    if drops_imaginary(v.type.dtype, dt):
        raise TypeError(
            f"cast: casting {describe(v)} to {dt} would drop the imaginary part; "
            "take real(), imag(), abs() or angle() first (PyTensor refuses it too)"
        )
    from theon.scalar.basic import _cast_op
    from theon.tensor.elemwise import Elemwise

    return Elemwise(_cast_op(dt))(v)


# scalar <-> tensor ---------------------------------------------------------------
class TensorFromScalar(TensorOp):
    """A 0-d tensor holding a scalar variable's value.

    >>> from theon.scalar.type import float64
    >>> t = tensor_from_scalar(float64("s"))
    >>> t.type
    TensorType(float64, shape=())
    """

    __props__ = ()

    def make_node(self, s: Any) -> Apply:
        from theon.scalar.type import as_scalar

        s = as_scalar(s)
        return Apply(self, [s], [TensorType(s.type.dtype, ())()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        dtype = tensor_type(node.outputs[0]).numpy_dtype
        output_storage[0][0] = np.asarray(inputs[0], dtype=dtype)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        return [()]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        from theon.graph.null_type import disconnected_type

        (s,) = inputs
        if tensor_type(s).dtype not in ("float16", "float32", "float64", "complex64", "complex128"):
            return [disconnected_type()]
        return [scalar_from_tensor(output_grads[0])]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0])]


class ScalarFromTensor(Op):
    """The scalar held by a 0-d tensor.

    >>> import theon.tensor as tt
    >>> scalar_from_tensor(tt.dscalar("t")).type
    ScalarType(float64)
    """

    __props__ = ()

    def make_node(self, t: Any) -> Apply:
        from theon.scalar.type import get_scalar_type

        t = as_tensor_variable(t)
        if t.type.ndim != 0:
            raise TypeError(f"scalar_from_tensor needs a 0-d tensor, got {t} of {t.type}")
        return Apply(self, [t], [get_scalar_type(t.type.dtype)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        output_storage[0][0] = inputs[0][()]

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        return [()]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        from theon.graph.null_type import disconnected_type

        (t,) = inputs
        if tensor_type(t).dtype not in ("float16", "float32", "float64", "complex64", "complex128"):
            return [disconnected_type()]
        return [tensor_from_scalar(output_grads[0])]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0])]


_tensor_from_scalar = TensorFromScalar()
_scalar_from_tensor = ScalarFromTensor()


def tensor_from_scalar(s: Any) -> TensorVariable:
    """A 0-d tensor from a scalar variable.

    >>> from theon import scalar as ts
    >>> tensor_from_scalar(ts.float32("s")).type
    TensorType(float32, shape=())
    """
    return _tensor_from_scalar(s)


def scalar_from_tensor(t: Any) -> Variable:
    """The scalar variable held by a 0-d tensor.

    >>> import theon.tensor as tt
    >>> scalar_from_tensor(tt.dscalar("x")).type
    ScalarType(float64)
    """
    out: Variable = _scalar_from_tensor(t)
    return out


# constant values -----------------------------------------------------------------
def get_scalar_constant_value(v: Any, elemwise: bool = True) -> np.ndarray:
    """The value of ``v`` as a 0-d array when it is a known constant scalar.

    Looks through constants whose elements are all equal, DimShuffle, casts and
    scalar/tensor conversions.  Raises :class:`NotScalarConstantError` otherwise.

    >>> get_scalar_constant_value(constant([2.0, 2.0]))
    array(2.)
    """
    from theon.tensor.elemwise import DimShuffle, Elemwise

    seen = 0
    while True:
        seen += 1
        if seen > 1000:
            break
        if is_weak_scalar(v) or isinstance(v, (np.ndarray, np.generic)):
            data = np.asarray(v)
            if data.size == 0:
                break
            flat = data.reshape(-1)
            if data.ndim == 0 or bool(np.all(flat == flat[0])):
                return np.asarray(flat[0]) if data.ndim else data
            break
        if isinstance(v, Constant):
            v = v.data
            continue
        owner = v.owner if isinstance(v, Variable) else None
        if owner is None:
            break
        op = owner.op
        if isinstance(op, DimShuffle) or isinstance(op, (TensorFromScalar, ScalarFromTensor)):
            v = owner.inputs[0]
            continue
        if elemwise and isinstance(op, Elemwise) and str(op.scalar_op) == "second":
            v = owner.inputs[1]  # fill(x, c) holds c everywhere
            continue
        if elemwise and isinstance(op, Elemwise) and type(op.scalar_op).__name__ == "Cast":
            inner = get_scalar_constant_value(owner.inputs[0], elemwise)
            return inner.astype(tensor_type(v).dtype)
        break
    raise NotScalarConstantError(f"{v} is not a constant scalar")


def get_underlying_scalar_constant_value(
    v: Any,
    *,
    elemwise: bool = True,
    only_process_constants: bool = False,
    max_recur: int = 10,
    raise_not_constant: bool = True,
) -> Any:
    """The one value held by every element of ``v``, as a 0-d array, when it is known
    without running the graph (PyTensor's function of this name).

    Besides what :func:`get_scalar_constant_value` sees through, it reads static lengths
    (``Shape_i``, an entry of ``x.shape``), an entry of a stacked vector or constant at
    a constant index, ``alloc``/``specify_shape``/an ``Assert`` whose conditions are
    constant true, and (with ``elemwise``) computes elementwise functions of constant
    inputs, up to ``max_recur`` levels deep.  ``only_process_constants`` reads only
    constants.  Raises :class:`NotScalarConstantError` otherwise, or returns ``v``
    unchanged when ``raise_not_constant`` is False.

    >>> import theon.tensor as tt
    >>> x = tt.tensor("float64", shape=(None, 3))
    >>> get_underlying_scalar_constant_value(x.shape[1] * 2)
    array(6)
    >>> get_underlying_scalar_constant_value(tt.alloc(1.5, 4))
    array(1.5)
    >>> get_underlying_scalar_constant_value(x.shape[0], raise_not_constant=False) is None
    False
    """
    try:
        return _underlying_constant(v, elemwise, only_process_constants, max_recur)
    except NotScalarConstantError:
        if raise_not_constant:
            raise
        return v


def _underlying_constant(v: Any, elemwise: bool, only_constants: bool, depth: int) -> np.ndarray:
    """The walk of :func:`get_underlying_scalar_constant_value`."""
    from theon.tensor.creation import Alloc
    from theon.tensor.elemwise import DimShuffle, Elemwise
    from theon.tensor.raise_op import CheckAndRaise
    from theon.tensor.shape import Shape_i, SpecifyShape, Unbroadcast

    start = v
    for _ in range(1000):
        if is_weak_scalar(v) or isinstance(v, (np.ndarray, np.generic)):
            data = np.asarray(v)
            if data.ndim == 0:
                return data
            flat = data.reshape(-1)
            if data.size and bool(np.all(flat == flat[0])):
                return np.asarray(flat[0])
            break
        if isinstance(v, Constant):
            if v.data is None:  # NoneConst
                break
            v = v.data
            continue
        owner = v.owner if isinstance(v, Variable) else None
        if only_constants or owner is None:
            break
        op = owner.op
        if isinstance(op, (DimShuffle, TensorFromScalar, ScalarFromTensor, SpecifyShape,
                           Unbroadcast, Alloc)):
            v = owner.inputs[0]
            continue
        if isinstance(op, CheckAndRaise):
            if not all(isinstance(c, Constant) and bool(c.data) for c in owner.inputs[1:]):
                break
            v = owner.inputs[0]
            continue
        if isinstance(op, Shape_i):
            n = tensor_type(owner.inputs[0]).shape[op.i]
            if n is None:
                break
            return np.asarray(n, dtype="int64")
        entry = _constant_entry(owner, elemwise, depth)
        if entry is not None:
            v = entry
            continue
        if elemwise and isinstance(op, Elemwise):
            if str(op.scalar_op) == "second":
                v = owner.inputs[1]  # fill(x, c) holds c everywhere
                continue
            if depth <= 0:
                break
            values = [_underlying_constant(i, elemwise, False, depth - 1) for i in owner.inputs]
            with np.errstate(all="ignore"):
                out = op.scalar_op.impl(*values)
            if len(owner.outputs) > 1:
                out = out[owner.outputs.index(v)]
            return np.asarray(out, dtype=tensor_type(v).dtype)
        break
    raise NotScalarConstantError(f"{start} is not a constant scalar")


def _constant_entry(node: Apply, elemwise: bool, depth: int) -> Any:
    """For ``x[i]`` with a constant ``i`` (a Subtensor of one integer index), what that
    entry is: a stacked scalar, a static length, or an element of a constant; else None."""
    from theon.tensor.joining import Join, static_axis
    from theon.tensor.shape import MakeVector, Shape
    from theon.tensor.subtensor import SYM, Subtensor

    op = node.op
    if not isinstance(op, Subtensor) or len(op.idx_list) != 1:
        return None
    (e,) = op.idx_list
    if e == SYM:
        try:
            i = int(_underlying_constant(node.inputs[1], elemwise, False, depth))
        except NotScalarConstantError:
            return None
    elif isinstance(e, (int, np.integer)):
        i = int(e)
    else:
        return None
    x = node.inputs[0]
    if isinstance(x, Constant) and isinstance(x.data, np.ndarray) and x.data.ndim == 1:
        return x.data[i]
    inner = x.owner
    if inner is None:
        return None
    if isinstance(inner.op, MakeVector):
        return inner.inputs[i] if -len(inner.inputs) <= i < len(inner.inputs) else None
    if isinstance(inner.op, Shape):
        shape = tensor_type(inner.inputs[0]).shape
        n = shape[i] if -len(shape) <= i < len(shape) else None
        return None if n is None else np.asarray(n, dtype="int64")
    if isinstance(inner.op, Join) and static_axis(inner) == 0 and i >= 0:
        return _joined_entry(inner.inputs[1:], i)
    return None


def _joined_entry(pieces: Sequence[Variable], i: int) -> Any:
    """Entry ``i`` of vectors joined end to end (a stack of scalars), when the pieces'
    lengths are static and that entry is a scalar made a vector or a constant's."""
    from theon.tensor.elemwise import DimShuffle

    for p in pieces:
        t = tensor_type(p)
        n = t.shape[0] if t.ndim == 1 else None
        if n is None:
            return None
        if i < n:
            if isinstance(p, Constant):
                return np.asarray(p.data)[i]
            node = p.owner
            if node is not None and isinstance(node.op, DimShuffle) and node.op.input_ndim == 0:
                return node.inputs[0]
            return None
        i -= n
    return None


# PyTensor keeps these names in ``pytensor.tensor.basic``; theon defines them in other
# tensor modules (which import this one) and gathers them in ``theon.tensor``, where they
# are looked up on first use.
_PYTENSOR_BASIC = frozenset({
    "Alloc", "AllocEmpty", "ARange", "Eye", "Join", "MakeVector", "Split",
    "alloc", "arange", "atleast_1d", "atleast_2d", "atleast_3d", "atleast_Nd", "choose",
    "concatenate", "default", "diag", "diagonal", "empty", "empty_like", "expand_dims",
    "extract_diag", "eye", "fill", "flatnonzero", "flatten", "full", "full_like",
    "get_vector_length", "horizontal_stack", "identity", "identity_like",
    "inverse_permutation", "join", "make_vector", "matrix_transpose", "mgrid", "moveaxis",
    "nonzero", "nonzero_values", "ogrid", "ones", "ones_like", "roll", "second", "split",
    "stack", "stacklists", "swapaxes", "switch", "take_along_axis", "tensor_copy", "tile",
    "trace", "transpose", "tri", "tril", "tril_indices", "tril_indices_from", "triu",
    "triu_indices", "triu_indices_from", "vertical_stack", "where", "zeros", "zeros_like",
})


def __getattr__(name: str) -> Any:
    """``theon.tensor.basic.Join``, ``switch`` and the other names PyTensor keeps in its
    basic module, as ``theon.tensor`` has them."""
    if name in _PYTENSOR_BASIC:
        import theon.tensor as tensor_package

        if name in vars(tensor_package):
            return vars(tensor_package)[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
