"""Elementwise tensor functions (one ``Elemwise`` per scalar op) and the reductions.

Each elementwise function is an :class:`~theon.tensor.elemwise.Elemwise` Op
instance, so ``add`` can be used both as a function (``add(x, y, z)``) and as
the ``op`` of an explicit ``Apply`` (seed 000's long example).  Names follow
NumPy (``exp``, ``maximum``, ``true_divide``, ``where``) and Theano (``true_div``,
``int_div``, ``switch``, ``neq``, ``sqr``).

>>> import theon.tensor as tt
>>> x = tt.dvector("x")
>>> exp(x).owner.op is exp
True
>>> add(x, x, 1.0).eval({x: [1.0, 2.0]})
array([3., 5.])
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import numpy as np

import theon.scalar as ts
from theon.graph.basic import Variable
from theon.graph.null_type import disconnected_type
from theon.scalar.basic import BinaryScalarOp, _discrete
from theon.scalar.type import ScalarType
from theon.tensor.basic import as_tensor_variable, cast, constant
from theon.tensor.elemwise import Elemwise
from theon.tensor.reduction import (
    all,
    any,
    argmax,
    argmin,
    logsumexp,
    max,
    mean,
    min,
    prod,
    std,
    sum,
    var,
)

__all__ = [
    "abs", "abs_", "absolute", "add", "all", "allclose", "and_", "any", "arccos", "arccosh",
    "arcsin", "arcsinh", "arctan", "arctan2", "arctanh", "argmax", "argmin", "bitwise_and",
    "bitwise_not",
    "bitwise_or", "bitwise_xor", "cast", "ceil", "clip", "conj", "conjugate", "cos", "cosh",
    "deg2rad", "digamma", "divide", "dot", "eq", "equal", "erf", "erfc", "erfcinv", "erfinv",
    "exp", "exp2", "expit", "expm1", "fill", "floor", "floor_div", "floor_divide", "gamma",
    "gammaln", "ge", "greater", "greater_equal", "gt", "imag", "int_div", "invert",
    "isclose", "isfinite", "isinf", "isnan", "le", "left_shift", "less", "less_equal", "log",
    "log10", "log1mexp", "log1p", "log1pexp", "log2", "logical_and", "logical_not",
    "logical_or", "logical_xor", "logsumexp", "lt", "matmul", "max", "maximum", "mean", "min",
    "minimum", "mod", "mul", "multiply", "neg", "negative", "neq", "not_equal", "ones_like",
    "or_", "outer", "polygamma", "pow", "power", "prod", "psi", "rad2deg", "real", "reciprocal",
    "remainder", "right_shift", "round", "round_half_to_even", "second", "sgn", "sigmoid",
    "sign", "sin", "sinh", "softplus", "sqr", "sqrt", "square", "std", "sub", "subtract", "sum",
    "switch", "tan", "tanh", "tensor_copy", "tensordot", "true_div", "true_divide", "trunc",
    "var", "where", "xor", "zeros_like",
]


class Second(BinaryScalarOp):
    """``second(a, b) = b``, broadcast against ``a`` (Theano's ``fill``).

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> second(x, 2.0).eval({x: [0.0, 0.0]})
    array([2., 2.])
    """

    name = "second"

    def output_types(self, *types: ScalarType) -> list[ScalarType]:
        return [types[1]]

    def impl(self, a: Any, b: Any) -> Any:  # type: ignore[override]
        shape = np.broadcast_shapes(np.shape(a), np.shape(b))
        b = np.asarray(b)
        if b.shape == shape:
            return b.copy()
        out = np.empty(shape, dtype=b.dtype)
        out[...] = b
        return out

    def py_expr(self, a: str, b: str) -> str:  # type: ignore[override]
        return b

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        a, b = inputs
        ga = disconnected_type() if _discrete(a) else ts.constant(0, dtype=a.type.dtype)  # type: ignore[attr-defined]
        gb = disconnected_type() if _discrete(b) else output_grads[0]
        return [ga, gb]


_second_sop = getattr(ts, "second", None) or Second()


def _ew(scalar_op: Any, doc: str, np_name: str | None = None) -> Elemwise:
    """The Elemwise of ``scalar_op`` with a docstring for the tensor function."""
    op = Elemwise(scalar_op)
    like = f" Like ``numpy.{np_name}``." if np_name else ""
    nin = scalar_op.nin if scalar_op.nin > 0 else 2
    args = ", ".join(f'tt.dvector("{c}")' for c in "xyz"[:nin])
    op.__doc__ = (
        f"{doc}\n\nElementwise with broadcasting; Python numbers follow NumPy 2's dtype "
        f"rules.{like}\n\n>>> import theon.tensor as tt\n"
        f">>> y = tt.math.{scalar_op}({args})\n"
    )
    return op


# arithmetic ---------------------------------------------------------------------------
add = _ew(ts.add, "Sum of the inputs (any number of them).", "add")
sub = _ew(ts.sub, "Difference ``x - y``.", "subtract")
mul = _ew(ts.mul, "Product of the inputs (any number of them).", "multiply")
true_div = _ew(ts.true_div, "True division ``x / y`` (integers give floats).", "true_divide")
int_div = _ew(ts.int_div, "Floor division ``x // y``.", "floor_divide")
mod = _ew(ts.mod, "Remainder ``x % y`` with the sign of ``y``.", "remainder")
pow = _ew(ts.pow, "Power ``x ** y``.", "power")
neg = _ew(ts.neg, "Negation ``-x``.", "negative")
abs = _ew(ts.abs, "Absolute value (modulus for complex numbers).", "absolute")
sign = _ew(ts.sign, "Sign: -1, 0 or 1 (NaN for NaN).", "sign")
reciprocal = _ew(ts.reciprocal, "Reciprocal ``1 / x``.", "reciprocal")
sqr = _ew(ts.sqr, "Square ``x * x``.", "square")
sqrt = _ew(ts.sqrt, "Non-negative square root.", "sqrt")
maximum = _ew(ts.maximum, "Elementwise maximum (NaN propagates).", "maximum")
minimum = _ew(ts.minimum, "Elementwise minimum (NaN propagates).", "minimum")
switch = _ew(ts.switch, "``x`` where ``cond`` is true, else ``y``.", "where")
tensor_copy = _ew(ts.identity, "A copy of ``x``.", "copy")
second = _ew(_second_sop, "``y`` broadcast to the shape of ``x`` (Theano's ``fill``).")

# exponentials and logarithms --------------------------------------------------------------
exp = _ew(ts.exp, "Exponential ``e**x``.", "exp")
exp2 = _ew(ts.exp2, "``2**x``.", "exp2")
expm1 = _ew(ts.expm1, "``exp(x) - 1``, accurate near 0.", "expm1")
log = _ew(ts.log, "Natural logarithm.", "log")
log2 = _ew(ts.log2, "Base-2 logarithm.", "log2")
log10 = _ew(ts.log10, "Base-10 logarithm.", "log10")
log1p = _ew(ts.log1p, "``log(1 + x)``, accurate near 0.", "log1p")

# trigonometric and hyperbolic ---------------------------------------------------------------
sin = _ew(ts.sin, "Sine.", "sin")
cos = _ew(ts.cos, "Cosine.", "cos")
tan = _ew(ts.tan, "Tangent.", "tan")
arcsin = _ew(ts.arcsin, "Inverse sine.", "arcsin")
arccos = _ew(ts.arccos, "Inverse cosine.", "arccos")
arctan = _ew(ts.arctan, "Inverse tangent.", "arctan")
arctan2 = _ew(ts.arctan2, "Angle of the point ``(y, x)``: ``arctan2(y, x)``.", "arctan2")
sinh = _ew(ts.sinh, "Hyperbolic sine.", "sinh")
cosh = _ew(ts.cosh, "Hyperbolic cosine.", "cosh")
tanh = _ew(ts.tanh, "Hyperbolic tangent.", "tanh")
arcsinh = _ew(ts.arcsinh, "Inverse hyperbolic sine.", "arcsinh")
arccosh = _ew(ts.arccosh, "Inverse hyperbolic cosine.", "arccosh")
arctanh = _ew(ts.arctanh, "Inverse hyperbolic tangent.", "arctanh")

# rounding ------------------------------------------------------------------------------------
floor = _ew(ts.floor, "Largest integer not above ``x``.", "floor")
ceil = _ew(ts.ceil, "Smallest integer not below ``x``.", "ceil")
trunc = _ew(ts.trunc, "Round toward zero.", "trunc")
round_half_to_even = _ew(ts.round_half_to_even, "Round half to even.", "rint")

# comparisons, logic, bitwise ------------------------------------------------------------
lt = _ew(ts.lt, "``x < y``.", "less")
gt = _ew(ts.gt, "``x > y``.", "greater")
le = _ew(ts.le, "``x <= y``.", "less_equal")
ge = _ew(ts.ge, "``x >= y``.", "greater_equal")
eq = _ew(ts.eq, "``x == y`` (elementwise; ``==`` on variables compares identity).", "equal")
neq = _ew(ts.neq, "``x != y`` (elementwise).", "not_equal")
and_ = _ew(ts.and_, "Bitwise and (logical and on booleans), ``x & y``.", "bitwise_and")
or_ = _ew(ts.or_, "Bitwise or (logical or on booleans), ``x | y``.", "bitwise_or")
xor = _ew(ts.xor, "Bitwise exclusive or, ``x ^ y``.", "bitwise_xor")
invert = _ew(ts.invert, "Bitwise not (logical not on booleans), ``~x``.", "invert")
left_shift = _ew(ts.left_shift, "``x << y``.", "left_shift")
right_shift = _ew(ts.right_shift, "``x >> y``.", "right_shift")
logical_and = _ew(ts.logical_and, "Logical and of the truth values.", "logical_and")
logical_or = _ew(ts.logical_or, "Logical or of the truth values.", "logical_or")
logical_xor = _ew(ts.logical_xor, "Logical exclusive or of the truth values.", "logical_xor")
logical_not = _ew(ts.logical_not, "Logical not of the truth value.", "logical_not")
isnan = _ew(ts.isnan, "Whether ``x`` is NaN.", "isnan")
isinf = _ew(ts.isinf, "Whether ``x`` is infinite.", "isinf")
isfinite = _ew(ts.isfinite, "Whether ``x`` is finite.", "isfinite")

# special functions ----------------------------------------------------------------------------
erf = _ew(ts.erf, "Error function.", None)
erfc = _ew(ts.erfc, "Complementary error function ``1 - erf(x)``.", None)
erfinv = _ew(ts.erfinv, "Inverse error function.", None)
erfcinv = _ew(ts.erfcinv, "Inverse complementary error function.", None)
gamma = _ew(ts.gamma, "Gamma function.", None)
gammaln = _ew(ts.gammaln, "Logarithm of the absolute value of the gamma function.", None)
psi = _ew(ts.psi, "Digamma function (derivative of ``gammaln``).", None)
polygamma = _ew(ts.polygamma, "Polygamma function ``psi^(n)(x)`` (``polygamma(n, x)``).", None)
sigmoid = _ew(ts.sigmoid, "Logistic sigmoid ``1 / (1 + exp(-x))``.", None)
softplus = _ew(ts.softplus, "``log(1 + exp(x))``, computed stably.", None)
log1mexp = _ew(ts.log1mexp, "``log(1 - exp(x))`` for ``x <= 0``, computed stably.", None)

# complex numbers ---------------------------------------------------------------------------
real = _ew(ts.real, "Real part.", "real")
imag = _ew(ts.imag, "Imaginary part.", "imag")
conj = _ew(ts.conj, "Complex conjugate.", "conjugate")

# aliases (NumPy / Theano names) --------------------------------------------------------------
subtract = sub
multiply = mul
true_divide = divide = true_div
floor_div = floor_divide = int_div
remainder = mod
power = pow
negative = neg
abs_ = absolute = abs
sgn = sign
square = sqr
equal = eq
not_equal = neq
less = lt
greater = gt
less_equal = le
greater_equal = ge
bitwise_and = and_
bitwise_or = or_
bitwise_xor = xor
bitwise_not = invert
conjugate = conj
expit = sigmoid
log1pexp = softplus
digamma = psi
fill = second


# functions with extra arguments ---------------------------------------------------------------
def round(x: Any, decimals: int = 0, mode: str = "half_to_even") -> Variable:
    """Round to ``decimals`` decimals, half to even, like ``numpy.round``.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> round(x).eval({x: [0.5, 1.5, 2.6]})
    array([0., 2., 3.])
    """
    if mode not in ("half_to_even", "half_even"):
        raise ValueError(f"round: only mode='half_to_even' (NumPy's) is supported, got {mode!r}")
    x = as_tensor_variable(x)
    dt = x.type.dtype
    if dt.startswith(("float", "complex")):
        if decimals == 0:
            return round_half_to_even(x)  # type: ignore[no-any-return]
        f = 10.0**decimals
        return true_div(round_half_to_even(mul(x, f)), f)  # type: ignore[no-any-return]
    if decimals >= 0:
        return x
    k = 10 ** (-decimals)
    return cast(mul(round_half_to_even(true_div(x, k)), k), dt)


def clip(x: Any, a_min: Any, a_max: Any) -> Variable:
    """Limit ``x`` to ``[a_min, a_max]`` (``None`` for no bound), like ``numpy.clip``.

    >>> import theon.tensor as tt
    >>> x = tt.fvector("x")
    >>> clip(x, 0, 1.5).eval({x: [-1.0, 0.5, 3.0]})
    array([0. , 0.5, 1.5], dtype=float32)
    """
    if a_min is None and a_max is None:
        raise ValueError("clip: a_min and a_max cannot both be None")
    if a_min is None:
        return minimum(x, a_max)  # type: ignore[no-any-return]
    if a_max is None:
        return maximum(x, a_min)  # type: ignore[no-any-return]
    return _clip(x, a_min, a_max)  # type: ignore[no-any-return]


_clip = _ew(ts.clip, "Clip with both bounds.", "clip")


def where(cond: Any, x: Any = None, y: Any = None) -> Any:
    """``x`` where ``cond`` is true, else ``y``, like ``numpy.where``.

    With only ``cond``, the indices of its non-zero elements (``nonzero``).

    >>> import theon.tensor as tt
    >>> v = tt.dvector("v")
    >>> where(v > 0, v, 0.0).eval({v: [-1.0, 2.0]})
    array([0., 2.])
    """
    if x is None and y is None:
        return importlib.import_module("theon.tensor.extra_ops").nonzero(cond)
    if x is None or y is None:
        raise ValueError("where: give both x and y, or neither")
    return switch(cond, x, y)


def zeros_like(x: Any, dtype: Any = None) -> Variable:
    """Zeros with the shape (and by default the dtype) of ``x``.

    >>> import theon.tensor as tt
    >>> zeros_like(tt.fmatrix("m")).type
    TensorType(float32, shape=(None, None))
    """
    x = as_tensor_variable(x)
    return second(x, constant(0, dtype=dtype or x.type.dtype))  # type: ignore[no-any-return]


def ones_like(x: Any, dtype: Any = None) -> Variable:
    """Ones with the shape (and by default the dtype) of ``x``.

    >>> import theon.tensor as tt
    >>> ones_like(tt.ivector("v")).dtype
    'int32'
    """
    x = as_tensor_variable(x)
    return second(x, constant(1, dtype=dtype or x.type.dtype))  # type: ignore[no-any-return]


def deg2rad(x: Any) -> Variable:
    """Degrees to radians, like ``numpy.deg2rad``.

    >>> import theon.tensor as tt
    >>> y = deg2rad(tt.dvector("d"))
    """
    return mul(x, np.pi / 180.0)  # type: ignore[no-any-return]


def rad2deg(x: Any) -> Variable:
    """Radians to degrees, like ``numpy.rad2deg``.

    >>> import theon.tensor as tt
    >>> y = rad2deg(tt.dvector("r"))
    """
    return mul(x, 180.0 / np.pi)  # type: ignore[no-any-return]


def isclose(a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-8,
            equal_nan: bool = False) -> Variable:
    """Whether ``a`` and ``b`` are equal within tolerance, like ``numpy.isclose``.

    ``|a - b| <= atol + rtol * |b|`` where ``b`` is finite, or ``a == b`` (equal
    infinities); NaNs are close to each other only with ``equal_nan``.  An
    integer ``b`` is compared as float64 (no integer overflow in ``a - b``).

    >>> import numpy as np
    >>> import theon.tensor as tt
    >>> v = tt.dvector("v")
    >>> isclose(v, 1.0).eval({v: [1.0, 1.1]})
    array([ True, False])
    >>> isclose(v, np.inf).eval({v: [np.inf, -np.inf, 1e300]})
    array([ True, False, False])
    """
    a = as_tensor_variable(a) if not isinstance(a, (int, float, complex)) else a
    if isinstance(b, int):
        b = float(b)
    elif not isinstance(b, (float, complex)):
        b = as_tensor_variable(b)
        if b.type.dtype[0] in "biu":  # type: ignore[attr-defined]
            b = cast(b, "float64")
    close = and_(le(abs(sub(a, b)), add(atol, mul(rtol, abs(b)))), isfinite(b))
    close = or_(close, eq(a, b))  # equal infinities
    if equal_nan:
        close = or_(close, and_(isnan(a), isnan(b)))
    return close  # type: ignore[no-any-return]


def allclose(a: Any, b: Any, rtol: float = 1e-5, atol: float = 1e-8,
             equal_nan: bool = False) -> Variable:
    """Whether all elements of ``a`` and ``b`` are close (:func:`isclose`), like
    ``numpy.allclose`` (a 0-d boolean tensor).

    >>> import numpy as np
    >>> import theon.tensor as tt
    >>> v = tt.dvector("v")
    >>> allclose(v, [1.0, np.nan], equal_nan=True).eval({v: [1.0, np.nan]})
    array(True)
    """
    return all(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


# products (implemented in the products module) -------------------------------------------------
def _products() -> Any:
    for name in ("theon.tensor.blas", "theon.tensor.products", "theon.tensor.nlinalg"):
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        if hasattr(mod, "dot"):
            return mod
    raise NotImplementedError("matrix products need theon.tensor.blas (not available)")


def dot(a: Any, b: Any) -> Variable:
    """Dot product, like ``numpy.dot``.

    >>> import theon.tensor as tt
    >>> y = dot(tt.dmatrix("a"), tt.dvector("b"))
    """
    return _products().dot(a, b)  # type: ignore[no-any-return]


def matmul(a: Any, b: Any) -> Variable:
    """Matrix product with batching, like ``numpy.matmul`` (the ``@`` operator).

    >>> import theon.tensor as tt
    >>> y = matmul(tt.dtensor3("a"), tt.dmatrix("b"))
    """
    return _products().matmul(a, b)  # type: ignore[no-any-return]


def tensordot(a: Any, b: Any, axes: Any = 2) -> Variable:
    """Tensor dot product over ``axes``, like ``numpy.tensordot``.

    >>> import theon.tensor as tt
    >>> y = tensordot(tt.dmatrix("a"), tt.dmatrix("b"), axes=1)
    """
    return _products().tensordot(a, b, axes)  # type: ignore[no-any-return]


def outer(a: Any, b: Any) -> Variable:
    """Outer product of two vectors, like ``numpy.outer``.

    >>> import theon.tensor as tt
    >>> y = outer(tt.dvector("a"), tt.dvector("b"))
    """
    return _products().outer(a, b)  # type: ignore[no-any-return]


# NumPy ufuncs applied to tensor variables (np.exp(x)) dispatch here ----------------------------
_UFUNC_TO_OP: dict[str, Any] = {
    "add": add, "subtract": sub, "multiply": mul, "true_divide": true_div, "divide": true_div,
    "floor_divide": int_div, "remainder": mod, "mod": mod, "power": pow, "negative": neg,
    "absolute": abs, "sign": sign, "reciprocal": reciprocal, "square": sqr, "sqrt": sqrt,
    "maximum": maximum, "minimum": minimum, "exp": exp, "exp2": exp2, "expm1": expm1,
    "log": log, "log2": log2, "log10": log10, "log1p": log1p, "sin": sin, "cos": cos,
    "tan": tan, "arcsin": arcsin, "arccos": arccos, "arctan": arctan, "arctan2": arctan2,
    "sinh": sinh, "cosh": cosh, "tanh": tanh, "arcsinh": arcsinh, "arccosh": arccosh,
    "arctanh": arctanh, "floor": floor, "ceil": ceil, "trunc": trunc, "rint": round_half_to_even,
    "less": lt, "greater": gt, "less_equal": le, "greater_equal": ge, "equal": eq,
    "not_equal": neq, "bitwise_and": and_, "bitwise_or": or_, "bitwise_xor": xor,
    "invert": invert, "left_shift": left_shift, "right_shift": right_shift,
    "logical_and": logical_and, "logical_or": logical_or, "logical_xor": logical_xor,
    "logical_not": logical_not, "isnan": isnan, "isinf": isinf, "isfinite": isfinite,
    "conjugate": conj, "matmul": matmul, "deg2rad": deg2rad, "rad2deg": rad2deg,
}
