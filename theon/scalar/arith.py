"""Arithmetic scalar ops beyond the core: division kinds, powers, abs/sign, rounding, extrema.

>>> from theon.scalar.type import float64
>>> x = float64("x")
>>> sqrt(x).owner.op.impl(np.float64(4.0))
np.float64(2.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.null_type import disconnected_type
from theon.scalar.basic import (
    BinaryScalarOp,
    ScalarOp,
    UnaryScalarOp,
    _discrete,
    _grad_as,
    _zero_grad,
    log,
    mul,
    neg,
    same_out,
    sub,
    true_div,
    upcast_out,
)
from theon.scalar.type import ScalarType, constant, get_scalar_type

__all__ = [
    "abs",
    "abs_",
    "ceil",
    "clip",
    "conj",
    "floor",
    "identity",
    "imag",
    "int_div",
    "maximum",
    "minimum",
    "mod",
    "pow",
    "real",
    "reciprocal",
    "round",
    "round_half_to_even",
    "sign",
    "sqr",
    "sqrt",
    "trunc",
]


class _UnaryFloat(UnaryScalarOp):
    """A unary op whose gradient is ``gz * deriv(x, out)``; integer inputs are disconnected."""

    def deriv(self, x: Variable, out: Variable) -> Variable:
        """The derivative ``d out / d x`` as a scalar graph."""
        raise NotImplementedError

    def L_op(
        self,
        inputs: Sequence[Variable],
        outputs: Sequence[Variable],
        output_grads: Sequence[Variable],
    ) -> list[Any]:
        (x,) = inputs
        if _discrete(x):
            return [disconnected_type()]
        return [_grad_as(mul(output_grads[0], self.deriv(x, outputs[0])), x)]


class _PiecewiseConstant(UnaryScalarOp):
    """A unary op with zero derivative almost everywhere (rounding)."""

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [_zero_grad(inputs[0])]


# division and powers ------------------------------------------------------------
class IntDiv(BinaryScalarOp):
    """``x // y`` (``np.floor_divide``; on floats ``floor(x / y)`` with NumPy's inf/nan).

    >>> int_div.impl(np.float64(7.0), np.float64(2.0))
    np.float64(3.0)
    """

    name = "int_div"
    ufunc = np.floor_divide

    py_template = "_floordiv({0}, {1})"

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [_zero_grad(x) for x in inputs]


class Mod(BinaryScalarOp):
    """``x % y`` (``np.remainder``: the sign of the divisor).

    >>> mod.impl(np.float64(7.0), np.float64(2.0))
    np.float64(1.0)
    """

    name = "mod"
    ufunc = np.remainder

    py_template = "_mod({0}, {1})"

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        # x % y = x - y * floor(x / y): d/dx = 1, d/dy = -floor(x / y)
        x, y = inputs
        (gz,) = output_grads
        gx = disconnected_type() if _discrete(x) else _grad_as(gz, x)
        gy = disconnected_type() if _discrete(y) else _grad_as(neg(mul(gz, int_div(x, y))), y)
        return [gx, gy]


class Pow(BinaryScalarOp):
    """``x ** y`` (``np.power``; integers to negative integer powers raise, as in NumPy).

    >>> pow.impl(np.float64(2.0), np.float64(3.0))
    np.float64(8.0)
    """

    name = "pow"
    ufunc = np.power

    py_template = "_pow({0}, {1})"

    def L_op(
        self,
        inputs: Sequence[Variable],
        outputs: Sequence[Variable],
        output_grads: Sequence[Variable],
    ) -> list[Any]:
        x, y = inputs
        (gz,) = output_grads
        gx = disconnected_type() if _discrete(x) else _grad_as(mul(gz, y, pow(x, sub(y, 1))), x)
        gy = disconnected_type() if _discrete(y) else _grad_as(mul(gz, outputs[0], log(x)), y)
        return [gx, gy]


class Reciprocal(_UnaryFloat):
    """``1 / x`` with true division (unlike ``np.reciprocal``, integers give floats).

    >>> reciprocal.impl(np.float64(4.0))
    np.float64(0.25)
    """

    name = "reciprocal"
    ufunc = np.reciprocal
    ufunc_exact = False
    py_template = "(1.0 / {0} if {0} else _div(1.0, {0}))"

    def output_types(self, *types: ScalarType) -> list[ScalarType]:
        super().output_types(*types)
        (d,) = self._true_div_dtype(types[0].dtype)
        return [get_scalar_type(d)]

    @staticmethod
    def _true_div_dtype(dtype: str) -> tuple[str, ...]:
        return true_div._ufunc_dtypes([dtype, dtype])

    def impl(self, x: Any) -> Any:  # type: ignore[override]
        return np.true_divide(1, x)

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return neg(mul(out, out))


class Sqr(_UnaryFloat):
    """``x * x`` (``np.square``).

    >>> sqr.impl(np.float64(0.5))
    np.float64(0.25)
    """

    name = "sqr"
    ufunc = np.square
    py_template = "({0} * {0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return mul(2, x)


class Sqrt(_UnaryFloat):
    """Square root (``np.sqrt``: negative -> nan).

    >>> sqrt.impl(np.float64(0.5))
    np.float64(0.7071067811865476)
    """

    name = "sqrt"
    ufunc = np.sqrt
    py_template = "(math.sqrt({0}) if {0} >= 0.0 else _sqrt({0}))"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return true_div(0.5, out)


# sign and magnitude ---------------------------------------------------------------
class Abs(UnaryScalarOp):
    """``|x|`` (``np.absolute``; complex gives its real dtype).

    >>> abs.impl(np.float64(-2.0))
    np.float64(2.0)
    """

    name = "abs"
    ufunc = np.absolute

    py_template = "abs({0})"

    def L_op(
        self,
        inputs: Sequence[Variable],
        outputs: Sequence[Variable],
        output_grads: Sequence[Variable],
    ) -> list[Any]:
        (x,) = inputs
        (gz,) = output_grads
        if _discrete(x):
            return [disconnected_type()]
        if x.type.is_complex:  # type: ignore[attr-defined]
            return [_grad_as(true_div(mul(gz, x), outputs[0]), x)]
        return [_grad_as(mul(gz, sign(x)), x)]


class Sign(_PiecewiseConstant):
    """``-1, 0, 1`` by sign (``np.sign``; nan stays nan).

    >>> sign.impl(np.float64(-2.0))
    np.float64(-1.0)
    """

    name = "sign"
    ufunc = np.sign
    py_template = "_sign({0})"


class Floor(_PiecewiseConstant):
    """Round toward -inf (``np.floor``; integers keep their dtype, as in NumPy 2).

    >>> floor.impl(np.float64(-1.5))
    np.float64(-2.0)
    """

    name = "floor"
    ufunc = np.floor
    py_template = "_floor({0})"


class Ceil(_PiecewiseConstant):
    """Round toward +inf (``np.ceil``).

    >>> ceil.impl(np.float64(-1.5))
    np.float64(-1.0)
    """

    name = "ceil"
    ufunc = np.ceil
    py_template = "_ceil({0})"


class Trunc(_PiecewiseConstant):
    """Round toward zero (``np.trunc``).

    >>> trunc.impl(np.float64(-1.5))
    np.float64(-1.0)
    """

    name = "trunc"
    ufunc = np.trunc
    py_template = "_trunc({0})"


class RoundHalfToEven(_PiecewiseConstant):
    """Round to nearest, ties to even (``np.round``/``np.rint``).

    >>> round_half_to_even.impl(np.float64(2.5))
    np.float64(2.0)
    """

    name = "round_half_to_even"
    ufunc = np.rint
    ufunc_exact = False
    py_template = "_round({0})"

    def output_types(self, *types: ScalarType) -> list[ScalarType]:
        # np.round keeps integer dtypes (np.rint would give floats); bool gives float16
        t = types[0]
        if isinstance(t, ScalarType) and t.is_discrete and t.dtype != "bool":
            return [t]
        return super().output_types(*types)

    def impl(self, x: Any) -> Any:  # type: ignore[override]
        dt = np.asarray(x).dtype
        if dt.kind in "iu":
            return x.copy() if isinstance(x, np.ndarray) else x
        return np.rint(x)


# extrema ------------------------------------------------------------------------
class Maximum(BinaryScalarOp):
    """Elementwise maximum (``np.maximum``: nan propagates).

    >>> maximum.impl(np.float64(7.0), np.float64(2.0))
    np.float64(7.0)
    """

    name = "maximum"
    ufunc = np.maximum
    identity = -np.inf
    commutative = True
    associative = True

    py_template = "_maximum({0}, {1})"

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        # a subgradient: ties send the gradient to x only, so the total is gz
        from theon.scalar.logic import ge, lt

        x, y = inputs
        (gz,) = output_grads
        gx = disconnected_type() if _discrete(x) else _grad_as(mul(gz, ge(x, y)), x)
        gy = disconnected_type() if _discrete(y) else _grad_as(mul(gz, lt(x, y)), y)
        return [gx, gy]


class Minimum(BinaryScalarOp):
    """Elementwise minimum (``np.minimum``: nan propagates).

    >>> minimum.impl(np.float64(7.0), np.float64(2.0))
    np.float64(2.0)
    """

    name = "minimum"
    ufunc = np.minimum
    identity = np.inf
    commutative = True
    associative = True

    py_template = "_minimum({0}, {1})"

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        from theon.scalar.logic import gt, le

        x, y = inputs
        (gz,) = output_grads
        gx = disconnected_type() if _discrete(x) else _grad_as(mul(gz, le(x, y)), x)
        gy = disconnected_type() if _discrete(y) else _grad_as(mul(gz, gt(x, y)), y)
        return [gx, gy]


class Clip(ScalarOp):
    """``min(max(x, lo), hi)`` (``np.clip``; the dtype is the upcast of all three).

    >>> clip.impl(np.float64(5.0), np.float64(0.0), np.float64(1.0))
    np.float64(1.0)
    """

    name = "clip"
    nin = 3
    output_types_preference = upcast_out

    def impl(self, x: Any, lo: Any, hi: Any) -> Any:  # type: ignore[override]
        return np.minimum(np.maximum(x, lo), hi)

    py_template = "_clip({0}, {1}, {2})"

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        from theon.scalar.logic import and_, ge, le, lt, switch

        x, lo, hi = inputs
        (gz,) = output_grads
        zero = constant(0, dtype=gz.type.dtype)  # type: ignore[attr-defined]
        inside = and_(ge(x, lo), le(x, hi))
        gx = disconnected_type() if _discrete(x) else _grad_as(switch(inside, gz, zero), x)
        # the upper bound wins where lo > hi, as in np.clip
        glo = (
            disconnected_type()
            if _discrete(lo)
            else _grad_as(switch(and_(lt(x, lo), le(lo, hi)), gz, zero), lo)
        )
        ghi = (
            disconnected_type()
            if _discrete(hi)
            else _grad_as(switch(_upper_wins(x, lo, hi), gz, zero), hi)
        )
        return [gx, glo, ghi]


def _upper_wins(x: Variable, lo: Variable, hi: Variable) -> Variable:
    """``x > hi or lo > hi``: where the upper bound of a clip is the result."""
    from theon.scalar.logic import gt, or_

    return or_(gt(x, hi), gt(lo, hi))  # type: ignore[no-any-return]


class Identity(UnaryScalarOp):
    """The value itself (a copy for arrays).

    >>> identity.impl(np.float64(0.5))
    np.float64(0.5)
    """

    name = "identity"
    output_types_preference = same_out

    def impl(self, x: Any) -> Any:  # type: ignore[override]
        return x.copy() if isinstance(x, np.ndarray) else x

    py_template = "{0}"

    def py_expr_ok(self, node: Apply) -> bool:
        return node.inputs[0].type.dtype in ("float64", "bool")  # type: ignore[attr-defined]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        (x,) = inputs
        return [disconnected_type() if _discrete(x) else output_grads[0]]


# complex parts --------------------------------------------------------------------
class Real(UnaryScalarOp):
    """Real part (``np.real``; real inputs pass through).

    >>> real.impl(np.complex128(1.0+2.0j))
    np.float64(1.0)
    """

    name = "real"

    def output_types(self, *types: ScalarType) -> list[ScalarType]:
        t = types[0]
        if t.is_complex:
            return [get_scalar_type("float32" if t.dtype == "complex64" else "float64")]
        return [t]

    def impl(self, x: Any) -> Any:  # type: ignore[override]
        return np.real(x)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        (x,) = inputs
        return [disconnected_type() if _discrete(x) else _grad_as(output_grads[0], x)]


class Imag(UnaryScalarOp):
    """Imaginary part (``np.imag``; zero for real inputs).

    >>> imag.impl(np.complex128(1.0+2.0j))
    np.float64(2.0)
    """

    name = "imag"

    def output_types(self, *types: ScalarType) -> list[ScalarType]:
        return Real.output_types(self, *types)  # type: ignore[arg-type]

    def impl(self, x: Any) -> Any:  # type: ignore[override]
        return np.imag(x)

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        (x,) = inputs
        if _discrete(x):
            return [disconnected_type()]
        if not x.type.is_complex:  # type: ignore[attr-defined]
            return [constant(0, dtype=x.type.dtype)]  # type: ignore[attr-defined]
        # gradient convention: dC/dRe(z) + i dC/dIm(z)
        return [mul(output_grads[0], constant(1j, dtype=x.type.dtype))]  # type: ignore[attr-defined]


class Conj(UnaryScalarOp):
    """Complex conjugate (``np.conjugate``).

    >>> conj.impl(np.complex128(1.0+2.0j))
    np.complex128(1-2j)
    """

    name = "conj"
    ufunc = np.conjugate

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        (x,) = inputs
        return [disconnected_type() if _discrete(x) else _grad_as(conj(output_grads[0]), x)]


int_div = IntDiv()
mod = Mod()
pow = Pow()
reciprocal = Reciprocal()
sqr = Sqr()
sqrt = Sqrt()
abs = Abs()
abs_ = abs
sign = Sign()
floor = Floor()
ceil = Ceil()
trunc = Trunc()
round_half_to_even = RoundHalfToEven()
round = round_half_to_even
maximum = Maximum()
minimum = Minimum()
clip = Clip()
identity = Identity()
real = Real()
imag = Imag()
conj = Conj()
