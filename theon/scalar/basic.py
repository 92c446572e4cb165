"""ScalarOp, output-type rules, derivative rules, and Cast.

The elementwise ops themselves are rows of one table, :mod:`theon.scalar.table`;
the core ones (add, sub, mul, true_div, neg, exp, log) are also names of this
module.  A ScalarOp computes on single numbers; ``theon.tensor.Elemwise`` lifts it to
arrays.  Each op carries:

- ``impl(*values)``: the computation on NumPy scalars *or* arrays, giving the
  dtype that :meth:`ScalarOp.output_types` promises for those input dtypes;
- ``ufunc``: the NumPy/SciPy ufunc behind it (or None);
- ``py_expr(*names)``: a Python expression on float64 Python floats (see
  :func:`theon.scalar.pyimpl.py_namespace`), for the 0-d fast path;
- ``grad``/``L_op``/``R_op`` built from scalar ops.

>>> from theon.scalar.type import float64
>>> x, y = float64("x"), float64("y")
>>> z = add(x, mul(y, 2.0))
>>> z.owner.op.impl(np.float64(1.0), np.float64(3.0))
np.float64(4.0)
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.fg import describe
from theon.graph.null_type import DisconnectedType, NullType, disconnected_type
from theon.graph.op import Op, OpContractError
from theon.scalar.type import (
    ScalarConstant,
    ScalarType,
    ScalarVariable,
    as_scalar,
    bool_,
    constant,
    get_scalar_type,
    is_weak_scalar,
    scalar_type,
    upcast,
    weak_dtype,
)

__all__ = [
    "BinaryScalarOp",
    "Cast",
    "GradRule",
    "OutputTypePref",
    "ScalarOp",
    "UnaryScalarOp",
    "bool_out",
    "cast",
    "chain",
    "complex_to_real",
    "deriv",
    "drops_imaginary",
    "float_out",
    "int_out",
    "partials",
    "same_out",
    "same_out_nobool",
    "same_out_nocomplex",
    "ufunc_out_dtypes",
    "upcast_out",
    "upcast_out_nobool",
    "upcast_out_nocomplex",
    "upgrade_to_float",
    "upgrade_to_float_nocomplex",
    "zero_grads",
    # PyTensor's spellings
    "convert_to_bool",
    "convert_to_complex128",
    "convert_to_complex64",
    "convert_to_float16",
    "convert_to_float32",
    "convert_to_float64",
    "convert_to_int16",
    "convert_to_int32",
    "convert_to_int64",
    "convert_to_int8",
    "convert_to_uint16",
    "convert_to_uint32",
    "convert_to_uint64",
    "convert_to_uint8",
    "upcast_out_no_complex",
    "upgrade_to_float_no_complex",
]


# output type rules ------------------------------------------------------------
class OutputTypePref:
    """A named rule giving the output types of an op from its input types.

    >>> from theon.scalar.type import int8
    >>> upgrade_to_float(int8)
    [ScalarType(float16)]
    """

    def __init__(self, name: str, fn: Callable[..., list[ScalarType]]) -> None:
        self.name = name
        self.fn = fn

    def __call__(self, *types: ScalarType) -> list[ScalarType]:
        return self.fn(*types)

    def __repr__(self) -> str:
        return self.name

    def __reduce__(self) -> Any:
        return (_pref_by_name, (self.name,))


def _pref_by_name(name: str) -> OutputTypePref:
    """The module-level rule called ``name`` (for unpickling)."""
    pref = globals()[name]
    assert isinstance(pref, OutputTypePref)
    return pref


def _dt(types: Sequence[ScalarType]) -> list[str]:
    return [t.dtype for t in types]


def _no_bool(name: str, out: str, types: Sequence[ScalarType]) -> None:
    if out == "bool":
        raise TypeError(f"{name} is not defined on booleans (input types {_dt(types)})")


def _no_complex(name: str, types: Sequence[ScalarType]) -> None:
    if any(t.is_complex for t in types):
        raise TypeError(f"{name} is not defined on complex numbers (input types {_dt(types)})")


def _same_out(*types: ScalarType) -> list[ScalarType]:
    return [types[0]]


def _same_out_nobool(*types: ScalarType) -> list[ScalarType]:
    _no_bool("this op", types[0].dtype, types)
    return [types[0]]


def _same_out_nocomplex(*types: ScalarType) -> list[ScalarType]:
    _no_complex("this op", types)
    return [types[0]]


def _upcast_out(*types: ScalarType) -> list[ScalarType]:
    return [get_scalar_type(upcast(*_dt(types)))]


def _upcast_out_nobool(*types: ScalarType) -> list[ScalarType]:
    out = upcast(*_dt(types))
    _no_bool("this op", out, types)
    return [get_scalar_type(out)]


def _upcast_out_nocomplex(*types: ScalarType) -> list[ScalarType]:
    _no_complex("this op", types)
    return [get_scalar_type(upcast(*_dt(types)))]


def _upgrade_to_float(*types: ScalarType) -> list[ScalarType]:
    # np.exp's rule: bool/int8/uint8 -> float16, int16 -> float32, wider -> float64
    return [get_scalar_type(upcast(*_dt(types), "float16"))]


def _upgrade_to_float_nocomplex(*types: ScalarType) -> list[ScalarType]:
    _no_complex("this op", types)
    return _upgrade_to_float(*types)


def _bool_out(*types: ScalarType) -> list[ScalarType]:
    return [bool_]


def _int_out(*types: ScalarType) -> list[ScalarType]:
    return [get_scalar_type("int64")]


def _float_out(*types: ScalarType) -> list[ScalarType]:
    return [get_scalar_type("float64")]


def _complex_to_real(*types: ScalarType) -> list[ScalarType]:
    t = types[0]
    if t.is_complex:
        return [get_scalar_type("float32" if t.dtype == "complex64" else "float64")]
    return [t]


same_out: OutputTypePref = OutputTypePref("same_out", _same_out)
same_out_nobool: OutputTypePref = OutputTypePref("same_out_nobool", _same_out_nobool)
same_out_nocomplex: OutputTypePref = OutputTypePref("same_out_nocomplex", _same_out_nocomplex)
upcast_out: OutputTypePref = OutputTypePref("upcast_out", _upcast_out)
upcast_out_nobool: OutputTypePref = OutputTypePref("upcast_out_nobool", _upcast_out_nobool)
upcast_out_nocomplex: OutputTypePref = OutputTypePref("upcast_out_nocomplex", _upcast_out_nocomplex)
upgrade_to_float: OutputTypePref = OutputTypePref("upgrade_to_float", _upgrade_to_float)
upgrade_to_float_nocomplex: OutputTypePref = OutputTypePref(
    "upgrade_to_float_nocomplex", _upgrade_to_float_nocomplex
)
# PyTensor's spellings of two of them
upgrade_to_float_no_complex: OutputTypePref = upgrade_to_float_nocomplex
upcast_out_no_complex: OutputTypePref = upcast_out_nocomplex
bool_out: OutputTypePref = OutputTypePref("bool_out", _bool_out)
int_out: OutputTypePref = OutputTypePref("int_out", _int_out)
float_out: OutputTypePref = OutputTypePref("float_out", _float_out)
complex_to_real: OutputTypePref = OutputTypePref("complex_to_real", _complex_to_real)


@functools.lru_cache(maxsize=4096)
def ufunc_out_dtypes(ufunc: Any, in_dtypes: tuple[str, ...]) -> tuple[str, ...]:
    """The output dtypes NumPy gives ``ufunc`` on inputs of ``in_dtypes`` (cached).

    Raises ``TypeError`` when NumPy has no loop for them.

    >>> ufunc_out_dtypes(np.true_divide, ("int8", "int8"))
    ('float64',)
    """
    args = [np.zeros(0, dtype=d) for d in in_dtypes]
    with np.errstate(all="ignore"):
        res = ufunc(*args)
    if not isinstance(res, tuple):
        res = (res,)
    return tuple(str(r.dtype) for r in res)


# the op base ------------------------------------------------------------------
def jvp_from_partials(
    partials: Sequence[Any], eval_points: Sequence[Any], mul_fn: Any, add_fn: Any
) -> Any:
    """``sum_i partial_i * v_i`` over the connected inputs (a NullType partial wins).

    The shared core of the scalar and Elemwise ``R_op``; ``mul_fn``/``add_fn`` build
    the products and sums at the right level.

    >>> jvp_from_partials([2.0, None], [3.0, 1.0], lambda a, b: a * b, lambda a, b: a + b)
    6.0
    """
    total: Any = None
    for p, ev in zip(partials, eval_points):
        if ev is None or p is None or isinstance(getattr(p, "type", None), DisconnectedType):
            continue
        if isinstance(getattr(p, "type", None), NullType):
            return p
        term = mul_fn(p, ev)
        total = term if total is None else add_fn(total, term)
    return total


class ScalarOp(Op):
    """Base of scalar ops; see the module docstring for the contract.

    Class attributes
    ----------------
    name
        Lower-case op name (``str(op)``; Elemwise prints ``Elemwise{name,...}``).
    nin, nout
        Number of inputs (-1: any number, at least one) and outputs.
    ufunc
        The NumPy/SciPy callable for whole arrays, or None.
    ufunc_exact
        Whether ``ufunc`` alone gives the promised output dtypes (False: call ``impl``,
        or ``ufunc`` with ``out=``/``dtype=`` of the node's output dtype).
    output_types_preference
        An :class:`OutputTypePref`; None means "what ``ufunc`` gives".
    py_template
        The default :meth:`py_expr`: a ``str.format`` template of the input names by
        position (``"math.atan2({0}, {1})"``), or None.
    identity
        Neutral element for reductions (add: 0, mul: 1, maximum: -inf), or None.
    commutative, associative
        Algebraic flags used by CAReduce and rewrites.

    >>> from theon.scalar.type import float64
    >>> z = add(float64("x"), 1.0)
    >>> z.owner.op.nin, z.owner.op.py_expr("a", "b")
    (-1, '(a + b)')
    """

    __props__: tuple[str, ...] = ()
    name: str = "scalar_op"
    nin: int = -1
    nout: int = 1
    ufunc: Any = None
    ufunc_exact: bool = True
    output_types_preference: OutputTypePref | None = None
    py_template: str | None = None
    identity: Any = None
    commutative: bool = False
    associative: bool = False
    # indices of inputs that take no part in dtype promotion (switch's condition)
    no_promote_inputs: tuple[int, ...] = ()
    # comparisons accept out-of-range Python ints, as NumPy 2 does
    weak_overflow_ok: bool = False

    if TYPE_CHECKING:  # Op.__call__, typed for ops of one output (Composite: Any)

        @overload
        def __call__(
            self, *inputs: Any, return_list: Literal[False] = False, name: str | None = None,
            **kwargs: Any,
        ) -> ScalarVariable: ...

        @overload
        def __call__(
            self, *inputs: Any, return_list: Literal[True], name: str | None = None,
            **kwargs: Any,
        ) -> list[ScalarVariable]: ...

        @overload
        def __call__(
            self, *inputs: Any, return_list: bool = False, name: str | None = None,
            **kwargs: Any,
        ) -> ScalarVariable | list[ScalarVariable]: ...

        def __call__(
            self, *inputs: Any, return_list: bool = False, name: str | None = None,
            **kwargs: Any,
        ) -> ScalarVariable | list[ScalarVariable]: ...

    def __init__(
        self, output_types_preference: OutputTypePref | None = None, name: str | None = None
    ) -> None:
        """PyTensor's constructor (``I1e(upgrade_to_float_nocomplex, name="i1e")``): the
        arguments given replace the class's ``output_types_preference`` and ``name``."""
        if output_types_preference is not None:
            self.output_types_preference = output_types_preference
        if name is not None:
            self.name = name
        if output_types_preference is not None or name is not None:
            self._init_args = (output_types_preference, name)

    def __str__(self) -> str:
        return self.name

    def __reduce__(self) -> Any:
        return (type(self), self.__dict__.get("_init_args", ()))

    # building ------------------------------------------------------------------
    def make_node(self, *inputs: Any) -> Apply:
        """An Apply of this op; Python numbers become constants of a NEP 50 dtype."""
        if self.nin >= 0 and len(inputs) != self.nin:
            raise TypeError(f"scalar op {self} takes {self.nin} inputs, got {len(inputs)}")
        if self.nin < 0 and not inputs:
            raise TypeError(f"scalar op {self} needs at least one input")
        vars_: list[Variable | None] = [None if is_weak_scalar(x) else as_scalar(x) for x in inputs]
        strong = [
            scalar_type(v).dtype
            for i, v in enumerate(vars_)
            if v is not None and i not in self.no_promote_inputs
        ]
        ins: list[Variable] = [
            v if v is not None
            else self._weak_constant(x, [] if i in self.no_promote_inputs else strong)
            for i, (x, v) in enumerate(zip(inputs, vars_))
        ]
        key = tuple([scalar_type(v) for v in ins])
        cache = self.__dict__.get("_out_types_cache")
        if cache is None:
            cache = self.__dict__["_out_types_cache"] = {}
        outs = cache.get(key)
        if outs is None:
            # output_types is a function of the input types: remember it per op instance
            outs = tuple(self.output_types(*key))
            if len(cache) < 1024:
                cache[key] = outs
        return Apply(self, ins, [t() for t in outs])

    def _weak_constant(self, x: Any, strong: list[str]) -> Variable:
        t = get_scalar_type(weak_dtype(x, strong))
        try:
            data = t._scalar_class(x)
        except OverflowError:
            if self.weak_overflow_ok:
                return constant(x)
            raise OverflowError(
                f"Python integer {x} is out of bounds for {t.dtype}, the dtype it takes next "
                f"to {strong} in scalar op {self} (NumPy 2 rules)"
            ) from None
        return ScalarConstant(t, data)

    def output_types(self, *types: ScalarType) -> list[ScalarType]:
        """Output types for inputs of ``types`` (raises ``TypeError`` when undefined)."""
        for i, t in enumerate(types):
            if not isinstance(t, ScalarType):
                raise TypeError(f"input {i} of scalar op {self} has non-scalar type {t}")
        pref = self.output_types_preference
        if pref is not None:
            try:
                return pref(*types)
            except TypeError as e:
                raise TypeError(f"scalar op {self}: {e}") from None
        if self.ufunc is None:
            raise NotImplementedError(f"scalar op {self} defines no output type rule")
        return [get_scalar_type(d) for d in self._ufunc_dtypes(_dt(types))]

    def _ufunc_dtypes(self, dtypes: list[str]) -> tuple[str, ...]:
        try:
            return ufunc_out_dtypes(self.ufunc, tuple(dtypes))
        except TypeError:
            raise TypeError(
                f"scalar op {self} is not defined for inputs of dtype {dtypes} "
                "(NumPy has no loop for them)"
            ) from None

    # computing -----------------------------------------------------------------
    def impl(self, *values: Any) -> Any:
        """The computation on NumPy scalars or arrays (a tuple when ``nout > 1``)."""
        if self.ufunc is None:
            raise NotImplementedError(f"scalar op {self} defines no impl")
        return self.ufunc(*values)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        with np.errstate(all="ignore"):
            res = self.impl(*inputs)
            if self.nout == 1:
                res = (res,)
            for cell, r, out in zip(output_storage, res, node.outputs):
                cell[0] = _as_dtype(r, scalar_type(out))

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        return [() for _ in node.outputs]

    def py_expr(self, *names: str) -> str | None:
        """A Python expression of ``names`` (float64 values as Python floats), or None.

        It must give NumPy's result, inf and nan included, using ``math`` and the
        helpers of :func:`theon.scalar.pyimpl.py_namespace`.  Names should be plain
        identifiers (they may appear more than once).  By default: ``py_template``
        filled with ``names``.
        """
        return None if self.py_template is None else self.py_template.format(*names)

    def py_expr_ok(self, node: Apply) -> bool:
        """Whether :meth:`py_expr` is valid for ``node``: float64 inputs, float64/bool outputs."""
        return all(scalar_type(i).dtype == "float64" for i in node.inputs) and all(
            scalar_type(o).dtype in ("float64", "bool") for o in node.outputs
        )

    # derivatives ---------------------------------------------------------------
    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        """Gradients from :meth:`L_op` on a fresh application, for ops that define only that."""
        if type(self).L_op is Op.L_op:
            raise OpContractError(f"Op {self} ({type(self).__name__}) does not define grad")
        return self.L_op(inputs, self(*inputs, return_list=True), output_grads)

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        """Forward derivative: per output, the sum of partial derivatives times eval points.

        Exact for every scalar op whose ``L_op`` is linear in the output gradients
        (all of them); the partials come from ``L_op`` with one-hot output gradients.
        """
        outs = self(*inputs, return_list=True)
        results: list[Any] = []
        for k, out in enumerate(outs):
            ogs = [
                constant(1 if j == k else 0, dtype=scalar_type(o).dtype)
                for j, o in enumerate(outs)
            ]
            partials = self.L_op(inputs, outs, ogs)
            total = jvp_from_partials(partials, eval_points, mul, add)
            if total is not None and not isinstance(total.type, NullType):
                total = _grad_as(total, out)
            results.append(total)
        return results


def _as_dtype(r: Any, t: ScalarType) -> Any:
    """``r`` as a NumPy scalar of ``t``'s dtype."""
    if type(r) is t._scalar_class:
        return r
    return np.asarray(r).astype(t.np_dtype)[()]


class UnaryScalarOp(ScalarOp):
    """A scalar op of one input.

    >>> isinstance(neg, UnaryScalarOp), neg.nin
    (True, 1)
    """

    nin = 1


class BinaryScalarOp(ScalarOp):
    """A scalar op of two inputs.

    >>> isinstance(sub, BinaryScalarOp), sub.nin
    (True, 2)
    """

    nin = 2


# grad helpers -----------------------------------------------------------------
def _discrete(v: Variable) -> bool:
    return bool(scalar_type(v).is_discrete)


def _grad_as(g: Variable, x: Variable) -> Variable:
    """``g`` cast to ``x``'s dtype when they differ (gradients keep the input's dtype)."""
    if scalar_type(g).dtype != scalar_type(x).dtype:
        if scalar_type(x).is_complex or not scalar_type(g).is_complex:
            return cast(g, scalar_type(x).dtype)
        return cast(_real_part(g), scalar_type(x).dtype)
    return g


def _real_part(g: Variable) -> Variable:
    from theon.scalar import real

    return real(g)


def _zero_grad(x: Variable) -> Variable:
    """Zero gradient for a float input of a piecewise-constant op; disconnected for ints."""
    if _discrete(x):
        return disconnected_type()
    return constant(0, dtype=scalar_type(x).dtype)


# derivative rules -----------------------------------------------------------------
#: The body of an op's ``L_op``: ``rule(inputs, outputs, output_grads)`` gives one
#: gradient (or a disconnected/null marker) per input.  Rows of the op table
#: (:mod:`theon.scalar.table`) state theirs with the helpers below.
GradRule = Callable[[Sequence[Variable], Sequence[Variable], Sequence[Variable]], list[Any]]


def chain(term: Callable[[Variable, Variable, Variable], Variable]) -> GradRule:
    """The rule of a unary op whose input gradient is ``term(gz, x, out)``.

    The result is cast to ``x``'s dtype; an integer or boolean ``x`` gets a
    disconnected gradient instead.

    >>> from theon.scalar.type import float64, int64
    >>> rule = chain(lambda gz, x, out: neg(gz))
    >>> x = float64("x")
    >>> str(rule([x], [neg(x)], [float64("gz")])[0].owner.op)
    'neg'
    >>> rule([int64("i")], [float64("z")], [float64("gz")])[0].type
    DisconnectedType
    """

    def rule(
        inputs: Sequence[Variable], outputs: Sequence[Variable], output_grads: Sequence[Variable]
    ) -> list[Any]:
        (x,) = inputs
        if _discrete(x):
            return [disconnected_type()]
        return [_grad_as(term(output_grads[0], x, outputs[0]), x)]

    return rule


def deriv(d: Callable[[Variable, Variable], Variable]) -> GradRule:
    """The rule of a unary op with derivative ``d(x, out)``: the gradient ``gz * d(x, out)``.

    >>> from theon.scalar.type import float64
    >>> x = float64("x")
    >>> (g,) = deriv(lambda x, out: out)([x], [exp(x)], [float64("gz")])
    >>> str(g.owner.op), g.owner.inputs[1] is not x
    ('mul', True)
    """
    return chain(lambda gz, x, out: mul(gz, d(x, out)))


def partials(
    dx: Callable[[Variable, Variable, Variable, Variable], Variable],
    dy: Callable[[Variable, Variable, Variable, Variable], Variable],
) -> GradRule:
    """The rule of a binary op ``out = f(x, y)`` from its two partial derivatives.

    ``dx(gz, x, y, out)`` and ``dy(gz, x, y, out)`` give the gradients flowing
    to ``x`` and ``y`` from the output gradient ``gz`` (``gz * df/dx``, spelled
    as the op likes: ``sub`` passes ``gz`` itself).  Each is cast to its
    input's dtype; an integer or boolean input gets a disconnected gradient and
    its function is not called.

    >>> from theon.scalar.type import float64, int64
    >>> rule = partials(lambda gz, x, y, out: gz, lambda gz, x, y, out: neg(gz))
    >>> x, gz = float64("x"), float64("gz")
    >>> gx, gy = rule([x, int64("i")], [float64("z")], [gz])
    >>> gx is gz, gy.type
    (True, DisconnectedType)
    """

    def rule(
        inputs: Sequence[Variable], outputs: Sequence[Variable], output_grads: Sequence[Variable]
    ) -> list[Any]:
        x, y = inputs
        (gz,) = output_grads
        out = outputs[0]
        return [
            disconnected_type() if _discrete(v) else _grad_as(d(gz, x, y, out), v)
            for v, d in ((x, dx), (y, dy))
        ]

    return rule


def zero_grads(
    inputs: Sequence[Variable], outputs: Sequence[Variable], output_grads: Sequence[Variable]
) -> list[Any]:
    """The rule of a piecewise-constant op (rounding) or one with a discrete output:
    zeros for float inputs, disconnected for integer ones.

    >>> from theon.scalar.type import float64, int64
    >>> [g.type for g in zero_grads([float64("x"), int64("i")], [], [])]
    [ScalarType(float64), DisconnectedType]
    """
    return [_zero_grad(x) for x in inputs]


# cast -------------------------------------------------------------------------
class Cast(UnaryScalarOp):
    """Conversion to ``o_type`` (``astype`` semantics: wraps/truncates, no checks).

    >>> from theon.scalar.type import float64
    >>> str(cast(float64("x"), "int32").owner.op)
    'convert_to_int32'
    """

    __props__ = ("o_type",)

    def __init__(self, o_type: ScalarType) -> None:
        if not isinstance(o_type, ScalarType):
            o_type = get_scalar_type(o_type)
        self.o_type = o_type
        self.ufunc = None

    @property
    def name(self) -> str:
        return f"convert_to_{self.o_type.dtype}"

    @name.setter
    def name(self, text: str) -> None:
        raise AttributeError(f"the name of {self} is its dtype's")

    def __reduce__(self) -> Any:
        return (Cast, (self.o_type,))

    def output_types(self, *types: ScalarType) -> list[ScalarType]:
        if types and drops_imaginary(types[0].dtype, self.o_type.dtype):
            raise TypeError(
                f"{self}: casting {types[0].dtype} to {self.o_type.dtype} would drop the "
                "imaginary part; take real(), imag(), abs() or angle() first"
            )
        return [self.o_type]

    def impl(self, x: Any) -> Any:
        return (
            np.asarray(x).astype(self.o_type.np_dtype)[()]
            if np.ndim(x) == 0
            else (x.astype(self.o_type.np_dtype))
        )

    def py_expr(self, *names: str) -> str | None:
        (a,) = names
        if self.o_type.dtype == "float64":
            return f"float({a})"
        if self.o_type.dtype == "bool":
            return f"({a} != 0.0)"
        return None

    def py_expr_ok(self, node: Apply) -> bool:
        dt = scalar_type(node.inputs[0]).dtype
        out = self.o_type.dtype
        if out == "float64":
            return dt in ("float64", "bool")
        return out == "bool" and dt == "float64"

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        (x,) = inputs
        if _discrete(x):
            return [disconnected_type()]
        if self.o_type.is_discrete:
            return [constant(0, dtype=scalar_type(x).dtype)]
        return [_grad_as(output_grads[0], x)]


def drops_imaginary(from_dtype: Any, to_dtype: Any) -> bool:
    """Whether casting ``from_dtype`` to ``to_dtype`` drops an imaginary part (complex to
    a real, integer or bool dtype), which :func:`cast` refuses as PyTensor does.

    >>> drops_imaginary("complex64", "float64"), drops_imaginary("complex64", "complex128")
    (True, False)
    """
    return bool(np.dtype(from_dtype).kind == "c" and np.dtype(to_dtype).kind != "c")


@functools.cache
def _cast_op(dtype: str) -> Cast:
    return Cast(get_scalar_type(dtype))


# the conversions under PyTensor's names
convert_to_bool: Cast = _cast_op("bool")
convert_to_int8: Cast = _cast_op("int8")
convert_to_int16: Cast = _cast_op("int16")
convert_to_int32: Cast = _cast_op("int32")
convert_to_int64: Cast = _cast_op("int64")
convert_to_uint8: Cast = _cast_op("uint8")
convert_to_uint16: Cast = _cast_op("uint16")
convert_to_uint32: Cast = _cast_op("uint32")
convert_to_uint64: Cast = _cast_op("uint64")
convert_to_float16: Cast = _cast_op("float16")
convert_to_float32: Cast = _cast_op("float32")
convert_to_float64: Cast = _cast_op("float64")
convert_to_complex64: Cast = _cast_op("complex64")
convert_to_complex128: Cast = _cast_op("complex128")

def cast(x: Any, dtype: Any) -> Variable:
    """``x`` converted to ``dtype`` (``x`` itself when it already has it).

    >>> from theon.scalar.type import int32
    >>> cast(int32("i"), "float64").type
    ScalarType(float64)
    """
    dt = str(np.dtype(dtype.dtype if isinstance(dtype, ScalarType) else dtype))
    if is_weak_scalar(x):
        return constant(x, dtype=dt)
    v = as_scalar(x)
    if scalar_type(v).dtype == dt:
        return v
    if drops_imaginary(scalar_type(v).dtype, dt):
        raise TypeError(
            f"cast: casting {describe(v)} to {dt} would drop the imaginary part; "
            "take real(), imag(), abs() or angle() first"
        )
    return _cast_op(dt)(v)


# The ops of the table (theon.scalar.table) build on the classes above, and every row's
# class and op is also a name of this module (declared in theon.scalar.rowops); so are the
# ops written out by hand in arith, logic and composite, which import this module: this
# module holds what PyTensor's scalar.basic holds.  The package's __init__ imports this
# module first, so the table and those modules always find the classes above defined.
from theon.scalar import rowops as _rowops  # noqa: E402
from theon.scalar.rowops import *  # noqa: E402, F403
from theon.scalar.rowops import (  # noqa: E402
    Maximum,
    Minimum,
    abs,
    add,  # (add and mul are used above, at call time)
    maximum,
    minimum,
    mul,
)

__all__ += _rowops.FAMILY_ALL["basic"]

from theon.scalar.arith import (  # noqa: E402
    Clip,
    Reciprocal,
    RoundHalfToEven,
    clip,
    reciprocal,
    round_half_to_even,
)
from theon.scalar.composite import Composite  # noqa: E402
from theon.scalar.logic import Switch, switch  # noqa: E402

# PyTensor's spellings of rows
ScalarMaximum: type[BinaryScalarOp] = Maximum
ScalarMinimum: type[BinaryScalarOp] = Minimum
scalar_maximum: BinaryScalarOp = maximum
scalar_minimum: BinaryScalarOp = minimum
scalar_abs: UnaryScalarOp = abs

__all__ += [
    "Clip", "Composite", "Reciprocal", "RoundHalfToEven", "ScalarMaximum", "ScalarMinimum",
    "Switch", "clip", "reciprocal", "round_half_to_even", "scalar_abs", "scalar_maximum",
    "scalar_minimum", "switch",
]
