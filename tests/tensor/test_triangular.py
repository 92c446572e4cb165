"""tri, tril, triu and their indices, trace, extract_diag, fill_diagonal(_offset),
identity_like (issue 35) against NumPy; gradients with verify_grad."""

import numpy as np
import pytest

import theon.tensor as tt
from tests.tensor.nscheck import EXTREMES, check, check_shape
from theon.gradient import verify_grad

rng = np.random.default_rng(35)


@pytest.mark.parametrize("k", [-2, -1, 0, 1, 3])
@pytest.mark.parametrize("shape", [(4,), (3, 5), (2, 4, 3)])
@pytest.mark.parametrize("fn", ["tril", "triu"])
def test_tril_triu(fn, shape, k):
    x = tt.tensor("x", dtype="float64", shape=(None,) * len(shape))
    xv = rng.choice(EXTREMES, size=shape)
    out = getattr(tt, fn)(x, k)
    check([x], out, [xv], getattr(np, fn)(xv, k))
    check_shape(out, [x], [xv])


@pytest.mark.parametrize("dtype", ["int8", "bool", "float32"])
def test_tril_keeps_dtype(dtype):
    x = tt.matrix("x", dtype=dtype)
    xv = np.ones((3, 3), dtype=dtype)
    check([x], tt.triu(x, 1), [xv], np.triu(xv, 1))


def test_tril_grad():
    verify_grad(lambda v: tt.tril(v, -1) ** 2, [rng.normal(size=(3, 4))], rng=rng)
    verify_grad(lambda v: tt.triu(v, 1) * 3.0, [rng.normal(size=(2, 3, 3))], rng=rng)


@pytest.mark.parametrize(("n", "m", "k"), [(3, None, 0), (3, 5, -1), (4, 2, 2), (0, 3, 0)])
def test_tri_and_indices(n, m, k):
    check([], tt.tri(n, m, k, dtype="int32"), [], np.tri(n, m, k, dtype="int32"))
    assert tt.tri(3).type.shape == (3, 3) and tt.tri(3).dtype == "float64"
    check([], list(tt.tril_indices(n, k, m)), [], list(np.tril_indices(n, k, m)))
    check([], list(tt.triu_indices(n, k, m)), [], list(np.triu_indices(n, k, m)))


def test_tri_symbolic_size():
    n = tt.lscalar("n")
    check([n], tt.tri(n, n + 1, 1), [4], np.tri(4, 5, 1))


@pytest.mark.parametrize("k", [-1, 0, 2])
def test_indices_from(k):
    x = tt.dmatrix("x")
    xv = np.zeros((3, 5))
    check([x], list(tt.tril_indices_from(x, k)), [xv], list(np.tril_indices_from(xv, k)))
    check([x], list(tt.triu_indices_from(x, k)), [xv], list(np.triu_indices_from(xv, k)))
    with pytest.raises(ValueError, match="needs a matrix"):
        tt.tril_indices_from(tt.dvector("v"))


@pytest.mark.parametrize(("shape", "offset", "a1", "a2"),
                         [((3, 4), 0, 0, 1), ((3, 4), 1, 0, 1), ((3, 4), -2, 1, 0),
                          ((2, 3, 4), 0, 1, 2), ((2, 3, 4), 1, 0, 2), ((3, 3), 5, 0, 1)])
@pytest.mark.parametrize("dtype", ["float64", "int8", "float32"])
def test_trace(shape, offset, a1, a2, dtype):
    x = tt.tensor("x", dtype=dtype, shape=(None,) * len(shape))
    xv = (rng.normal(size=shape) * 10).astype(dtype)
    out = tt.trace(x, offset, a1, a2)
    check([x], out, [xv], np.trace(xv, offset, a1, a2), rtol=1e-6 if dtype == "float32" else 0)
    check_shape(out, [x], [xv])


def test_trace_grad_and_dtype():
    verify_grad(lambda v: tt.trace(v, 1), [rng.normal(size=(3, 4))], rng=rng)
    m = tt.imatrix("m")
    assert tt.trace(m, dtype="float32").dtype == "float32"


def test_extract_diag():
    x = tt.dtensor3("x")
    xv = rng.normal(size=(3, 4, 2))
    check([x], tt.extract_diag(x), [xv], np.diagonal(xv))
    verify_grad(tt.extract_diag, [xv], rng=rng)


def _np_fill(a, val, offset=None):
    out = a.copy()
    if offset is None:
        np.fill_diagonal(out, val)
    else:
        n, m = a.shape
        for i in range(n):
            j = i + offset
            if 0 <= j < m:
                out[i, j] = val
    return out


@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (5, 2), (3, 3, 3)])
def test_fill_diagonal(shape):
    x = tt.tensor("x", dtype="float64", shape=(None,) * len(shape))
    v = tt.dscalar("v")
    xv = rng.normal(size=shape)
    out = tt.fill_diagonal(x, v)
    check([x, v], out, [xv, np.inf], _np_fill(xv, np.inf))
    check_shape(out, [x, v], [xv, 1.0])
    verify_grad(tt.fill_diagonal, [xv, np.array(2.0)], rng=rng)


def test_fill_diagonal_casts_like_numpy():
    x = tt.imatrix("x")
    xv = np.zeros((2, 2), dtype="int32")
    check([x], tt.fill_diagonal(x, 2.7), [xv], _np_fill(xv, 2.7))
    with pytest.raises(ValueError, match="must be equal"):
        tt.fill_diagonal(tt.tensor("t", shape=(2, 3, 2)), 1.0)
    with pytest.raises(ValueError, match="scalar"):
        tt.fill_diagonal(tt.dmatrix("m"), tt.dvector("w"))


@pytest.mark.parametrize("offset", [-4, -1, 0, 2, 6])
@pytest.mark.parametrize("shape", [(3, 5), (5, 3)])
def test_fill_diagonal_offset(shape, offset):
    x, v = tt.dmatrix("x"), tt.dscalar("v")
    xv = rng.normal(size=shape)
    check([x, v], tt.fill_diagonal_offset(x, v, offset), [xv, -1.5],
          _np_fill(xv, -1.5, offset))
    verify_grad(lambda a, b: tt.fill_diagonal_offset(a, b, offset), [xv, np.array(3.0)],
                rng=rng)


def test_identity_like():
    x = tt.imatrix("x")
    xv = np.zeros((2, 3), dtype="int32")
    check([x], tt.identity_like(x), [xv], np.eye(2, 3, dtype="int32"))
    check([x], tt.identity_like(x, dtype="float32"), [xv], np.eye(2, 3, dtype="float32"))
