"""Arithmetic scalar ops beyond the core: division kinds, powers, abs/sign, rounding, extrema.

Most are rows of :mod:`theon.scalar.table`; ``reciprocal`` (integers give
floats), ``round_half_to_even`` (integers keep their dtype) and ``clip`` (three
inputs) are written out here.

>>> from theon.scalar.type import float64
>>> x = float64("x")
>>> sqrt(x).owner.op.impl(np.float64(4.0))
np.float64(2.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Variable
from theon.graph.null_type import disconnected_type
from theon.scalar import rowops as _rowops
from theon.scalar.basic import (
    ScalarOp,
    UnaryScalarOp,
    _discrete,
    _grad_as,
    deriv,
    mul,
    neg,
    true_div,
    upcast_out,
    zero_grads,
)
from theon.scalar.rowops import *  # noqa: F403  (every row's class and op, by name)
from theon.scalar.type import ScalarType, constant, get_scalar_type, scalar_type

__all__ = [
    "Clip",
    "Reciprocal",
    "RoundHalfToEven",
    "clip",
    "reciprocal",
    "round",
    "round_half_to_even",
]
__all__ += _rowops.FAMILY_ALL["arith"]


# d/dx 1/x = -1/x**2 = -out**2
_reciprocal_grad = deriv(lambda x, out: neg(mul(out, out)))


class Reciprocal(UnaryScalarOp):
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

    def impl(self, x: Any) -> Any:
        return np.true_divide(1, x)

    def L_op(
        self,
        inputs: Sequence[Variable],
        outputs: Sequence[Variable],
        output_grads: Sequence[Variable],
    ) -> list[Any]:
        return _reciprocal_grad(inputs, outputs, output_grads)


class RoundHalfToEven(UnaryScalarOp):
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

    def impl(self, x: Any) -> Any:
        dt = np.asarray(x).dtype
        if dt.kind in "iu":
            return x.copy() if isinstance(x, np.ndarray) else x
        return np.rint(x)

    L_op = staticmethod(zero_grads)


class Clip(ScalarOp):
    """``min(max(x, lo), hi)`` (``np.clip``; the dtype is the upcast of all three).

    >>> clip.impl(np.float64(5.0), np.float64(0.0), np.float64(1.0))
    np.float64(1.0)
    """

    name = "clip"
    nin = 3
    output_types_preference = upcast_out

    def impl(self, x: Any, lo: Any, hi: Any) -> Any:
        return np.minimum(np.maximum(x, lo), hi)

    py_template = "_clip({0}, {1}, {2})"

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        from theon.scalar.logic import and_, ge, le, lt, switch

        x, lo, hi = inputs
        (gz,) = output_grads
        zero = constant(0, dtype=scalar_type(gz).dtype)
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

    return or_(gt(x, hi), gt(lo, hi))


reciprocal = Reciprocal()
round_half_to_even = RoundHalfToEven()
round = round_half_to_even
clip = Clip()
