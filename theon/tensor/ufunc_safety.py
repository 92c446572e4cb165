"""Which NumPy ufuncs may write into a non-contiguous array (``out=`` a strided view).

NumPy 2.4's ``np.negative(v, out=v)`` gives wrong values when ``v`` is a column
view with a stride of 8 (float64, int64) or 4 (float32, int32) elements (seen on
a CPU with AVX-512), and complex ``np.square`` into a strided output differs
from its result in a new array (another rounding of ``a*a - b*b``).  So in-place elementwise code
(``Elemwise.perform`` with an ``inplace_pattern``, the py-linker's ``out=``
calls, ``IncSubtensor``'s ``np.add``) writes into an array that is neither C-
nor Fortran-contiguous only with a ufunc and dtype kind listed in
:data:`STRIDED_OUT_SAFE`.  ``tests/tensor/test_ufunc_safety.py`` proves every
entry against NumPy's out-of-place result on many stride patterns; a ufunc that
is not listed is computed out of place there (a new array), and its result is
copied where a buffer must be written.

>>> import numpy as np
>>> strided_out_safe(np.add, "float64"), strided_out_safe(np.negative, "float64")
(True, False)
>>> v = np.zeros((2, 8))[:, 3]
>>> out_ok(np.negative, v), out_ok(np.negative, v.copy()), out_ok(np.add, v)
(False, True, True)
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

# STRIDED_OUT_SAFE is served by the module's __getattr__ (it loads SciPy)
__all__ = ["STRIDED_OUT_SAFE", "out_ok", "strided_out_safe"]  # noqa: F822

_ALL = "biufc"  # bool, signed and unsigned integers, floats, complex

#: ``(dtype kinds, ufuncs)``: ``ufunc(..., out=v)`` gives the out-of-place result
#: for a non-contiguous ``v`` (also one of the inputs) of these kinds, within a few
#: ulps (NumPy's contiguous and strided loops may round differently).  Not listed:
#: ``negative`` (wrong values, above) and complex ``square``.
_TABLE: tuple[tuple[str, tuple[np.ufunc, ...]], ...] = (
    (_ALL, (
        np.absolute, np.add, np.arccos, np.arccosh, np.arcsin, np.arcsinh, np.arctan,
        np.arctan2, np.arctanh, np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.ceil,
        np.conjugate, np.cos, np.cosh, np.divide, np.equal, np.exp, np.exp2, np.expm1,
        np.floor, np.floor_divide, np.greater, np.greater_equal, np.invert, np.isfinite,
        np.isinf, np.isnan, np.left_shift, np.less, np.less_equal, np.log, np.log10,
        np.log1p, np.log2, np.logical_and, np.logical_not, np.logical_or, np.logical_xor,
        np.maximum, np.minimum, np.multiply, np.not_equal, np.power, np.reciprocal,
        np.remainder, np.right_shift, np.rint, np.sign, np.sin, np.sinh, np.sqrt,
        np.subtract, np.tan, np.tanh, np.trunc,
    )),
    ("biuf", (np.square,)),
)
#: the same for ``scipy.special`` ufuncs, by name: SciPy is slow to import, and a SciPy
#: ufunc can only be asked about once SciPy is loaded
_SCIPY_TABLE: tuple[tuple[str, tuple[str, ...]], ...] = (
    (_ALL, ("erf", "erfc", "erfcinv", "erfinv", "expit", "gamma", "gammaln", "psi")),
)

_SAFE: dict[np.ufunc, str] = {u: kinds for kinds, ufs in _TABLE for u in ufs}
_with_scipy = False


def _safe_table() -> dict[np.ufunc, str]:
    """:data:`STRIDED_OUT_SAFE` with SciPy's entries once ``scipy.special`` is loaded."""
    global _with_scipy
    sps = sys.modules.get("scipy.special")
    if not _with_scipy and sps is not None:
        _SAFE.update({getattr(sps, n): kinds for kinds, names in _SCIPY_TABLE for n in names})
        _with_scipy = True
    return _SAFE


def __getattr__(name: str) -> Any:
    """``STRIDED_OUT_SAFE``: ufunc -> the dtype kinds for which it may write into a
    non-contiguous array (SciPy's entries included: reading it loads SciPy)."""
    if name == "STRIDED_OUT_SAFE":
        import scipy.special  # noqa: F401

        return _safe_table()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def strided_out_safe(ufunc: Any, dtype: Any) -> bool:
    """Whether ``ufunc(..., out=v)`` is proven right for a non-contiguous ``v`` of ``dtype``."""
    kinds = _SAFE.get(ufunc)
    if kinds is None and not _with_scipy:
        kinds = _safe_table().get(ufunc)
    return kinds is not None and np.dtype(dtype).kind in kinds


def out_ok(ufunc: Any, out: np.ndarray) -> bool:
    """Whether ``ufunc`` may write into ``out``: it is contiguous, or the ufunc is safe there."""
    return bool(out.flags.forc) or strided_out_safe(ufunc, out.dtype)
