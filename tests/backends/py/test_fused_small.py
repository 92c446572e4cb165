"""Small fused nodes run their steps inline; a one-element constant enters them as a
0-d array.  Values, dtypes and shapes against NumPy and the reference VM."""

from __future__ import annotations

import numpy as np
import pytest

import theon
import theon.tensor as T
from theon.compile.mode import Mode


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int8"])
@pytest.mark.parametrize("n", [1, 7, 100])
def test_one_element_constants_in_small_fused_nodes(dtype, n):
    t = T.vector("t", dtype=dtype)
    x = T.vector("x", dtype=dtype)
    one = T.constant(np.ones(1, dtype=dtype))  # a (1,)-shaped constant, broadcast
    outs = [(one - t * t) * x, T.maximum(t, one) + x, (t + one)[None, :] * x[:, None]]
    f = theon.function([t, x], outs)
    ref = theon.function([t, x], outs, mode=Mode(linker="vm", optimizer=None))
    src = f._runner.source
    assert "if " in src and ".size <= " in src, src  # the inline path was generated
    rng = np.random.default_rng(7)
    tv = (rng.normal(size=n) * 3).astype(dtype)
    xv = (rng.normal(size=n) * 3).astype(dtype)
    o1 = np.ones(1, dtype=dtype)
    want_np = [(o1 - tv * tv) * xv, np.maximum(tv, o1) + xv, (tv + o1)[None, :] * xv[:, None]]
    for got, want, wnp in zip(f(tv, xv), ref(tv, xv), want_np):
        assert got.dtype == want.dtype == wnp.dtype
        assert got.shape == want.shape == wnp.shape
        np.testing.assert_allclose(got, wnp, rtol=1e-6)
        np.testing.assert_array_equal(got, want)


def test_a_fused_node_of_one_element_inputs_keeps_its_shape():
    """Every input one element long: the result is (1,), not 0-d."""
    t = T.dvector("t")
    f = theon.function([t], (T.constant(np.ones(1)) - t * t) * 2.0)
    out = f(np.array([3.0]))
    assert out.shape == (1,) and out[0] == -16.0


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_switch_and_special_functions_in_fused_nodes_match_the_vm_and_scipy(dtype):
    """A fused node with ``switch`` (steps call ``np.where``) and ``erfc``/``gammaln``
    (float64 steps call SciPy's ufunc directly, other dtypes the op's impl): the same
    values as the reference VM, and as SciPy."""
    import scipy.special as sp

    from theon.backends.py.fused import composite_spec

    x = T.vector("x", dtype=dtype)
    out = T.switch(T.gt(x, 0.5), T.erfc(x) * x, T.gammaln(x * x + 1.0)) + x
    f = theon.function([x], out)
    ref = theon.function([x], out, mode=Mode(linker="vm", optimizer=None))
    (comp,) = [n.op.scalar_op for n in f.maker.fgraph.toposort()
               if hasattr(getattr(n.op, "scalar_op", None), "inner_nodes")]
    fns = {s.fn for s in composite_spec(comp).steps}
    assert np.where in fns
    assert (sp.erfc in fns) == (dtype == "float64")
    rng = np.random.default_rng(11)
    xv = np.concatenate([rng.normal(size=50) * 3, [0.0, -0.0, np.inf, -np.inf, np.nan]])
    xv = xv.astype(dtype)
    with np.errstate(all="ignore"):
        got, want = f(xv), ref(xv)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_array_equal(got, want)
    if dtype == "float64":
        with np.errstate(all="ignore"):
            wnp = np.where(xv > 0.5, sp.erfc(xv) * xv, sp.gammaln(xv * xv + 1.0)) + xv
        np.testing.assert_allclose(got, wnp, rtol=1e-14)
