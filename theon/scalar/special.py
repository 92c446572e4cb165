"""Special functions: erf family, gamma family, sigmoid, softplus, log1mexp.

Output dtypes follow ``np.exp``'s rule (float16/32 stay, bool/int8/uint8 ->
float16, int16/uint16 -> float32, wider integers -> float64).  SciPy's own
ufuncs would widen float16/float32 to float64 in several cases; ``impl``
computes in a precision SciPy supports and returns the promised dtype.  The
examples round results to 6 decimals (the last digits differ between CPUs).

>>> from theon.scalar.type import float32
>>> sigmoid(float32("x")).type
ScalarType(float32)
>>> float(softplus.impl(np.float64(1000.0)))
1000.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import scipy.special as sps

from theon.graph.basic import Apply, Variable
from theon.graph.null_type import disconnected_type
from theon.scalar.arith import _UnaryFloat, sqr
from theon.scalar.basic import (
    ScalarOp,
    _discrete,
    _grad_as,
    add,
    exp,
    mul,
    neg,
    sub,
    upgrade_to_float_nocomplex,
)
from theon.scalar.type import ScalarType

__all__ = [
    "erf",
    "erfc",
    "erfcinv",
    "erfinv",
    "gamma",
    "gammaln",
    "log1mexp",
    "log1pexp",
    "polygamma",
    "psi",
    "sigmoid",
    "softplus",
    "tri_gamma",
]

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0
_LN2 = math.log(2.0)


def _compute_dtype(out: np.dtype) -> np.dtype:
    """The dtype to compute in for an output dtype: float16 computes in float32."""
    if out == np.float16:
        return np.dtype(np.float32)
    return out


def _out_dtype(x: Any) -> np.dtype:
    """The output dtype of a float-valued special function of ``x`` (np.exp's rule)."""
    return np.result_type(np.asarray(x).dtype, np.float16)


def _apply_float(fn: Any, x: Any) -> Any:
    """``fn`` on ``x`` computed in a SciPy-supported precision, returned in the promised dtype."""
    out = _out_dtype(x)
    comp = _compute_dtype(out)
    xa = np.asarray(x)
    if xa.dtype != comp:
        xa = xa.astype(comp)
    r = np.asarray(fn(xa))
    if r.dtype != out:
        r = r.astype(out)
    return r[()] if r.ndim == 0 else r


class _Special(_UnaryFloat):
    """A unary special function backed by a SciPy/NumPy callable, with np.exp's dtype rule."""

    output_types_preference = upgrade_to_float_nocomplex
    ufunc_exact = False

    def impl(self, x: Any) -> Any:  # type: ignore[override]
        return _apply_float(self.ufunc, x)


class Erf(_Special):
    """The error function.

    >>> erf.impl(np.float64(0.5)).round(6)
    np.float64(0.5205)
    """

    name = "erf"
    ufunc = sps.erf
    py_template = "math.erf({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return mul(_TWO_OVER_SQRT_PI, exp(neg(sqr(x))))


class Erfc(_Special):
    """``1 - erf(x)``, accurate for large x.

    >>> erfc.impl(np.float64(0.5)).round(6)
    np.float64(0.4795)
    """

    name = "erfc"
    ufunc = sps.erfc
    py_template = "math.erfc({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return mul(-_TWO_OVER_SQRT_PI, exp(neg(sqr(x))))


class Erfinv(_Special):
    """Inverse of erf on (-1, 1) (+-inf at +-1, nan outside).

    >>> erfinv.impl(np.float64(0.5)).round(6)
    np.float64(0.476936)
    """

    name = "erfinv"
    ufunc = sps.erfinv
    py_template = "_erfinv({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return mul(_SQRT_PI_OVER_TWO, exp(sqr(out)))


class Erfcinv(_Special):
    """Inverse of erfc on (0, 2).

    >>> erfcinv.impl(np.float64(0.5)).round(6)
    np.float64(0.476936)
    """

    name = "erfcinv"
    ufunc = sps.erfcinv
    py_template = "_erfcinv({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return mul(-_SQRT_PI_OVER_TWO, exp(sqr(out)))


class Gamma(_Special):
    """The gamma function (inf at 0, nan at negative integers, as SciPy).

    >>> gamma.impl(np.float64(0.5)).round(6)
    np.float64(1.772454)
    """

    name = "gamma"
    ufunc = sps.gamma
    py_template = "_gamma({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return mul(out, psi(x))


class GammaLn(_Special):
    """``log(|gamma(x)|)``.

    >>> gammaln.impl(np.float64(0.5)).round(6)
    np.float64(0.572365)
    """

    name = "gammaln"
    ufunc = sps.gammaln
    py_template = "_gammaln({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return psi(x)


class Psi(_Special):
    """The digamma function, ``d/dx log(gamma(x))``.

    >>> psi.impl(np.float64(0.5)).round(6)
    np.float64(-1.96351)
    """

    name = "psi"
    ufunc = sps.psi
    py_template = "_psi({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return polygamma(1, x)


class PolyGamma(ScalarOp):
    """``polygamma(n, x)``: the n-th derivative of digamma; ``n`` is an integer input.

    >>> polygamma.impl(np.int64(1), np.float64(0.5)).round(6)
    np.float64(4.934802)
    """

    name = "polygamma"
    nin = 2
    no_promote_inputs = (0,)
    ufunc_exact = False

    def output_types(self, *types: ScalarType) -> list[ScalarType]:
        n, x = types
        if not n.is_discrete or n.dtype == "bool":
            raise TypeError(f"polygamma's order must be an integer, got dtype {n.dtype}")
        return upgrade_to_float_nocomplex(x)

    def impl(self, n: Any, x: Any) -> Any:  # type: ignore[override]
        return _apply_float(lambda xa: sps.polygamma(n, xa), x)

    def py_expr_ok(self, node: Apply) -> bool:
        return False

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        n, x = inputs
        if _discrete(x):
            return [disconnected_type(), disconnected_type()]
        return [disconnected_type(), _grad_as(mul(output_grads[0], polygamma(add(n, 1), x)), x)]


class Sigmoid(_Special):
    """The logistic function ``1 / (1 + exp(-x))`` (``scipy.special.expit``).

    >>> sigmoid.impl(np.float64(0.5)).round(6)
    np.float64(0.622459)
    """

    name = "sigmoid"
    ufunc = sps.expit
    py_template = "_sigmoid({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        # sigmoid(x) * sigmoid(-x), not out * (1 - out): 1 - out cancels to 0 for x > 37
        return mul(out, sigmoid(neg(x)))


def _softplus_np(x: Any) -> Any:
    """``log(1 + exp(x))`` without overflow: ``logaddexp(0, x)``."""
    return np.logaddexp(0, x)


class Softplus(_Special):
    """``log(1 + exp(x))``, stable for large |x|.

    >>> softplus.impl(np.float64(0.5)).round(6)
    np.float64(0.974077)
    """

    name = "softplus"
    ufunc = staticmethod(_softplus_np)
    py_template = "_softplus({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        return sigmoid(x)


def _log1mexp_np(x: Any) -> Any:
    """``log(1 - exp(x))`` for x <= 0: log1p(-exp(x)) below -ln 2, log(-expm1(x)) above."""
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        r = np.where(x < -_LN2, np.log1p(-np.exp(x)), np.log(-np.expm1(x)))
    return r


class Log1mexp(_Special):
    """``log(1 - exp(x))``, accurate for all x <= 0 (-inf at 0, nan above).

    >>> log1mexp.impl(np.float64(-1.0)).round(6)
    np.float64(-0.458675)
    """

    name = "log1mexp"
    ufunc = staticmethod(_log1mexp_np)
    py_template = "_log1mexp({0})"

    def deriv(self, x: Variable, out: Variable) -> Variable:
        # d/dx log(1 - e^x) = -e^x / (1 - e^x) = -exp(x - out): -inf at 0 (where out is
        # -inf), as the one-sided limit; no 0/0 or signed-zero trouble near 0
        return neg(exp(sub(x, out)))


erf = Erf()
erfc = Erfc()
erfinv = Erfinv()
erfcinv = Erfcinv()
gamma = Gamma()
gammaln = GammaLn()
psi = Psi()
polygamma = PolyGamma()
sigmoid = Sigmoid()
softplus = Softplus()
log1pexp = softplus
log1mexp = Log1mexp()


def tri_gamma(x: Any) -> Variable:
    """``polygamma(1, x)``, the derivative of digamma.

    >>> from theon.scalar.type import float64
    >>> str(tri_gamma(float64("x")).owner.op)
    'polygamma'
    """
    return polygamma(1, x)  # type: ignore[no-any-return]
