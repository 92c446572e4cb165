"""softmax and the cross-entropies of ``theon.tensor.nnet`` against NumPy/SciPy.

Values and gradients at logits up to +-1000 in float32 and float64, through the
reference VM (``Mode(linker="vm")``) and the default linker; ``verify_grad`` at
moderate and large-magnitude points; the references are NumPy loops and SciPy
in float64.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import scipy.special as sps

import theon
import theon.tensor as T
from theon.compile.mode import Mode
from theon.gradient import verify_grad
from theon.tensor import nnet

MODES = [Mode(linker="vm"), None]
MODE_IDS = ["vm", "default"]
DTYPES = ["float64", "float32"]


def _tol(dtype: str) -> dict[str, float]:
    return {"rtol": 1e-5, "atol": 1e-6} if dtype == "float32" else {"rtol": 1e-12, "atol": 1e-13}


def _logits(dtype: str, scale: float = 1000.0) -> np.ndarray:
    """Rows with one huge winner, ties, all-equal and moderate values."""
    rows = [[scale, -scale, 0.0, 1.0], [-scale, scale, scale, -scale], [0.0, 0.0, 0.0, 0.0],
            [0.5, -1.5, 2.0, 0.25], [-scale, -scale, -scale + 1, -scale]]
    return np.array(rows, dtype=dtype)


LABELS = np.array([1, 0, 3, 2, 2], dtype="int32")


def _nll_ref(xv: np.ndarray, y: np.ndarray) -> np.ndarray:
    """-log softmax(x)[i, y[i]], row by row, in float64."""
    x = xv.astype("float64")
    out = np.empty(len(y))
    for i in range(len(y)):
        m = np.max(x[i])
        out[i] = -(x[i, y[i]] - m - np.log(np.sum(np.exp(x[i] - m))))
    return out


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_softmax_and_logsoftmax_rows(dtype: str, mode: Any) -> None:
    x = T.matrix("x", dtype=dtype)
    xv = _logits(dtype)
    w = np.random.default_rng(3).uniform(0.5, 1.5, size=xv.shape).astype(dtype)
    outs = [nnet.softmax(x), nnet.logsoftmax(x), nnet.softmax_graph(x),
            T.log(nnet.softmax(x)), nnet.softmax_with_bias(x, np.zeros(4, dtype))]
    grads = [theon.grad(T.sum(w * o), x) for o in outs]
    res = theon.function([x], outs + grads, mode=mode)(xv)
    x64 = xv.astype("float64")
    sm, lsm = sps.softmax(x64, axis=1), sps.log_softmax(x64, axis=1)
    w64 = w.astype("float64")
    dsm = sm * (w64 - np.sum(w64 * sm, axis=1, keepdims=True))
    dlsm = w64 - sm * np.sum(w64, axis=1, keepdims=True)
    for got, want in zip(res, [sm, lsm, sm, lsm, sm, dsm, dlsm, dsm, dlsm, dsm]):
        assert got.dtype == dtype and np.isfinite(got).all()
        np.testing.assert_allclose(got, want, **_tol(dtype))


def test_softmax_axis_and_vector() -> None:
    """A vector gives a one-row matrix (Theano 1.0's nnet.softmax, issue 32)."""
    x, v = T.dtensor3("x"), T.dvector("v")
    xv = np.random.default_rng(0).normal(size=(2, 3, 4))
    f = theon.function([x, v], [nnet.softmax(x, axis=1), nnet.softmax(v), nnet.softmax(x, None)])
    a, b, c = f(xv, xv[0, 0])
    np.testing.assert_allclose(a, sps.softmax(xv, axis=1), rtol=1e-12)
    assert b.shape == (1, 4)
    np.testing.assert_allclose(b, sps.softmax(xv[0, 0])[None], rtol=1e-12)
    np.testing.assert_allclose(c, sps.softmax(xv, axis=None), rtol=1e-12)


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_categorical_crossentropy_of_softmax_at_large_logits(dtype: str, mode: Any) -> None:
    """The users' case: ``categorical_crossentropy(softmax(x), y)`` never NaN/inf."""
    x, y, t = T.matrix("x", dtype=dtype), T.ivector("y"), T.matrix("t", dtype=dtype)
    onehot = np.eye(4, dtype=dtype)[LABELS]
    c_idx = nnet.categorical_crossentropy(nnet.softmax(x), y).mean()
    c_hot = nnet.categorical_crossentropy(nnet.softmax(x), t).mean()
    f = theon.function([x, y, t], [c_idx, c_hot, theon.grad(c_idx, x), theon.grad(c_hot, x)],
                       mode=mode)
    xv = _logits(dtype)
    r = f(xv, LABELS, onehot)
    want = _nll_ref(xv, LABELS).mean()
    dwant = (sps.softmax(xv.astype("float64"), axis=1) - onehot) / len(LABELS)
    for got, exp in zip(r, [want, want, dwant, dwant]):
        assert got.dtype == dtype and np.isfinite(got).all()
        np.testing.assert_allclose(got, exp, **_tol(dtype))


def test_categorical_crossentropy_of_probabilities() -> None:
    """Plain probabilities (not a softmax): the NumPy loop of the definition."""
    p, y, t = T.dmatrix("p"), T.lvector("y"), T.dmatrix("t")
    rng = np.random.default_rng(5)
    pv = rng.uniform(0.05, 1.0, size=(4, 3))
    pv /= pv.sum(axis=1, keepdims=True)
    yv = np.array([0, 2, 1, 2])
    tv = rng.uniform(size=(4, 3))
    a, b = theon.function([p, y, t], [nnet.categorical_crossentropy(p, y),
                                      nnet.categorical_crossentropy(p, t)])(pv, yv, tv)
    want_a = [-np.log(pv[i, yv[i]]) for i in range(4)]
    want_b = [-sum(tv[i, j] * np.log(pv[i, j]) for j in range(3)) for i in range(4)]
    np.testing.assert_allclose(a, want_a, rtol=1e-13)
    np.testing.assert_allclose(b, want_b, rtol=1e-13)
    np.testing.assert_allclose(
        theon.function([p, y], nnet.crossentropy_categorical_1hot(p, y))(pv, yv), want_a)
    verify_grad(lambda q: nnet.categorical_crossentropy(q, yv), [pv], rng=rng)
    verify_grad(lambda q: nnet.categorical_crossentropy(q, tv), [pv], rng=rng)


def test_categorical_crossentropy_nd_and_vector() -> None:
    x, y = T.dtensor3("x"), T.lmatrix("y")
    rng = np.random.default_rng(8)
    xv = rng.normal(size=(2, 3, 5)) * 300
    yv = rng.integers(0, 5, size=(2, 3))
    out = nnet.categorical_crossentropy(nnet.softmax(x), y)
    got = theon.function([x, y], out)(xv, yv)
    lsm = sps.log_softmax(xv, axis=-1)
    want = np.array([[-lsm[i, j, yv[i, j]] for j in range(3)] for i in range(2)])
    np.testing.assert_allclose(got, want, rtol=1e-12)
    v, k = T.dvector("v"), T.lscalar("k")
    got = theon.function([v, k], nnet.categorical_crossentropy(T.special.softmax(v), k))(
        xv[0, 0], yv[0, 0])
    np.testing.assert_allclose(got, -lsm[0, 0, yv[0, 0]], rtol=1e-12)


@pytest.mark.parametrize("scale", [1.0, 30.0, 1000.0])
def test_verify_grad_of_softmax_crossentropies(scale: float) -> None:
    rng = np.random.default_rng(int(scale))
    xv = rng.normal(size=(3, 4)) * scale
    yv = np.array([0, 3, 1])
    tv = np.eye(4)[yv]
    bv = rng.normal(size=4)
    verify_grad(lambda x: nnet.categorical_crossentropy(nnet.softmax(x), yv), [xv], rng=rng)
    verify_grad(lambda x: nnet.categorical_crossentropy(nnet.softmax(x), tv), [xv], rng=rng)
    verify_grad(lambda x: nnet.crossentropy_softmax_1hot(x, yv)[0], [xv], rng=rng)
    verify_grad(lambda x, b: nnet.crossentropy_softmax_1hot_with_bias(x, b, yv)[0], [xv, bv],
                rng=rng)
    verify_grad(lambda x: nnet.crossentropy_softmax_1hot(x, yv)[1], [xv], rng=rng)
    verify_grad(lambda x: nnet.logsoftmax(x), [xv], rng=rng)
    verify_grad(lambda x, b: nnet.softmax_with_bias(x, b), [xv, bv], rng=rng)


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_binary_crossentropies_at_large_logits(dtype: str, mode: Any) -> None:
    """``binary_crossentropy(sigmoid(x), t)`` and ``sigmoid_binary_crossentropy(x, t)``."""
    x, t = T.vector("x", dtype=dtype), T.vector("t", dtype=dtype)
    xv = np.array([-1000.0, -90.0, -20.0, -1.0, 0.0, 0.5, 20.0, 90.0, 1000.0], dtype=dtype)
    tv = np.array([0.0, 1.0, 0.3, 1.0, 0.5, 0.0, 0.0, 1.0, 0.7], dtype=dtype)
    b1 = nnet.binary_crossentropy(nnet.sigmoid(x), t)
    b2 = nnet.sigmoid_binary_crossentropy(x, t)
    outs = [b1, b2, theon.grad(T.sum(b1), x), theon.grad(T.sum(b2), x),
            theon.grad(T.sum(b2), t)]
    r = theon.function([x, t], outs, mode=mode)(xv, tv)
    x64, t64 = xv.astype("float64"), tv.astype("float64")
    # -(t log s + (1 - t) log(1 - s)), log s = -log(1 + e^-x), log(1 - s) = -log(1 + e^x)
    want = t64 * np.logaddexp(0, -x64) + (1 - t64) * np.logaddexp(0, x64)
    dx = sps.expit(x64) - t64
    dt = np.logaddexp(0, -x64) - np.logaddexp(0, x64)  # = -x
    for got, exp in zip(r, [want, want, dx, dx, dt]):
        assert got.dtype == dtype and np.isfinite(got).all()
        np.testing.assert_allclose(got, exp, **_tol(dtype))


def test_binary_crossentropy_of_probabilities() -> None:
    p, t = T.dvector("p"), T.dvector("t")
    pv = np.array([0.1, 0.5, 0.9, 0.999])
    tv = np.array([0.0, 1.0, 0.25, 1.0])
    got = theon.function([p, t], nnet.binary_crossentropy(p, t))(pv, tv)
    want = [-(tv[i] * np.log(pv[i]) + (1 - tv[i]) * np.log(1 - pv[i])) for i in range(4)]
    np.testing.assert_allclose(got, want, rtol=1e-13)
    rng = np.random.default_rng(2)
    verify_grad(lambda q: nnet.binary_crossentropy(q, tv[:3]), [pv[:3]], rng=rng)
    for scale in (1.0, 50.0, 1000.0):
        xv = rng.normal(size=5) * scale
        verify_grad(lambda z: nnet.binary_crossentropy(nnet.sigmoid(z), tv), [xv[:4]],
                    rng=rng)
        verify_grad(nnet.sigmoid_binary_crossentropy, [xv, rng.uniform(size=5)], rng=rng)


@pytest.mark.parametrize("mode", MODES, ids=MODE_IDS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_crossentropy_softmax_1hot_family(dtype: str, mode: Any) -> None:
    x, b, y = T.matrix("x", dtype=dtype), T.vector("b", dtype=dtype), T.ivector("y")
    xv = _logits(dtype)
    bv = np.array([0.0, 1.0, -2.0, 0.5], dtype=dtype)
    nll, sm = nnet.crossentropy_softmax_1hot(x, y)
    nll_b, sm_b = nnet.crossentropy_softmax_1hot_with_bias(x, b, y)
    nll_a, sm_a, am = nnet.crossentropy_softmax_argmax_1hot_with_bias(x, b, y)
    *_, mx, am2 = nnet.crossentropy_softmax_max_and_argmax_1hot(x, y)
    g = theon.grad(T.sum(nll), x)
    f = theon.function([x, b, y], [nll, sm, nll_b, sm_b, nll_a, am, mx, am2, g], mode=mode)
    r = f(xv, bv, LABELS)
    z64 = xv.astype("float64") + bv
    sm64 = sps.softmax(xv.astype("float64"), axis=1)
    want = [_nll_ref(xv, LABELS), sm64, _nll_ref(z64, LABELS), sps.softmax(z64, axis=1),
            _nll_ref(z64, LABELS)]
    for got, exp in zip(r[:5], want):
        assert got.dtype == dtype and np.isfinite(got).all()
        np.testing.assert_allclose(got, exp, **_tol(dtype))
    assert r[5].tolist() == np.argmax(z64.astype(dtype), axis=1).tolist()
    np.testing.assert_allclose(r[6], sm64.max(axis=1), **_tol(dtype))
    assert r[7].tolist() == np.argmax(xv, axis=1).tolist()
    np.testing.assert_allclose(r[8], sm64 - np.eye(4)[LABELS], **_tol(dtype))


def test_errors_name_the_variables() -> None:
    p, y = T.dmatrix("p"), T.dvector("yf")
    with pytest.raises(TypeError, match="integer class indices.*'yf'"):
        nnet.categorical_crossentropy(p, y)
    with pytest.raises(ValueError, match="one fewer.*'p'.*'q3'"):
        nnet.categorical_crossentropy(p, T.dtensor3("q3"))
    with pytest.raises(ValueError, match="matrix of logits.*'v'"):
        nnet.crossentropy_softmax_1hot(T.dvector("v"), T.lvector("y"))
    with pytest.raises(ValueError, match="class axis"):
        nnet.categorical_crossentropy(T.dscalar("s"), T.lscalar("k"))


def _h_softmax_ref(xv, n_out, n_cls, per, W1, b1, W2, b2):
    """The two-level probabilities, output by output, with NumPy."""
    out = np.zeros((len(xv), n_out))
    for i, row in enumerate(xv):
        cp = sps.softmax(row @ W1 + b1)
        for k in range(n_out):
            g, p = divmod(k, per)
            out[i, k] = cp[g] * sps.softmax(row @ W2[g] + b2[g])[p]
    return out


def test_h_softmax_full_and_target_match_numpy_and_have_gradients() -> None:
    rng = np.random.default_rng(21)
    n_in, n_out, n_cls, per = 4, 7, 3, 3
    xv = rng.normal(size=(5, n_in))
    W1, b1 = rng.normal(size=(n_in, n_cls)), rng.normal(size=n_cls)
    W2, b2 = rng.normal(size=(n_cls, n_in, per)), rng.normal(size=(n_cls, per))
    tv = np.array([0, 6, 3, 4, 2])
    x, t = T.dmatrix("x"), T.lvector("t")
    full = nnet.h_softmax(x, 5, n_out, n_cls, per, W1, b1, W2, b2)
    picked = nnet.h_softmax(x, 5, n_out, n_cls, per, W1, b1, W2, b2, target=t)
    a, b = theon.function([x, t], [full, picked])(xv, tv)
    want = _h_softmax_ref(xv, n_out, n_cls, per, W1, b1, W2, b2)
    np.testing.assert_allclose(a, want, rtol=1e-12)
    np.testing.assert_allclose(b, want[np.arange(5), tv], rtol=1e-12)
    assert np.all(a.sum(axis=1) <= 1 + 1e-12)
    verify_grad(lambda w1, w2: nnet.h_softmax(xv, 5, n_out, n_cls, per, w1, b1, w2, b2, tv),
                [W1, W2], rng=rng)
    verify_grad(lambda v: nnet.h_softmax(v, 5, n_out, n_cls, per, W1, b1, W2, b2), [xv],
                rng=rng)
    with pytest.raises(ValueError, match="fewer than n_outputs=10"):
        nnet.h_softmax(x, 5, 10, n_cls, per, W1, b1, W2, b2)
