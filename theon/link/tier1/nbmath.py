"""Scalar float64 functions for numba that vectorize: ``tanh`` from arithmetic and selects.

NumPy without AVX-512 computes float64 ``tanh`` one element at a time through
libm (about 9 ns an element on an AVX2 machine, against 3 ns for its SIMD
``exp``), and numba from PyPI, whose LLVM has no vector math library, calls the
same scalar libm.  Written from arithmetic, comparisons and selects only (no
calls, no integer bit tricks), the function inlines into a numba loop, which
LLVM then vectorizes: about 1.8 ns an element with AVX2.

``tanh(x) = sign(x) * -e / (2 + e)`` with ``e = expm1(-2|x|)``, which has no
cancellation for small ``|x|``.  ``expm1(y)`` for ``y`` in ``[-40, 0]`` (beyond
-40, ``tanh`` is 1 to the last bit):

* ``k = rint(y / ln 2)`` (by adding and subtracting ``1.5 * 2**52``), and
  ``r = y - k ln 2`` in two parts (Cody and Waite), ``|r| <= ln(2) / 2``;
* ``expm1(r) = r + r^2 (1/2 + r/6 + ... + r^12/14!)`` (the Taylor remainder is
  below ``2e-18`` there);
* ``2**k`` (``k`` in ``[-58, 0]``) as a product of ``2**-32, 2**-16, ..., 2**-1``
  chosen by comparisons, exactly;
* ``expm1(y) = 2**k expm1(r) + (2**k - 1)``.

The result is within 2.5 ulp of the correctly rounded ``tanh`` (2.36 measured)
(``tests/link/tier1/test_nbelem.py`` measures it against long-double NumPy);
signed zeros, infinities and NaN come out as NumPy's.

The function is plain Python (it runs, slowly, without numba too); the code the
tier-1 compiler generates wraps it in ``numba.njit(inline="always")``.
:data:`VERSION` is part of the kernels' cache keys.

>>> round(vtanh(0.5), 12), vtanh(-0.0), vtanh(float("inf"))
(0.46211715726, -0.0, 1.0)
"""

from __future__ import annotations

import math

__all__ = ["VERSION", "vtanh"]

#: Changes with the functions' code (it keys the compiled kernels in the disk cache).
VERSION = "nbmath-2"

_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.44269504088896338700e00
_ROUND = 6755399441055744.0  # 1.5 * 2**52: x + _ROUND - _ROUND rounds x to an integer


def vtanh(x: float) -> float:
    """``tanh(x)`` for a float64 ``x``, within 2.5 ulp (see the module docstring)."""
    a = abs(x)
    # e = expm1(y), y = -2 min(|x|, 20) in [-40, 0]
    y = -2.0 * min(a, 20.0)
    k = (y * _INV_LN2 + _ROUND) - _ROUND
    r = (y - k * _LN2_HI) - k * _LN2_LO
    p = 1.0 / 87178291200.0
    p = p * r + 1.0 / 6227020800.0
    p = p * r + 1.0 / 479001600.0
    p = p * r + 1.0 / 39916800.0
    p = p * r + 1.0 / 3628800.0
    p = p * r + 1.0 / 362880.0
    p = p * r + 1.0 / 40320.0
    p = p * r + 1.0 / 5040.0
    p = p * r + 1.0 / 720.0
    p = p * r + 1.0 / 120.0
    p = p * r + 1.0 / 24.0
    p = p * r + 1.0 / 6.0
    p = p * r + 0.5
    em = r + (r * r) * p
    m = -k
    s = 1.0
    c = m >= 32.0
    s = s * (2.0**-32 if c else 1.0)
    m = m - (32.0 if c else 0.0)
    c = m >= 16.0
    s = s * (2.0**-16 if c else 1.0)
    m = m - (16.0 if c else 0.0)
    c = m >= 8.0
    s = s * (2.0**-8 if c else 1.0)
    m = m - (8.0 if c else 0.0)
    c = m >= 4.0
    s = s * (2.0**-4 if c else 1.0)
    m = m - (4.0 if c else 0.0)
    c = m >= 2.0
    s = s * (2.0**-2 if c else 1.0)
    m = m - (2.0 if c else 0.0)
    s = s * (0.5 if m >= 1.0 else 1.0)
    e = s * em + (s - 1.0)
    t = -e / (2.0 + e)
    t = t if a == a else x  # NaN stays NaN
    return math.copysign(t, x)
