"""Exponentials, logarithms, and the trigonometric and hyperbolic families.

Each op is the NumPy ufunc of the same name (integers give floats as in
NumPy: int8 -> float16, int16 -> float32, wider -> float64); its derivative
rule sits beside it.  The examples round results to 6 decimals: NumPy's SIMD
kernels (AVX2, AVX-512) and the platform's libm differ in the last digits.

>>> from theon.scalar.type import float64
>>> x = float64("x")
>>> str(tanh(x).owner.op), tanh(x).owner.op.py_expr("a")
('tanh', 'math.tanh(a)')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Variable
from theon.graph.null_type import disconnected_type
from theon.scalar.arith import _UnaryFloat, sqr, sqrt
from theon.scalar.basic import (
    BinaryScalarOp,
    _discrete,
    _grad_as,
    add,
    exp,
    mul,
    neg,
    sub,
    true_div,
)

__all__ = [
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "cos",
    "cosh",
    "exp2",
    "expm1",
    "log10",
    "log1p",
    "log2",
    "sin",
    "sinh",
    "tan",
    "tanh",
]

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)


class Exp2(_UnaryFloat):
    """``2 ** x``.

    >>> exp2.impl(np.float64(0.5)).round(6)
    np.float64(1.414214)
    """

    name = "exp2"
    ufunc = np.exp2
    py_template = "_exp2({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return mul(out, _LN2)


class Expm1(_UnaryFloat):
    """``exp(x) - 1``, accurate near 0.

    >>> expm1.impl(np.float64(0.5)).round(6)
    np.float64(0.648721)
    """

    name = "expm1"
    ufunc = np.expm1
    py_template = "(math.expm1({0}) if {0} < 709.0 else _expm1({0}))"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return exp(x)


class Log2(_UnaryFloat):
    """Base-2 logarithm.

    >>> log2.impl(np.float64(0.5)).round(6)
    np.float64(-1.0)
    """

    name = "log2"
    ufunc = np.log2
    py_template = "(math.log2({0}) if {0} > 0.0 else _log2({0}))"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return true_div(1.0 / _LN2, x)


class Log10(_UnaryFloat):
    """Base-10 logarithm.

    >>> log10.impl(np.float64(0.5)).round(6)
    np.float64(-0.30103)
    """

    name = "log10"
    ufunc = np.log10
    py_template = "(math.log10({0}) if {0} > 0.0 else _log10({0}))"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return true_div(1.0 / _LN10, x)


class Log1p(_UnaryFloat):
    """``log(1 + x)``, accurate near 0.

    >>> log1p.impl(np.float64(0.5)).round(6)
    np.float64(0.405465)
    """

    name = "log1p"
    ufunc = np.log1p
    py_template = "(math.log1p({0}) if {0} > -1.0 else _log1p({0}))"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return true_div(1, add(x, 1))


class Sin(_UnaryFloat):
    """Sine.

    >>> sin.impl(np.float64(0.5)).round(6)
    np.float64(0.479426)
    """

    name = "sin"
    ufunc = np.sin
    py_template = "_sin({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return cos(x)


class Cos(_UnaryFloat):
    """Cosine.

    >>> cos.impl(np.float64(0.5)).round(6)
    np.float64(0.877583)
    """

    name = "cos"
    ufunc = np.cos
    py_template = "_cos({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return neg(sin(x))


class Tan(_UnaryFloat):
    """Tangent.

    >>> tan.impl(np.float64(0.5)).round(6)
    np.float64(0.546302)
    """

    name = "tan"
    ufunc = np.tan
    py_template = "_tan({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return add(1, sqr(out))


class ArcSin(_UnaryFloat):
    """Inverse sine (nan outside [-1, 1]).

    >>> arcsin.impl(np.float64(0.5)).round(6)
    np.float64(0.523599)
    """

    name = "arcsin"
    ufunc = np.arcsin
    py_template = "_arcsin({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return true_div(1, sqrt(sub(1, sqr(x))))


class ArcCos(_UnaryFloat):
    """Inverse cosine (nan outside [-1, 1]).

    >>> arccos.impl(np.float64(0.5)).round(6)
    np.float64(1.047198)
    """

    name = "arccos"
    ufunc = np.arccos
    py_template = "_arccos({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return true_div(-1, sqrt(sub(1, sqr(x))))


class ArcTan(_UnaryFloat):
    """Inverse tangent.

    >>> arctan.impl(np.float64(0.5)).round(6)
    np.float64(0.463648)
    """

    name = "arctan"
    ufunc = np.arctan
    py_template = "math.atan({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return true_div(1, add(1, sqr(x)))


class Sinh(_UnaryFloat):
    """Hyperbolic sine.

    >>> sinh.impl(np.float64(0.5)).round(6)
    np.float64(0.521095)
    """

    name = "sinh"
    ufunc = np.sinh
    py_template = "_sinh({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return cosh(x)


class Cosh(_UnaryFloat):
    """Hyperbolic cosine.

    >>> cosh.impl(np.float64(0.5)).round(6)
    np.float64(1.127626)
    """

    name = "cosh"
    ufunc = np.cosh
    py_template = "_cosh({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return sinh(x)


class Tanh(_UnaryFloat):
    """Hyperbolic tangent.

    >>> tanh.impl(np.float64(0.5)).round(6)
    np.float64(0.462117)
    """

    name = "tanh"
    ufunc = np.tanh
    py_template = "math.tanh({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return sub(1, sqr(out))


class ArcSinh(_UnaryFloat):
    """Inverse hyperbolic sine.

    >>> arcsinh.impl(np.float64(0.5)).round(6)
    np.float64(0.481212)
    """

    name = "arcsinh"
    ufunc = np.arcsinh
    py_template = "_arcsinh({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return true_div(1, sqrt(add(sqr(x), 1)))


class ArcCosh(_UnaryFloat):
    """Inverse hyperbolic cosine (nan below 1).

    >>> arccosh.impl(np.float64(1.5)).round(6)
    np.float64(0.962424)
    """

    name = "arccosh"
    ufunc = np.arccosh
    py_template = "_arccosh({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return true_div(1, sqrt(sub(sqr(x), 1)))


class ArcTanh(_UnaryFloat):
    """Inverse hyperbolic tangent (+-inf at +-1, nan outside).

    >>> arctanh.impl(np.float64(0.5)).round(6)
    np.float64(0.549306)
    """

    name = "arctanh"
    ufunc = np.arctanh
    py_template = "_arctanh({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return true_div(1, sub(1, sqr(x)))


class ArcTan2(BinaryScalarOp):
    """``arctan2(y, x)``: the angle of the point ``(x, y)``.

    >>> arctan2.impl(np.float64(1.0), np.float64(1.0)).round(6)
    np.float64(0.785398)
    """

    name = "arctan2"
    ufunc = np.arctan2

    py_template = "math.atan2({0}, {1})"

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        y, x = inputs
        (gz,) = output_grads
        r2 = add(sqr(x), sqr(y))
        gy = disconnected_type() if _discrete(y) else _grad_as(true_div(mul(gz, x), r2), y)
        gx = disconnected_type() if _discrete(x) else _grad_as(neg(true_div(mul(gz, y), r2)), x)
        return [gy, gx]


exp2 = Exp2()
expm1 = Expm1()
log2 = Log2()
log10 = Log10()
log1p = Log1p()
sin = Sin()
cos = Cos()
tan = Tan()
arcsin = ArcSin()
arccos = ArcCos()
arctan = ArcTan()
sinh = Sinh()
cosh = Cosh()
tanh = Tanh()
arcsinh = ArcSinh()
arccosh = ArcCosh()
arctanh = ArcTanh()
arctan2 = ArcTan2()
