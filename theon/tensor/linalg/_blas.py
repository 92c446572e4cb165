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


#: solves of more rows than this are split in two halves and one matrix product
_SPLIT = 64
#: ... when the right-hand side has at least this many columns (a product pays off)
_SPLIT_COLS = 16


def _lead(x: np.ndarray) -> tuple[bool, int] | None:
    """``(row_major, leading dimension)`` in elements of a 2-D array whose rows (or
    columns) are contiguous; None for other layouts."""
    item = x.itemsize
    s0, s1 = x.strides
    rows, cols = x.shape
    if (cols <= 1 or s1 == item) and s0 % item == 0 and s0 >= item * max(cols, 1):
        return True, s0 // item
    if (rows <= 1 or s0 == item) and s1 % item == 0 and s1 >= item * max(rows, 1):
        return False, s1 // item
    return None


def _solve_in_place(fn: Callable[..., Any], int_t: type, t: np.ndarray, x: np.ndarray,
                    lower: bool, unit: bool) -> None:
    """``x := T^-1 x`` for the ``lower`` (or upper) triangle ``T`` of ``t`` (rows or
    columns contiguous) and ``x`` (rows contiguous).

    Past :data:`_SPLIT` rows the solve is split (``T = [[A, 0], [C, D]]``:
    ``x1 := A^-1 x1``, ``x2 := D^-1 (x2 - C x1)``, and upper the other way round),
    so most of the work is a large matrix product, which BLAS runs two to three
    times faster per operation than its triangular solve (a 500 x 500 solve with
    500 right-hand sides: 3.2 ms instead of 4.2 on one core).  The depth is
    ``log2(n / 64)``."""
    n, m = x.shape
    if n > _SPLIT and m >= _SPLIT_COLS:
        k = n // 2
        if lower:
            _solve_in_place(fn, int_t, t[:k, :k], x[:k], lower, unit)
            x[k:] -= t[k:, :k] @ x[:k]
            _solve_in_place(fn, int_t, t[k:, k:], x[k:], lower, unit)
        else:
            _solve_in_place(fn, int_t, t[k:, k:], x[k:], lower, unit)
            x[:k] -= t[:k, k:] @ x[k:]
            _solve_in_place(fn, int_t, t[:k, :k], x[:k], lower, unit)
        return
    lt, lx = _lead(t), _lead(x)
    if lt is None:
        t = np.ascontiguousarray(t)
        lt = (True, max(n, 1))
    trans = False
    if not lt[0]:  # a column-major T is the row-major transpose: the other triangle
        lower, trans = not lower, True
    assert lx is not None and lx[0], "the right-hand side has contiguous rows"
    fn(_ROW_MAJOR, _LEFT, _LOWER if lower else _UPPER, _TRANS if trans else _NO_TRANS,
       _UNIT if unit else _NON_UNIT, int_t(n), int_t(m), 1.0, t.ctypes.data,
       int_t(max(lt[1], 1)), x.ctypes.data, int_t(max(lx[1], 1)))


def trsm(t: np.ndarray, b: np.ndarray, lower: bool, trans: bool, unit: bool,
         overwrite_b: bool = False) -> np.ndarray | None:
    """``op(T)^-1 b`` for the ``lower`` (or upper) triangle ``T`` of the square matrix
    ``t`` (unit diagonal if ``unit``; ``op`` the transpose if ``trans``) and a matrix
    ``b``, by NumPy's BLAS; None where that BLAS cannot be reached or the dtypes are
    not both float32 or both float64.  ``b`` is not modified unless ``overwrite_b``
    (then the result is ``b`` itself when its rows are contiguous)."""
    if t.dtype != b.dtype or t.dtype.char not in "fd" or t.ndim != 2 or b.ndim != 2:
        return None
    found = _cblas_trsm("s" if t.dtype.char == "f" else "d")
    if found is None:
        return None
    fn, int_t = found
    n, m = b.shape
    if t.shape != (n, n):
        return None
    if trans:  # op(T) = T^T: the transposed view is the other triangle
        t, lower = t.T, not lower
    lx = _lead(b)
    x = b if overwrite_b and lx is not None and lx[0] else np.array(b, order="C", copy=True)
    if n == 0 or m == 0:
        return x
    _solve_in_place(fn, int_t, t, x, lower, unit)
    return x
