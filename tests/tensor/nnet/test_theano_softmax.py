"""``T.nnet.softmax``/``log_softmax``/``logsoftmax`` of a vector give a ``(1, n)`` matrix,
as Theano 1.0's did; ``T.special.softmax`` keeps PyTensor's (issue 32 item 3)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
import scipy.special as sps

import theon
import theon.tensor as T
from theon.tensor import nnet

MODES = [None, pytest.param("JAX", marks=pytest.mark.skipif(
    importlib.util.find_spec("jax") is None, reason="mode='JAX' needs jax"))]


@pytest.mark.parametrize("mode", MODES)
def test_a_vector_gives_one_row(mode: str | None) -> None:
    v = T.dvector("v")
    vv = np.array([0.3, -2.0, 700.0, 1.0])
    outs = [nnet.softmax(v), nnet.log_softmax(v), nnet.logsoftmax(v), T.special.softmax(v),
            T.special.log_softmax(v)]
    assert [o.type.shape for o in outs] == [(1, None)] * 3 + [(None,)] * 2
    got = theon.function([v], outs, mode=mode)(vv)
    sm, lsm = sps.softmax(vv), sps.log_softmax(vv)
    for g, w in zip(got, [sm[None], lsm[None], lsm[None], sm, lsm]):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=1e-300)


@pytest.mark.parametrize("mode", MODES)
def test_indexing_the_row_and_its_gradient(mode: str | None) -> None:
    """Theano programs write ``softmax(v)[0]`` or stack rows and read ``s[:, 0, :]``."""
    v = T.dvector("v")
    rng = np.random.default_rng(2)
    w = rng.normal(size=5)
    vv = rng.normal(size=5)
    cost = (nnet.softmax(v)[0] * w).sum()
    f = theon.function([v], [cost, theon.grad(cost, v)], mode=mode)
    c, g = f(vv)
    sm = sps.softmax(vv)
    np.testing.assert_allclose(c, (sm * w).sum(), rtol=1e-13)
    np.testing.assert_allclose(g, sm * (w - (w * sm).sum()), rtol=1e-12)
    theon.verify_grad(lambda x: nnet.softmax(x) * w, [vv], rng=rng)
    theon.verify_grad(lambda x: nnet.log_softmax(x) * w, [vv], rng=rng)


def test_matrices_and_other_axes_are_unchanged() -> None:
    m, v = T.dmatrix("m"), T.dvector("v")
    mv = np.random.default_rng(3).normal(size=(3, 4))
    f = theon.function([m, v], [nnet.softmax(m), nnet.softmax(v, axis=0),
                                nnet.log_softmax(m, axis=0)])
    a, b, c = f(mv, mv[0])
    np.testing.assert_allclose(a, sps.softmax(mv, axis=1), rtol=1e-13)
    assert b.shape == (4,)
    np.testing.assert_allclose(b, sps.softmax(mv[0]), rtol=1e-13)
    np.testing.assert_allclose(c, sps.log_softmax(mv, axis=0), rtol=1e-13)
