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
from collections.abc import Iterator
from types import FrameType
from typing import TYPE_CHECKING, Any, Self

import numpy as np

from theon.graph.basic import Constant, Variable

if TYPE_CHECKING:
    import theon.tensor.basic as _basic
    import theon.tensor.extra_ops as _extra_ops
    import theon.tensor.math as _math
    import theon.tensor.reshaping as _reshaping
    import theon.tensor.shape as _shape
    import theon.tensor.sort as _sort
    import theon.tensor.subtensor as _subtensor
    from theon.tensor.sort import SortKind
    from theon.tensor.type import TensorType

__all__ = ["TensorConstant", "TensorValue", "TensorVariable"]


class _LazyModule:
    """``theon.tensor.<name>`` (which imports this module), imported on the first attribute
    read.  That read also puts the module itself in this module's global ``var``, so later
    reads cost what reading a module's attribute costs."""

    __slots__ = ("_name", "_var")

    def __init__(self, name: str, var: str) -> None:
        self._name = name
        self._var = var

    def __getattr__(self, attr: str) -> Any:
        module = importlib.import_module("theon.tensor." + self._name)
        globals()[self._var] = module
        return getattr(module, attr)


if not TYPE_CHECKING:
    _basic = _LazyModule("basic", "_basic")
    _extra_ops = _LazyModule("extra_ops", "_extra_ops")
    _math = _LazyModule("math", "_math")
    _reshaping = _LazyModule("reshaping", "_reshaping")
    _shape = _LazyModule("shape", "_shape")
    _sort = _LazyModule("sort", "_sort")
    _subtensor = _LazyModule("subtensor", "_subtensor")


def _no_out(out: Any, what: str) -> None:
    """NumPy's functions (``np.sum(x)``) call the method with ``out=None``; an array for
    ``out`` cannot hold a symbolic result."""
    if out is not None:
        raise TypeError(f"{what}: out= is not supported for symbolic variables")


def _numpy_caller() -> str | None:
    """The name of the NumPy Python function converting its arguments, if one is."""
    frame: FrameType | None = sys._getframe(2)  # the caller of __array__
    name = None
    while frame is not None and frame.f_globals.get("__name__", "").startswith("numpy."):
        name = frame.f_code.co_name
        frame = frame.f_back
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


#: NumPy functions that only put their arguments into an array: a variable of any
#: ndim becomes one object element there, as in PyTensor (PyMC's step methods pass a
#: list of variables through ``np.atleast_1d``); elsewhere a converted tensor of one or
#: more dimensions is a clear error
_ELEMENT_CALLERS = frozenset({"atleast_1d", "atleast_2d", "atleast_3d"})

#: operands theon converts itself (its conversion error is the clear one to give)
_CONVERTED = (np.ndarray, np.generic, int, float, complex, list, tuple, type(None))


def _defers(other: Any, reflected: str) -> bool:
    """Whether a binary operator leaves ``x op other`` to ``other``'s reflected operator:
    a sparse variable (``_theon_defers_tensor_operators``), or an object of another
    library that is no array and defines ``reflected`` (PyMC's covariance functions
    build ``2 * cov`` and ``x * cov`` themselves), as in PyTensor.

    >>> class Cov:
    ...     def __rmul__(self, other): return "Cov.__rmul__"
    >>> _defers(Cov(), "__rmul__"), _defers(2.0, "__rmul__"), _defers([1], "__rmul__")
    (True, False, False)
    """
    if isinstance(other, _CONVERTED):
        return False
    if getattr(other, "_theon_defers_tensor_operators", False):
        return True
    return (not isinstance(other, Variable) and not hasattr(other, "__array__")
            and hasattr(type(other), reflected))


class _tensor_py_operators:
    """Operators, attributes and NumPy-style methods shared by tensor variables and constants."""

    __slots__ = ()
    # NumPy defers to our reflected operators (ndarray + x), and its ufuncs
    # dispatch to theon's through __array_ufunc__.
    __array_priority__ = 1000

    type: TensorType

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

    def __iter__(self) -> Iterator[TensorVariable]:
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
        if caller in _ELEMENT_CALLERS and dtype in (None, object):
            box = np.empty((), dtype=object)
            box[()] = self
            return box
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
        fn = getattr(_math, "_UFUNC_TO_OP", {}).get(ufunc.__name__)
        if fn is None:
            return NotImplemented
        return fn(*inputs)

    # arithmetic ---------------------------------------------------------------
    def __neg__(self) -> TensorVariable:
        return _math.neg(self)

    def __pos__(self) -> Self:
        return self

    def __abs__(self) -> TensorVariable:
        return _math.abs(self)

    def __invert__(self) -> TensorVariable:
        return _math.invert(self)

    def __add__(self, other: Any) -> TensorVariable:
        if _defers(other, "__radd__"):
            return NotImplemented
        return _math.add(self, other)

    def __radd__(self, other: Any) -> TensorVariable:
        return _math.add(other, self)

    def __sub__(self, other: Any) -> TensorVariable:
        if _defers(other, "__rsub__"):
            return NotImplemented
        return _math.sub(self, other)

    def __rsub__(self, other: Any) -> TensorVariable:
        return _math.sub(other, self)

    def __mul__(self, other: Any) -> TensorVariable:
        if _defers(other, "__rmul__"):
            return NotImplemented
        return _math.mul(self, other)

    def __rmul__(self, other: Any) -> TensorVariable:
        return _math.mul(other, self)

    def __truediv__(self, other: Any) -> TensorVariable:
        if _defers(other, "__rtruediv__"):
            return NotImplemented
        return _math.true_div(self, other)

    def __rtruediv__(self, other: Any) -> TensorVariable:
        return _math.true_div(other, self)

    def __floordiv__(self, other: Any) -> TensorVariable:
        if _defers(other, "__rfloordiv__"):
            return NotImplemented
        return _math.floor_div(self, other)

    def __rfloordiv__(self, other: Any) -> TensorVariable:
        return _math.floor_div(other, self)

    def __mod__(self, other: Any) -> TensorVariable:
        if _defers(other, "__rmod__"):
            return NotImplemented
        return _math.mod(self, other)

    def __rmod__(self, other: Any) -> TensorVariable:
        return _math.mod(other, self)

    def __divmod__(self, other: Any) -> tuple[TensorVariable, TensorVariable]:
        return _math.floor_div(self, other), _math.mod(self, other)

    def __rdivmod__(self, other: Any) -> tuple[TensorVariable, TensorVariable]:
        return _math.floor_div(other, self), _math.mod(other, self)

    def __pow__(self, other: Any) -> TensorVariable:
        if _defers(other, "__rpow__"):
            return NotImplemented
        return _math.pow(self, other)

    def __rpow__(self, other: Any) -> TensorVariable:
        return _math.pow(other, self)

    def __matmul__(self, other: Any) -> TensorVariable:
        if _defers(other, "__rmatmul__"):
            return NotImplemented
        return _math.matmul(self, other)

    def __rmatmul__(self, other: Any) -> TensorVariable:
        return _math.matmul(other, self)

    # comparisons (== and != keep identity semantics: variables are graph nodes) ------
    def __lt__(self, other: Any) -> TensorVariable:
        return _math.lt(self, other)

    def __le__(self, other: Any) -> TensorVariable:
        return _math.le(self, other)

    def __gt__(self, other: Any) -> TensorVariable:
        return _math.gt(self, other)

    def __ge__(self, other: Any) -> TensorVariable:
        return _math.ge(self, other)

    # bitwise -------------------------------------------------------------------
    def __and__(self, other: Any) -> TensorVariable:
        if _defers(other, "__rand__"):
            return NotImplemented
        return _math.and_(self, other)

    def __rand__(self, other: Any) -> TensorVariable:
        return _math.and_(other, self)

    def __or__(self, other: Any) -> TensorVariable:
        if _defers(other, "__ror__"):
            return NotImplemented
        return _math.or_(self, other)

    def __ror__(self, other: Any) -> TensorVariable:
        return _math.or_(other, self)

    def __xor__(self, other: Any) -> TensorVariable:
        if _defers(other, "__rxor__"):
            return NotImplemented
        return _math.xor(self, other)

    def __rxor__(self, other: Any) -> TensorVariable:
        return _math.xor(other, self)

    def __lshift__(self, other: Any) -> TensorVariable:
        return _math.left_shift(self, other)

    def __rlshift__(self, other: Any) -> TensorVariable:
        return _math.left_shift(other, self)

    def __rshift__(self, other: Any) -> TensorVariable:
        return _math.right_shift(self, other)

    def __rrshift__(self, other: Any) -> TensorVariable:
        return _math.right_shift(other, self)

    # indexing ----------------------------------------------------------------------
    def __getitem__(self, key: Any) -> TensorVariable:
        return _subtensor.getitem(self, key)

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
    def shape(self) -> TensorVariable:
        """The symbolic shape (an int64 vector)."""
        return _shape.shape(self)

    @property
    def size(self) -> TensorVariable:
        """The symbolic number of elements."""
        return _math.prod(self.shape)

    @property
    def T(self) -> TensorVariable:
        """The transpose (all axes reversed)."""
        return self.transpose()

    @property
    def mT(self) -> TensorVariable:
        """The last two axes swapped (NumPy's ``ndarray.mT``; at least 2 dimensions)."""
        nd = self.type.ndim
        if nd < 2:
            raise ValueError(f"{self}.mT needs at least 2 dimensions, it has {nd}")
        return self.transpose(*range(nd - 2), nd - 1, nd - 2)

    @property
    def real(self) -> TensorVariable:
        """The real part."""
        return _math.real(self)

    @property
    def imag(self) -> TensorVariable:
        """The imaginary part."""
        return _math.imag(self)

    # shape methods ---------------------------------------------------------------------
    def dimshuffle(self, *pattern: Any) -> TensorVariable:
        """Reorder, drop (length-1) or insert (``'x'``) dimensions.

        >>> import theon.tensor as tt
        >>> tt.dvector("v").dimshuffle("x", 0).type
        TensorType(float64, shape=(1, None))
        """
        from theon.tensor.elemwise import DimShuffle

        if len(pattern) == 1 and _is_sequence(pattern[0]):
            pattern = tuple(pattern[0])
        return DimShuffle(self.ndim, pattern)(self)

    def transpose(self, *axes: Any) -> TensorVariable:
        """Permute the axes (reverse them by default)."""
        return _reshaping.transpose(self, _axes_args(axes))

    def reshape(self, *shape: Any, ndim: int | None = None) -> TensorVariable:
        """Array of the same data with a new shape (one entry may be -1)."""
        if len(shape) == 1 and not isinstance(shape[0], (int, np.integer)):
            shape = shape[0]
        return _reshaping.reshape(self, shape, ndim=ndim)

    def flatten(self, ndim: int = 1) -> TensorVariable:
        """Collapse the trailing dimensions so the result has ``ndim`` dimensions."""
        return _reshaping.flatten(self, ndim)

    def ravel(self) -> TensorVariable:
        """The data as a vector."""
        return _reshaping.flatten(self, 1)

    def squeeze(self, axis: Any = None) -> TensorVariable:
        """Drop length-1 dimensions (all broadcastable ones by default)."""
        return _reshaping.squeeze(self, axis)

    def swapaxes(self, axis1: int, axis2: int) -> TensorVariable:
        """Exchange two axes."""
        order = list(range(self.ndim))
        order[axis1], order[axis2] = order[axis2], order[axis1]
        return self.transpose(order)

    # dtype and copies ----------------------------------------------------------------
    def astype(self, dtype: Any) -> TensorVariable:
        """Cast to ``dtype`` (no node when the dtype already matches)."""
        return _basic.cast(self, dtype)

    def copy(self, name: str | None = None) -> TensorVariable:
        """A copy of this array as a new variable."""
        out = _math.tensor_copy(self)
        if name is not None:
            out.name = name
        return out

    def conj(self) -> TensorVariable:
        """The complex conjugate."""
        return _math.conj(self)

    conjugate = conj

    # reductions ------------------------------------------------------------------------
    def sum(self, axis: Any = None, dtype: Any = None, keepdims: bool = False,
            acc_dtype: Any = None, out: None = None) -> TensorVariable:
        """Sum over ``axis`` (all axes by default)."""
        _no_out(out, "sum")
        return _math.sum(self, axis=axis, dtype=dtype, keepdims=keepdims, acc_dtype=acc_dtype)

    def prod(self, axis: Any = None, dtype: Any = None, keepdims: bool = False,
             acc_dtype: Any = None, out: None = None) -> TensorVariable:
        """Product over ``axis``."""
        _no_out(out, "prod")
        return _math.prod(self, axis=axis, dtype=dtype, keepdims=keepdims, acc_dtype=acc_dtype)

    def mean(self, axis: Any = None, dtype: Any = None, keepdims: bool = False,
             out: None = None) -> TensorVariable:
        """Arithmetic mean over ``axis``."""
        _no_out(out, "mean")
        return _math.mean(self, axis=axis, dtype=dtype, keepdims=keepdims)

    def var(self, axis: Any = None, ddof: int = 0, keepdims: bool = False,
            corrected: bool = False) -> TensorVariable:
        """Variance over ``axis`` with ``ddof`` delta degrees of freedom."""
        return _math.var(self, axis=axis, ddof=ddof, keepdims=keepdims, corrected=corrected)

    def std(self, axis: Any = None, ddof: int = 0, keepdims: bool = False,
            corrected: bool = False) -> TensorVariable:
        """Standard deviation over ``axis``."""
        return _math.std(self, axis=axis, ddof=ddof, keepdims=keepdims, corrected=corrected)

    def max(self, axis: Any = None, keepdims: bool = False, out: None = None) -> TensorVariable:
        """Maximum over ``axis``."""
        _no_out(out, "max")
        return _math.max(self, axis=axis, keepdims=keepdims)

    def min(self, axis: Any = None, keepdims: bool = False, out: None = None) -> TensorVariable:
        """Minimum over ``axis``."""
        _no_out(out, "min")
        return _math.min(self, axis=axis, keepdims=keepdims)

    def argmax(self, axis: Any = None, keepdims: bool = False, out: None = None) -> TensorVariable:
        """Index of the maximum along ``axis``."""
        _no_out(out, "argmax")
        return _math.argmax(self, axis=axis, keepdims=keepdims)

    def argmin(self, axis: Any = None, keepdims: bool = False, out: None = None) -> TensorVariable:
        """Index of the minimum along ``axis``."""
        _no_out(out, "argmin")
        return _math.argmin(self, axis=axis, keepdims=keepdims)

    def any(self, axis: Any = None, keepdims: bool = False, out: None = None) -> TensorVariable:
        """Whether any element along ``axis`` is true."""
        _no_out(out, "any")
        return _math.any(self, axis=axis, keepdims=keepdims)

    def all(self, axis: Any = None, keepdims: bool = False, out: None = None) -> TensorVariable:
        """Whether all elements along ``axis`` are true."""
        _no_out(out, "all")
        return _math.all(self, axis=axis, keepdims=keepdims)

    # elementwise methods -----------------------------------------------------------------
    def clip(self, a_min: Any, a_max: Any) -> TensorVariable:
        """Limit the values to ``[a_min, a_max]``."""
        return _math.clip(self, a_min, a_max)

    def round(self, decimals: int = 0) -> TensorVariable:
        """Round half to even, like ``numpy.round``."""
        return _math.round(self, decimals)

    def __round__(self, ndigits: int | None = None) -> TensorVariable:
        return _math.round(self, ndigits or 0)

    def dot(self, other: Any) -> TensorVariable:
        """Matrix/vector product, like ``numpy.dot``."""
        return _math.dot(self, other)

    # delegated to other modules ----------------------------------------------------------
    def cumsum(self, axis: int | None = None) -> TensorVariable:
        """Cumulative sum along ``axis`` (flattened when None)."""
        return _extra_ops.cumsum(self, axis=axis)

    def cumprod(self, axis: int | None = None) -> TensorVariable:
        """Cumulative product along ``axis``."""
        return _extra_ops.cumprod(self, axis=axis)

    def repeat(self, repeats: Any, axis: int | None = None) -> TensorVariable:
        """Repeat elements, like ``numpy.repeat``."""
        return _extra_ops.repeat(self, repeats, axis=axis)

    def nonzero(self, return_matrix: bool = False) -> tuple[TensorVariable, ...] | TensorVariable:
        """Indices of the non-zero elements, one vector per dimension (or the rows of
        one matrix, with Theano's ``return_matrix=True``)."""
        return _extra_ops.nonzero(self, return_matrix=return_matrix)

    def sort(self, axis: int = -1, kind: SortKind = "quicksort") -> TensorVariable:
        """Sorted copy along ``axis``."""
        return _sort.sort(self, axis=axis, kind=kind)

    def argsort(self, axis: int = -1, kind: SortKind = "quicksort") -> TensorVariable:
        """Indices that sort along ``axis``."""
        return _sort.argsort(self, axis=axis, kind=kind)

    def take(self, indices: Any, axis: int | None = None, mode: str = "raise") -> TensorVariable:
        """Elements at ``indices`` along ``axis`` (flattened when None); ``mode`` is
        ``numpy.take``'s: ``'raise'``, ``'wrap'`` or ``'clip'``."""
        return _subtensor.take(self, indices, axis=axis, mode=mode)


class TensorVariable(_tensor_py_operators, Variable):
    """A Variable whose type is a TensorType: a symbolic NumPy array.

    >>> import theon.tensor as tt
    >>> y = -tt.ivector("x")
    >>> y.type == tt.ivector, y.owner.inputs[0].name
    (True, 'x')
    """

    __slots__ = ()
    type: TensorType


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


class TensorConstant(TensorVariable, Constant):
    """A Constant holding a (read-only) NumPy array.

    It is a TensorVariable too (as in PyTensor): code that takes tensor variables
    takes constants.

    >>> import theon.tensor as tt
    >>> c = tt.constant([1.0, 2.0])
    >>> c.data.flags.writeable, str(c)
    (False, 'TensorConstant{[1. 2.]}')
    >>> isinstance(c, tt.TensorVariable), c.owner is None
    (True, True)
    """

    __slots__ = ()
    type: TensorType

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        data = self.data
        text = np.array2string(data, threshold=10, edgeitems=2) if data.ndim else str(data)
        text = text.replace("\n", "")
        if len(text) > 40:
            text = text[:20] + "..." + text[-10:]
        return f"TensorConstant{{{text}}}"
