"""``TensorType``: the Type of symbolic NumPy arrays (the seeds' shortcuts: ``shortcuts.py``).

A TensorType fixes a dtype and a number of dimensions; each dimension may also
have a static length (an ``int``) or be free (``None``).  A length of 1 marks a
*broadcastable* dimension, the seeds' ``broadcastable=(True, False)``.

>>> from theon.tensor.shortcuts import dmatrix, irow
>>> TensorType("float64", shape=(None, None))
TensorType(float64, shape=(None, None))
>>> irow.shape, irow.broadcastable
((1, None), (True, False))
>>> x = dmatrix("x")
>>> x.type is dmatrix, x.name
(True, 'x')
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from theon.graph.basic import _THEON_DIR, Variable, caller_trace
from theon.graph.type import Type
from theon.tensor.arguments import int_value
from theon.tensor.variable import TensorConstant, TensorVariable

__all__ = [
    "TensorType",
    "all_dtypes",
    "complex_dtypes",
    "continuous_dtypes",
    "discrete_dtypes",
    "float_dtypes",
    "int_dtypes",
    "integer_dtypes",
    "tensor_type",
    "tensor_vars",
    "uint_dtypes",
]

int_dtypes = ("int8", "int16", "int32", "int64")
uint_dtypes = ("uint8", "uint16", "uint32", "uint64")
integer_dtypes = int_dtypes + uint_dtypes
float_dtypes = ("float16", "float32", "float64")
complex_dtypes = ("complex64", "complex128")
continuous_dtypes = float_dtypes + complex_dtypes
discrete_dtypes = ("bool",) + integer_dtypes
all_dtypes = discrete_dtypes + continuous_dtypes

ShapeT = tuple[int | None, ...]


_DTYPE_NAMES: dict[Any, str] = {}


def _normalize_dtype(dtype: Any) -> str:
    """The canonical dtype name (``'float64'``); ``'floatX'`` reads config."""
    try:
        return _DTYPE_NAMES[dtype]
    except (KeyError, TypeError):
        pass
    if isinstance(dtype, str) and dtype == "floatX":
        from theon.config import config

        return str(config.floatX)
    name = _dtype_name(dtype)
    try:
        _DTYPE_NAMES[dtype] = name
    except TypeError:
        pass
    return name


def _dtype_name(dtype: Any) -> str:
    """Validated canonical dtype name (uncached)."""
    try:
        name: str = np.dtype(dtype).name
    except TypeError:
        raise TypeError(f"TensorType: {dtype!r} is not a NumPy dtype") from None
    if name not in all_dtypes:
        raise TypeError(
            f"TensorType: unsupported dtype {name!r}; supported dtypes are {', '.join(all_dtypes)}"
        )
    return name


def _normalize_shape(shape: Any, broadcastable: Any) -> ShapeT:
    """Static shape from ``shape`` (ints/None) or the seeds' ``broadcastable`` flags."""
    if type(shape) is tuple and broadcastable is None and all(
        s is None or type(s) is int and s >= 0 for s in shape
    ):
        return shape
    if shape is None:
        if broadcastable is None:
            raise TypeError(
                "TensorType needs a shape (e.g. shape=(None, None) for a matrix) "
                "or a broadcastable pattern"
            )
        return tuple(1 if bool(b) else None for b in broadcastable)
    if int_value(shape) is not None:
        shape = (shape,)
    out: list[int | None] = []
    for s in shape:
        if s is None:
            out.append(None)
        elif isinstance(s, (bool, np.bool_)):
            # Theano's positional broadcastable pattern: True is a length-1 dimension
            out.append(1 if s else None)
        elif (k := int_value(s)) is not None and k >= 0:
            out.append(k)
        else:
            raise TypeError(f"TensorType shape entries are ints >= 0 or None, got {s!r}")
    out_t = tuple(out)
    if broadcastable is not None:
        bc = tuple(bool(b) for b in broadcastable)
        if len(bc) != len(out_t) or any(b and s != 1 for b, s in zip(bc, out_t)):
            raise TypeError(f"TensorType: broadcastable={bc} does not agree with shape={out_t}")
    return out_t


def _exact_int_range(dt: np.dtype[Any]) -> tuple[int, int]:
    """The Python ints that ``dt`` holds exactly (an empty range for bool)."""
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return int(info.min), int(info.max)
    if dt.kind in "fc":
        bits = {2: 11, 4: 24, 8: 53, 16: 53}[dt.itemsize if dt.kind == "f" else dt.itemsize // 2]
        return -(2**bits), 2**bits
    return 1, 0


def _shape_text(shape: ShapeT) -> str:
    return "(" + ", ".join(str(s) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _is_python_float_data(x: Any) -> bool:
    """Whether ``x`` is a Python float, or a (nested) list/tuple of Python numbers with a float."""
    if type(x) is float:
        return True
    if not isinstance(x, (list, tuple)):
        return False
    stack: list[Any] = [x]
    seen_float = False
    while stack:
        cur = stack.pop()
        if isinstance(cur, (list, tuple)):
            stack.extend(cur)
        elif type(cur) is float:
            seen_float = True
        elif type(cur) not in (int, bool):
            return False
    return seen_float


_INTERNED: dict[tuple[Any, Any, Any], TensorType] = {}
_INTERN_LIMIT = 65536


def _plain_shape(shape: tuple[Any, ...]) -> bool:
    """Whether ``shape`` holds only Python ints and None (a cache key that cannot alias)."""
    for s in shape:
        if s is not None and type(s) is not int:
            return False
    return True


class _TensorTypeMeta(type):
    """Interns unnamed TensorTypes: equal (class, dtype, shape) give the same instance.

    Types are immutable, so sharing is safe, and it makes building nodes cheap
    (no re-validation) and type comparisons an identity check.  The class is
    part of the key: a subclass gets instances of its own, and creating one
    never changes what ``TensorType(...)`` returns.  A subclass with its own
    ``__init__`` or other ``__props__`` is not interned.
    """

    def __call__(cls: Any, *args: Any, **kwargs: Any) -> Any:
        if cls.__init__ is not _TENSOR_TYPE_INIT or cls.__props__ != ("dtype", "shape"):
            return super().__call__(*args, **kwargs)  # a subclass with more to it
        return cls._interned(*args, **kwargs)

    def _interned(
        cls,
        dtype: Any,
        shape: Any = None,
        broadcastable: Any = None,
        name: str | None = None,
    ) -> Any:
        if name is None and broadcastable is None and type(shape) is tuple:
            try:
                t = _INTERNED.get((cls, dtype, shape))
            except TypeError:  # an unhashable dtype or shape entry
                t = None
            if t is not None and _plain_shape(shape):
                return t
        t = super().__call__(dtype, shape, broadcastable, name)
        if name is not None:
            return t
        key = (cls, t.dtype, t.shape)
        canon = _INTERNED.get(key)
        if canon is None:
            if len(_INTERNED) >= _INTERN_LIMIT:
                return t
            canon = _INTERNED[key] = t
        if type(shape) is tuple and _plain_shape(shape) and broadcastable is None and (
            type(dtype) is str and dtype != "floatX" or isinstance(dtype, np.dtype)
        ):
            _INTERNED[(cls, dtype, shape)] = canon
        return canon


class TensorType(Type, metaclass=_TensorTypeMeta):
    """The type of symbolic NumPy arrays of one dtype and number of dimensions.

    Parameters
    ----------
    dtype
        A NumPy dtype (``"float64"``, ``np.int32``, ...) or ``"floatX"``.
    shape
        One entry per dimension: its static length, or ``None`` when free.
    broadcastable
        The seeds' spelling: one bool per dimension, True meaning length 1.
    name
        Optional name used when printing the type.

    >>> t = TensorType(dtype="float64", broadcastable=(False, True))
    >>> t.shape, t.ndim
    ((None, 1), 2)
    >>> t.filter([[1], [2]]).dtype
    dtype('float64')
    """

    __props__ = ("dtype", "shape")
    variable_type = TensorVariable
    constant_type = TensorConstant

    def __init__(
        self,
        dtype: Any,
        shape: Iterable[int | None] | int | None = None,
        broadcastable: Iterable[bool] | None = None,
        name: str | None = None,
    ) -> None:
        self.dtype: str = _normalize_dtype(dtype)
        self.shape: ShapeT = _normalize_shape(
            None if shape is None
            else shape if isinstance(shape, (int, np.integer, np.ndarray)) else tuple(shape),
            None if broadcastable is None else tuple(broadcastable),
        )
        self.name = name
        self.ndim: int = len(self.shape)
        self.numpy_dtype: np.dtype[Any] = np.dtype(self.dtype)
        self._static = any(s is not None for s in self.shape)
        self._float0d = self.ndim == 0 and self.numpy_dtype.kind == "f"
        self._int_lo, self._int_hi = _exact_int_range(self.numpy_dtype)
        self._static_dims = tuple((i, s) for i, s in enumerate(self.shape) if s is not None)
        self._hash = hash((type(self), self.dtype, self.shape))

    # identity -----------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        return (
            type(other) is type(self)
            and isinstance(other, TensorType)  # always true here: narrows for the checker
            and other.dtype == self.dtype
            and other.shape == self.shape
        )

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        return f"{type(self).__name__}({self.dtype}, shape={_shape_text(self.shape)})"

    def __repr__(self) -> str:
        return str(self)

    def __reduce__(self) -> Any:
        return (type(self), (self.dtype, self.shape, None, self.name))

    @property
    def broadcastable(self) -> tuple[bool, ...]:
        """One flag per dimension: whether its static length is 1."""
        return tuple(s == 1 for s in self.shape)

    def clone(
        self, dtype: Any = None, shape: Iterable[int | None] | None = None, **kwargs: Any
    ) -> TensorType:
        """A TensorType like this one with ``dtype`` and/or ``shape`` changed.

        >>> from theon.tensor.shortcuts import dmatrix
        >>> dmatrix.clone(dtype="float32")
        TensorType(float32, shape=(None, None))
        """
        bc = kwargs.pop("broadcastable", None)
        if kwargs:
            raise TypeError(f"TensorType.clone got unexpected arguments {sorted(kwargs)}")
        if bc is not None and shape is None:
            shape = tuple(1 if b else None for b in bc)
        return type(self)(
            self.dtype if dtype is None else dtype, self.shape if shape is None else shape
        )

    # values ---------------------------------------------------------------------
    def filter(self, x: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        """Return ``x`` as an ndarray of exactly this dtype and ndim, or raise ``TypeError``.

        Parameters
        ----------
        x
            An array, NumPy scalar, Python number or nested list.
        strict
            Only accept an ndarray that already has the dtype and ndim.
        allow_downcast
            ``True`` accepts lossy casts; ``None`` (default) accepts exact casts and
            Python floats into any float dtype; ``False`` only exact casts.

        >>> from theon.tensor.shortcuts import fvector, ivector
        >>> fvector.filter([0.5, 1.5]).dtype
        dtype('float32')
        >>> ivector.filter(np.array([1.5]))
        Traceback (most recent call last):
        ...
        TypeError: ...
        """
        # Fast path: an ndarray that already fits (on every call of a compiled function).
        if type(x) is np.ndarray and (x.dtype is self.numpy_dtype or x.dtype == self.numpy_dtype):
            if x.ndim == self.ndim:
                if not self._static:
                    return x
                shape = x.shape
                for i, s in self._static_dims:
                    if shape[i] != s:
                        break
                else:
                    return x
            raise TypeError(self._mismatch(x, "wrong number of dimensions or shape"))
        if self.ndim == 0 and not strict:
            # Python numbers for scalars (a common argument of compiled functions)
            tx = type(x)
            if tx is float and self._float0d and (
                allow_downcast is not False or self.dtype == "float64"
            ):
                return np.asarray(x, dtype=self.numpy_dtype)
            if tx is int and self._int_lo <= x <= self._int_hi:
                return np.asarray(x, dtype=self.numpy_dtype)
        return self._filter_slow(x, strict, allow_downcast)

    def _shape_ok(self, shape: tuple[int, ...]) -> bool:
        """Whether a runtime shape agrees with the static one."""
        for i, s in self._static_dims:
            if shape[i] != s:
                return False
        return True

    def _mismatch(self, x: Any, why: str) -> str:
        """Error text naming expected and actual dtype, ndim and shape."""
        a = x if isinstance(x, np.ndarray) else None
        if a is None:
            try:
                a = np.asarray(x)
            except Exception:
                return f"{self} cannot hold {type(x).__name__} {x!r}: {why}"
        return (
            f"{self} cannot hold this value ({why}): expected dtype {self.dtype}, "
            f"ndim {self.ndim}, shape {_shape_text(self.shape)}; got dtype {a.dtype}, "
            f"ndim {a.ndim}, shape {_shape_text(a.shape)}"
        )

    def _filter_slow(self, x: Any, strict: bool, allow_downcast: bool | None) -> np.ndarray:
        """The general case of :meth:`filter`."""
        if isinstance(x, Variable):
            raise TypeError(
                f"{self}.filter was given the symbolic variable {x}; it expects a value "
                "(pass symbolic inputs through givens=, or evaluate them first)"
            )
        dt = self.numpy_dtype
        if strict:
            if not isinstance(x, np.ndarray):
                raise TypeError(
                    self._mismatch(x, f"strict mode needs an ndarray, got {type(x).__name__}")
                )
            if x.dtype != dt:
                raise TypeError(self._mismatch(x, "strict mode refuses dtype conversions"))
            x = np.asarray(x)
        elif isinstance(x, np.ndarray) and x.dtype == dt:
            x = np.asarray(x)  # an ndarray subclass: view it as a plain ndarray
        elif allow_downcast:
            try:
                x = np.asarray(x, dtype=dt)
            except (TypeError, ValueError, OverflowError) as e:
                raise TypeError(self._mismatch(x, str(e))) from None
        elif isinstance(x, np.ndarray):
            if not np.can_cast(x.dtype, dt, "safe"):
                raise TypeError(
                    self._mismatch(
                        x,
                        f"casting {x.dtype} to {self.dtype} may lose information; cast the "
                        "value first or pass allow_downcast=True (allow_input_downcast=True "
                        "for theon.function)",
                    )
                )
            x = x.astype(dt)
        elif allow_downcast is None and dt.kind == "f" and _is_python_float_data(x):
            x = np.asarray(x, dtype=dt)
        else:
            try:
                orig = np.asarray(x)
            except (TypeError, ValueError) as e:
                raise TypeError(f"{self} cannot hold {type(x).__name__} {x!r}: {e}") from None
            if orig.dtype == object or orig.dtype.kind in "SUVM":
                raise TypeError(
                    self._mismatch(x, f"a value of {type(x).__name__} is not numeric")
                )
            try:
                with np.errstate(all="ignore"):
                    conv = orig.astype(dt)
            except (TypeError, ValueError, OverflowError) as e:
                raise TypeError(self._mismatch(x, str(e))) from None
            exact = orig.dtype == dt or np.can_cast(orig.dtype, dt, "safe")
            if not exact:
                with np.errstate(all="ignore"):
                    exact = bool(np.all((conv == orig) | ((conv != conv) & (orig != orig))))
            if not exact:
                raise TypeError(
                    self._mismatch(
                        x,
                        f"the value cannot be stored exactly as {self.dtype}; cast it first "
                        "or pass allow_downcast=True",
                    )
                )
            x = conv
        arr: np.ndarray = x
        if arr.ndim != self.ndim:
            raise TypeError(self._mismatch(arr, "wrong number of dimensions"))
        if self._static and not self._shape_ok(arr.shape):
            raise TypeError(self._mismatch(arr, "the shape does not match the static shape"))
        return arr

    def is_valid_value(self, x: Any) -> bool:
        """Whether ``x`` is already an ndarray of this dtype, ndim and static shape."""
        return (
            isinstance(x, np.ndarray)
            and x.dtype == self.numpy_dtype
            and x.ndim == self.ndim
            and self._shape_ok(x.shape)
        )

    def values_eq(self, a: Any, b: Any) -> bool:
        """Exact equality of two arrays; NaNs in the same places count as equal."""
        a = np.asarray(a)
        b = np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind in "fc":
            return bool(np.array_equal(a, b, equal_nan=True))
        return bool(np.array_equal(a, b))

    def values_eq_approx(
        self, a: Any, b: Any, rtol: float | None = None, atol: float | None = None
    ) -> bool:
        """Equality up to round-off for this dtype; NaN equals NaN, inf equals inf.

        >>> from theon.tensor.shortcuts import dvector
        >>> dvector.values_eq_approx(np.array([1.0, np.nan]), np.array([1.0 + 1e-12, np.nan]))
        True
        """
        a = np.asarray(a)
        b = np.asarray(b)
        if a.shape != b.shape:
            return False
        if a.dtype.kind not in "fc" and b.dtype.kind not in "fc":
            return bool(np.array_equal(a, b))
        low = np.result_type(a.dtype, b.dtype)
        if low.kind not in "fc":
            low = np.dtype("float64")
        if low.itemsize <= 2:
            dr, da = 1e-3, 1e-3
        elif low in (np.float32, np.complex64):
            dr, da = 1e-4, 1e-5
        else:
            dr, da = 1e-5, 1e-8
        return bool(
            np.allclose(a, b, rtol=dr if rtol is None else rtol, atol=da if atol is None else atol,
                        equal_nan=True)
        )

    def constant_signature(self, data: Any) -> Any:
        """``(dtype, shape, content)``: equal constants of this type get equal keys."""
        a = np.ascontiguousarray(data)
        raw = a.tobytes()
        content: Any = raw if len(raw) <= 256 else hashlib.sha256(raw).digest()
        return (self.dtype, a.shape, content)

    @staticmethod
    def may_share_memory(a: Any, b: Any) -> bool:
        """Whether two values may share memory."""
        if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
            return bool(np.may_share_memory(a, b))
        return False

    def value_zeros(self, shape: Sequence[int]) -> np.ndarray:
        """A zero array of this dtype and the given shape."""
        return np.zeros(shape, dtype=self.numpy_dtype)

    # relations between types ----------------------------------------------------
    def is_super(self, other: Type) -> bool:
        """Whether every value of ``other`` is a value of this type.

        >>> from theon.tensor.shortcuts import dvector
        >>> dvector.is_super(TensorType("float64", shape=(3,)))
        True
        """
        if not isinstance(other, TensorType):
            return False
        if other.dtype != self.dtype or other.ndim != self.ndim:
            return False
        return all(s is None or s == o for s, o in zip(self.shape, other.shape))

    def in_same_class(self, other: Type) -> bool:
        """Same dtype and ndim (static shapes may differ)."""
        return (
            isinstance(other, TensorType)
            and other.dtype == self.dtype
            and other.ndim == self.ndim
        )

    def convert_variable(self, var: Variable) -> Variable | None:
        """``var`` as this type when free: as is when more specific, else with its shape specified.

        >>> from theon.tensor.shortcuts import dvector
        >>> y = TensorType("float64", shape=(3,))()
        >>> dvector.convert_variable(y) is y
        True
        """
        vt = var.type
        if vt == self:
            return var
        if not isinstance(vt, TensorType) or vt.dtype != self.dtype or vt.ndim != self.ndim:
            return None
        if self.is_super(vt):
            return var
        if vt.is_super(self):
            from theon.tensor.shape import specify_shape  # (shape imports this module)

            return specify_shape(var, self.shape)
        return None

    # making variables -----------------------------------------------------------
    def make_variable(self, name: str | None = None) -> TensorVariable:
        """A new TensorVariable of this type."""
        return TensorVariable(self, None, None, name)

    def __call__(
        self, name: str | None = None, shape: Sequence[int | None] | None = None
    ) -> TensorVariable:
        """A new TensorVariable of this type (the seeds' ``dmatrix('x')``).

        ``shape`` refines the static shape: ``dmatrix('A', shape=(5, 5))`` is a 5x5
        float64 matrix; a ``None`` entry keeps this type's entry.

        >>> from theon.tensor.shortcuts import dmatrix
        >>> dmatrix("A", shape=(5, None)).type
        TensorType(float64, shape=(5, None))
        """
        var = TensorVariable(self if shape is None else self._refined(tuple(shape)), None,
                             None, name)
        if name is None:  # (theon's own code makes thousands of these while compiling)
            return var
        # a named variable made by the user's code: where, for error messages
        f = sys._getframe(1)
        code = f.f_code
        if not code.co_filename.startswith(_THEON_DIR):
            var.tag.trace = ((code.co_filename, f.f_lineno, code.co_name),)
        else:  # through a constructor of theon's: tensor(), matrix(), dmatrices()
            trace = caller_trace()
            if trace is not None:
                var.tag.trace = trace
        return var

    def _refined(self, shape: tuple[Any, ...]) -> TensorType:
        """This type with the static ``shape`` entries given (``None`` keeps an entry)."""
        if len(shape) != self.ndim:
            raise ValueError(
                f"shape {shape} has {len(shape)} entries but {self} has {self.ndim} dimensions"
            )
        new = _normalize_shape(shape, None)
        out: list[int | None] = []
        for mine, given in zip(self.shape, new):
            if mine is not None and given is not None and mine != given:
                raise ValueError(f"shape {shape} does not agree with the static shape of {self}")
            out.append(mine if given is None else given)
        return type(self)(self.dtype, tuple(out))


_TENSOR_TYPE_INIT = TensorType.__init__  # (see _TensorTypeMeta)


def tensor_type(v: Variable) -> TensorType:
    """``v.type`` as a :class:`TensorType`, for code that knows ``v`` is a tensor.

    A checked-at-type-check-time view (no run-time test), so tensor code reads
    ``tensor_type(v).dtype`` instead of silencing mypy on ``v.type.dtype``.

    >>> from theon.tensor.shortcuts import dvector
    >>> tensor_type(dvector("x")).ndim
    1
    """
    return v.type  # type: ignore[return-value]


def tensor_vars(vs: Sequence[Variable]) -> Sequence[TensorVariable]:
    """``vs`` as TensorVariables, for code that knows they are tensors (the inputs,
    outputs and output gradients of a tensor Op's node, whose ``make_node`` converted
    them).  Like :func:`tensor_type`, a view for the type checker: ``vs`` itself, no
    run-time test.

    >>> from theon.tensor.shortcuts import dvector
    >>> x, y = tensor_vars([dvector("x"), dvector("y")])
    >>> (x * y).ndim
    1
    """
    return vs  # type: ignore[return-value]


def __getattr__(name: str) -> Any:
    """The shortcut constructors (``dmatrix``, ``tensor``, ...) under this module's name too,
    where PyTensor keeps them (``from pytensor.tensor.type import dmatrix``); they live in
    :mod:`theon.tensor.shortcuts`, imported on the first such lookup."""
    from theon.tensor import shortcuts

    if name in shortcuts.__all__:
        return getattr(shortcuts, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
