"""Theano's sparse tutorial, with ``theano`` read as ``theon``."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

import theon
from theon import sparse


def test_conversions_and_properties_tutorial() -> None:
    x = sparse.csc_matrix(name="x", dtype="float32")
    y = sparse.dense_from_sparse(x)
    z = sparse.csc_from_dense(y)
    assert z.type == x.type
    data, indices, indptr, shape = sparse.csm_properties(x)
    y2 = sparse.CSR(data, indices, indptr, shape)  # CSC arrays read as CSR: the transpose
    f = theon.function([x], y2)
    a = sp.csc_matrix(np.asarray([[0, 1, 1], [0, 0, 0], [1, 0, 0]], dtype="float32"))
    got = f(a)
    assert got.format == "csr" and got.dtype == np.float32
    np.testing.assert_array_equal(got.toarray(), a.toarray().T)


def test_structured_ops_tutorial() -> None:
    x = sparse.csc_matrix(name="x", dtype="float32")
    y = sparse.structured_add(x, 2)
    f = theon.function([x], y)
    a = sp.csc_matrix(np.asarray([[0, 0, -1], [0, -2, 1], [3, 0, 0]], dtype="float32"))
    got = f(a)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got.toarray(), [[0, 0, 1], [0, 0, 3], [5, 0, 0]])


def test_gradient_tutorial() -> None:
    # structured_dot's gradient keeps x's pattern; dot's does not
    x = sparse.csr_matrix(name="x")
    w = theon.tensor.dmatrix("w")
    a = sp.csr_matrix(np.asarray([[0.0, 2.0], [0.0, 0.0], [1.0, 0.0]]))
    wv = np.ones((2, 3))
    gs = theon.function([x, w], theon.grad(sparse.structured_dot(x, w).sum(), x))(a, wv)
    gd = theon.function([x, w], theon.grad(sparse.dot(x, w).sum(), x))(a, wv)
    assert gs.nnz == a.nnz and gd.nnz == 6
    np.testing.assert_array_equal(gs.toarray(), [[0.0, 3.0], [0.0, 0.0], [3.0, 0.0]])
    np.testing.assert_array_equal(gd.toarray(), np.full((3, 2), 3.0))
