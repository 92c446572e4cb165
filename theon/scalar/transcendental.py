"""Exponentials, logarithms, and the trigonometric and hyperbolic families.

Each op is the NumPy ufunc of the same name (integers give floats as in
NumPy: int8 -> float16, int16 -> float32, wider -> float64), a row of
:mod:`theon.scalar.table` with its derivative rule.  The examples round results
to 6 decimals: NumPy's SIMD kernels (AVX2, AVX-512) and the platform's libm
differ in the last digits.

>>> import numpy as np
>>> from theon.scalar.type import float64
>>> x = float64("x")
>>> str(tanh(x).owner.op), tanh(x).owner.op.py_expr("a")
('tanh', 'math.tanh(a)')
>>> arctan2.impl(np.float64(1.0), np.float64(1.0)).round(6)
np.float64(0.785398)
"""

from __future__ import annotations

from theon.scalar import rowops as _rowops
from theon.scalar.rowops import *  # noqa: F403  (every row's class and op, by name)

__all__ = [
]
__all__ += _rowops.FAMILY_ALL["transcendental"]
