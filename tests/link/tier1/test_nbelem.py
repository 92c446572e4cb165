"""Tier-1 numba kernels of small fused float64 nodes with tanh (theon.link.tier1.nbelem)
and the vectorizing tanh they use (theon.link.tier1.nbmath), against NumPy."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as T
from theon.compile.mode import Mode
from theon.link import tier1
from theon.link.pyfunc.kernel import KConst, KernelSpec, KStep
from theon.link.tier1.nbelem import input_kinds, kernel_source, supports

numba = pytest.importorskip("numba", reason="tier-1 small kernels need numba (theon[numba])")


@pytest.fixture(scope="module")
def vtanh_array():
    """``tanh`` of an array by :func:`nbmath.vtanh` in a numba loop."""
    from theon.link.tier1.nbmath import vtanh as plain

    vtanh = numba.njit(inline="always", error_model="numpy")(plain)

    @numba.njit(error_model="numpy")
    def run(x, out):
        for i in range(x.size):
            out[i] = vtanh(x[i])

    def call(x):
        out = np.empty_like(x)
        run(np.ascontiguousarray(x, dtype=np.float64), out)
        return out

    return call


def ulps(got, x):
    """Errors of ``got = tanh(x)`` in units in the last place of the long-double value."""
    want = np.tanh(x.astype(np.longdouble))
    spacing = np.spacing(np.abs(want).astype(np.float64))
    return np.abs((got.astype(np.longdouble) - want) / spacing).astype(np.float64)


def test_vtanh_is_within_two_and_a_half_ulp(vtanh_array):
    mags = np.logspace(-300, np.log10(30.0), 200_001)
    x = np.concatenate([mags, -mags, np.random.default_rng(0).normal(0, 3, 100_000)])
    assert ulps(vtanh_array(x), x).max() <= 2.5


def test_vtanh_special_values_are_numpys(vtanh_array):
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 19.0, 20.0, -20.5, 710.0, 1e308,
                  5e-324, -5e-324, 2.2250738585072014e-308])
    got, want = vtanh_array(x), np.tanh(x)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, allow_infinity=False))
def test_vtanh_differential(vtanh_array, v):
    x = np.array([v])
    assert ulps(vtanh_array(x), x)[0] <= 2.5


def _spec(*steps, n_in=2, outputs=None):
    steps = list(steps)
    return KernelSpec(n_in, steps, outputs or [n_in + len(steps) - 1], ["float64"])


def _step(fn, args, dtype="float64", **kw):
    """A step named as the scalar ops' rows name these ufuncs (``numpy.<name>``)."""
    return KStep(fn, args, dtype, name=fn.__name__, **kw)


def test_supports_only_float64_steps_it_reproduces_with_a_slow_one():
    tanh_add = _spec(_step(np.add, (0, 1)), _step(np.tanh, (2,)))
    assert supports(tanh_add)
    assert not supports(_spec(_step(np.add, (0, 1))))  # one step: nothing to gain
    assert supports(_spec(_step(np.add, (0, 1)), _step(np.multiply, (2, 0)),
                          _step(np.subtract, (3, 1))))  # three passes become one
    assert not supports(_spec(_step(np.exp, (0,)), _step(np.tanh, (2,))))
    assert not supports(_spec(_step(np.tanh, (0,), "float32")))
    assert not supports(_spec(_step(np.tanh, (0,)),
                              _step(np.multiply, (2, KConst(np.array([1.0, 2.0]))))))
    # a step is known by its name, not its function: without one it stays on tier 0
    assert not supports(_spec(_step(np.add, (0, 1)), KStep(np.tanh, (2,), "float64")))


def test_input_kinds():
    a, row, col = np.zeros((4, 3)), np.zeros(3), np.zeros((4, 1))
    assert input_kinds([a, row, np.float64(2.0), np.zeros((1, 3))], (4, 3)) == ("f", "r", "s",
                                                                                 "r")
    assert input_kinds([a, col], (4, 3)) is None  # a column is not a kind
    assert input_kinds([a.T.copy().T], (4, 3)) is None  # not C-ordered
    assert input_kinds([a.astype(np.float32)], (4, 3)) is None
    assert input_kinds([row], (4, 3)) is None  # no whole input to give the shape


def test_kernel_source_folds_and_constants():
    spec = KernelSpec(3, [_step(np.add, (0, 1, 2), fold=True),
                          _step(np.multiply, (3, KConst(np.float64(0.5)))),
                          _step(np.tanh, (4,))], [5], ["float64"])
    src = kernel_source(spec, ["f", "r", "s"])
    assert "v3 = ((v0 + v1) + v2)" in src and "v4 = (v3 * 0.5)" in src


@pytest.fixture
def cache(tmp_path):
    with theon.config.change_flags(cache_dir=str(tmp_path), tier1_small_threshold=1024):
        yield


def _served(f, *args):
    """Run ``f`` until its tier-1 kernels are in use; the result and the calls tier 1 served."""
    f(*args)
    assert tier1.wait(120)
    f(*args)  # (the check against tier 0)
    before = tier1.stats()["tier1_calls"]
    out = f(*args)
    return out, tier1.stats()["tier1_calls"] - before


@pytest.mark.parametrize("shape", [(16, 64), (32, 64), (128, 256)])
def test_fused_tanh_node_is_served_by_numba_and_equals_numpy(cache, shape):
    rng = np.random.default_rng(sum(shape))
    x, b, s = T.dmatrix("x"), T.dvector("b"), T.dscalar("s")
    f = theon.function([x, b, s], T.tanh(x * s + b) * 2.0 - x, mode=Mode(tier=1))
    xv, bv = rng.normal(size=shape), rng.normal(size=shape[1])
    out, served = _served(f, xv, bv, 0.7)
    assert served >= 1
    np.testing.assert_allclose(out, np.tanh(xv * 0.7 + bv) * 2.0 - xv, rtol=1e-14, atol=1e-15)


def test_lone_tanh_after_gemm_is_served(cache):
    """``tanh(dot(h, W) + x)`` is a Gemm and one tanh node: that node gets the kernel."""
    rng = np.random.default_rng(2)
    x, h, W = T.dmatrices("x", "h", "W")
    f = theon.function([x, h, W], T.tanh(T.dot(h, W) + x), mode=Mode(tier=1))
    xv, hv, Wv = rng.normal(size=(16, 64)), rng.normal(size=(16, 8)), rng.normal(size=(8, 64))
    xin = xv.copy()
    out, served = _served(f, xv, hv, Wv)
    assert served >= 1
    np.testing.assert_allclose(out, np.tanh(hv @ Wv + xv), rtol=1e-14, atol=1e-15)
    np.testing.assert_array_equal(xv, xin)  # the caller's array is untouched


def test_layouts_and_small_calls(cache):
    rng = np.random.default_rng(3)
    x, y = T.dmatrices("x", "y")
    f = theon.function([x, y], T.tanh(x + y), mode=Mode(tier=1))
    xv, yv = rng.normal(size=(64, 64)), rng.normal(size=(64, 64))
    _served(f, xv, yv)
    for a, b, served in [(xv.T, yv, 1), (xv[:, :1], yv, 0), (xv[:4, :4], yv[:4, :4], 0),
                         (xv[:, ::2], yv[:, ::2], 1)]:
        before = tier1.stats()["tier1_calls"]
        np.testing.assert_allclose(f(a, b), np.tanh(a + b), rtol=1e-14)
        # a strided whole input is copied; a column or a small call runs on tier 0
        assert tier1.stats()["tier1_calls"] - before == served, (a.shape, a.strides)


def test_scan_body_tanh_is_served(cache):
    """An RNN step's tanh runs in tier 1 inside the scan loop; values and gradients
    equal a NumPy loop."""
    rng = np.random.default_rng(4)
    xs, h0, W = T.dtensor3("xs"), T.dmatrix("h0"), T.dmatrix("W")
    hs, _ = theon.scan(lambda x, h, w: T.tanh(x + T.dot(h, w)), sequences=xs,
                       outputs_info=h0, non_sequences=W)
    loss = hs[-1].sum()
    f = theon.function([xs, h0, W], [loss, theon.grad(loss, W)], mode=Mode(tier=1))
    xv, hv, Wv = rng.normal(size=(20, 16, 64)), rng.normal(size=(16, 64)), \
        rng.normal(size=(64, 64)) / 8
    (val, gW), served = _served(f, xv, hv, Wv)
    assert served >= 20
    h, states = hv, [hv]
    for t in range(20):
        h = np.tanh(xv[t] + h @ Wv)
        states.append(h)
    gh, gWr = np.ones_like(h), np.zeros_like(Wv)
    for t in range(19, -1, -1):
        gz = gh * (1 - states[t + 1] ** 2)
        gWr += states[t].T @ gz
        gh = gz @ Wv.T
    np.testing.assert_allclose(val, h.sum(), rtol=1e-12)
    np.testing.assert_allclose(gW, gWr, rtol=1e-10, atol=1e-12)


class _WrongSmall:
    """An ``elemwise_small`` compiler whose kernels are off by one."""

    def compile_elemwise(self, spec, sig, size):
        from theon.link.tier1.nbelem import make_compiler

        good = make_compiler().compile_elemwise(spec, sig, size)

        class Wrong:
            whole, autotune, kinds, lead, plain = (True, False, good.kinds, good.lead,
                                                   good.plain)

            def run(self, args, shape, n):
                return [o + 1.0 for o in good.run(args, shape, n)]

        return Wrong()


def test_a_wrong_small_kernel_is_dropped_and_small_calls_go_inline_again(cache):
    rng = np.random.default_rng(5)
    x, b = T.dmatrix("x"), T.dvector("b")
    with tier1.use_compiler("elemwise_small", _WrongSmall()):
        f = theon.function([x, b], T.tanh(x + b), mode=Mode(tier=1))
        xv, bv = rng.normal(size=(32, 64)), rng.normal(size=64)
        f(xv, bv)
        assert tier1.wait(120)
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            out = f(xv, bv)
        assert any("dropped" in str(w.message) and "tanh" in str(w.message) for w in seen)
        np.testing.assert_allclose(out, np.tanh(xv + bv), rtol=1e-14)
        np.testing.assert_allclose(f(xv, bv), np.tanh(xv + bv), rtol=1e-14)
    runner = getattr(f._runner, "tier0", None) or f._runner  # (under the whole-graph tier)
    kernels = [v for v in runner.fn.__globals__.values() if type(v).__name__ == "Tier1Kernel"]
    assert kernels and all(k.inline for k in kernels)


def test_arithmetic_nodes_go_to_numba_only_past_the_tier0_block(cache):
    """Three or more arithmetic steps (tanh's gradient ``g * m * (1 - h**2)``): one
    numba pass on calls past ``elemwise_block`` elements; smaller ones stay inline."""
    rng = np.random.default_rng(6)
    h, g, m = T.dmatrices("h", "g", "m")
    f = theon.function([h, g, m], g * m * (1 - h**2), mode=Mode(tier=1))
    big = [rng.normal(size=(128, 256)) for _ in range(3)]
    out, served = _served(f, *big)
    assert served >= 1
    np.testing.assert_allclose(out, big[1] * big[2] * (1 - big[0] ** 2), rtol=1e-14)
    small = [a[:16, :64].copy() for a in big]
    before = tier1.stats()["tier1_calls"]
    np.testing.assert_allclose(f(*small), small[1] * small[2] * (1 - small[0] ** 2),
                               rtol=1e-14)
    assert tier1.stats()["tier1_calls"] == before
