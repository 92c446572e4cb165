"""pad (issue 35) against numpy.pad: every mode with its keyword arguments, widths larger
than the array (wrap, reflect, symmetric repeat), int and float dtypes; gradients."""

import numpy as np
import pytest

import theon.tensor as tt
from tests.tensor.nscheck import check
from theon.gradient import verify_grad

rng = np.random.default_rng(358)

MODES = [("constant", {}), ("constant", {"constant_values": ((1, 2), (3.7, -4))}),
         ("empty", {}), ("edge", {}), ("linear_ramp", {}),
         ("linear_ramp", {"end_values": (5, -3)}), ("maximum", {}),
         ("minimum", {"stat_length": 2}), ("mean", {}),
         ("mean", {"stat_length": ((1, 2), (3, 1))}), ("median", {}), ("wrap", {}),
         ("symmetric", {}), ("symmetric", {"reflect_type": "odd"}), ("reflect", {}),
         ("reflect", {"reflect_type": "odd"})]
WIDTHS = [1, (2, 3), ((0, 5), (7, 1)), ((9, 10), (2, 12))]


@pytest.mark.parametrize(("mode", "kw"), MODES)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "int8"])
def test_pad_matches_numpy(mode, kw, dtype):
    x = tt.matrix("x", dtype=dtype)
    a = (rng.normal(size=(3, 4)) * 10).astype(dtype)
    for width in WIDTHS:
        ref = np.pad(a, width, mode=mode, **kw)
        if mode == "empty":
            ref = np.pad(a, width)  # theon's empty pad is zeros
        rtol = {"float64": 1e-13, "float32": 1e-5}.get(dtype, 0)
        scale = np.max(np.abs(ref)) if ref.size else 1.0
        check([x], tt.pad(x, width, mode=mode, **kw), [a], ref, rtol=rtol,
              atol=rtol * scale, modes=("REFERENCE",) if width != 1 else ("REFERENCE",
                                                                          "FAST_RUN"))


@pytest.mark.parametrize("mode", ["reflect", "symmetric", "wrap", "edge"])
@pytest.mark.parametrize("rtype", ["even", "odd"])
@pytest.mark.parametrize("n", [1, 2, 5])
def test_pad_long_widths_of_short_arrays(mode, rtype, n):
    x = tt.dvector("x")
    a = np.arange(n, dtype=float) ** 2
    kw = {"reflect_type": rtype} if mode in ("reflect", "symmetric") else {}
    check([x], tt.pad(x, (7, 8), mode=mode, **kw), [a], np.pad(a, (7, 8), mode=mode, **kw),
          rtol=1e-14, atol=1e-12)


def test_pad_extremes_and_3d():
    x = tt.dtensor3("x")
    a = rng.choice(np.array([np.inf, -np.inf, np.nan, 0.0, 1e300]), size=(2, 3, 2))
    for mode in ("constant", "edge", "wrap", "reflect", "symmetric", "maximum"):
        check([x], tt.pad(x, ((1, 0), (0, 2), (1, 1)), mode=mode), [a],
              np.pad(a, ((1, 0), (0, 2), (1, 1)), mode=mode))


@pytest.mark.parametrize(("mode", "kw"), MODES)
def test_pad_grads(mode, kw):
    a = rng.normal(size=(3, 4))
    verify_grad(lambda v: tt.pad(v, ((2, 1), (1, 3)), mode=mode, **kw), [a], rng=rng)


def test_pad_errors():
    x = tt.dmatrix("x")
    with pytest.raises(ValueError, match="mode"):
        tt.pad(x, 1, mode="circular")
    with pytest.raises(TypeError, match="unsupported keyword"):
        tt.pad(x, 1, mode="edge", constant_values=3)
    with pytest.raises(ValueError, match="negative"):
        tt.pad(x, -1)
    with pytest.raises(TypeError, match="known when the graph is built"):
        tt.pad(x, tt.lscalar("w"))
