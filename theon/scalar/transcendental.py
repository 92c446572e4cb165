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

from theon.scalar.table import (
    ArcCos,
    ArcCosh,
    ArcSin,
    ArcSinh,
    ArcTan,
    ArcTan2,
    ArcTanh,
    Cos,
    Cosh,
    Exp2,
    Expm1,
    Log1p,
    Log2,
    Log10,
    Sin,
    Sinh,
    Tan,
    Tanh,
    arccos,
    arccosh,
    arcsin,
    arcsinh,
    arctan,
    arctan2,
    arctanh,
    cos,
    cosh,
    exp2,
    expm1,
    log1p,
    log2,
    log10,
    sin,
    sinh,
    tan,
    tanh,
)

__all__ = [
    "ArcCos",
    "ArcCosh",
    "ArcSin",
    "ArcSinh",
    "ArcTan",
    "ArcTan2",
    "ArcTanh",
    "Cos",
    "Cosh",
    "Exp2",
    "Expm1",
    "Log10",
    "Log1p",
    "Log2",
    "Sin",
    "Sinh",
    "Tan",
    "Tanh",
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
