"""local_pool_params_constant: pooling whose window, stride and padding are computed
from static lengths becomes the constant Op; differential run against the graph left
unrewritten (the reference VM runs PoolParams itself)."""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from theon.tensor.signal import pool


@st.composite
def cases(draw):
    shape = tuple(draw(st.integers(2, 7)) for _ in range(2))
    ws = tuple(draw(st.integers(1, n)) for n in shape)
    stride = tuple(draw(st.integers(1, 3)) for _ in range(2))
    ignore_border = draw(st.booleans())
    pad = tuple(draw(st.integers(0, w - 1)) for w in ws) if ignore_border else (0, 0)
    mode = draw(st.sampled_from(["max", "sum", "average_inc_pad", "average_exc_pad"]))
    seed = draw(st.integers(0, 2**16))
    return shape, ws, stride, pad, ignore_border, mode, seed


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(cases())
def test_rewritten_equals_unrewritten(case):
    shape, ws, stride, pad, ignore_border, mode, seed = case
    x = tt.tensor("float64", shape=(2, *shape), name="x")
    # each parameter an expression of a static length that folds to the value
    one = x.shape[0] // 2

    def sym(v):
        return tuple(one * k for k in v)

    y = pool.pool_2d(x, ws=sym(ws), stride=sym(stride), pad=sym(pad),
                     ignore_border=ignore_border, mode=mode)
    outs = [y, theon.grad((y * y).sum(), x)]
    xv = np.random.default_rng(seed).normal(size=(2, *shape))
    fast = theon.function([x], outs)
    assert "PoolParams" not in {type(n.op).__name__ for n in fast.maker.fgraph.toposort()}
    ref = theon.function([x], outs, mode="REFERENCE")
    assert "PoolParams" in {type(n.op).__name__ for n in ref.maker.fgraph.toposort()}
    for got, want in zip(fast(xv), ref(xv), strict=True):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
