"""Functions of theon.tensor.math built from several ops (isclose, allclose) vs NumPy."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import theon
import theon.tensor as tt

_SPECIAL = [0.0, -0.0, 1.0, 1.0 + 1e-9, 1.0 + 1e-4, -1.0, 1e-9, 1e300, -1e300, np.inf,
            -np.inf, np.nan]


def _pairs(dtype: str) -> tuple[np.ndarray, np.ndarray]:
    """Every pair of special values (as ``a`` and ``b``), in ``dtype``."""
    a, b = zip(*itertools.product(_SPECIAL, repeat=2))
    with np.errstate(over="ignore"):
        return np.array(a).astype(dtype), np.array(b).astype(dtype)


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
@pytest.mark.parametrize("equal_nan", [False, True])
@pytest.mark.parametrize("rtol, atol", [(1e-5, 1e-8), (0.0, 0.0), (1e-3, 0.5)])
def test_isclose_matches_numpy(dtype: str, equal_nan: bool, rtol: float, atol: float) -> None:
    """Infinities are close only to themselves (``isclose(-inf, inf)`` was True)."""
    av, bv = _pairs(dtype)
    if dtype.startswith("complex"):
        with np.errstate(invalid="ignore"):
            bv = bv + 1j * bv[::-1]
    a, b = tt.vector("a", dtype=dtype), tt.vector("b", dtype=dtype)
    f = theon.function([a, b], tt.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))
    with np.errstate(all="ignore"):
        want = np.isclose(av, bv, rtol=rtol, atol=atol, equal_nan=equal_nan)
    np.testing.assert_array_equal(f(av, bv), want)
    g = theon.function([a, b], tt.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))
    for k in range(0, len(av), 12):  # one value of ``a`` against all, then all together
        with np.errstate(all="ignore"):
            assert bool(g(av[k:k + 12], bv[k:k + 12])) == np.allclose(
                av[k:k + 12], bv[k:k + 12], rtol=rtol, atol=atol, equal_nan=equal_nan)


def test_isclose_issue_example_and_python_numbers() -> None:
    with np.errstate(invalid="ignore"):  # inf - inf, as in NumPy's own isclose
        assert not tt.isclose(-np.inf, np.inf).eval()
        assert tt.isclose(np.inf, np.inf).eval()
    v = tt.dvector("v")
    f = theon.function([v], [tt.isclose(v, np.inf), tt.isclose(v, 1), tt.isclose(1e300, v)])
    vv = np.array([np.inf, -np.inf, 1e308, 1.0, np.nan])
    for got, want in zip(f(vv), [np.isclose(vv, np.inf), np.isclose(vv, 1),
                                 np.isclose(1e300, vv)]):
        np.testing.assert_array_equal(got, want)


def test_isclose_of_integers_does_not_wrap() -> None:
    """``b`` is compared as a float (NumPy): ``int8(100) - int8(-100)`` does not wrap to -56."""
    a, b = tt.bvector("a"), tt.bvector("b")
    av, bv = np.array([100, 3, -128], "int8"), np.array([-100, 3, 127], "int8")
    got = theon.function([a, b], tt.isclose(a, b, atol=60))(av, bv)
    np.testing.assert_array_equal(got, np.isclose(av, bv, atol=60))
    assert not tt.allclose(a, b).eval({a: av, b: bv})
