"""``SparseTensorType``: the type of ``scipy.sparse`` CSR/CSC matrices, and its variables.

A sparse variable holds a 2-d ``scipy.sparse`` matrix of one format (``'csr'`` or
``'csc'``) and one dtype.  The filter converts another sparse format or a safe
dtype, and refuses dense values: a NumPy array passed for a sparse input is
almost always a mistake that would silently cost memory.

>>> import scipy.sparse as sp
>>> t = SparseTensorType("csr", "float64")
>>> m = t.filter(sp.csc_matrix([[0.0, 1.0], [2.0, 0.0]]))
>>> m.format, m.nnz
('csr', 2)
"""

from __future__ import annotations

import importlib
from typing import Any, TypeAlias, TypeGuard

import numpy as np
import scipy.sparse as sp

from theon.graph.basic import Constant, Variable, caller_trace
from theon.graph.type import Type

__all__ = [
    "SparseConstant",
    "SparseTensorType",
    "SparseVar",
    "SparseVariable",
    "as_sparse_or_tensor_variable",
    "as_sparse_variable",
    "as_sparse",
    "csc_dmatrix",
    "csc_fmatrix",
    "csc_matrix",
    "csr_dmatrix",
    "csr_fmatrix",
    "csr_matrix",
    "is_sparse_variable",
    "matrix",
]

#: the formats a SparseTensorType may have
FORMATS = ("csr", "csc")
#: the dtypes a SparseTensorType may have (what scipy.sparse computes in)
DTYPES = (
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128",
)


def _basic() -> Any:
    """``theon.sparse.basic``, imported on first use (it imports this module)."""
    return importlib.import_module("theon.sparse.basic")


def _describe_value(x: Any) -> str:
    shape = getattr(x, "shape", None)
    dtype = getattr(x, "dtype", None)
    extra = f" of shape {tuple(shape)}" if shape is not None else ""
    extra += f" and dtype {dtype}" if dtype is not None else ""
    return f"{type(x).__module__}.{type(x).__name__}{extra}"


class SparseTensorType(Type):
    """The type of 2-d ``scipy.sparse`` matrices of one format and dtype.

    Parameters
    ----------
    format
        ``'csr'`` (compressed rows) or ``'csc'`` (compressed columns).
    dtype
        The dtype of the stored entries.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> t = SparseTensorType("csc", "float32")
    >>> t
    SparseTensorType(format='csc', dtype='float32')
    >>> t.filter(sp.csr_matrix(np.eye(2, dtype="float32"))).format
    'csc'
    """

    __props__ = ("format", "dtype")
    ndim = 2

    def __init__(self, format: str, dtype: Any = "float64") -> None:
        if format not in FORMATS:
            raise ValueError(f"SparseTensorType: format must be one of {FORMATS}, not {format!r}")
        dt = str(np.dtype(dtype))
        if dt not in DTYPES:
            raise TypeError(f"SparseTensorType: unsupported dtype {dt!r} (one of {DTYPES})")
        self.format = format
        self.dtype = dt

    @property
    def broadcastable(self) -> tuple[bool, bool]:
        """A sparse matrix never broadcasts (Theano's attribute)."""
        return (False, False)

    def __str__(self) -> str:
        return f"SparseTensorType(format={self.format!r}, dtype={self.dtype!r})"

    # values ------------------------------------------------------------------
    def filter(self, x: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        """``x`` as a canonical ``scipy.sparse`` matrix of this format and dtype.

        Another sparse format is converted and a dtype upcast safely (unless
        ``strict``); a lossy dtype change needs ``allow_downcast``.  Dense values
        (arrays, lists, numbers) are refused: convert them with
        ``scipy.sparse.csr_matrix(x)`` first.  A matrix with duplicate or unsorted
        entries is returned as a canonical copy (the caller's matrix is left alone).
        """
        if not sp.issparse(x):
            raise TypeError(
                f"expected a scipy.sparse matrix for {self}, got a dense value "
                f"{_describe_value(x)}; convert it first, e.g. scipy.sparse."
                f"{self.format}_matrix(value), or use a dense input with "
                "theon.sparse.csr_from_dense"
            )
        if x.ndim != 2:
            raise TypeError(f"expected a 2-d sparse matrix for {self}, got {x.ndim}-d")
        if strict:
            if x.format != self.format or str(x.dtype) != self.dtype:
                raise TypeError(
                    f"expected a {self.format} matrix of dtype {self.dtype} for {self} "
                    f"(strict), got a {x.format} matrix of dtype {x.dtype}"
                )
            return x
        if str(x.dtype) != self.dtype:
            if not (np.can_cast(x.dtype, self.dtype, "safe") or allow_downcast):
                raise TypeError(
                    f"a sparse matrix of dtype {x.dtype} cannot be converted to {self} "
                    "without loss; pass allow_downcast=True or cast it first"
                )
            x = x.astype(self.dtype)
        if x.format != self.format or not isinstance(x, sp.spmatrix):
            x = getattr(sp, f"{self.format}_matrix")(x)
        if not x.has_canonical_format:
            x = x.copy()
            x.sum_duplicates()
        return x

    def is_valid_value(self, x: Any) -> bool:
        return bool(sp.issparse(x) and x.format == self.format and str(x.dtype) == self.dtype)

    def values_eq(self, a: Any, b: Any) -> bool:
        """Equal shapes and entries (explicit zeros equal missing ones)."""
        if not (sp.issparse(a) and sp.issparse(b)) or a.shape != b.shape:
            return False
        diff = abs(a - b)
        return bool(diff.nnz == 0 or diff.max() == 0)

    def values_eq_approx(self, a: Any, b: Any) -> bool:
        if not (sp.issparse(a) and sp.issparse(b)) or a.shape != b.shape:
            return False
        diff = abs(a - b)
        if diff.nnz == 0:
            return True
        tol = 1e-4 if self.dtype in ("float32", "complex64") else 1e-8
        scale = max(abs(a).max(), abs(b).max(), 1.0)
        return bool(diff.max() <= tol * scale)

    def constant_signature(self, data: Any) -> Any:
        d = data.tocsr()
        return (
            "sparse", self.format, self.dtype, d.shape,
            d.data.tobytes(), d.indices.tobytes(), d.indptr.tobytes(),
        )

    def filled_like(self, v: Variable, value: float) -> SparseVariable:
        """The gradient walk's zeros/ones like ``v``: ``value`` at ``v``'s stored
        entries (a structured constant, as Theano's ``sp_ones_like``)."""
        b = _basic()
        ones: SparseVariable = b.sp_ones_like(v)
        return ones if value == 1.0 else b.mul(ones, np.asarray(value, dtype=self.dtype))

    # variables ------------------------------------------------------------------
    def make_variable(self, name: str | None = None) -> SparseVariable:
        """A new SparseVariable of this type."""
        return SparseVariable(self, None, None, name)

    def __call__(self, name: str | None = None) -> SparseVariable:
        """A new SparseVariable of this type; a named one made by the user's code
        records where (``tag.trace``), as :meth:`Type.__call__` does."""
        var = SparseVariable(self, None, None, name)
        if name is not None:
            trace = caller_trace()
            if trace is not None:
                var.tag.trace = trace
        return var

    def make_constant(self, value: Any, name: str | None = None) -> SparseConstant:
        """A SparseConstant of this type holding ``value``."""
        return SparseConstant(self, value, name=name)


class _sparse_py_operators:
    """Operators and attributes of sparse variables (``+``, ``*``, ``@``, ``.T``, ...)."""

    __slots__ = ()
    # NumPy defers to the reflected operators below (ndarray + x)
    __array_ufunc__ = None
    #: a tensor variable's operator returns NotImplemented for such an operand, so
    #: ``dense + sparse`` reaches ``SparseVariable.__radd__``
    _theon_defers_tensor_operators = True

    type: Any

    @property
    def format(self) -> str:
        """``'csr'`` or ``'csc'``."""
        return str(self.type.format)

    @property
    def dtype(self) -> str:
        return str(self.type.dtype)

    @property
    def ndim(self) -> int:
        return 2

    @property
    def broadcastable(self) -> tuple[bool, bool]:
        return (False, False)

    @property
    def shape(self) -> Any:
        """The symbolic shape: an int64 vector of length 2."""
        return _basic().sp_shape(self)

    @property
    def T(self) -> Any:
        return _basic().transpose(self)

    def transpose(self) -> Any:
        return _basic().transpose(self)

    def toarray(self) -> Any:
        """The dense matrix (``dense_from_sparse``)."""
        return _basic().dense_from_sparse(self)

    todense = toarray

    def astype(self, dtype: Any) -> Any:
        return _basic().cast(self, dtype)

    def sum(self, axis: int | None = None, sparse_grad: bool = False) -> Any:
        return _basic().sp_sum(self, axis, sparse_grad)

    def dot(self, other: Any) -> Any:
        return _basic().dot(self, other)

    def zeros_like(self) -> Any:
        return self.type.filled_like(self, 0.0)

    def __neg__(self) -> Any:
        return _basic().neg(self)

    def __pos__(self) -> Any:
        return self

    def __add__(self, other: Any) -> Any:
        return _basic().add(self, other)

    def __radd__(self, other: Any) -> Any:
        return _basic().add(other, self)

    def __sub__(self, other: Any) -> Any:
        return _basic().sub(self, other)

    def __rsub__(self, other: Any) -> Any:
        return _basic().sub(other, self)

    def __mul__(self, other: Any) -> Any:
        return _basic().mul(self, other)

    def __rmul__(self, other: Any) -> Any:
        return _basic().mul(other, self)

    def __matmul__(self, other: Any) -> Any:
        return _basic().dot(self, other)

    def __rmatmul__(self, other: Any) -> Any:
        return _basic().dot(other, self)

    def __bool__(self) -> bool:
        return True

    def __len__(self) -> int:
        raise TypeError(f"len() of sparse variable {self} is unknown; use x.shape[0]")

    def __iter__(self) -> Any:
        raise TypeError(f"sparse variable {self} cannot be iterated")


class SparseVariable(_sparse_py_operators, Variable):
    """A symbolic ``scipy.sparse`` matrix.

    >>> x = csr_matrix("x")
    >>> (x.format, x.dtype, x.ndim, x.T.format)
    ('csr', 'float64', 2, 'csc')
    """

    __slots__ = ()
    type: SparseTensorType


class SparseConstant(_sparse_py_operators, Constant):
    """A Constant holding a private copy of a ``scipy.sparse`` matrix.

    >>> import scipy.sparse as sp
    >>> c = as_sparse_variable(sp.eye(2, format="csr"))
    >>> str(c)
    'SparseConstant{csr, float64, shape=(2, 2), nnz=2}'
    """

    __slots__ = ()
    type: SparseTensorType

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        d = self.data
        return f"SparseConstant{{{d.format}, {d.dtype}, shape={d.shape}, nnz={d.nnz}}}"


#: a sparse variable or constant: what :func:`as_sparse_variable` gives (both read
#: ``.format``, ``.dtype`` and ``.type``, a :class:`SparseTensorType`)
SparseVar: TypeAlias = SparseVariable | SparseConstant


def is_sparse_variable(x: Any) -> TypeGuard[SparseVar]:
    """Whether ``x`` is a Variable of a :class:`SparseTensorType`.

    >>> is_sparse_variable(csc_matrix("x")), is_sparse_variable(3)
    (True, False)
    """
    return isinstance(x, Variable) and isinstance(x.type, SparseTensorType)


def as_sparse_variable(x: Any, name: str | None = None) -> SparseVar:
    """``x`` as a sparse Variable: sparse variables pass, scipy.sparse matrices
    become constants (CSC stays CSC, every other format becomes CSR).

    >>> import scipy.sparse as sp
    >>> as_sparse_variable(sp.coo_matrix([[1.0, 0.0]])).type
    SparseTensorType(format='csr', dtype='float64')
    """
    if is_sparse_variable(x):
        return x
    if isinstance(x, Variable):
        raise TypeError(
            f"cannot use variable {x} of type {x.type} as a sparse matrix; convert a dense "
            "one with theon.sparse.csr_from_dense"
        )
    if not sp.issparse(x):
        raise TypeError(
            f"as_sparse_variable needs a scipy.sparse matrix or a sparse variable, got "
            f"{_describe_value(x)}"
        )
    fmt = "csc" if x.format == "csc" else "csr"
    t = SparseTensorType(fmt, x.dtype)
    return t.make_constant(t.filter(x).copy(), name=name)


as_sparse = as_sparse_variable


def as_sparse_or_tensor_variable(x: Any, name: str | None = None) -> Variable:
    """``x`` as a Variable: variables pass, scipy.sparse matrices become sparse constants
    and everything else (numbers, arrays, lists) tensor constants (PyTensor's function).

    >>> import numpy as np, scipy.sparse as sp
    >>> as_sparse_or_tensor_variable(sp.eye(2, format="csr")).type
    SparseTensorType(format='csr', dtype='float64')
    >>> as_sparse_or_tensor_variable(np.eye(2)).type
    TensorType(float64, shape=(2, 2))
    """
    if isinstance(x, Variable):
        return x
    if sp.issparse(x):
        return as_sparse_variable(x, name=name)
    from theon.tensor.basic import as_tensor_variable

    return as_tensor_variable(x, name=name)


def matrix(format: str, name: str | None = None, dtype: Any = None) -> SparseVariable:
    """A sparse matrix variable of ``format`` (``dtype`` defaults to ``config.floatX``).

    >>> matrix("csc", "m", "float32").type
    SparseTensorType(format='csc', dtype='float32')
    """
    if dtype is None:
        from theon.config import config

        dtype = config.floatX
    return SparseTensorType(format, dtype)(name)


def csr_matrix(name: str | None = None, dtype: Any = None) -> SparseVariable:
    """A CSR matrix variable (Theano's ``theano.sparse.csr_matrix``).

    >>> csr_matrix("x", "float32").type
    SparseTensorType(format='csr', dtype='float32')
    """
    return matrix("csr", name, dtype)


def csc_matrix(name: str | None = None, dtype: Any = None) -> SparseVariable:
    """A CSC matrix variable (Theano's ``theano.sparse.csc_matrix``).

    >>> csc_matrix("x").format
    'csc'
    """
    return matrix("csc", name, dtype)


SparseTensorType.variable_type = SparseVariable
SparseTensorType.constant_type = SparseConstant

csr_dmatrix = SparseTensorType("csr", "float64")
csr_fmatrix = SparseTensorType("csr", "float32")
csc_dmatrix = SparseTensorType("csc", "float64")
csc_fmatrix = SparseTensorType("csc", "float32")
