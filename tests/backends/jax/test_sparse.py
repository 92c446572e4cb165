"""``mode="JAX"`` on the sparse Ops: ``scipy.sparse`` values travel as layouts
of their arrays (``theon.backends.jax.sparse.Layout``) and come back as ``scipy.sparse``
matrices of the type's format; values, formats and dtypes against the reference VM,
gradients included."""

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


def _awkward_csr():
    """5 x 4 with empty rows (first, middle, last), unsorted column indices in a row and a
    duplicate entry, int64 index arrays."""
    data = np.array([1.5, -2.0, 3.0, 0.5, 4.0, -1.0])
    indices = np.array([3, 0, 1, 1, 2, 0], dtype=np.int64)
    indptr = np.array([0, 0, 3, 3, 6, 6], dtype=np.int64)
    return sp.csr_matrix((data, indices, indptr), shape=(5, 4))


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_arguments_travel_as_their_own_arrays_with_the_row_of_each_entry(fmt):
    from theon.backends.jax.sparse import Layout, to_jax

    m = _awkward_csr() if fmt == "csr" else _awkward_csr().T.tocsc()
    m32 = m.copy()
    m32.indices, m32.indptr = m.indices.astype(np.int32), m.indptr.astype(np.int32)
    for x in (m, m32):
        lay = to_jax(x)
        assert isinstance(lay, Layout)
        assert lay.shape == (x.shape if fmt == "csr" else x.shape[::-1])
        # the major index of each stored entry, by a NumPy loop over indptr
        want = [i for i in range(len(x.indptr) - 1) for _ in range(x.indptr[i], x.indptr[i + 1])]
        assert lay.rows.dtype == np.int32 and lay.rows.tolist() == want
        assert lay.indices.dtype == np.int32 and lay.indptr.dtype == np.int32
        # no jax array is built and the data is not copied: the jitted call transfers it
        assert lay.data is x.data
    assert to_jax(m32).indices is m32.indices


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_awkward_matrices_and_their_gradients_match_the_reference(fmt):
    m = _awkward_csr() if fmt == "csr" else sp.csc_matrix(_awkward_csr())
    x = SparseTensorType(fmt, "float64")("x")
    v, u, d = tt.dvector("v"), tt.dvector("u"), tt.dmatrix("d")
    cost = (tt.tanh(S.dot(x, v)) * u).sum() + (S.dot(x, d) ** 2).sum()
    outs = [S.dot(x, v), S.dot(x, d), S.sp_sum(x, axis=0), S.dense_from_sparse(x), x * 2.0,
            cost, *theon.grad(cost, [v, d])]
    args = (m, RNG.normal(size=4), RNG.normal(size=5), RNG.normal(size=(4, 3)))
    assert_same(*both([x, v, u, d], outs, *args))


def test_a_matrix_changed_in_place_between_calls_is_read_anew():
    x, v = S.csr_matrix("x", dtype="float64"), tt.dvector("v")
    f = theon.function([x, v], S.dot(x, v), mode="JAX")
    m = _awkward_csr()
    vv = np.arange(4.0)
    first = f(m, vv).copy()
    m.data *= 2.0
    m.indices[:] = m.indices[::-1]
    want = m.toarray() @ vv
    np.testing.assert_allclose(f(m, vv), want)
    assert not np.allclose(first, want)


def test_the_rows_of_a_pattern_are_reused_only_while_indptr_is_the_same():
    """The row of each entry is kept for the last patterns: the same ``indptr`` (equal
    values) reuses it, a pattern changed in place or a new one gets its own."""
    from theon.backends.jax.sparse import to_jax

    m = _awkward_csr()
    first = to_jax(m).rows
    assert to_jax(m.copy()).rows is first  # equal indptr, another array
    assert not first.flags.writeable
    x, v = S.csr_matrix("x", dtype="float64"), tt.dvector("v")
    f = theon.function([x, v], S.dot(x, v), mode="JAX")
    vv = np.arange(4.0)
    np.testing.assert_allclose(f(m, vv), m.toarray() @ vv)
    # the same nnz, the entries moved to other rows: indptr changed in place
    m.indptr[1:-1] = np.minimum(m.indptr[1:-1] + 1, m.indptr[-1])
    rows = to_jax(m).rows
    want = [i for i in range(len(m.indptr) - 1) for _ in range(m.indptr[i], m.indptr[i + 1])]
    assert rows.tolist() == want and rows is not first
    np.testing.assert_allclose(f(m, vv), m.toarray() @ vv)


def test_first_conversions_from_several_threads_register_the_layout_once():
    """jax refuses a second pytree registration: threads converting their first sparse
    matrix at once must not both register (a fresh process, so nothing is registered)."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import threading, numpy as np, scipy.sparse as sp
        from theon.backends.jax.sparse import to_jax
        m = sp.csr_matrix(np.eye(3))
        barrier, errors = threading.Barrier(8), []
        def run():
            barrier.wait()
            try:
                to_jax(m)
            except Exception as e:
                errors.append(repr(e))
        ts = [threading.Thread(target=run) for _ in range(8)]
        [t.start() for t in ts]
        [t.join() for t in ts]
        print(errors)
    """)
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr[-2000:]
    assert res.stdout.strip().splitlines()[-1] == "[]", res.stdout
