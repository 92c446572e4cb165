"""The blocked NumPy triangular solve behind SolveTriangular, against SciPy, across the
block boundaries (sizes around the block length), batched, and its singular error."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.linalg

import theon
import theon.tensor as tt
from theon.tensor import linalg
from theon.tensor.linalg import solvers
from theon.tensor.linalg._blas import trsm
from theon.tensor.linalg.solvers import tri_solve


@pytest.fixture(params=["trsm", "blocked"])
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both ways ``tri_solve`` computes a single matrix: NumPy's BLAS ``trsm`` (where it
    is reachable) and the blocked substitution (forced by hiding ``trsm``)."""
    if request.param == "blocked":
        monkeypatch.setattr(solvers, "trsm", lambda *args: None)
    elif trsm(np.eye(2), np.eye(2), True, False, False) is None:
        pytest.skip("NumPy's BLAS is not the OpenBLAS it ships: no trsm to reach")
    return str(request.param)


@pytest.mark.parametrize("n", [1, 7, solvers._TRI_BLOCK - 1, solvers._TRI_BLOCK,
                               solvers._TRI_BLOCK + 1, 3 * solvers._TRI_BLOCK + 5])
def test_equals_scipy(n: int, path: str) -> None:
    rng = np.random.default_rng(n)
    a = rng.normal(size=(n, n)) / n + np.eye(n)
    for lower, trans, unit, b_ndim in itertools.product((True, False), (0, 1), (False, True),
                                                        (1, 2)):
        b = rng.normal(size=(n,) if b_ndim == 1 else (n, 3))
        want = scipy.linalg.solve_triangular(a, b, lower=lower, trans=trans,
                                             unit_diagonal=unit)
        got = tri_solve(a, b, lower, trans, unit, b_ndim)
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_batched_and_float32() -> None:
    rng = np.random.default_rng(1)
    n = solvers._TRI_BLOCK + 9
    a = (rng.normal(size=(3, n, n)) / n + np.eye(n)).astype(np.float32)
    b = rng.normal(size=(3, n)).astype(np.float32)
    A, B = tt.tensor3("A", dtype="float32"), tt.matrix("B", dtype="float32")
    x = linalg.solve_triangular(A, B, lower=True, trans=1, b_ndim=1)
    got = theon.function([A, B], x)(a, b)
    assert got.dtype == np.float32
    want = np.stack([scipy.linalg.solve_triangular(a[k], b[k], lower=True, trans=1)
                     for k in range(3)])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_a_zero_on_the_diagonal_is_singular(path: str) -> None:
    a = np.tril(np.ones((5, 5)))
    a[3, 3] = 0.0
    with pytest.raises(np.linalg.LinAlgError, match="diagonal 3"):
        tri_solve(a, np.ones(5), True, 0, False, 1)
    # a unit diagonal does not read it
    np.testing.assert_allclose(tri_solve(a, np.ones(5), True, 0, True, 1),
                               scipy.linalg.solve_triangular(a, np.ones(5), lower=True,
                                                             unit_diagonal=True))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_trsm_does_not_touch_its_inputs(dtype: str, path: str) -> None:
    rng = np.random.default_rng(3)
    a = (rng.normal(size=(9, 9)) + 9 * np.eye(9)).astype(dtype)
    b = rng.normal(size=(9, 4)).astype(dtype)
    a0, b0 = a.copy(), b.copy()
    x = tri_solve(a, b, True, 1, False, 2)
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(b, b0)
    assert x.dtype == np.dtype(dtype)
    want = scipy.linalg.solve_triangular(a0.astype("float64"), b0.astype("float64"),
                                         lower=True, trans=1)
    np.testing.assert_allclose(x, want, rtol=1e-4 if dtype == "float32" else 1e-12)


def test_trsm_mixed_and_strided_inputs(path: str) -> None:
    """A transposed (Fortran-ordered) matrix, a float32 right-hand side, an empty one."""
    rng = np.random.default_rng(4)
    a = rng.normal(size=(70, 70)) / 70 + np.eye(70)
    b = rng.normal(size=(70, 2)).astype("float32")
    got = tri_solve(a.T, b, False, 0, False, 2)
    want = scipy.linalg.solve_triangular(a.T, b.astype("float64"), lower=False)
    np.testing.assert_allclose(got, want, rtol=1e-10)
    assert tri_solve(a, np.zeros((70, 0)), True, 0, False, 2).shape == (70, 0)


def _layouts(a: np.ndarray) -> dict[str, np.ndarray]:
    """``a`` row-major, column-major, and as a strided block of a larger array."""
    big = np.zeros((a.shape[0] + 3, a.shape[1] + 5), dtype=a.dtype)
    big[2:2 + a.shape[0], 1:1 + a.shape[1]] = a
    return {"C": np.ascontiguousarray(a), "F": np.asfortranarray(a),
            "view": big[2:2 + a.shape[0], 1:1 + a.shape[1]]}


@pytest.mark.parametrize("n,m", [(63, 20), (65, 16), (130, 40), (257, 17), (300, 3)])
def test_trsm_split_solves_equal_scipy(n: int, m: int) -> None:
    """Past 64 rows (and 16 columns) trsm solves two halves and one product; every
    triangle, transpose, unit diagonal and memory layout equals SciPy's solve."""
    if trsm(np.eye(2), np.eye(2), True, False, False) is None:
        pytest.skip("NumPy's BLAS is not the OpenBLAS it ships: no trsm to reach")
    rng = np.random.default_rng(n * 1000 + m)
    a = rng.normal(size=(n, n)) / np.sqrt(n) + 2 * np.eye(n)
    b = rng.normal(size=(n, m))
    for lower, trans, unit in itertools.product((True, False), (False, True), (False, True)):
        want = scipy.linalg.solve_triangular(a, b, lower=lower, trans=int(trans),
                                             unit_diagonal=unit)
        for tname, t in _layouts(a).items():
            for bname, bb in _layouts(b).items():
                before = bb.copy()
                got = trsm(t, bb, lower, trans, unit)
                np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12,
                                           err_msg=f"{lower=} {trans=} {unit=} {tname} {bname}")
                np.testing.assert_array_equal(bb, before)  # b is not modified
    got32 = trsm(a.astype(np.float32), b.astype(np.float32), True, True, False)
    assert got32 is not None and got32.dtype == np.float32
    np.testing.assert_allclose(got32, scipy.linalg.solve_triangular(a, b, lower=True, trans=1),
                               rtol=1e-3, atol=1e-4)


def test_trsm_overwrite_b_solves_in_its_buffer() -> None:
    if trsm(np.eye(2), np.eye(2), True, False, False) is None:
        pytest.skip("NumPy's BLAS is not the OpenBLAS it ships: no trsm to reach")
    rng = np.random.default_rng(3)
    a = rng.normal(size=(150, 150)) / 12 + 2 * np.eye(150)
    b = rng.normal(size=(150, 30))
    want = scipy.linalg.solve_triangular(a, b, lower=True)
    buf = b.copy()
    assert trsm(a, buf, True, False, False, overwrite_b=True) is buf
    np.testing.assert_allclose(buf, want, rtol=1e-10)
    strided = np.zeros((150, 60))[:, ::2]  # neither rows nor columns contiguous: a copy
    strided[...] = b
    got = trsm(a, strided, True, False, False, overwrite_b=True)
    assert got is not strided
    np.testing.assert_allclose(got, want, rtol=1e-10)
    np.testing.assert_array_equal(strided, b)


@pytest.mark.parametrize("n, m", [(5, 3), (150, 30), (300, 200), (64, 64), (65, 16)])
def test_trsm_overwrite_b_with_contiguous_columns_solves_on_the_right(n: int, m: int) -> None:
    """A right-hand side with contiguous columns (a transposed view) is solved in its own
    buffer as ``x^T := b^T T^-T``, a right-side solve; every triangle, transpose, unit
    diagonal and layout of ``T`` equals SciPy's."""
    if trsm(np.eye(2), np.eye(2), True, False, False) is None:
        pytest.skip("NumPy's BLAS is not the OpenBLAS it ships: no trsm to reach")
    rng = np.random.default_rng(4)
    a = rng.normal(size=(n, n)) / n + 2 * np.eye(n)
    b = rng.normal(size=(n, m))
    for lower in (True, False):
        for trans in (False, True):
            for unit in (False, True):
                for t in (a, np.asfortranarray(a)):
                    want = scipy.linalg.solve_triangular(a, b, lower=lower, trans=int(trans),
                                                         unit_diagonal=unit)
                    fb = np.asfortranarray(b)
                    assert trsm(t, fb, lower, trans, unit, overwrite_b=True) is fb
                    np.testing.assert_allclose(fb, want, rtol=1e-9, atol=1e-12)
    ro = np.asfortranarray(b)
    ro.flags.writeable = False  # a read-only buffer is never written
    got = trsm(a, ro, True, False, False, overwrite_b=True)
    assert got is not ro
    np.testing.assert_array_equal(ro, b)
