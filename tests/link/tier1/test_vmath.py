"""The SIMD float64 sin, cos and log1p of the tier-1 XLA kernels (theon.link.tier1.vmath)
against long-double NumPy: ulp error over many scales, and the special values exactly as
NumPy gives them.  Skipped without jax."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from theon.link.tier1 import vmath

jax = pytest.importorskip("jax", reason="vmath builds jax functions (pip install theon[jax])")

#: Max ulp errors allowed (measured: sin/cos 1.6, log1p 2.4).
ULP = {"sin": 2.0, "cos": 2.0, "log1p": 3.0}


@pytest.fixture(scope="module")
def fns():
    with jax.enable_x64(True):
        yield {k: jax.jit(f) for k, f in vmath.functions().items()}


def run(fns, name, x):
    with jax.enable_x64(True):
        return np.asarray(fns[name](np.asarray(x, dtype=np.float64)))


def ulps(got: np.ndarray, x: np.ndarray, name: str) -> float:
    want = getattr(np, name)(x.astype(np.longdouble))
    scale = np.spacing(np.maximum(np.abs(want.astype(np.float64)), np.finfo(np.float64).tiny))
    return float(np.max(np.abs(got.astype(np.longdouble) - want) / scale))


def split(text: str) -> tuple[float, float, float]:
    """A constant as three doubles, the first two with their low 27 significand bits cleared."""

    def high(v: Decimal) -> float:
        bits = np.array([float(v)]).view(np.uint64) & ~np.uint64((1 << 27) - 1)
        return float(bits.view(np.float64)[0])

    with localcontext() as ctx:
        ctx.prec = 60
        v = Decimal(text)
        a = high(v)
        b = high(v - Decimal(a))
        return a, b, float(v - Decimal(a) - Decimal(b))


def test_the_split_constants():
    assert (vmath.P1, vmath.P2, vmath.P3) == split(
        "1.570796326794896619231321691639751442098584699687552910487")
    assert (vmath._L1, vmath._L2, vmath._L3) == split(
        "0.693147180559945309417232121458176568075500134360255254120680")
    for a in (vmath.P1, vmath.P2, vmath._L1, vmath._L2):  # q * a exact for |q| < 2**26
        assert np.array([a]).view(np.uint64)[0] & np.uint64((1 << 27) - 1) == 0


@pytest.mark.parametrize("name", ["sin", "cos"])
@pytest.mark.parametrize("scale", [1e-300, 1e-8, 1.0, 10.0, 1e3, 1e5, 1e6, 1e12])
def test_sin_cos_ulps(fns, name, scale):
    x = np.random.default_rng(3).normal(size=20_000) * scale
    assert ulps(run(fns, name, x), x, name) <= ULP[name]


@pytest.mark.parametrize("scale", [1e-300, 1e-12, 1e-6, 0.3, 1.0, 10.0, 1e5, 1e300])
def test_log1p_ulps(fns, scale):
    rng = np.random.default_rng(4)
    x = np.abs(rng.normal(size=20_000) * scale)
    x = np.maximum(np.where(rng.random(x.size) < 0.3, -x, x), -1 + 2**-52)
    assert ulps(run(fns, "log1p", x), x, "log1p") <= ULP["log1p"]


def test_near_the_multiples_of_half_pi(fns):
    k = np.arange(-2000, 2001, dtype=np.float64)
    x = np.concatenate([k * (math.pi / 2), np.nextafter(k * (math.pi / 2), np.inf)])
    for name in ("sin", "cos"):
        got = run(fns, name, x)
        want = getattr(np, name)(x.astype(np.longdouble))
        # near a zero the absolute error is what the reduction promises
        assert np.max(np.abs(got - want)) < 1e-19 * np.max(np.abs(x)) + 4e-16


SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, -2.0, 5e-324, -5e-324, 1e-310, 1e308,
           -0.9999999999999999, 2.0**20, -(2.0**20), 2.0**20 + 1]


@pytest.mark.parametrize("name", ["sin", "cos", "log1p"])
def test_special_values_as_numpy(fns, name):
    x = np.array(SPECIAL)
    with np.errstate(all="ignore"):
        want = getattr(np, name)(x)
    got = run(fns, name, x)
    close = np.isclose(got, want, rtol=4e-16, atol=0, equal_nan=True)
    assert close.all(), (x[~close], got[~close], want[~close])
    zero = want == 0
    assert (np.signbit(got[zero]) == np.signbit(want[zero])).all()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), min_size=1,
                max_size=40))
def test_any_doubles(fns, values):
    x = np.array(values)
    for name in ("sin", "cos", "log1p"):
        with np.errstate(all="ignore"):
            want = getattr(np, name)(x)
        got = run(fns, name, x)
        np.testing.assert_allclose(got, want, rtol=1e-15, atol=1e-300, equal_nan=True,
                                   err_msg=name)
