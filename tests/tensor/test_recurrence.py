"""LinearRecurrence (the division-free cumprod gradient) vs a plain NumPy loop; its gradients."""

from __future__ import annotations

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.gradient import verify_grad
from theon.tensor.recurrence import LinearRecurrence, shift_along, solve_recurrence

from .core_checks import check_infer_shape, run

rng = np.random.default_rng(11)


def _loop(a: np.ndarray, b: np.ndarray, axis: int, reverse: bool) -> np.ndarray:
    """The definition, one step at a time."""
    am, bm = np.moveaxis(a, axis, 0), np.moveaxis(b, axis, 0)
    s = np.zeros_like(bm)
    n = bm.shape[0]
    if reverse:
        for i in range(n - 1, -1, -1):
            s[i] = bm[i] + (am[i + 1] * s[i + 1] if i + 1 < n else 0)
    else:
        for i in range(n):
            s[i] = bm[i] + (am[i] * s[i - 1] if i > 0 else 0)
    return np.moveaxis(s, 0, axis)


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("shape, axis", [((1,), 0), ((7,), 0), ((33,), 0), ((4, 6), 0),
                                         ((4, 6), 1), ((3, 5, 9), 2), ((0, 3), 0)])
def test_matches_the_loop(shape, axis, reverse) -> None:
    a = rng.uniform(-1.5, 1.5, size=shape)
    a[rng.random(shape) < 0.2] = 0.0
    b = rng.normal(size=shape)
    got = solve_recurrence(a, b, axis, reverse)
    np.testing.assert_allclose(got, _loop(a, b, axis, reverse), rtol=1e-12, atol=1e-14)
    av, bv = tt.tensor("float64", shape=(None,) * len(shape)), tt.tensor(
        "float64", shape=(None,) * len(shape)
    )
    out = LinearRecurrence(axis, reverse)(av, bv)
    np.testing.assert_allclose(run([av, bv], out, a, b), _loop(a, b, axis, reverse),
                               rtol=1e-12, atol=1e-14)
    check_infer_shape(out, [av, bv], [a, b])


def test_a_zero_cuts_an_overflowing_chain() -> None:
    """``0 * inf`` is 0 across an exact zero coefficient, as in the sequential definition
    with the overflowed product never formed."""
    a = np.array([1e300, 1e300, 1e300, 0.0, 2.0])
    b = np.array([1.0, 0.0, 0.0, 0.0, 1.0])
    got = solve_recurrence(a, b, 0, False)
    assert not np.isnan(got).any()
    np.testing.assert_array_equal(got[3:], [0.0, 1.0])


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1])
def test_grad(axis, reverse) -> None:
    a = rng.uniform(-1.5, 1.5, size=(4, 5))
    a[0, 1] = a[2, 3] = 0.0
    b = rng.normal(size=(4, 5))
    verify_grad(lambda u, v: LinearRecurrence(axis, reverse)(u, v), [a, b], rng=rng)


def test_second_order() -> None:
    a, b = rng.uniform(-1.5, 1.5, size=6), rng.normal(size=6)
    w = rng.normal(size=6)

    def g(u, v):
        return theon.grad((LinearRecurrence(0, True)(u, v) * w).sum(), u)

    verify_grad(g, [a, b], rng=rng)


def test_float32_and_errors() -> None:
    a, b = tt.fvector("a"), tt.fvector("b")
    out = LinearRecurrence(0)(a, b)
    assert out.dtype == "float32"
    got = run([a, b], out, np.array([0, 2, 2], "float32"), np.ones(3, "float32"))
    assert got.dtype == np.float32 and got.tolist() == [1.0, 3.0, 7.0]
    with pytest.raises(TypeError, match="float or complex"):
        LinearRecurrence(0)(tt.ivector("i"), tt.ivector("j"))
    with pytest.raises(TypeError, match="differ in dtype"):
        LinearRecurrence(0)(a, tt.dvector("d"))
    with pytest.raises(ValueError, match="axis 1 out of range"):
        LinearRecurrence(1)(a, b)


def test_shift_along() -> None:
    m = tt.dmatrix("m")
    mv = rng.normal(size=(3, 4))
    got = run([m], shift_along(m, 1, 7.0), mv)
    np.testing.assert_array_equal(got, np.concatenate([np.full((3, 1), 7.0), mv[:, :-1]], 1))
