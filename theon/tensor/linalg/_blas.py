"""NumPy's own BLAS, reached through ``ctypes``: ``trsm`` for large triangular solves,
``trmm`` for products with a triangular matrix, ``gemm`` for products added into a
view of a larger matrix, and LAPACK's ``potrf`` for Cholesky factorizations in place.

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
import os
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["gemm_update", "potrf", "trmm", "trsm"]

# CBLAS enumerations
_ROW_MAJOR, _NO_TRANS, _TRANS, _UPPER, _LOWER = 101, 111, 112, 121, 122
_NON_UNIT, _UNIT, _LEFT, _RIGHT = 131, 132, 141, 142
_COL_MAJOR = 102  # (LAPACKE)


@functools.cache
def _openblas() -> list[ctypes.CDLL]:
    """NumPy's bundled OpenBLAS, loaded (the library NumPy already has loaded); empty
    when NumPy ships none (another BLAS, another platform)."""
    libdir = os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs")
    try:
        names = sorted(n for n in os.listdir(libdir) if n.startswith("libscipy_openblas"))
    except OSError:
        return []
    libs = []
    for name in names:
        try:
            libs.append(ctypes.CDLL(os.path.join(libdir, name)))
        except OSError:
            continue
    return libs


def _symbol(names: tuple[tuple[str, type], ...]) -> tuple[Any, type] | None:
    """The first of ``(name, integer type)`` exported by NumPy's OpenBLAS."""
    for lib in _openblas():
        for name, int_t in names:
            fn = getattr(lib, name, None)
            if fn is not None:
                return fn, int_t
    return None


def _level3(real: type, int_t: type) -> list[type]:
    """The arguments of CBLAS ``?trsm`` and ``?trmm``: order, side, uplo, trans, diag,
    m, n, alpha, A, lda, B, ldb."""
    return [ctypes.c_int] * 5 + [int_t, int_t, real, ctypes.c_void_p, int_t,
                                 ctypes.c_void_p, int_t]


def _gemm(real: type, int_t: type) -> list[type]:
    """The arguments of CBLAS ``?gemm``: order, transa, transb, m, n, k, alpha, A, lda,
    B, ldb, beta, C, ldc."""
    return [ctypes.c_int] * 3 + [int_t] * 3 + [real, ctypes.c_void_p, int_t, ctypes.c_void_p,
                                              int_t, real, ctypes.c_void_p, int_t]


#: routine (``?`` the kind, "s" or "d") -> (returns an int?, its argument types)
_ROUTINES: dict[str, tuple[bool, Callable[[type, type], list[type]]]] = {
    "cblas_?trsm": (False, _level3),
    "cblas_?trmm": (False, _level3),
    "cblas_?gemm": (False, _gemm),
    "LAPACKE_?potrf_work": (True, lambda real, int_t: [ctypes.c_int, ctypes.c_char, int_t,
                                                       ctypes.c_void_p, int_t]),
}


@functools.cache
def _routine(name: str, kind: str) -> tuple[Callable[..., Any], type] | None:
    """A routine of :data:`_ROUTINES` in NumPy's bundled OpenBLAS (``kind`` "s" or "d"),
    typed, and its integer type (the ILP64 build's ``..64_`` symbols first); None when
    it cannot be found."""
    sym = "scipy_" + name.replace("?", kind)
    found = _symbol(((f"{sym}64_", ctypes.c_int64), (sym, ctypes.c_int)))
    if found is None:
        return None
    fn, int_t = found
    returns_int, argtypes = _ROUTINES[name]
    fn.restype = int_t if returns_int else None
    fn.argtypes = argtypes(ctypes.c_float if kind == "s" else ctypes.c_double, int_t)
    return fn, int_t


def potrf(a: np.ndarray, lower: bool, overwrite_a: bool = False) -> np.ndarray | None:
    """The Cholesky factorization of the square float32 or float64 matrix ``a`` (the
    ``lower`` triangle read, or the upper one), by LAPACK's ``potrf`` in NumPy's own
    OpenBLAS (the routine ``numpy.linalg.cholesky`` calls, without its two copies).
    The result holds the factor in that triangle; the other one is left as it was
    (the caller zeroes it).  ``a`` itself is the result with ``overwrite_a`` when it is
    contiguous and writeable.  None where that LAPACK cannot be reached or ``a`` is of
    another kind; ``LinAlgError`` when the matrix is not positive definite.

    >>> import numpy as np
    >>> x = potrf(np.array([[4.0, 9.0], [2.0, 2.0]]), lower=True)
    >>> x is None or np.tril(x).tolist() == [[2.0, 0.0], [1.0, 1.0]]
    True
    """
    if a.ndim != 2 or a.dtype.char not in "fd" or a.shape[0] != a.shape[1]:
        return None
    found = _routine("LAPACKE_?potrf_work", "s" if a.dtype.char == "f" else "d")
    if found is None:
        return None
    fn, int_t = found
    contiguous = a.flags.c_contiguous or a.flags.f_contiguous
    x = a if overwrite_a and contiguous and a.flags.writeable else np.array(a, order="K")
    if not (x.flags.c_contiguous or x.flags.f_contiguous):
        x = np.ascontiguousarray(x)
    n = x.shape[0]
    if n == 0:
        return x
    # LAPACK is column-major: a row-major array is its transpose, the other triangle
    uplo = b"L" if lower == (x.flags.f_contiguous and not x.flags.c_contiguous) else b"U"
    info = fn(_COL_MAJOR, uplo, int_t(n), x.ctypes.data, int_t(n))
    if info > 0:
        raise np.linalg.LinAlgError("Matrix is not positive definite")
    if info < 0:  # (an argument LAPACK refused: not reached with the checks above)
        return None
    return x


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


def _call(fn: Callable[..., Any], int_t: type, side: int, t: np.ndarray, y: np.ndarray,
          lower: bool, trans: bool, unit: bool) -> None:
    """``fn`` (``trsm`` or ``trmm``) on the row-major ``y`` with ``op(T)`` on ``side``:
    ``T`` the ``lower`` (or upper) triangle of ``t``, ``op`` the transpose if ``trans``.
    A column-major ``t`` is passed as the row-major transpose (the other triangle);
    another layout is copied."""
    rows, cols = y.shape
    lt, ly = _lead(t), _lead(y)
    if lt is None:
        t = np.ascontiguousarray(t)
        lt = (True, max(t.shape[0], 1))
    if not lt[0]:
        lower, trans = not lower, not trans
    assert ly is not None and ly[0], "the rows of y are contiguous"
    fn(_ROW_MAJOR, side, _LOWER if lower else _UPPER, _TRANS if trans else _NO_TRANS,
       _UNIT if unit else _NON_UNIT, int_t(rows), int_t(cols), 1.0, t.ctypes.data,
       int_t(max(lt[1], 1)), y.ctypes.data, int_t(max(ly[1], 1)))


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
    _call(fn, int_t, _LEFT, t, x, lower, False, unit)


def _solve_right_in_place(fn: Callable[..., Any], int_t: type, t: np.ndarray,
                          y: np.ndarray, lower: bool, unit: bool) -> None:
    """``y := y T^-T`` (so ``y^T := T^-1 y^T``) for the ``lower`` (or upper) triangle
    ``T`` of ``t`` and ``y`` (rows contiguous): the solve of a right-hand side whose
    columns are contiguous, in its own buffer, as one right-side ``trsm`` (not split
    as :func:`_solve_in_place` is: measured with NumPy's two threads, a 500 x 500
    solve took 2.3 ms whole and 2.5 ms split at 64)."""
    _call(fn, int_t, _RIGHT, t, y, lower, True, unit)  # X T^T = Y


def _operands(name: str, t: np.ndarray, b: np.ndarray, overwrite_b: bool
              ) -> tuple[Callable[..., Any], type, tuple[bool, int] | None] | None:
    """For ``trsm``/``trmm`` of the square ``t`` and the matrix ``b``: the routine, its
    integer type and ``b``'s layout (:func:`_lead`) when ``b`` may be written in place
    (else None); None where the routine cannot be reached, the dtypes are not both
    float32 or both float64, or the shapes do not match."""
    if t.dtype != b.dtype or t.dtype.char not in "fd" or t.ndim != 2 or b.ndim != 2:
        return None
    found = _routine(name, "s" if t.dtype.char == "f" else "d")
    if found is None or t.shape != (b.shape[0], b.shape[0]):
        return None
    lx = _lead(b) if overwrite_b and b.flags.writeable else None
    return found[0], found[1], lx


def trsm(t: np.ndarray, b: np.ndarray, lower: bool, trans: bool, unit: bool,
         overwrite_b: bool = False) -> np.ndarray | None:
    """``op(T)^-1 b`` for the ``lower`` (or upper) triangle ``T`` of the square matrix
    ``t`` (unit diagonal if ``unit``; ``op`` the transpose if ``trans``) and a matrix
    ``b``, by NumPy's BLAS; None where that BLAS cannot be reached or the dtypes are
    not both float32 or both float64.  ``b`` is not modified unless ``overwrite_b``
    (then the result is ``b`` itself when its rows or its columns are contiguous and
    it is writeable)."""
    got = _operands("cblas_?trsm", t, b, overwrite_b)
    if got is None:
        return None
    fn, int_t, lx = got
    n, m = b.shape
    if trans:  # op(T) = T^T: the transposed view is the other triangle
        t, lower = t.T, not lower
    if lx is not None and not lx[0] and n and m:  # columns contiguous: x^T := b^T T^-T
        _solve_right_in_place(fn, int_t, t, b.T, lower, unit)
        return b
    x = b if lx is not None else np.array(b, order="C", copy=True)
    if n == 0 or m == 0:
        return x
    _solve_in_place(fn, int_t, t, x, lower, unit)
    return x


def trmm(t: np.ndarray, b: np.ndarray, lower: bool, overwrite_b: bool = False
         ) -> np.ndarray | None:
    """``T @ b`` for the ``lower`` (or upper) triangle ``T`` of the square matrix ``t``,
    by NumPy's BLAS ``trmm`` (half the multiply-adds of a general product); None where
    that BLAS cannot be reached or the dtypes are not both float32 or both float64.
    ``b`` is not modified unless ``overwrite_b`` (then the result is ``b`` itself when
    its rows or its columns are contiguous and it is writeable).

    >>> import numpy as np
    >>> x = trmm(np.array([[2.0, 9.0], [1.0, 1.0]]), np.array([[1.0], [1.0]]), lower=True)
    >>> x is None or x.ravel().tolist() == [2.0, 2.0]
    True
    """
    got = _operands("cblas_?trmm", t, b, overwrite_b)
    if got is None:
        return None
    fn, int_t, lx = got
    n, m = b.shape
    x = b if lx is not None else np.array(b, order="C", copy=True)
    if n == 0 or m == 0:
        return x
    lead = _lead(x)
    assert lead is not None  # (b's layout was checked, or x is a C-ordered copy)
    if lead[0]:  # x := T x
        _call(fn, int_t, _LEFT, t, x, lower, False, False)
    else:  # columns contiguous: x^T := x^T T^T, on the right of the row-major x^T
        _call(fn, int_t, _RIGHT, t, x.T, lower, True, False)
    return x


def gemm_update(a: np.ndarray, b: np.ndarray, c: np.ndarray, alpha: float,
                beta: float = 1.0) -> bool:
    """``c := alpha a b + beta c`` in ``c``'s own memory (a view into a larger matrix
    too), by NumPy's BLAS ``gemm``: no temporary for the product and no second pass to
    add it.  ``a``, ``b`` and ``c`` are matrices of one dtype, float32 or float64, each
    with its rows or its columns contiguous.  False
    (``c`` untouched) where that BLAS cannot be reached or the operands do not qualify:
    the caller computes it otherwise.

    >>> import numpy as np
    >>> c = np.ones((2, 2))
    >>> ok = gemm_update(np.eye(2), np.full((2, 2), 3.0), c, -1.0)
    >>> not ok or c.tolist() == [[-2.0, -2.0], [-2.0, -2.0]]
    True
    """
    if (a.ndim != 2 or b.ndim != 2 or c.ndim != 2 or not a.dtype == b.dtype == c.dtype
            or a.dtype.char not in "fd" or not c.flags.writeable):
        return False
    m, k = a.shape
    n = b.shape[1]
    if b.shape[0] != k or c.shape != (m, n):
        return False
    if not (m and n and k):  # nothing to multiply (empty operands may have any strides)
        if beta != 1.0:
            c *= c.dtype.type(beta)
        return True
    lc = _lead(c)
    if lc is not None and not lc[0]:  # columns contiguous: c^T := alpha b^T a^T + beta c^T
        a, b, c = b.T, a.T, c.T
        m, n = n, m
        lc = _lead(c)
    la, lb = _lead(a), _lead(b)
    if la is None or lb is None or lc is None:
        return False
    found = _routine("cblas_?gemm", "s" if a.dtype.char == "f" else "d")
    if found is None:
        return False
    fn, int_t = found
    fn(_ROW_MAJOR, _NO_TRANS if la[0] else _TRANS, _NO_TRANS if lb[0] else _TRANS,
       int_t(m), int_t(n), int_t(k), alpha, a.ctypes.data, int_t(max(la[1], 1)),
       b.ctypes.data, int_t(max(lb[1], 1)), beta, c.ctypes.data, int_t(max(lc[1], 1)))
    return True
