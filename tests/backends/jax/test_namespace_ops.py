"""mode="JAX" for the functions of issue 35 (theon.tensor's NumPy namespace): the rules
of the new Ops (SearchSorted, RavelMultiIndex, UnravelIndex, Complex, RFFTOp, IRFFTOp,
the solvers' host callback) and the compositions, against the reference VM; and the
Ops whose result length depends on values (Unique, Bincount) raise DynamicShapeError
unless their input is a constant."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")

import theon
import theon.tensor as tt
from tests.backends.jax.helpers import assert_close, run_both
from theon.link.jax.dispatch import DynamicShapeError

rng = np.random.default_rng(360)


def _compare(ins, outs, vals, where):
    got, want = run_both(ins, outs, vals)
    assert_close(got, want, where)


def test_searching_ops():
    a, v = tt.dvector("a"), tt.dmatrix("v")
    av = np.sort(rng.normal(size=6))
    vv = rng.normal(size=(2, 3))
    s = tt.lvector("s")
    perm = rng.permutation(6)
    _compare([a, v, s], [tt.searchsorted(a, v), tt.searchsorted(a, v, "right"),
                         tt.searchsorted(a, v, sorter=s)],
             [av, vv, np.argsort(perm)], "searchsorted")
    i, j = tt.lvector("i"), tt.lvector("j")
    _compare([i, j], [tt.ravel_multi_index((i, j), (3, 4)),
                      tt.ravel_multi_index((i, j), (3, 4), mode="wrap", order="F"),
                      *tt.unravel_index(i, (3, 4)), *tt.unravel_index(i, (4, 3), order="F")],
             [np.array([0, 2, 1]), np.array([3, 1, 2])], "multi-index")


def test_value_length_ops():
    x = tt.lvector("x")
    f = theon.function([x], tt.bincount(x), mode="JAX")
    with pytest.raises(DynamicShapeError, match="bincount"):
        f(np.array([1, 2]))
    g = theon.function([x], tt.unique(x), mode="JAX")
    with pytest.raises(DynamicShapeError, match="unique"):
        g(np.array([1, 2]))
    w = tt.dvector("w")
    h = theon.function([w], [tt.bincount(np.array([0, 3, 3]), w),
                             tt.unique(np.array([3.0, 1.0, 3.0]))], mode="JAX")
    np.testing.assert_array_equal(h(np.array([1.0, 2.0, 3.0]))[0], [1.0, 0.0, 0.0, 5.0])


def test_complex_and_fft():
    r, i = tt.fvector("r"), tt.fmatrix("i")
    _compare([r, i], [tt.complex(r, i), tt.complex_from_polar(r, i), tt.angle(r)],
             [rng.normal(size=3).astype("float32"), rng.normal(size=(2, 3)).astype("float32")],
             "complex")
    x = tt.dtensor3("x")
    xv = rng.normal(size=(2, 3, 5))
    spec = tt.fft.rfft(x, "ortho")
    outs = [spec, tt.fft.irfft(spec, "ortho", is_odd=True),
            theon.grad((spec ** 2).sum(), x)]
    _compare([x], outs, [xv], "fft")


def test_compositions():
    m, v = tt.dmatrix("m"), tt.dvector("v")
    mv, vv = rng.normal(size=(4, 5)), np.sort(rng.normal(size=5))
    outs = [tt.tril(m, 1), tt.triu(m), tt.trace(m), tt.fill_diagonal(m, 2.0),
            tt.logaddexp(m, v), tt.round_half_away_from_zero(m * 2), tt.ptp(m, axis=0),
            tt.quantile(m, [0.25, 0.5], axis=1), tt.percentile(v, 30, method="nearest"),
            tt.nanmean(m, axis=0), tt.nansum(m), tt.cov(m), tt.kron(v, v),
            tt.pad(m, ((1, 2), (0, 3)), mode="reflect"), tt.pad(m, 2, mode="linear_ramp"),
            tt.interp(v * 2, vv, vv ** 2), tt.batched_dot(m, m), *tt.broadcast_arrays(m, v),
            tt.logspace(0.0, 1.0, 4), tt.inverse_permutation(tt.argsort(v)),
            tt.permute_row_elements(m, tt.argsort(v)), tt.put_along_axis(m, np.zeros((1, 5),
                                                                         "int64"), 7.0, 0),
            tt.pack(m, v)[0], tt.join_dims(m), tt.matrix_transpose(m)]
    _compare([m, v], outs, [mv, vv], "compositions")


def test_solver_host_callback():
    x, c = tt.dvector("x"), tt.dvector("c")
    x_star, ok = tt.optimize.minimize(((x - c) ** 2).sum() + (x ** 4).sum(), x)
    grad_c = theon.grad(x_star.sum(), c)
    f = theon.function([x, c], [x_star, ok, grad_c], mode="JAX")
    g = theon.function([x, c], [x_star, ok, grad_c], mode="FAST_RUN")
    vals = (np.zeros(3), np.array([0.5, 1.0, -2.0]))
    for a, b in zip(f(*vals), g(*vals)):
        np.testing.assert_allclose(a, b, rtol=1e-6)
