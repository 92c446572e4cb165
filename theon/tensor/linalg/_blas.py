"""NumPy's own BLAS, reached through ``ctypes``: ``trsm`` for large triangular solves.

NumPy has no triangular solve, and SciPy's runs on a second copy of OpenBLAS whose
thread pool busy-waits against NumPy's on few cores (see
:func:`theon.tensor.linalg.solvers.tri_solve`).  NumPy's wheels ship OpenBLAS with
its CBLAS interface exported (``scipy_cblas_dtrsm64_`` in the ILP64 build); loading
that same file with ``ctypes`` gives the already loaded library, so the solve runs
on NumPy's own threads.  Where the library is not found (another BLAS, another
platform), :func:`trsm` returns None and the caller falls back to blocked
substitution on ``matmul``.

>>> import numpy as np
>>> t = np.array([[2.0, 0.0], [1.0, 1.0]])
>>> x = trsm(t, np.array([[2.0], [2.0]]), lower=True, trans=False, unit=False)
>>> x is None or x.ravel().tolist() == [1.0, 1.0]
True
"""

from __future__ import annotations

import ctypes
import functools
import glob
import os
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["trsm"]

# CBLAS enumerations
_ROW_MAJOR, _NO_TRANS, _TRANS, _UPPER, _LOWER = 101, 111, 112, 121, 122
_NON_UNIT, _UNIT, _LEFT = 131, 132, 141


@functools.cache
def _cblas_trsm(kind: str) -> tuple[Callable[..., Any], type] | None:
    """The CBLAS ``?trsm`` of NumPy's bundled OpenBLAS (``kind`` "s" or "d") and its
    integer type, or None when it cannot be found."""
    libdir = os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs")
    real = ctypes.c_float if kind == "s" else ctypes.c_double
    for path in sorted(glob.glob(os.path.join(libdir, "libscipy_openblas*"))):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name, int_t in ((f"scipy_cblas_{kind}trsm64_", ctypes.c_int64),
                            (f"scipy_cblas_{kind}trsm", ctypes.c_int)):
            fn = getattr(lib, name, None)
            if fn is None:
                continue
            fn.restype = None
            fn.argtypes = [ctypes.c_int] * 5 + [int_t, int_t, real, ctypes.c_void_p, int_t,
                                                ctypes.c_void_p, int_t]
            return fn, int_t
    return None


def trsm(t: np.ndarray, b: np.ndarray, lower: bool, trans: bool, unit: bool
         ) -> np.ndarray | None:
    """``op(T)^-1 b`` for the ``lower`` (or upper) triangle ``T`` of the square matrix
    ``t`` (unit diagonal if ``unit``; ``op`` the transpose if ``trans``) and a matrix
    ``b``, by NumPy's BLAS; None where that BLAS cannot be reached or the dtypes are
    not both float32 or both float64.  ``b`` is not modified."""
    if t.dtype != b.dtype or t.dtype.char not in "fd" or t.ndim != 2 or b.ndim != 2:
        return None
    found = _cblas_trsm("s" if t.dtype.char == "f" else "d")
    if found is None:
        return None
    fn, int_t = found
    if not t.flags.c_contiguous and t.flags.f_contiguous:
        # the transpose is C-ordered: solve with it (the other triangle, transposed)
        t, lower, trans = t.T, not lower, not trans
    a = np.ascontiguousarray(t)
    x = np.array(b, order="C", copy=True)
    n, m = x.shape
    if a.shape != (n, n):
        return None
    if n == 0 or m == 0:
        return x
    fn(_ROW_MAJOR, _LEFT, _LOWER if lower else _UPPER, _TRANS if trans else _NO_TRANS,
       _UNIT if unit else _NON_UNIT, int_t(n), int_t(m), 1.0, a.ctypes.data, int_t(max(n, 1)),
       x.ctypes.data, int_t(max(m, 1)))
    return x
