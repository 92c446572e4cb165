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
from theon.tensor.linalg.solvers import tri_solve


@pytest.mark.parametrize("n", [1, 7, solvers._TRI_BLOCK - 1, solvers._TRI_BLOCK,
                               solvers._TRI_BLOCK + 1, 3 * solvers._TRI_BLOCK + 5])
def test_equals_scipy(n: int) -> None:
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


def test_a_zero_on_the_diagonal_is_singular() -> None:
    a = np.tril(np.ones((5, 5)))
    a[3, 3] = 0.0
    with pytest.raises(np.linalg.LinAlgError, match="diagonal 3"):
        tri_solve(a, np.ones(5), True, 0, False, 1)
    # a unit diagonal does not read it
    np.testing.assert_allclose(tri_solve(a, np.ones(5), True, 0, True, 1),
                               scipy.linalg.solve_triangular(a, np.ones(5), lower=True,
                                                             unit_diagonal=True))
