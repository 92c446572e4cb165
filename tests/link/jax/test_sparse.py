"""``mode="JAX"`` on the sparse Ops: ``scipy.sparse`` values travel as BCSR layouts of
their arrays and come back as ``scipy.sparse`` matrices of the type's format;
values, formats and dtypes against the reference VM, gradients included."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")

import scipy.sparse as sp  # noqa: E402

import theon  # noqa: E402
import theon.sparse as S  # noqa: E402
import theon.tensor as tt  # noqa: E402
from theon.compile.mode import Mode  # noqa: E402
from theon.sparse import ops as sops  # noqa: E402
from theon.sparse.type import SparseTensorType  # noqa: E402

VM = Mode(linker="vm")
RNG = np.random.default_rng(0)


def rand(fmt, shape=(4, 5), density=0.4):
    d = RNG.normal(size=shape) * (RNG.random(shape) < density)
    return sp.csr_matrix(d) if fmt == "csr" else sp.csc_matrix(d)


def both(ins, outs, *args):
    return (theon.function(ins, outs, mode="JAX")(*args),
            theon.function(ins, outs, mode=VM)(*args))


def assert_same(got, want):
    if not isinstance(want, list | tuple):
        got, want = [got], [want]
    for g, w in zip(got, want):
        if sp.issparse(w):
            assert sp.issparse(g) and g.format == w.format and g.dtype == w.dtype
            g, w = g.toarray(), w.toarray()
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_expressions_match_the_reference(fmt):
    x, y = SparseTensorType(fmt, "float64")("x"), SparseTensorType(fmt, "float64")("y")
    d, v = tt.dmatrix("d"), tt.dvector("v")
    other = "csc" if fmt == "csr" else "csr"
    outs = [
        S.dense_from_sparse(x), x.T, x + y, x + d, x * y, x * d, x * 2.5,
        S.sp_sum(x), S.sp_sum(x, axis=0), S.sp_sum(x, axis=1),
        S.dot(x, d.T), S.dot(x, v), S.dot(d, x.T), S.dot(x, y.T), S.structured_dot(x, d.T),
        S.cast(x, "float32"), sops.as_format(x, other), S.csr_from_dense(d), S.csc_from_dense(d),
        *S.csm_properties(x), sops.sp_shape(x),
        S.col_scale(x, v), S.row_scale(x, tt.dvector("r")),
    ]
    ins = [x, y, d, v, outs[-1].owner.inputs[1]]
    args = (rand(fmt), rand(fmt), RNG.normal(size=(4, 5)), RNG.normal(size=5),
            RNG.normal(size=4))
    got, want = both(ins, outs, *args)
    assert_same(got, want)
    assert got[1].format == other  # the transpose of CSR is CSC


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_sparse_gradients_match_the_reference(fmt):
    x = SparseTensorType(fmt, "float64")("x")
    w = tt.dmatrix("w")
    y = S.structured_dot(x, w)
    cost = (y ** 2).sum() + S.sp_sum(x * x) + (S.dense_from_sparse(x) * 3).sum()
    gx, gw = theon.grad(cost, [x, w])
    data, ind, ptr, shp = S.csm_properties(x)
    rebuilt = sops.CSM(fmt)(data * 2, ind, ptr, tt.constant(np.array([4, 5])))
    got, want = both([x, w], [gx, gw, rebuilt], rand(fmt), RNG.normal(size=(5, 3)))
    assert_same(got, want)


def test_sparse_from_dense_stores_every_entry_but_keeps_the_value():
    d = tt.dmatrix("d")
    s = S.csr_from_dense(d)
    f = theon.function([d], [s, S.csm_properties(s)[0]], mode="JAX")
    m, data = f(np.array([[0.0, 1.0], [2.0, 0.0]]))
    np.testing.assert_array_equal(m.toarray(), [[0.0, 1.0], [2.0, 0.0]])
    assert data.shape == (4,)  # zeros stored: XLA needs the length when compiling


def test_a_csm_shape_from_a_run_time_value_is_named():
    data, ind, ptr = tt.dvector("data"), tt.ivector("ind"), tt.ivector("ptr")
    shp = tt.lvector("shp")
    f = theon.function([data, ind, ptr, shp], sops.CSM("csr")(data, ind, ptr, shp), mode="JAX")
    with pytest.raises(Exception, match="run-time value"):
        f(np.ones(1), np.zeros(1, "int32"), np.array([0, 1], "int32"), np.array([1, 1]))
