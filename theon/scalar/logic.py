"""Comparisons, logical and bitwise ops, switch, and the nan/inf tests.

Discrete results have no gradient: integer and boolean inputs get
disconnected gradients, float inputs of a comparison get zeros.

>>> from theon.scalar.type import float64
>>> x = float64("x")
>>> lt(x, 1.0).type
ScalarType(bool)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.null_type import disconnected_type
from theon.scalar.basic import ScalarOp, _discrete, _grad_as, _zero_grad
from theon.scalar.type import ScalarType, constant, get_scalar_type, upcast

__all__ = [
    "and_",
    "eq",
    "ge",
    "gt",
    "invert",
    "isfinite",
    "isinf",
    "isnan",
    "le",
    "left_shift",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "lt",
    "neq",
    "or_",
    "right_shift",
    "switch",
    "xor",
]


class _Discrete(ScalarOp):
    """An op with a discrete output: zero gradient for float inputs, disconnected otherwise."""

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [_zero_grad(x) for x in inputs]


class _Comparison(_Discrete):
    """A NumPy comparison ufunc; Python ints out of the other operand's range are allowed."""

    nin = 2
    weak_overflow_ok = True


class LT(_Comparison):
    """``x < y``.

    >>> lt.impl(np.float64(7.0), np.float64(2.0))
    np.False_
    """

    name = "lt"
    ufunc = np.less
    py_template = "({0} < {1})"


class GT(_Comparison):
    """``x > y``.

    >>> gt.impl(np.float64(7.0), np.float64(2.0))
    np.True_
    """

    name = "gt"
    ufunc = np.greater
    py_template = "({0} > {1})"


class LE(_Comparison):
    """``x <= y``.

    >>> le.impl(np.float64(7.0), np.float64(2.0))
    np.False_
    """

    name = "le"
    ufunc = np.less_equal
    py_template = "({0} <= {1})"


class GE(_Comparison):
    """``x >= y``.

    >>> ge.impl(np.float64(7.0), np.float64(2.0))
    np.True_
    """

    name = "ge"
    ufunc = np.greater_equal
    py_template = "({0} >= {1})"


class EQ(_Comparison):
    """``x == y`` (nan is not equal to itself).

    >>> eq.impl(np.float64(7.0), np.float64(2.0))
    np.False_
    """

    name = "eq"
    ufunc = np.equal
    commutative = True
    py_template = "({0} == {1})"


class NEQ(_Comparison):
    """``x != y``.

    >>> neq.impl(np.float64(7.0), np.float64(2.0))
    np.True_
    """

    name = "neq"
    ufunc = np.not_equal
    commutative = True
    py_template = "({0} != {1})"


class _Bitwise(_Discrete):
    """Bitwise ops on integers; on booleans they are the logical ops."""

    def py_expr_ok(self, node: Apply) -> bool:
        return all(v.type.dtype == "bool" for v in (*node.inputs, *node.outputs))  # type: ignore[attr-defined]


class AND(_Bitwise):
    """``x & y`` (``np.bitwise_and``).

    >>> and_.impl(np.int64(6), np.int64(3))
    np.int64(2)
    """

    name = "and_"
    nin = 2
    ufunc = np.bitwise_and
    identity = True
    commutative = True
    associative = True
    py_template = "({0} and {1})"


class OR(_Bitwise):
    """``x | y`` (``np.bitwise_or``).

    >>> or_.impl(np.int64(6), np.int64(3))
    np.int64(7)
    """

    name = "or_"
    nin = 2
    ufunc = np.bitwise_or
    identity = False
    commutative = True
    associative = True
    py_template = "({0} or {1})"


class XOR(_Bitwise):
    """``x ^ y`` (``np.bitwise_xor``).

    >>> xor.impl(np.int64(6), np.int64(3))
    np.int64(5)
    """

    name = "xor"
    nin = 2
    ufunc = np.bitwise_xor
    identity = False
    commutative = True
    associative = True
    py_template = "({0} != {1})"


class Invert(_Bitwise):
    """``~x`` (``np.invert``; logical not on booleans).

    >>> invert.impl(np.int8(5))
    np.int8(-6)
    """

    name = "invert"
    nin = 1
    ufunc = np.invert
    py_template = "(not {0})"


class LeftShift(_Discrete):
    """``x << y`` on integers.

    >>> left_shift.impl(np.int64(1), np.int64(3))
    np.int64(8)
    """

    name = "left_shift"
    nin = 2
    ufunc = np.left_shift


class RightShift(_Discrete):
    """``x >> y`` on integers.

    >>> right_shift.impl(np.int64(16), np.int64(2))
    np.int64(4)
    """

    name = "right_shift"
    nin = 2
    ufunc = np.right_shift


class _Logical(_Discrete):
    """NumPy's ``logical_*``: any input dtype, boolean output."""

    def py_expr_ok(self, node: Apply) -> bool:
        return all(v.type.dtype in ("bool", "float64") for v in node.inputs)  # type: ignore[attr-defined]


class LogicalAnd(_Logical):
    """``x and y`` as booleans (``np.logical_and``).

    >>> logical_and.impl(np.float64(1.0), np.float64(0.0))
    np.False_
    """

    name = "logical_and"
    nin = 2
    ufunc = np.logical_and
    identity = True
    commutative = True
    associative = True
    py_template = "(bool({0}) and bool({1}))"


class LogicalOr(_Logical):
    """``x or y`` as booleans (``np.logical_or``).

    >>> logical_or.impl(np.float64(1.0), np.float64(0.0))
    np.True_
    """

    name = "logical_or"
    nin = 2
    ufunc = np.logical_or
    identity = False
    commutative = True
    associative = True
    py_template = "(bool({0}) or bool({1}))"


class LogicalXor(_Logical):
    """``bool(x) != bool(y)`` (``np.logical_xor``).

    >>> logical_xor.impl(np.float64(1.0), np.float64(0.0))
    np.True_
    """

    name = "logical_xor"
    nin = 2
    ufunc = np.logical_xor
    identity = False
    commutative = True
    associative = True
    py_template = "(bool({0}) != bool({1}))"


class LogicalNot(_Logical):
    """``not x`` (``np.logical_not``).

    >>> logical_not.impl(np.float64(0.0))
    np.True_
    """

    name = "logical_not"
    nin = 1
    ufunc = np.logical_not
    py_template = "(not {0})"


class IsNan(_Discrete):
    """``np.isnan``.

    >>> isnan.impl(np.float64("nan"))
    np.True_
    """

    name = "isnan"
    nin = 1
    ufunc = np.isnan
    py_template = "math.isnan({0})"


class IsInf(_Discrete):
    """``np.isinf``.

    >>> isinf.impl(np.float64("inf"))
    np.True_
    """

    name = "isinf"
    nin = 1
    ufunc = np.isinf
    py_template = "math.isinf({0})"


class IsFinite(_Discrete):
    """``np.isfinite``.

    >>> isfinite.impl(np.float64("inf"))
    np.False_
    """

    name = "isfinite"
    nin = 1
    ufunc = np.isfinite
    py_template = "math.isfinite({0})"


class Switch(ScalarOp):
    """``a if cond else b`` (``np.where``; the dtype is the upcast of ``a`` and ``b``).

    >>> from theon.scalar.type import bool_, float32
    >>> switch(bool_("c"), float32("a"), 0.0).type
    ScalarType(float32)
    """

    name = "switch"
    nin = 3
    no_promote_inputs = (0,)

    def output_types(self, *types: ScalarType) -> list[ScalarType]:
        bad = [t for t in types if not isinstance(t, ScalarType)]
        if bad:
            raise TypeError(f"scalar op switch got non-scalar input types {bad}")
        return [get_scalar_type(upcast(types[1].dtype, types[2].dtype))]

    def impl(self, cond: Any, a: Any, b: Any) -> Any:  # type: ignore[override]
        return np.where(cond, a, b)

    py_template = "({1} if {0} else {2})"

    def py_expr_ok(self, node: Apply) -> bool:
        c, a, b = (v.type.dtype for v in node.inputs)  # type: ignore[attr-defined]
        return c in ("bool", "float64") and a == b == node.outputs[0].type.dtype == "float64"  # type: ignore[attr-defined]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        c, a, b = inputs
        (gz,) = output_grads
        zero = constant(0, dtype=gz.type.dtype)  # type: ignore[attr-defined]
        ga = disconnected_type() if _discrete(a) else _grad_as(switch(c, gz, zero), a)
        gb = disconnected_type() if _discrete(b) else _grad_as(switch(c, zero, gz), b)
        return [_zero_grad(c), ga, gb]


lt = LT()
gt = GT()
le = LE()
ge = GE()
eq = EQ()
neq = NEQ()
and_ = AND()
or_ = OR()
xor = XOR()
invert = Invert()
left_shift = LeftShift()
right_shift = RightShift()
logical_and = LogicalAnd()
logical_or = LogicalOr()
logical_xor = LogicalXor()
logical_not = LogicalNot()
isnan = IsNan()
isinf = IsInf()
isfinite = IsFinite()
switch = Switch()
