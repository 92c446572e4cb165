"""Special functions: erf family, gamma family, sigmoid, softplus, softsign, log1mexp.

Output dtypes follow ``np.exp``'s rule (float16/32 stay, bool/int8/uint8 ->
float16, int16/uint16 -> float32, wider integers -> float64).  SciPy's own
ufuncs would widen float16/float32 to float64 in several cases; ``impl``
computes in a precision SciPy supports and returns the promised dtype.  All
but ``polygamma`` (an integer order input) are rows of :mod:`theon.scalar.table`;
SciPy loads when one of them first computes.  The examples round results to 6
decimals (the last digits differ between CPUs).

>>> import numpy as np
>>> from theon.scalar.type import float32
>>> sigmoid(float32("x")).type
ScalarType(float32)
>>> float(softplus.impl(np.float64(1000.0)))
1000.0
>>> erf.impl(np.float64(0.5)).round(6), gammaln.impl(np.float64(0.5)).round(6)
(np.float64(0.5205), np.float64(0.572365))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from theon.graph.basic import Apply, Variable
from theon.graph.null_type import disconnected_type
from theon.scalar import rowops as _rowops
from theon.scalar.basic import (
    ScalarOp,
    _discrete,
    _grad_as,
    add,
    apply_float,
    mul,
    upgrade_to_float_nocomplex,
)
from theon.scalar.rowops import *  # noqa: F403  (every row's class and op, by name)
from theon.scalar.type import ScalarType

__all__ = [
    "PolyGamma",
    "polygamma",
    "tri_gamma",
]
__all__ += _rowops.FAMILY_ALL["special"]


class PolyGamma(ScalarOp):
    """``polygamma(n, x)``: the n-th derivative of digamma; ``n`` is an integer input.

    >>> import numpy as np
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

    def impl(self, n: Any, x: Any) -> Any:
        import scipy.special  # loaded on first use (see theon.scalar.table)

        return apply_float(lambda xa: scipy.special.polygamma(n, xa), x)

    def py_expr_ok(self, node: Apply) -> bool:
        return False

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        n, x = inputs
        if _discrete(x):
            return [disconnected_type(), disconnected_type()]
        return [disconnected_type(), _grad_as(mul(output_grads[0], polygamma(add(n, 1), x)), x)]


polygamma: PolyGamma = PolyGamma()


def tri_gamma(x: Any) -> Variable:
    """``polygamma(1, x)``, the derivative of digamma.

    >>> from theon.scalar.type import float64
    >>> str(tri_gamma(float64("x")).owner.op)
    'polygamma'
    """
    return polygamma(1, x)
