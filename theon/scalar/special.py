"""Special functions: erf family, gamma family, sigmoid, softplus, softsign, log1mexp, and
SciPy's incomplete gamma and beta functions, Bessel functions, ``hyp2f1``, ``owens_t``.

Output dtypes follow ``np.exp``'s rule (float16/32 stay, bool/int8/uint8 ->
float16, int16/uint16 -> float32, wider integers -> float64).  SciPy's own
ufuncs would widen float16/float32 to float64 in several cases; ``impl``
computes in a precision SciPy supports and returns the promised dtype.  All
but ``polygamma`` (an integer order input) are rows of :mod:`theon.scalar.table`;
SciPy loads when one of them first computes.  Their derivative rules are in
:mod:`theon.scalar.specgrad`; :func:`gammaincc_grad`, :func:`betainc_grad` and
:func:`hyp2f1_grad` are PyTensor's spellings of the parameter derivatives (the rows
``gammainc_grad``, ``betainc_grad_a``/``_b`` and ``hyp2f1_grad_a``/``_b``/``_c``).
The examples round results to 6 decimals (the last digits differ between CPUs).

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
from theon.scalar import specfun
from theon.scalar.basic import (
    ScalarOp,
    _discrete,
    _grad_as,
    add,
    mul,
    upgrade_to_float_nocomplex,
)
from theon.scalar.rowops import *  # noqa: F403  (every row's class and op, by name)
from theon.scalar.type import ScalarType

__all__ = [
    "PolyGamma",
    "betainc_grad",
    "gammaincc_grad",
    "hyp2f1_grad",
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

        return specfun.apply_float(lambda xa: scipy.special.polygamma(n, xa), x)

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


def gammaincc_grad(k: Any, x: Any) -> Variable:
    """The derivative of ``gammaincc(k, x)`` in ``k``: ``-gammainc_grad(k, x)``.

    >>> import numpy as np
    >>> from theon.scalar.type import float64
    >>> str(gammaincc_grad(float64("k"), float64("x")).owner.op)
    'neg'
    """
    return neg(gammainc_grad(k, x))  # noqa: F405  (rows, from theon.scalar.rowops)


def betainc_grad(p: Any, q: Any, x: Any, wrtp: bool) -> Variable:
    """The derivative of ``betainc(p, q, x)`` in ``p`` (``wrtp``) or in ``q`` (PyTensor's
    spelling of the rows ``betainc_grad_a`` and ``betainc_grad_b``).

    >>> from theon.scalar.type import float64
    >>> str(betainc_grad(float64("p"), float64("q"), float64("x"), False).owner.op)
    'betainc_grad_b'
    """
    row = betainc_grad_a if wrtp else betainc_grad_b  # noqa: F405
    return row(p, q, x)


def hyp2f1_grad(a: Any, b: Any, c: Any, z: Any, wrt: Sequence[int]) -> list[Variable]:
    """The derivatives of ``hyp2f1(a, b, c, z)`` in the parameters ``wrt`` (0: ``a``,
    1: ``b``, 2: ``c``), PyTensor's spelling of the rows ``hyp2f1_grad_a``/``_b``/``_c``.

    >>> from theon.scalar.type import float64
    >>> args = [float64(n) for n in "abcz"]
    >>> [str(g.owner.op) for g in hyp2f1_grad(*args, wrt=(0, 2))]
    ['hyp2f1_grad_a', 'hyp2f1_grad_c']
    """
    rows = (hyp2f1_grad_a, hyp2f1_grad_b, hyp2f1_grad_c)  # noqa: F405
    for i in wrt:
        if i not in (0, 1, 2):
            raise ValueError(f"hyp2f1_grad: wrt holds {i}; the parameters are 0 (a), 1 (b), "
                             "2 (c)")
    return [rows[i](a, b, c, z) for i in wrt]
