"""ScalarType: the type of a single number of one NumPy dtype, and its variables.

A scalar value is a NumPy scalar of exactly the type's dtype.  Dtype promotion
follows NumPy 2; Python numbers are *weak* (NEP 50): they take the dtype of
the typed operands they meet.

>>> float64.filter(2)
np.float64(2.0)
>>> upcast("int8", "float32")
'float32'
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, cast

import numpy as np

from theon.graph.basic import Constant, Variable
from theon.graph.type import Type

__all__ = [
    "scalar_type",
    "ScalarConstant",
    "ScalarType",
    "ScalarVariable",
    "all_dtypes",
    "as_scalar",
    "bool_",
    "complex64",
    "complex128",
    "complex_dtypes",
    "constant",
    "continuous_dtypes",
    "discrete_dtypes",
    "float16",
    "float32",
    "float64",
    "float_dtypes",
    "get_scalar_type",
    "int8",
    "int16",
    "int32",
    "int64",
    "int_dtypes",
    "is_weak_scalar",
    "register_scalar_conversion",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "uint_dtypes",
    "upcast",
    "weak_dtype",
]

int_dtypes = ("int8", "int16", "int32", "int64")
uint_dtypes = ("uint8", "uint16", "uint32", "uint64")
float_dtypes = ("float16", "float32", "float64")
complex_dtypes = ("complex64", "complex128")
discrete_dtypes = ("bool", *int_dtypes, *uint_dtypes)
continuous_dtypes = (*float_dtypes, *complex_dtypes)
all_dtypes = (*discrete_dtypes, *continuous_dtypes)


def upcast(*dtypes: Any) -> str:
    """The dtype NumPy 2 gives to an operation on ``dtypes`` (``np.result_type``).

    >>> upcast("int8", "uint8")
    'int16'
    """
    try:
        return _upcast(dtypes)
    except TypeError:  # unhashable dtype-likes
        return str(np.result_type(*[np.dtype(d) for d in dtypes]))


@functools.lru_cache(maxsize=4096)
def _upcast(dtypes: tuple[Any, ...]) -> str:
    return str(np.result_type(*[np.dtype(d) for d in dtypes]))


def is_weak_scalar(x: Any) -> bool:
    """Whether ``x`` is a Python number (weak under NEP 50), not a NumPy scalar or Variable.

    >>> is_weak_scalar(1.5), is_weak_scalar(np.float64(1.5))
    (True, False)
    """
    return type(x) in (bool, int, float, complex)


def weak_dtype(value: Any, strong_dtypes: Any) -> str:
    """The dtype a Python number takes next to operands of ``strong_dtypes`` (NEP 50).

    Under NEP 50 this depends on the number's Python type, not its value (an
    out-of-range integer then fails to convert, as in NumPy).

    >>> weak_dtype(1.5, ["float32"])
    'float32'
    >>> weak_dtype(1.5, ["int8"])
    'float64'
    """
    if not strong_dtypes:
        return str(np.asarray(value).dtype)
    pytype: type = type(value)
    return _weak_dtype(pytype, tuple(strong_dtypes))


_WEAK_EXAMPLE = {bool: False, int: 0, float: 0.0, complex: 0j}


@functools.lru_cache(maxsize=4096)
def _weak_dtype(pytype: type, strong: tuple[str, ...]) -> str:
    return str(np.result_type(*[np.dtype(d) for d in strong], _WEAK_EXAMPLE[pytype]))


class ScalarType(Type):
    """The type of one number of a given dtype.

    Parameters
    ----------
    dtype
        A NumPy dtype name: bool, int8..int64, uint8..uint64, float16/32/64,
        complex64/128.

    >>> t = ScalarType("float32")
    >>> t.filter(0.5)
    np.float32(0.5)
    >>> t("x").type == float32
    True
    """

    __props__ = ("dtype",)
    ndim = 0
    shape: tuple[int, ...] = ()
    broadcastable: tuple[bool, ...] = ()

    def __init__(self, dtype: Any) -> None:
        name = str(np.dtype(dtype))
        if name not in all_dtypes:
            raise TypeError(f"ScalarType does not support dtype {name!r}; use one of {all_dtypes}")
        self.dtype = name
        self.np_dtype = np.dtype(name)
        self._scalar_class = self.np_dtype.type
        self._hash = hash((ScalarType, name))

    # identity (the props are ``(dtype,)``; spelled out because it is hot) ------------
    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        return isinstance(other, ScalarType) and type(other) is type(self) and (
            other.dtype == self.dtype
        )

    def __hash__(self) -> int:
        return self._hash

    # kinds ---------------------------------------------------------------------
    @property
    def is_float(self) -> bool:
        return self.dtype in float_dtypes

    @property
    def is_complex(self) -> bool:
        return self.dtype in complex_dtypes

    @property
    def is_continuous(self) -> bool:
        return self.dtype in continuous_dtypes

    @property
    def is_discrete(self) -> bool:
        return self.dtype in discrete_dtypes

    def __str__(self) -> str:
        return f"ScalarType({self.dtype})"

    def __reduce__(self) -> Any:
        return (ScalarType, (self.dtype,))

    # values --------------------------------------------------------------------
    def filter(self, x: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        """``x`` as a NumPy scalar of this dtype, or ``TypeError``.

        ``strict``: ``x`` must already be a NumPy scalar (or 0-d array) of this
        dtype.  Otherwise exact conversions are made; lossy ones need
        ``allow_downcast=True`` (with ``None``, a Python float may be rounded to
        a narrower float dtype, as NumPy does with weak scalars).

        >>> int8.filter(3.0)
        np.int8(3)
        >>> int8.filter(3.5)
        Traceback (most recent call last):
        ...
        TypeError: ScalarType(int8) cannot hold 3.5 (of type float) without loss; \
pass allow_downcast=True to convert
        """
        cls = self._scalar_class
        if type(x) is cls:
            return x
        if isinstance(x, np.ndarray) and x.ndim == 0 and x.dtype == self.np_dtype:
            return x[()]
        if strict:
            raise TypeError(
                f"expected a {self.dtype} scalar (strict filter of {self}), got {_describe(x)}"
            )
        if isinstance(x, Variable):
            raise TypeError(
                f"expected a {self.dtype} value for {self}, got the symbolic variable {x}; "
                "symbolic values are graph inputs, not data"
            )
        try:
            arr = np.asarray(x)
        except Exception as e:  # pragma: no cover - odd objects
            raise TypeError(f"{self} cannot hold {x!r}: {e}") from None
        if arr.ndim != 0:
            raise TypeError(
                f"expected a {self.dtype} scalar for {self}, got an array of shape {arr.shape} "
                f"and dtype {arr.dtype}"
            )
        if arr.dtype.kind not in "biufc":
            raise TypeError(f"expected a {self.dtype} scalar for {self}, got {_describe(x)}")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                conv = arr.astype(self.np_dtype)
        if allow_downcast:
            return conv[()]
        if np.can_cast(arr.dtype, self.np_dtype, "safe") and not is_weak_scalar(x):
            return conv[()]
        if allow_downcast is None and type(x) is float and self.is_continuous:
            return conv[()]
        if _exact(arr, conv):
            return conv[()]
        raise TypeError(
            f"{self} cannot hold {x!r} (of type {_type_name(x)}) without loss; "
            "pass allow_downcast=True to convert"
        )

    def is_valid_value(self, x: Any) -> bool:
        return type(x) is self._scalar_class

    def values_eq(self, a: Any, b: Any) -> bool:
        """Equality that treats NaN as equal to NaN."""
        if a == b:
            return True
        return bool(np.isnan(a) and np.isnan(b)) if self.is_continuous else False

    def values_eq_approx(self, a: Any, b: Any) -> bool:
        """Equality up to round-off for the dtype (NaN equals NaN, inf only equal inf)."""
        if self.values_eq(a, b):
            return True
        if not self.is_continuous:
            return False
        rtol = {"float16": 1e-2, "float32": 1e-4, "complex64": 1e-4}.get(self.dtype, 1e-8)
        return bool(np.allclose(a, b, rtol=rtol, atol=rtol, equal_nan=True))

    def constant_signature(self, data: Any) -> Any:
        """Bytes-exact key: 0.0 and -0.0 differ, equal NaNs merge."""
        return (self.dtype, np.asarray(data).tobytes())

    def convert_variable(self, var: Variable) -> Variable | None:
        if var.type == self:
            return var
        return None

    def make_constant(self, value: Any, name: str | None = None) -> Constant:
        return ScalarConstant(self, value, name=name)

    def make_variable(self, name: str | None = None) -> Variable:
        return ScalarVariable(self, None, None, name)


def _type_name(x: Any) -> str:
    return type(x).__name__


def _describe(x: Any) -> str:
    dt = getattr(x, "dtype", None)
    if dt is not None:
        return f"{x!r} of type {_type_name(x)} and dtype {dt}"
    return f"{x!r} of type {_type_name(x)}"


def _exact(orig: np.ndarray, conv: np.ndarray) -> bool:
    """Whether converting ``orig`` to ``conv`` kept the value."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                if orig.dtype.kind == "c" and conv.dtype.kind != "c" and orig.imag != 0:
                    return False
                if orig.dtype.kind in "iub" and conv.dtype.kind in "iub":
                    return int(orig) == int(conv)
                back = conv.astype(orig.dtype)
                if bool(back == orig):
                    if orig.dtype.kind in "iub" and conv.dtype.kind in "fc":
                        # the float must hold the integer exactly, not just round back to it
                        return int(conv.real) == int(orig)
                    return True
                return bool(np.isnan(orig) and np.isnan(conv)) if orig.dtype.kind in "fc" else False
    except (OverflowError, ValueError, TypeError):
        return False


@functools.cache
def _scalar_type(name: str) -> ScalarType:
    return ScalarType(name)


def scalar_type(v: Variable) -> ScalarType:
    """``v.type`` as a :class:`ScalarType`, for code that knows ``v`` is a scalar.

    A view checked when type-checking (no run-time test), so scalar code reads
    ``scalar_type(v).dtype`` instead of silencing mypy on ``v.type.dtype``.

    >>> scalar_type(float64("x")).dtype
    'float64'
    """
    return cast(ScalarType, v.type)


def get_scalar_type(dtype: Any) -> ScalarType:
    """The (cached) ScalarType of ``dtype``.

    >>> get_scalar_type("float64") is get_scalar_type(np.float64)
    True
    """
    if type(dtype) is str and dtype in all_dtypes:
        return _scalar_type(dtype)
    return _scalar_type(str(np.dtype(dtype)))


def _op(name: str) -> Any:
    from theon import scalar

    return getattr(scalar, name)


class _ScalarOperators:
    """Python operators on scalar variables, building scalar ops."""

    __slots__ = ()

    def __add__(self, other: Any) -> Any:
        return _op("add")(self, other)

    def __radd__(self, other: Any) -> Any:
        return _op("add")(other, self)

    def __sub__(self, other: Any) -> Any:
        return _op("sub")(self, other)

    def __rsub__(self, other: Any) -> Any:
        return _op("sub")(other, self)

    def __mul__(self, other: Any) -> Any:
        return _op("mul")(self, other)

    def __rmul__(self, other: Any) -> Any:
        return _op("mul")(other, self)

    def __truediv__(self, other: Any) -> Any:
        return _op("true_div")(self, other)

    def __rtruediv__(self, other: Any) -> Any:
        return _op("true_div")(other, self)

    def __floordiv__(self, other: Any) -> Any:
        return _op("int_div")(self, other)

    def __rfloordiv__(self, other: Any) -> Any:
        return _op("int_div")(other, self)

    def __mod__(self, other: Any) -> Any:
        return _op("mod")(self, other)

    def __rmod__(self, other: Any) -> Any:
        return _op("mod")(other, self)

    def __pow__(self, other: Any) -> Any:
        return _op("pow")(self, other)

    def __rpow__(self, other: Any) -> Any:
        return _op("pow")(other, self)

    def __neg__(self) -> Any:
        return _op("neg")(self)

    def __pos__(self) -> Any:
        return self

    def __abs__(self) -> Any:
        return _op("abs")(self)

    def __invert__(self) -> Any:
        return _op("invert")(self)

    def __and__(self, other: Any) -> Any:
        return _op("and_")(self, other)

    def __rand__(self, other: Any) -> Any:
        return _op("and_")(other, self)

    def __or__(self, other: Any) -> Any:
        return _op("or_")(self, other)

    def __ror__(self, other: Any) -> Any:
        return _op("or_")(other, self)

    def __xor__(self, other: Any) -> Any:
        return _op("xor")(self, other)

    def __rxor__(self, other: Any) -> Any:
        return _op("xor")(other, self)

    def __lt__(self, other: Any) -> Any:
        return _op("lt")(self, other)

    def __le__(self, other: Any) -> Any:
        return _op("le")(self, other)

    def __gt__(self, other: Any) -> Any:
        return _op("gt")(self, other)

    def __ge__(self, other: Any) -> Any:
        return _op("ge")(self, other)

    def __bool__(self) -> bool:
        raise TypeError(
            f"the symbolic scalar {self} has no truth value; use theon.scalar.switch "
            "or compare with theon.scalar.eq/neq"
        )

    @property
    def dtype(self) -> str:
        assert isinstance(self, Variable)  # (a mixin of ScalarVariable and ScalarConstant)
        return scalar_type(self).dtype

    def astype(self, dtype: Any) -> Any:
        """This variable cast to ``dtype``."""
        return _op("cast")(self, dtype)


class ScalarVariable(_ScalarOperators, Variable):
    """A symbolic scalar; Python operators build scalar ops.

    >>> x = float64("x")
    >>> str((x * 2).owner.op)
    'mul'
    """

    __slots__ = ()


class ScalarConstant(_ScalarOperators, Constant):
    """A scalar constant (its data is a NumPy scalar of the type's dtype).

    >>> c = constant(2.5)
    >>> isinstance(c, ScalarConstant), c.data, str(c)
    (True, np.float64(2.5), '2.5')
    """

    __slots__ = ()

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        return str(self.data.item())


def constant(x: Any, dtype: Any = None, name: str | None = None) -> ScalarConstant:
    """A ScalarConstant holding ``x``; the dtype is inferred as NumPy does unless given.

    >>> constant(2).type
    ScalarType(int64)
    >>> constant(2, dtype="float32").data
    np.float32(2.0)
    """
    if isinstance(x, Constant) and isinstance(x.type, ScalarType):
        if dtype is None or x.type.dtype == str(np.dtype(dtype)):
            return cast(ScalarConstant, x)  # (a Constant of a ScalarType is one)
        x = x.data
    if dtype is None:
        arr = np.asarray(x)
        if arr.ndim != 0:
            raise TypeError(f"a scalar constant needs a single number, got shape {arr.shape}")
        dtype = arr.dtype
    t = get_scalar_type(dtype)
    return ScalarConstant(t, t.filter(x, allow_downcast=True), name=name)


# (Type class, conversion) pairs that higher layers register: see register_scalar_conversion.
_CONVERSIONS: list[tuple[type[Type], Callable[[Variable], Variable | None]]] = []


def register_scalar_conversion(
    type_class: type[Type], convert: Callable[[Variable], Variable | None]
) -> None:
    """Let :func:`as_scalar` convert variables of ``type_class`` with ``convert``.

    ``convert(x)`` returns the scalar variable for ``x``, or ``None`` when ``x``
    has no scalar form (:func:`as_scalar` then raises ``TypeError``).  The tensor
    layer registers ``TensorType`` (0-d tensors become scalars) when it is imported.

    >>> from theon.graph.type import Generic
    >>> register_scalar_conversion(Generic, lambda x: None)
    >>> as_scalar(Generic()("g"))
    Traceback (most recent call last):
    ...
    TypeError: cannot use g of type Generic as a scalar variable
    >>> _CONVERSIONS.pop()[0] is Generic
    True
    """
    _CONVERSIONS.append((type_class, convert))


def as_scalar(x: Any, name: str | None = None) -> Variable:
    """``x`` as a scalar Variable: scalar Variables pass through, numbers become constants.

    Variables of other Types go through the conversion their layer registered
    with :func:`register_scalar_conversion` (a 0-d tensor variable becomes
    ``theon.tensor.scalar_from_tensor(x)``).

    >>> as_scalar(1.5).type
    ScalarType(float64)
    """
    if isinstance(x, Variable):
        if isinstance(x.type, ScalarType):
            return x
        for type_class, convert in _CONVERSIONS:
            if isinstance(x.type, type_class):
                got = convert(x)
                if got is not None:
                    return got
        raise TypeError(f"cannot use {x} of type {x.type} as a scalar variable")
    if hasattr(x, "owner") and hasattr(x, "type"):
        raise TypeError(f"cannot use {x!r} as a scalar variable")
    return constant(x, name=name)


bool_ = get_scalar_type("bool")
int8 = get_scalar_type("int8")
int16 = get_scalar_type("int16")
int32 = get_scalar_type("int32")
int64 = get_scalar_type("int64")
uint8 = get_scalar_type("uint8")
uint16 = get_scalar_type("uint16")
uint32 = get_scalar_type("uint32")
uint64 = get_scalar_type("uint64")
float16 = get_scalar_type("float16")
float32 = get_scalar_type("float32")
float64 = get_scalar_type("float64")
complex64 = get_scalar_type("complex64")
complex128 = get_scalar_type("complex128")
