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
