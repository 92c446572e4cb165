"""The parameter derivatives of ``theon.scalar.specfun``: each expansion in its region.

References are independent of the expansions: quadrature of the integral that defines
the derivative (``gammainc``, ``betainc``, accurate in relative terms however small
the value), and Richardson-extrapolated finite differences of SciPy's ``hyp2f1``.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sps

from tests.scalar.special_cases import (
    betainc_da_by_quadrature,
    betainc_db_by_quadrature,
    fd,
    gammainc_da_by_quadrature,
    logu,
)
from theon.scalar import specfun


def _rel(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    return np.abs(got - want) / np.abs(want)


@pytest.mark.parametrize("region", ["series", "fraction"])
def test_gammainc_da_in_each_region(region: str) -> None:
    rng = np.random.default_rng(1 if region == "series" else 2)
    a = logu(rng, 1e-3, 1e4, 150)
    ratio = logu(rng, 1e-4, 1.0, 150) if region == "series" else logu(rng, 1.0, 50.0, 150)
    x = a * ratio if region == "series" else (a + 1) * ratio
    x = np.minimum(x, a + 0.999) if region == "series" else x
    got = specfun.gammainc_da(a, x)
    want = gammainc_da_by_quadrature(a, x)
    ok = want != 0  # (a value so small that the reference's scaling underflows)
    assert (np.abs(got[~ok]) < 1e-250).all()
    assert _rel(got[ok], want[ok]).max() < 1e-9


def test_gammainc_da_uses_each_expansion_only_in_its_region(monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    def refuse(*args: object) -> None:
        raise AssertionError("wrong expansion")

    monkeypatch.setattr(specfun, "_gamma_fraction", refuse)
    specfun.gammainc_da(np.array([2.0, 50.0]), np.array([2.9, 50.9]))  # x < a + 1: series
    monkeypatch.undo()
    monkeypatch.setattr(specfun, "_gamma_series", refuse)
    specfun.gammainc_da(np.array([2.0, 50.0]), np.array([3.0, 51.5]))  # x >= a + 1


@pytest.mark.parametrize("region", ["direct", "flipped"])
@pytest.mark.parametrize("wrt", ["a", "b"])
def test_betainc_derivatives_in_each_region(region: str, wrt: str) -> None:
    rng = np.random.default_rng(3 if region == "direct" else 4)
    a, b = logu(rng, 1e-2, 1e3, 120), logu(rng, 1e-2, 1e3, 120)
    split = (a + 1) / (a + b + 2)
    u = rng.uniform(0.01, 0.99, 120)
    x = split * u if region == "direct" else split + (1 - split) * u
    got = specfun.betainc_da(a, b, x) if wrt == "a" else specfun.betainc_db(a, b, x)
    ref = betainc_da_by_quadrature if wrt == "a" else betainc_db_by_quadrature
    want = ref(a, b, x)
    ok = want != 0
    assert (np.abs(got[~ok]) < 1e-300).all()
    assert _rel(got[ok], want[ok]).max() < 1e-9


@pytest.mark.parametrize("region", ["series", "pfaff", "gauss"])
def test_hyp2f1_derivatives_in_each_region(region: str) -> None:
    rng = np.random.default_rng({"series": 5, "pfaff": 6, "gauss": 7}[region])
    n = 40
    a, b = rng.uniform(-2.5, 2.5, n), rng.uniform(-2.5, 2.5, n)
    c = rng.uniform(0.5, 4.0, n)
    z = {"series": rng.uniform(0.01, 0.9, n), "pfaff": -logu(rng, 1e-2, 30.0, n),
         "gauss": np.ones(n)}[region]
    if region == "gauss":
        c = a + b + rng.uniform(0.5, 3.0, n)  # Gauss's sum needs c > a + b
        c = np.where(np.abs(c - np.round(c)) < 0.05, c + 0.2, c)
    got = specfun.hyp2f1_dabc(a, b, c, z)
    for k in range(3):
        for i in range(n):
            pt = [a[i], b[i], c[i], z[i]]

            def f(v: float, pt: list[float] = pt, k: int = k) -> float:
                q = list(pt)
                q[k] = v
                return float(sps.hyp2f1(*q))

            want = fd(f, pt[k], 1e-3)
            scale = max(abs(want), abs(float(sps.hyp2f1(*pt))), 1.0)
            assert abs(got[k][i] - want) <= 1e-7 * scale, (region, k, pt, got[k][i], want)


def test_a_terminating_series_still_has_derivatives() -> None:
    """At a = -2 the series of 2F1 ends after three terms, its derivative in a does not."""
    da, db, dc = specfun.hyp2f1_dabc(-2.0, 1.5, 2.5, 0.4)
    want = fd(lambda v: float(sps.hyp2f1(v, 1.5, 2.5, 0.4)), -2.0, 1e-3)
    assert abs(da - want) < 1e-9 and da != 0


def test_unconverged_expansions_give_nan(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past MAX_TERMS terms the value is nan, never a partial sum; arguments estimated to
    need more are nan without summing; the other elements of the call keep their values."""
    monkeypatch.setattr(specfun, "MAX_TERMS", 30)
    one = np.array([1.0])
    for expansion, args in [(specfun._gamma_series, (1000 * one, 990 * one)),
                            (specfun._gamma_fraction, (1000 * one, 1001 * one))]:
        assert np.isnan(expansion(*args)[0]).all()
    assert np.isnan(specfun._beta_fraction(1e4 * one, 1e4 * one, 0.4999 * one)[0]).all()
    assert np.isnan(specfun._hyp_series(one, one, 2 * one, 0.99 * one)[0]).all()
    got = specfun.gammainc_da(np.array([1000.0, 2.0]), np.array([990.0, 0.5]))
    assert np.isnan(got[0]) and np.isfinite(got[1])
    assert all(np.isnan(specfun.betainc_dab(1e6, 1e6, 0.4999)))
    assert all(np.isnan(specfun.hyp2f1_dabc(1.0, 1.0, 2.0, 0.99)))
    monkeypatch.undo()
    # the default bound: a parameter of 1e10 next to x is out of reach
    assert np.isnan(specfun.gammainc_da(1e10, 1e10))
    assert np.isfinite(specfun.gammainc_da(1e10, 1.0))


def test_outside_the_domain_is_nan_and_the_edges_are_zero() -> None:
    assert np.isnan(specfun.gammainc_da([0.0, -1.0, 1.0, np.nan], [1.0, 1.0, -1.0, 1.0])).all()
    assert (specfun.gammainc_da([1.0, 1.0, np.inf], [0.0, np.inf, 3.0]) == 0).all()
    da, db = specfun.betainc_dab([0.0, 1.0, 1.0, 1.0, 1.0], [1.0, -1.0, 1.0, 1.0, 1.0],
                                 [0.5, 0.5, 1.5, 0.0, 1.0])
    assert np.isnan(da[:3]).all() and np.isnan(db[:3]).all()
    assert (da[3:] == 0).all() and (db[3:] == 0).all()
    out = specfun.hyp2f1_dabc([1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [-2.0, 2.0, 2.0],
                              [0.5, 1.5, 0.0])
    assert np.isnan(out[0][:2]).all() and out[0][2] == 0


def test_float_impl_computes_in_a_precision_scipy_supports() -> None:
    class Op:
        ufunc = staticmethod(sps.gammainc)

    half = specfun.float_impl(Op(), np.float16([2.0]), np.int8([1]))
    assert half.dtype == np.float16 and half[0] == np.float16(sps.gammainc(np.float32(2), 1))
    assert specfun.float_impl(Op(), np.int64(2), np.float32(1.0)).dtype == np.float64
