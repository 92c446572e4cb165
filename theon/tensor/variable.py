"""``TensorVariable`` and ``TensorConstant``: symbolic arrays with NumPy's operators and methods.

Operators build graph nodes; Python numbers are wrapped as constants with
NumPy 2's "weak scalar" rules, so a float32 graph stays float32.

>>> import theon.tensor as tt
>>> x = tt.fvector("x")
>>> (x * 2.0 + 1).dtype
'float32'
>>> (x.sum(axis=0)).ndim
0
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any

import numpy as np

from theon.graph.basic import Constant, Variable

__all__ = ["TensorConstant", "TensorValue", "TensorVariable"]

_modules: dict[str, ModuleType] = {}


def _mod(name: str) -> Any:
    """A theon.tensor submodule, imported on first use (breaks import cycles)."""
    m = _modules.get(name)
    if m is None:
        m = importlib.import_module("theon.tensor." + name)
        _modules[name] = m
    return m


def _m() -> Any:
    return _mod("math")


def _no_out(out: Any, what: str) -> None:
    """NumPy's functions (``np.sum(x)``) call the method with ``out=None``; an array for
    ``out`` cannot hold a symbolic result."""
    if out is not None:
        raise TypeError(f"{what}: out= is not supported for symbolic variables")


def _numpy_caller() -> str | None:
    """The name of the NumPy Python function converting its arguments, if one is."""
    frame = sys._getframe(2)  # the caller of __array__
    name = None
    while frame is not None and frame.f_globals.get("__name__", "").startswith("numpy."):
        name = frame.f_code.co_name
        frame = frame.f_back  # type: ignore[assignment]
    if name is not None and name.startswith("_"):  # a helper: report the public function
        return name.lstrip("_") or None
    return name


def _axes_args(axes: tuple[Any, ...]) -> Any:
    """``transpose(1, 0)``, ``transpose((1, 0))`` and ``transpose(np.array([1, 0]))`` all
    give the axes; none gives None."""
    if len(axes) == 0:
        return None
    if len(axes) == 1 and (axes[0] is None or _is_sequence(axes[0])):
        return axes[0]
    return axes


def _is_sequence(v: Any) -> bool:
    """A list, tuple or array of more than zero dimensions (not one integer)."""
    return isinstance(v, (list, tuple)) or (isinstance(v, np.ndarray) and v.ndim > 0)


class _tensor_py_operators:
    """Operators, attributes and NumPy-style methods shared by tensor variables and constants."""

    __slots__ = ()
    # NumPy defers to our reflected operators (ndarray + x), and its ufuncs
    # dispatch to theon's through __array_ufunc__.
    __array_priority__ = 1000

    type: Any

    # Python protocol ------------------------------------------------------------
    def __bool__(self) -> bool:
        """A variable is true (``if not input:`` tests for ``None``, as Theano code does),
        except a boolean one: a comparison has no truth value before it is computed
        (``if x > 0:``, ``a < b < c``), as in Theano and PyTensor."""
        if self.type.dtype != "bool":
            return True
        raise TypeError(
            f"symbolic variable {self} has no truth value: it stands for an array computed "
            "later; choose elementwise with theon.tensor.switch(cond, a, b) (or "
            "theon.tensor.where), or compute only one branch with "
            "theon.ifelse.ifelse(cond, a, b)"
        )

    def __len__(self) -> int:
        shape = self.type.shape
        if shape and shape[0] is not None:
            return int(shape[0])  # a static length, e.g. of x.shape
        raise TypeError(
            f"len() of symbolic variable {self} is unknown at graph-building time; "
            "use x.shape[0] for a symbolic length"
        )

    def __iter__(self) -> Any:
        shape = self.type.shape
        if shape and shape[0] is not None:
            # ``n, m = x.shape``: the length is static, so unpacking is well defined
            return iter([self[i] for i in range(shape[0])])
        raise TypeError(
            f"symbolic variable {self} cannot be iterated: its length is not known while "
            "building the graph; index it (x[i]), or loop over it with "
            "theon.scan(fn, sequences=x)"
        )

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        caller = _numpy_caller()
        if caller is not None and self.type.ndim == 0 and dtype in (None, object):
            # ``np.prod([x.shape[0], 3])``: a NumPy function turning a list into an array.
            # As in Theano, a symbolic scalar becomes an object element, so the function
            # computes with theon's operators and returns a symbolic result.
            box = np.empty((), dtype=object)
            box[()] = self
            return box
        where = f" by numpy.{caller}" if caller else ""
        raise TypeError(
            f"symbolic variable {self} cannot be converted to a NumPy array{where}; use the "
            "theon.tensor function of the same name, compile it with theon.function or "
            "call .eval() to get its value"
        )

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        if method != "__call__" or kwargs:
            return NotImplemented
        fn = getattr(_m(), "_UFUNC_TO_OP", {}).get(ufunc.__name__)
        if fn is None:
            return NotImplemented
        return fn(*inputs)

    # arithmetic ---------------------------------------------------------------
    def __neg__(self) -> Any:
        return _m().neg(self)

    def __pos__(self) -> Any:
        return self

    def __abs__(self) -> Any:
        return _m().abs(self)

    def __invert__(self) -> Any:
        return _m().invert(self)

    def __add__(self, other: Any) -> Any:
        if getattr(other, "_theon_defers_tensor_operators", False):
            return NotImplemented  # e.g. a sparse variable: its reflected operator decides
        return _m().add(self, other)

    def __radd__(self, other: Any) -> Any:
        return _m().add(other, self)

    def __sub__(self, other: Any) -> Any:
        if getattr(other, "_theon_defers_tensor_operators", False):
            return NotImplemented  # e.g. a sparse variable: its reflected operator decides
        return _m().sub(self, other)

    def __rsub__(self, other: Any) -> Any:
        return _m().sub(other, self)

    def __mul__(self, other: Any) -> Any:
        if getattr(other, "_theon_defers_tensor_operators", False):
            return NotImplemented  # e.g. a sparse variable: its reflected operator decides
        return _m().mul(self, other)

    def __rmul__(self, other: Any) -> Any:
        return _m().mul(other, self)

    def __truediv__(self, other: Any) -> Any:
        return _m().true_div(self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return _m().true_div(other, self)

    def __floordiv__(self, other: Any) -> Any:
        return _m().floor_div(self, other)

    def __rfloordiv__(self, other: Any) -> Any:
        return _m().floor_div(other, self)

    def __mod__(self, other: Any) -> Any:
        return _m().mod(self, other)

    def __rmod__(self, other: Any) -> Any:
        return _m().mod(other, self)

    def __divmod__(self, other: Any) -> Any:
        return _m().floor_div(self, other), _m().mod(self, other)

    def __rdivmod__(self, other: Any) -> Any:
        return _m().floor_div(other, self), _m().mod(other, self)

    def __pow__(self, other: Any) -> Any:
        return _m().pow(self, other)

    def __rpow__(self, other: Any) -> Any:
        return _m().pow(other, self)

    def __matmul__(self, other: Any) -> Any:
        if getattr(other, "_theon_defers_tensor_operators", False):
            return NotImplemented  # e.g. a sparse variable: its reflected operator decides
        return _m().matmul(self, other)

    def __rmatmul__(self, other: Any) -> Any:
        return _m().matmul(other, self)

    # comparisons (== and != keep identity semantics: variables are graph nodes) ------
    def __lt__(self, other: Any) -> Any:
        return _m().lt(self, other)

    def __le__(self, other: Any) -> Any:
        return _m().le(self, other)

    def __gt__(self, other: Any) -> Any:
        return _m().gt(self, other)

    def __ge__(self, other: Any) -> Any:
        return _m().ge(self, other)

    # bitwise -------------------------------------------------------------------
    def __and__(self, other: Any) -> Any:
        return _m().and_(self, other)

    def __rand__(self, other: Any) -> Any:
        return _m().and_(other, self)

    def __or__(self, other: Any) -> Any:
        return _m().or_(self, other)

    def __ror__(self, other: Any) -> Any:
        return _m().or_(other, self)

    def __xor__(self, other: Any) -> Any:
        return _m().xor(self, other)

    def __rxor__(self, other: Any) -> Any:
        return _m().xor(other, self)

    def __lshift__(self, other: Any) -> Any:
        return _m().left_shift(self, other)

    def __rlshift__(self, other: Any) -> Any:
        return _m().left_shift(other, self)

    def __rshift__(self, other: Any) -> Any:
        return _m().right_shift(self, other)

    def __rrshift__(self, other: Any) -> Any:
        return _m().right_shift(other, self)

    # indexing ----------------------------------------------------------------------
    def __getitem__(self, key: Any) -> Any:
        return _mod("subtensor").getitem(self, key)

    def __setitem__(self, key: Any, value: Any) -> None:
        raise TypeError(
            f"symbolic variable {self} does not support item assignment; use "
            "theon.tensor.set_subtensor(x[idx], value) or inc_subtensor, which return a new "
            "variable"
        )

    # attributes ----------------------------------------------------------------------
    @property
    def ndim(self) -> int:
        """Number of dimensions."""
        return int(self.type.ndim)

    @property
    def dtype(self) -> str:
        """The dtype name, e.g. ``'float64'``."""
        return str(self.type.dtype)

    @property
    def broadcastable(self) -> tuple[bool, ...]:
        """One flag per dimension: whether its static length is 1."""
        return tuple(self.type.broadcastable)

    @property
    def shape(self) -> Any:
        """The symbolic shape (an int64 vector)."""
        return _mod("shape").shape(self)

    @property
    def size(self) -> Any:
        """The symbolic number of elements."""
        return _m().prod(self.shape)

    @property
    def T(self) -> Any:
        """The transpose (all axes reversed)."""
        return self.transpose()

    @property
    def real(self) -> Any:
        """The real part."""
        return _m().real(self)

    @property
    def imag(self) -> Any:
        """The imaginary part."""
        return _m().imag(self)

    # shape methods ---------------------------------------------------------------------
    def dimshuffle(self, *pattern: Any) -> Any:
        """Reorder, drop (length-1) or insert (``'x'``) dimensions.

        >>> import theon.tensor as tt
        >>> tt.dvector("v").dimshuffle("x", 0).type
        TensorType(float64, shape=(1, None))
        """
        from theon.tensor.elemwise import DimShuffle

        if len(pattern) == 1 and _is_sequence(pattern[0]):
            pattern = tuple(pattern[0])
        return DimShuffle(self.ndim, pattern)(self)

    def transpose(self, *axes: Any) -> Any:
        """Permute the axes (reverse them by default)."""
        return _mod("shape").transpose(self, _axes_args(axes))

    def reshape(self, *shape: Any, ndim: int | None = None) -> Any:
        """Array of the same data with a new shape (one entry may be -1)."""
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = shape[0]
        return _mod("shape").reshape(self, shape, ndim=ndim)

    def flatten(self, ndim: int = 1) -> Any:
        """Collapse the trailing dimensions so the result has ``ndim`` dimensions."""
        return _mod("shape").flatten(self, ndim)

    def ravel(self) -> Any:
        """The data as a vector."""
        return _mod("shape").flatten(self, 1)

    def squeeze(self, axis: Any = None) -> Any:
        """Drop length-1 dimensions (all broadcastable ones by default)."""
        return _mod("shape").squeeze(self, axis)

    def swapaxes(self, axis1: int, axis2: int) -> Any:
        """Exchange two axes."""
        order = list(range(self.ndim))
        order[axis1], order[axis2] = order[axis2], order[axis1]
        return self.transpose(order)

    # dtype and copies ----------------------------------------------------------------
    def astype(self, dtype: Any) -> Any:
        """Cast to ``dtype`` (no node when the dtype already matches)."""
        return _mod("basic").cast(self, dtype)

    def copy(self, name: str | None = None) -> Any:
        """A copy of this array as a new variable."""
        out = _m().tensor_copy(self)
        if name is not None:
            out.name = name
        return out

    def conj(self) -> Any:
        """The complex conjugate."""
        return _m().conj(self)

    conjugate = conj

    # reductions ------------------------------------------------------------------------
    def sum(self, axis: Any = None, dtype: Any = None, keepdims: bool = False,
            acc_dtype: Any = None, out: None = None) -> Any:
        """Sum over ``axis`` (all axes by default)."""
        _no_out(out, "sum")
        return _m().sum(self, axis=axis, dtype=dtype, keepdims=keepdims, acc_dtype=acc_dtype)

    def prod(self, axis: Any = None, dtype: Any = None, keepdims: bool = False,
             acc_dtype: Any = None, out: None = None) -> Any:
        """Product over ``axis``."""
        _no_out(out, "prod")
        return _m().prod(self, axis=axis, dtype=dtype, keepdims=keepdims, acc_dtype=acc_dtype)

    def mean(self, axis: Any = None, dtype: Any = None, keepdims: bool = False,
             out: None = None) -> Any:
        """Arithmetic mean over ``axis``."""
        _no_out(out, "mean")
        return _m().mean(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def var(self, axis: Any = None, ddof: int = 0, keepdims: bool = False,
            corrected: bool = False) -> Any:
        """Variance over ``axis`` with ``ddof`` delta degrees of freedom."""
        return _m().var(self, axis=axis, ddof=ddof, keepdims=keepdims, corrected=corrected)

    def std(self, axis: Any = None, ddof: int = 0, keepdims: bool = False,
            corrected: bool = False) -> Any:
        """Standard deviation over ``axis``."""
        return _m().std(self, axis=axis, ddof=ddof, keepdims=keepdims, corrected=corrected)

    def max(self, axis: Any = None, keepdims: bool = False, out: None = None) -> Any:
        """Maximum over ``axis``."""
        _no_out(out, "max")
        return _m().max(self, axis=axis, keepdims=keepdims)

    def min(self, axis: Any = None, keepdims: bool = False, out: None = None) -> Any:
        """Minimum over ``axis``."""
        _no_out(out, "min")
        return _m().min(self, axis=axis, keepdims=keepdims)

    def argmax(self, axis: Any = None, keepdims: bool = False, out: None = None) -> Any:
        """Index of the maximum along ``axis``."""
        _no_out(out, "argmax")
        return _m().argmax(self, axis=axis, keepdims=keepdims)

    def argmin(self, axis: Any = None, keepdims: bool = False, out: None = None) -> Any:
        """Index of the minimum along ``axis``."""
        _no_out(out, "argmin")
        return _m().argmin(self, axis=axis, keepdims=keepdims)

    def any(self, axis: Any = None, keepdims: bool = False, out: None = None) -> Any:
        """Whether any element along ``axis`` is true."""
        _no_out(out, "any")
        return _m().any(self, axis=axis, keepdims=keepdims)

    def all(self, axis: Any = None, keepdims: bool = False, out: None = None) -> Any:
        """Whether all elements along ``axis`` are true."""
        _no_out(out, "all")
        return _m().all(self, axis=axis, keepdims=keepdims)

    # elementwise methods -----------------------------------------------------------------
    def clip(self, a_min: Any, a_max: Any) -> Any:
        """Limit the values to ``[a_min, a_max]``."""
        return _m().clip(self, a_min, a_max)

    def round(self, decimals: int = 0) -> Any:
        """Round half to even, like ``numpy.round``."""
        return _m().round(self, decimals)

    def __round__(self, ndigits: int | None = None) -> Any:
        return _m().round(self, ndigits or 0)

    def dot(self, other: Any) -> Any:
        """Matrix/vector product, like ``numpy.dot``."""
        return _m().dot(self, other)

    # delegated to other modules ----------------------------------------------------------
    def cumsum(self, axis: int | None = None) -> Any:
        """Cumulative sum along ``axis`` (flattened when None)."""
        return _mod("extra_ops").cumsum(self, axis=axis)

    def cumprod(self, axis: int | None = None) -> Any:
        """Cumulative product along ``axis``."""
        return _mod("extra_ops").cumprod(self, axis=axis)

    def repeat(self, repeats: Any, axis: int | None = None) -> Any:
        """Repeat elements, like ``numpy.repeat``."""
        return _mod("extra_ops").repeat(self, repeats, axis=axis)

    def nonzero(self, return_matrix: bool = False) -> Any:
        """Indices of the non-zero elements, one vector per dimension (or the rows of
        one matrix, with Theano's ``return_matrix=True``)."""
        return _mod("extra_ops").nonzero(self, return_matrix=return_matrix)

    def sort(self, axis: int = -1, kind: str = "quicksort") -> Any:
        """Sorted copy along ``axis``."""
        return _mod("sort").sort(self, axis=axis, kind=kind)

    def argsort(self, axis: int = -1, kind: str = "quicksort") -> Any:
        """Indices that sort along ``axis``."""
        return _mod("sort").argsort(self, axis=axis, kind=kind)

    def take(self, indices: Any, axis: int | None = None, mode: str = "raise") -> Any:
        """Elements at ``indices`` along ``axis`` (flattened when None); ``mode`` is
        ``numpy.take``'s: ``'raise'``, ``'wrap'`` or ``'clip'``."""
        return _mod("subtensor").take(self, indices, axis=axis, mode=mode)


class TensorVariable(_tensor_py_operators, Variable):
    """A Variable whose type is a TensorType: a symbolic NumPy array.

    >>> import theon.tensor as tt
    >>> y = -tt.ivector("x")
    >>> y.type == tt.ivector, y.owner.inputs[0].name
    (True, 'x')
    """

    __slots__ = ()


class TensorValue(TensorVariable):
    """A symbolic input that also holds a value, ``data`` (the seeds' ``Value``).

    Unlike a constant it is an ordinary graph input: it may be listed among a
    function's inputs, and then each call's argument is used, not ``data``.  Build
    one with :func:`theon.tensor.value`.

    >>> import theon, theon.tensor as tt
    >>> d = tt.value(1.5, name="d")
    >>> theon.function([d], d * 2)(4.0)
    array(8.)
    >>> d.data
    array(1.5)
    """

    __slots__ = ("data",)

    def __init__(
        self,
        type: Any,
        owner: Any = None,
        index: int | None = None,
        name: str | None = None,
        data: Any = None,
    ) -> None:
        super().__init__(type, owner, index, name)
        if data is not None:
            data = np.array(type.filter(data))  # a private copy, read-only
            data.setflags(write=False)
        self.data = data

    def clone(self, **kwargs: Any) -> TensorValue:
        """A new TensorValue of the same type, name and data, with no owner."""
        cp = super().clone(**kwargs)
        assert isinstance(cp, TensorValue)
        cp.data = self.data
        return cp


class TensorConstant(_tensor_py_operators, Constant):
    """A Constant holding a (read-only) NumPy array.

    >>> import theon.tensor as tt
    >>> c = tt.constant([1.0, 2.0])
    >>> c.data.flags.writeable, str(c)
    (False, 'TensorConstant{[1. 2.]}')
    """

    __slots__ = ()

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        data = self.data
        text = np.array2string(data, threshold=10, edgeitems=2) if data.ndim else str(data)
        text = text.replace("\n", "")
        if len(text) > 40:
            text = text[:20] + "..." + text[-10:]
        return f"TensorConstant{{{text}}}"
