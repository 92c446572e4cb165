"""SparseTensorType: the filter, the variables' operators, constants, the lazy import."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import theon
import theon.sparse as S
import theon.tensor as tt
from theon.graph.op import Op
from theon.graph.type import Type

from .helpers import rand_sparse


def test_type_identity_and_props() -> None:
    assert S.SparseTensorType("csr", "float64") == S.csr_matrix().type
    assert S.SparseTensorType("csr", "float64") != S.SparseTensorType("csc", "float64")
    assert S.SparseTensorType("csr", "float32") != S.SparseTensorType("csr", "float64")
    assert hash(S.SparseTensorType("csc", "float32")) == hash(S.csc_fmatrix)
    with pytest.raises(ValueError, match="format"):
        S.SparseTensorType("coo", "float64")
    with pytest.raises(TypeError, match="dtype"):
        S.SparseTensorType("csr", "bool")


def test_seed003_sparse_type_and_dot_op() -> None:
    # the glossary lists "Sparse - for scipy.sparse" among Type subclasses, and the
    # sparse Dot among Op subclasses
    assert issubclass(S.Sparse, Type) and issubclass(S.Dot, Op)
    assert S.basic.Sparse is S.SparseTensorType


def test_filter_converts_format_and_upcasts() -> None:
    t = S.SparseTensorType("csr", "float64")
    m = rand_sparse((4, 3), 0.5, "csc", "float32")
    got = t.filter(m)
    assert got.format == "csr" and got.dtype == np.float64
    np.testing.assert_array_equal(got.toarray(), m.toarray())
    # coo and sparse arrays are converted too
    assert t.filter(sp.coo_matrix(m)).format == "csr"
    assert t.filter(sp.csr_array(m.toarray())).format == "csr"
    # same format and dtype: the value itself
    same = rand_sparse((4, 3), 0.5, "csr")
    assert t.filter(same) is same


def test_filter_strict_and_downcast() -> None:
    t = S.SparseTensorType("csr", "float32")
    m64 = rand_sparse((3, 3), 0.5, "csr", "float64")
    with pytest.raises(TypeError, match="without loss"):
        t.filter(m64)
    assert t.filter(m64, allow_downcast=True).dtype == np.float32
    with pytest.raises(TypeError, match="strict"):
        t.filter(rand_sparse((3, 3), 0.5, "csc", "float32"), strict=True)


def test_filter_refuses_dense_values() -> None:
    t = S.SparseTensorType("csr", "float64")
    for bad in (np.zeros((2, 2)), [[1.0, 0.0]], 3.0):
        with pytest.raises(TypeError, match="dense value"):
            t.filter(bad)
    assert not t.is_valid_value(np.zeros((2, 2)))


def test_function_names_the_refused_input() -> None:
    x = S.csr_matrix("design")
    f = theon.function([x], S.sp_sum(x))
    with pytest.raises(TypeError, match=r"argument 0 \(design\).*scipy.sparse") as exc:
        f(np.eye(3))
    assert "csr_matrix" in str(exc.value)


def test_filter_makes_canonical_copy() -> None:
    # duplicate entries: the structured functions must see them summed
    m = sp.csr_matrix((np.array([1.0, 2.0]), np.array([1, 1]), np.array([0, 2, 2])),
                      shape=(2, 3))
    assert not m.has_canonical_format
    got = S.csr_dmatrix.filter(m)
    assert got is not m and got.has_canonical_format and got.nnz == 1
    assert got.data.tolist() == [3.0]
    assert m.data.tolist() == [1.0, 2.0]  # the caller's matrix is untouched
    x = S.csr_matrix("x")
    out = theon.function([x], S.structured_exp(x))(m)
    np.testing.assert_allclose(out.toarray()[0, 1], np.exp(3.0))


def test_values_eq() -> None:
    t = S.csr_dmatrix
    a = rand_sparse((3, 4), 0.5)
    b = a.copy()
    assert t.values_eq(a, b) and t.values_eq_approx(a, b)
    b.data[0] += 1e-12
    assert not t.values_eq(a, b) and t.values_eq_approx(a, b)
    assert not t.values_eq(a, rand_sparse((4, 3), 0.5))


def test_variable_attributes_and_operators() -> None:
    x, y = S.csr_matrix("x"), S.csc_matrix("y")
    d = tt.dmatrix("d")
    assert (x.format, x.dtype, x.ndim, x.T.format) == ("csr", "float64", 2, "csc")
    assert isinstance(x + y, S.SparseVariable) and (x + y).format == "csr"
    assert isinstance(x + d, tt.TensorVariable) and isinstance(d + x, tt.TensorVariable)
    assert isinstance(x * d, S.SparseVariable) and isinstance(d * x, S.SparseVariable)
    assert isinstance(x - d, tt.TensorVariable) and isinstance(d - x, tt.TensorVariable)
    assert isinstance(x @ d, tt.TensorVariable) and isinstance(d @ x, tt.TensorVariable)
    assert isinstance(-x, S.SparseVariable)
    assert isinstance(x.toarray(), tt.TensorVariable)
    assert x.shape.type.shape == (2,)
    m = rand_sparse((3, 2), 0.6)
    np.testing.assert_array_equal(x.shape.eval({x: m}), [3, 2])
    assert int(x.shape[0].eval({x: m})) == 3


def test_numpy_array_on_the_left_defers() -> None:
    x = S.csr_matrix("x")
    m = rand_sparse((2, 2), 0.6, seed=3)
    dense = np.array([[1.0, 2.0], [3.0, 4.0]])
    out = dense + x
    assert isinstance(out, tt.TensorVariable)
    np.testing.assert_allclose(out.eval({x: m}), dense + m.toarray())
    prod = dense * x
    np.testing.assert_allclose(prod.eval({x: m}).toarray(), dense * m.toarray())


def test_constants() -> None:
    m = rand_sparse((3, 3), 0.5, "csc")
    c = S.as_sparse_variable(m)
    assert isinstance(c, S.SparseConstant) and c.type == S.csc_dmatrix
    assert c.data is not m  # a private copy
    m.data[:] = 99.0
    assert not np.any(c.data.data == 99.0)
    assert S.as_sparse_variable(sp.coo_matrix(m)).type.format == "csr"
    # equal constants merge (equal signatures)
    c1, c2 = S.as_sparse_variable(rand_sparse((3, 3), 0.5)), S.as_sparse_variable(
        rand_sparse((3, 3), 0.5))
    assert c1.signature() == c2.signature()
    x = S.csr_matrix("x")
    out = theon.function([x], S.dense_from_sparse(x + c1))(rand_sparse((3, 3), 0.2, seed=5))
    np.testing.assert_allclose(out, rand_sparse((3, 3), 0.2, seed=5).toarray()
                               + rand_sparse((3, 3), 0.5).toarray())
    with pytest.raises(TypeError, match="scipy.sparse"):
        S.as_sparse_variable(np.eye(2))
    with pytest.raises(TypeError, match="not sparse|as a sparse matrix"):
        S.as_sparse_variable(tt.dmatrix("d"))


def test_constructors() -> None:
    assert S.csr_matrix("a", "float32").type == S.csr_fmatrix
    assert S.csc_matrix("b").name == "b"
    assert S.matrix("csc", dtype="float64").type == S.csc_dmatrix
    assert S.basic.csr_matrix is S.csr_matrix  # Theano's module path


def test_import_theon_does_not_load_scipy_sparse() -> None:
    code = (
        "import sys, theon, theon.tensor as tt\n"
        "x = tt.dvector('x'); theon.function([x], x * 2)([1.0])\n"
        "assert 'scipy.sparse' not in sys.modules, 'scipy.sparse loaded'\n"
        "import theon.sparse\n"
        "assert theon.sparse.csr_matrix('x').format == 'csr'\n"
        "assert theon.__getattr__('sparse') is theon.sparse\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=str(__import__("pathlib").Path(theon.__file__).parent.parent))
    assert res.returncode == 0, res.stderr


def test_as_sparse_or_tensor_variable() -> None:
    """PyTensor's conversion (PyMC's CAR takes a scipy.sparse or a dense W)."""
    import theon.sparse as S

    w = sp.csr_matrix(np.array([[0.0, 1.0], [1.0, 0.0]]))
    v = S.as_sparse_or_tensor_variable(w, name="W")
    assert S.is_sparse_variable(v) and v.name == "W"
    np.testing.assert_array_equal(v.data.toarray(), w.toarray())
    d = S.as_sparse_or_tensor_variable(np.eye(2))
    assert isinstance(d, tt.TensorConstant) and d.type.shape == (2, 2)
    x = S.csc_matrix("x")
    assert S.as_sparse_or_tensor_variable(x) is x
    m = tt.dmatrix("m")
    assert S.as_sparse_or_tensor_variable(m) is m
