"""The elementwise scalar ops as one table: a row per op, and the classes built from it.

Each :class:`OpRow` gives an op's class and op names, its ufunc, its Python
spelling for the 0-d fast path (the linker inlines exactly this), its
derivative rule, its output-type rule, and the docstring and NumPy/Theano
names of the tensor function that ``theon.tensor.math`` makes of it.  Every row
becomes a subclass of :class:`~theon.scalar.basic.ScalarOp` named ``row.cls``
and one instance named ``row.name`` (in :data:`OPS`).  They are declared by name
in ``theon.scalar.rowops`` (:data:`DECLARED_IN`, written from the rows by
``python -m theon.scalar.declare``; the classes' module, so instances pickle by
class), which ``theon.scalar`` and the family modules (``basic``, ``arith``,
``logic``, ``special``, ``transcendental``) star-import; they export them beside
the few ops whose behaviour does not fit a row (``Cast``, ``Clip``, ``Switch``,
``PolyGamma``, ``Reciprocal``, ``RoundHalfToEven``).

SciPy's ufuncs are named, not imported: SciPy loads when such an op first
reads its ``ufunc`` (to compute), not when a graph is built.

>>> class Op:
...     ufunc = scipy_ufunc("erfc")
>>> Op.__dict__["ufunc"], Op().ufunc(0.0)
(scipy.special.erfc, np.float64(1.0))

>>> from theon.scalar.type import float64
>>> x = float64("x")
>>> tanh = OPS["tanh"]
>>> type(tanh(x).owner.op).__name__, ROW["tanh"].py, ROW["tanh"].numpy
('Tanh', 'math.tanh({0})', 'tanh')
>>> str(tanh.L_op([x], [tanh(x)], [float64("gz")])[0].owner.op)
'mul'
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import theon.scalar as ts
from theon.graph.basic import Apply, Variable
from theon.graph.null_type import disconnected_type
from theon.scalar import specfun
from theon.scalar.basic import (
    BinaryScalarOp,
    GradRule,
    OutputTypePref,
    ScalarOp,
    UnaryScalarOp,
    _discrete,
    _grad_as,
    chain,
    complex_to_real,
    deriv,
    partials,
    same_out,
    upgrade_to_float_nocomplex,
    zero_grads,
)
from theon.scalar.specgrad import RULES as _SPECIAL_GRADS
from theon.scalar.type import ScalarType, constant, get_scalar_type, scalar_type

__all__ = ["DECLARED_IN", "FAMILIES", "OPS", "ROW", "ROWS", "SCALAR_ALIASES", "OnHost",
           "OpRow", "computes_as_ufunc_in_float64", "scipy_ufunc"]

#: the family modules of ``theon.scalar`` (``theon.scalar.<family>``) a row can belong to
FAMILIES = ("basic", "arith", "logic", "special", "transcendental")
#: the module that declares the rows' classes and ops by name (written by
#: ``python -m theon.scalar.declare``), and the ``__module__`` of the classes
DECLARED_IN = "theon.scalar.rowops"


# what rows refer to ---------------------------------------------------------------
class scipy_ufunc:
    """A class attribute standing for ``scipy.special.<name>``, imported on first read.

    SciPy takes a good part of a second to import; a graph that never computes a
    special function never loads it (example in the module docstring).
    """

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, obj: Any, owner: Any) -> Any:
        import scipy.special

        fn = getattr(scipy.special, self.name)
        owner.ufunc = fn  # later reads find the ufunc itself
        return fn

    def __repr__(self) -> str:
        return f"scipy.special.{self.name}"


def _fold_types(op: ScalarOp, types: Sequence[ScalarType]) -> list[ScalarType]:
    """Output type of a variadic op: the ufunc's type folded pairwise, as ``reduce`` does."""
    for i, t in enumerate(types):
        if not isinstance(t, ScalarType):
            raise TypeError(f"input {i} of scalar op {op} has non-scalar type {t}")
    dt = types[0].dtype
    if len(types) == 1:
        return [types[0]]
    for t in types[1:]:
        (dt,) = op._ufunc_dtypes([dt, t.dtype])
    return [get_scalar_type(dt)]


class _Variadic(ScalarOp):
    """A commutative, associative op of one or more inputs: ``ufunc`` folded left to right."""

    commutative = True
    associative = True
    py_operator: str  # the Python infix operator of the 0-d fast path (the row's ``py``)

    def output_types(self, *types: ScalarType) -> list[ScalarType]:
        return _fold_types(self, types)

    def impl(self, *values: Any) -> Any:
        r = values[0]
        if len(values) == 1:
            return np.positive(r) if np.asarray(r).dtype != bool else r
        for v in values[1:]:
            r = self.ufunc(r, v)
        return r

    def py_expr(self, *names: str) -> str:
        return "(" + f" {self.py_operator} ".join(names) + ")"


def _float_impl(op: ScalarOp, *xs: Any) -> Any:
    if len(xs) == 1:
        return specfun.apply_float(op.ufunc, xs[0])
    return specfun.float_impl(op, *xs)


def computes_as_ufunc_in_float64(op: ScalarOp) -> bool:
    """Whether ``op.impl`` on float64 operands is ``op.ufunc`` itself (a special function
    computed in a precision SciPy supports: float64 stays float64), so a kernel may call
    the ufunc directly there.

    >>> computes_as_ufunc_in_float64(OPS["erfc"]), computes_as_ufunc_in_float64(OPS["add"])
    (True, False)
    """
    return type(op).impl is _float_impl and isinstance(op.ufunc, np.ufunc | scipy_ufunc)


def _copy_impl(op: ScalarOp, x: Any) -> Any:
    return x.copy() if isinstance(x, np.ndarray) else x


def _softplus_np(x: Any) -> Any:
    """``log(1 + exp(x))`` without overflow: ``max(x, 0) + log1p(exp(-|x|))`` (the value
    of ``logaddexp(0, x)``, in a few fast ufuncs: ``logaddexp`` is several times slower)."""
    return np.maximum(x, 0) + np.log1p(np.exp(-np.abs(x)))


def _softsign_np(x: Any) -> Any:
    """``x / (1 + |x|)``."""
    return x / (1 + np.abs(x))


def _log1mexp_np(x: Any) -> Any:
    """``log(1 - exp(x))`` for x <= 0: log1p(-exp(x)) below -ln 2, log(-expm1(x)) above."""
    x = np.asarray(x)
    with np.errstate(all="ignore"):
        r = np.where(x < -_LN2, np.log1p(-np.exp(x)), np.log(-np.expm1(x)))
    return r


def _py_ok_bool(op: ScalarOp, node: Apply) -> bool:
    """Bitwise ops spell the logical ones: only on booleans."""
    return all(scalar_type(v).dtype == "bool" for v in (*node.inputs, *node.outputs))


def _py_ok_logical(op: ScalarOp, node: Apply) -> bool:
    return all(scalar_type(v).dtype in ("bool", "float64") for v in node.inputs)


def _py_ok_identity(op: ScalarOp, node: Apply) -> bool:
    return scalar_type(node.inputs[0]).dtype in ("float64", "bool")


# derivative rules that are not a plain derivative or pair of partials --------------------
def _add_grad(inputs: Sequence[Variable], outputs: Any, output_grads: Any) -> list[Any]:
    (gz,) = output_grads
    return [disconnected_type() if _discrete(x) else _grad_as(gz, x) for x in inputs]


def _mul_grad(inputs: Sequence[Variable], outputs: Any, output_grads: Any) -> list[Any]:
    (gz,) = output_grads
    res: list[Any] = []
    for i, x in enumerate(inputs):
        if _discrete(x):
            res.append(disconnected_type())
            continue
        others = [v for j, v in enumerate(inputs) if j != i]
        res.append(_grad_as(ts.mul(gz, *others) if others else gz, x))
    return res


def _identity_grad(inputs: Sequence[Variable], outputs: Any, output_grads: Any) -> list[Any]:
    (x,) = inputs
    return [disconnected_type() if _discrete(x) else output_grads[0]]


def _imag_grad(inputs: Sequence[Variable], outputs: Any, output_grads: Any) -> list[Any]:
    (x,) = inputs
    if _discrete(x):
        return [disconnected_type()]
    if not scalar_type(x).is_complex:
        return [constant(0, dtype=scalar_type(x).dtype)]
    # gradient convention: dC/dRe(z) + i dC/dIm(z)
    return [ts.mul(output_grads[0], constant(1j, dtype=scalar_type(x).dtype))]


def _abs_grad(gz: Variable, x: Variable, out: Variable) -> Variable:
    if scalar_type(x).is_complex:
        return ts.true_div(ts.mul(gz, x), out)
    return ts.mul(gz, ts.sign(x))


def _arctan2_grad(inputs: Sequence[Variable], outputs: Any, output_grads: Any) -> list[Any]:
    # partials() with r2 = x**2 + y**2 built once for both
    y, x = inputs
    (gz,) = output_grads
    r2 = ts.add(ts.sqr(x), ts.sqr(y))
    gy = disconnected_type() if _discrete(y) else _grad_as(ts.true_div(ts.mul(gz, x), r2), y)
    gx = (
        disconnected_type() if _discrete(x) else _grad_as(ts.neg(ts.true_div(ts.mul(gz, y), r2)), x)
    )
    return [gy, gx]


_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT_PI_OVER_TWO = math.sqrt(math.pi) / 2.0


# the table ------------------------------------------------------------------------------
@dataclass(frozen=True)
class OnHost:
    """The JAX spelling of a row that jax cannot compute, and ``why``: the row's NumPy
    function runs on the host (``jax.pure_callback``) inside the traced function.

    >>> OnHost("jax has no gammaincinv").why
    'jax has no gammaincinv'
    """

    why: str


@dataclass(frozen=True)
class OpRow:
    """One elementwise scalar op.

    ``cls``/``name``: class and instance names.  ``ufunc``: a NumPy ufunc, a
    :class:`scipy_ufunc`, a plain array function, or None (then ``impl`` computes).
    ``py``: the ``str.format`` template of the 0-d Python spelling over the input
    names (the infix operator for a variadic op), or None.  ``grad``: the
    derivative rule (:data:`~theon.scalar.basic.GradRule`).  ``doc``: the op's
    docstring.  ``tdoc``: the tensor function's docstring; ``numpy``: the NumPy
    function it is like, and the op's one name in NumPy's namespaces: the JAX rule
    is ``jax.numpy.<numpy>`` and tier 1 compiles ``jax.numpy.<numpy>`` unless the
    JAX backend's table of exceptions (``theon.backends.jax.scalar.JAX_EXCEPTIONS``)
    says otherwise; ``jax``: the JAX function of a row without a NumPy name, as its
    path under ``jax`` (``"scipy.special.gammainc"``), or :class:`OnHost` (jax has
    none: the NumPy function runs on the host); ``aliases``: its other names in ``theon.tensor``
    (NumPy's and Theano's).  ``dtype``: the output-type rule (None: what the
    ufunc gives).  ``impl``/``py_ok``: methods replacing ScalarOp's ``impl`` and
    ``py_expr_ok``.  ``tensor``: the tensor function's name when not ``name``.
    ``family``: the module of :data:`FAMILIES` that exports the class and the op
    (``theon.scalar`` exports the op, ``theon.tensor.math`` the tensor function).
    """

    cls: str
    name: str
    ufunc: Any
    py: str | None
    grad: GradRule
    doc: str
    tdoc: str
    numpy: str | None = None
    aliases: tuple[str, ...] = ()
    nin: int = 1
    dtype: OutputTypePref | None = None
    impl: Callable[..., Any] | None = None
    py_ok: Callable[[ScalarOp, Apply], bool] | None = None
    identity: Any = None
    commutative: bool = False
    associative: bool = False
    weak_overflow_ok: bool = False  # comparisons take out-of-range Python ints, as NumPy 2
    base: type[ScalarOp] | None = None
    tensor: str | None = None
    jax: str | OnHost | None = None
    family: str = field(default="", kw_only=True)

    def __post_init__(self) -> None:
        if self.family not in FAMILIES:
            raise ValueError(f"row {self.name}: family {self.family!r} is not one of {FAMILIES}")


def _gz(gz: Variable, x: Variable, y: Variable, out: Variable) -> Variable:
    """The partial that passes the output gradient through (d/dx of ``x - y`` is 1)."""
    return gz


def _pow_dx(gz: Variable, x: Variable, y: Variable, z: Variable) -> Variable:
    """``gz * y * x**(y-1)``, and 0 where ``y == 0``: ``x**0`` is 1 for every ``x``,
    even 0, where ``0 * 0**-1`` would be nan."""
    return ts.mul(gz, ts.switch(ts.eq(y, 0), 0, ts.mul(y, ts.pow(x, ts.sub(y, 1)))))


def _pow_dy(gz: Variable, x: Variable, y: Variable, z: Variable) -> Variable:
    """``gz * x**y * log(x)``, and 0 where ``x**y == 0``: at ``x = 0``, ``y > 0`` the
    power is 0 on a neighbourhood of ``y`` (``0 * log(0)`` would be nan), and an
    underflowed ``x**y`` has a gradient that underflows too."""
    return ts.mul(gz, ts.switch(ts.eq(z, 0), 0, ts.mul(z, ts.log(x))))


R = OpRow
# the family module of a row (FAMILIES)
_BASIC: dict[str, Any] = {"family": "basic"}
_ARITH: dict[str, Any] = {"family": "arith"}
_TRANS: dict[str, Any] = {"family": "transcendental"}
_LOGIC: dict[str, Any] = {"family": "logic"}
_CMP: dict[str, Any] = {"nin": 2, "weak_overflow_ok": True, **_LOGIC}
_ACI: dict[str, Any] = {"commutative": True, "associative": True}
_SPECIAL: dict[str, Any] = {
    "dtype": upgrade_to_float_nocomplex, "impl": _float_impl, "family": "special"
}

_HOST_BESSEL = OnHost("jax.scipy.special has no Bessel function of real order")
_HOST_INV = OnHost("jax.scipy.special has no inverse incomplete gamma or beta function")
_HOST_SERIES = OnHost("jax has no derivative of betainc or hyp2f1 in a parameter")
_HOST_HYP = OnHost("jax.scipy.special.hyp2f1 is wrong by orders of magnitude for z < -1")
_HOST_LOG = OnHost("jax has no unregularized incomplete gamma function; gamma(k) times the "
                   "regularized one overflows where the value does not (k > 171)")
_sf = scipy_ufunc
#: the rows of SciPy's special functions (PyTensor's names): class, op, function, inputs,
#: JAX spelling (None: an entry of JAX_EXCEPTIONS), the reference, the docstring
_SCIPY_ROWS: tuple[tuple[str, str, Any, int, str | OnHost | None, str, str], ...] = (
    ("Erfcx", "erfcx", _sf("erfcx"), 1, "scipy.special.erfcx", "scipy.special.erfcx",
     "Scaled complementary error function ``exp(x**2) * erfc(x)``"),
    ("Owens_t", "owens_t", _sf("owens_t"), 2, "scipy.special.owens_t",
     "scipy.special.owens_t", "Owen's T function ``T(h, a)``"),
    ("I0", "i0", _sf("i0"), 1, "scipy.special.i0", "scipy.special.i0",
     "Modified Bessel function of the first kind of order 0"),
    ("I1", "i1", _sf("i1"), 1, "scipy.special.i1", "scipy.special.i1",
     "Modified Bessel function of the first kind of order 1"),
    ("Iv", "iv", _sf("iv"), 2, _HOST_BESSEL, "scipy.special.iv",
     "Modified Bessel function of the first kind of real order ``v``: ``iv(v, x)``"),
    ("Ive", "ive", _sf("ive"), 2, _HOST_BESSEL, "scipy.special.ive",
     "Exponentially scaled ``iv(v, x) * exp(-abs(x))``"),
    ("J0", "j0", _sf("j0"), 1, _HOST_BESSEL, "scipy.special.j0",
     "Bessel function of the first kind of order 0"),
    ("J1", "j1", _sf("j1"), 1, _HOST_BESSEL, "scipy.special.j1",
     "Bessel function of the first kind of order 1"),
    ("Jv", "jv", _sf("jv"), 2, _HOST_BESSEL, "scipy.special.jv",
     "Bessel function of the first kind of real order ``v``: ``jv(v, x)``"),
    ("Kv", "kv", _sf("kv"), 2, _HOST_BESSEL, "scipy.special.kv",
     "Modified Bessel function of the second kind of real order ``v``: ``kv(v, x)``"),
    ("Kve", "kve", _sf("kve"), 2, _HOST_BESSEL, "scipy.special.kve",
     "Exponentially scaled ``kv(v, x) * exp(x)``"),
    ("Kn", "kn", specfun.kn, 2, _HOST_BESSEL, "scipy.special.kn",
     "Modified Bessel function of the second kind of integer order ``n``: ``kn(n, x)``"),
    ("GammaInc", "gammainc", _sf("gammainc"), 2, "scipy.special.gammainc",
     "scipy.special.gammainc", "Regularized lower incomplete gamma function ``P(k, x)``"),
    ("GammaIncC", "gammaincc", _sf("gammaincc"), 2, "scipy.special.gammaincc",
     "scipy.special.gammaincc", "Regularized upper incomplete gamma function ``Q(k, x)``"),
    ("GammaIncInv", "gammaincinv", _sf("gammaincinv"), 2, _HOST_INV,
     "scipy.special.gammaincinv", "The ``x`` with ``gammainc(k, x) == y``"),
    ("GammaIncCInv", "gammainccinv", _sf("gammainccinv"), 2, _HOST_INV,
     "scipy.special.gammainccinv", "The ``x`` with ``gammaincc(k, x) == y``"),
    ("GammaL", "gammal", specfun.gammal, 2, _HOST_LOG, "gamma(k) * scipy.special.gammainc(k, x)",
     "Lower incomplete gamma function (not regularized)"),
    ("GammaU", "gammau", specfun.gammau, 2, _HOST_LOG, "gamma(k) * scipy.special.gammaincc(k, x)",
     "Upper incomplete gamma function (not regularized)"),
    ("Chi2SF", "chi2sf", specfun.chi2sf, 2, None, "scipy.stats.chi2.sf(x, k)",
     "Survival function of the chi-squared distribution: ``chi2sf(x, k)``"),
    ("GammaIncGrad", "gammainc_grad", specfun.gammainc_da, 2, "lax.igamma_grad_a",
     "d/dk scipy.special.gammainc(k, x)", "Derivative of ``gammainc(k, x)`` in ``k``"),
    ("BetaInc", "betainc", _sf("betainc"), 3, "scipy.special.betainc",
     "scipy.special.betainc", "Regularized incomplete beta function ``I_x(a, b)``"),
    ("BetaIncInv", "betaincinv", _sf("betaincinv"), 3, _HOST_INV,
     "scipy.special.betaincinv", "The ``x`` with ``betainc(a, b, x) == y``"),
    ("BetaIncGradA", "betainc_grad_a", specfun.betainc_da, 3, _HOST_SERIES,
     "d/da scipy.special.betainc(a, b, x)", "Derivative of ``betainc(a, b, x)`` in ``a``"),
    ("BetaIncGradB", "betainc_grad_b", specfun.betainc_db, 3, _HOST_SERIES,
     "d/db scipy.special.betainc(a, b, x)", "Derivative of ``betainc(a, b, x)`` in ``b``"),
    ("Hyp2F1", "hyp2f1", _sf("hyp2f1"), 4, _HOST_HYP, "scipy.special.hyp2f1",
     "Gauss hypergeometric function ``2F1(a, b; c; z)``"),
    ("Hyp2F1GradA", "hyp2f1_grad_a", specfun.hyp2f1_da, 4, _HOST_SERIES,
     "d/da scipy.special.hyp2f1", "Derivative of ``hyp2f1(a, b, c, z)`` in ``a``"),
    ("Hyp2F1GradB", "hyp2f1_grad_b", specfun.hyp2f1_db, 4, _HOST_SERIES,
     "d/db scipy.special.hyp2f1", "Derivative of ``hyp2f1(a, b, c, z)`` in ``b``"),
    ("Hyp2F1GradC", "hyp2f1_grad_c", specfun.hyp2f1_dc, 4, _HOST_SERIES,
     "d/dc scipy.special.hyp2f1", "Derivative of ``hyp2f1(a, b, c, z)`` in ``c``"),
    ("XlogX", "xlogx", specfun.xlogx, 1, None, "scipy.special.xlogy(x, x)",
     "``x * log(x)``, 0 at ``x == 0``"),
    ("XlogY0", "xlogy0", specfun.xlogy0, 2, "scipy.special.xlogy", "scipy.special.xlogy",
     "``x * log(y)``, 0 where ``x == 0``"),
)

ROWS: tuple[OpRow, ...] = (
    # arithmetic
    R("Add", "add", np.add, "+", _add_grad,
      "``x + y + ...`` (``np.add``; on booleans: logical or).",
      "Sum of the inputs (any number of them).", "add",
      nin=-1, identity=0, base=_Variadic, **_ACI, **_BASIC),
    R("Mul", "mul", np.multiply, "*", _mul_grad,
      "``x * y * ...`` (``np.multiply``; on booleans: logical and).",
      "Product of the inputs (any number of them).", "multiply", ("multiply",),
      nin=-1, identity=1, base=_Variadic, **_ACI, **_BASIC),
    R("Sub", "sub", np.subtract, "({0} - {1})", partials(_gz, lambda gz, x, y, z: ts.neg(gz)),
      "``x - y`` (``np.subtract``; undefined on booleans, as in NumPy).",
      "Difference ``x - y``.", "subtract", ("subtract",), nin=2, **_BASIC),
    R("TrueDiv", "true_div", np.true_divide, "({0} / {1} if {1} else _div({0}, {1}))",
      partials(lambda gz, x, y, z: ts.true_div(gz, y),
               lambda gz, x, y, z: ts.neg(ts.true_div(ts.mul(gz, z), y))),
      "``x / y`` (``np.true_divide``: integers give floats).",
      "True division ``x / y`` (integers give floats).", "true_divide",
      ("true_divide", "divide"), nin=2, **_BASIC),
    R("IntDiv", "int_div", np.floor_divide, "_floordiv({0}, {1})", zero_grads,
      "``x // y`` (``np.floor_divide``; on floats ``floor(x / y)`` with NumPy's inf/nan).",
      "Floor division ``x // y``.", "floor_divide", ("floor_div", "floor_divide"), nin=2, **_ARITH),
    # x % y = x - y * floor(x / y): d/dx = 1, d/dy = -floor(x / y)
    R("Mod", "mod", np.remainder, "_mod({0}, {1})",
      partials(_gz, lambda gz, x, y, z: ts.neg(ts.mul(gz, ts.int_div(x, y)))),
      "``x % y`` (``np.remainder``: the sign of the divisor).",
      "Remainder ``x % y`` with the sign of ``y``.", "remainder", ("remainder",), nin=2, **_ARITH),
    R("Pow", "pow", np.power, "_pow({0}, {1})",
      partials(_pow_dx, _pow_dy),
      "``x ** y`` (``np.power``; integers to negative integer powers raise, as in NumPy).",
      "Power ``x ** y``.", "power", ("power",), nin=2, **_ARITH),
    R("Neg", "neg", np.negative, "(-{0})", chain(lambda gz, x, z: ts.neg(gz)),
      "``-x`` (``np.negative``).", "Negation ``-x``.", "negative", ("negative",), **_BASIC),
    R("Abs", "abs", np.absolute, "abs({0})", chain(_abs_grad),
      "``|x|`` (``np.absolute``; complex gives its real dtype).",
      "Absolute value (modulus for complex numbers).", "absolute", ("abs_", "absolute"), **_ARITH),
    # np.sign: zeros give +0.0, nan stays nan
    R("Sign", "sign", np.sign,
      "(1.0 if {0} > 0.0 else (-1.0 if {0} < 0.0 else (0.0 if {0} == 0.0 else {0})))",
      zero_grads, "``-1, 0, 1`` by sign (``np.sign``; nan stays nan).",
      "Sign: -1, 0 or 1 (NaN for NaN).", "sign", ("sgn",), **_ARITH),
    R("Sqr", "sqr", np.square, "({0} * {0})", deriv(lambda x, z: ts.mul(2, x)),
      "``x * x`` (``np.square``).", "Square ``x * x``.", "square", ("square",), **_ARITH),
    R("Sqrt", "sqrt", np.sqrt, "(math.sqrt({0}) if {0} >= 0.0 else _sqrt({0}))",
      deriv(lambda x, z: ts.true_div(0.5, z)),
      "Square root (``np.sqrt``: negative -> nan).", "Non-negative square root.", "sqrt", **_ARITH),
    # np.maximum / np.minimum: nan propagates, ties give the second operand (signed zeros);
    # the gradient is a subgradient: ties send it to x only, so the total is gz
    R("Maximum", "maximum", np.maximum,
      "({0} if {0} > {1} else ({1} if {1} >= {0} else {0} + {1}))",
      partials(lambda gz, x, y, z: ts.mul(gz, ts.ge(x, y)),
               lambda gz, x, y, z: ts.mul(gz, ts.lt(x, y))),
      "Elementwise maximum (``np.maximum``: nan propagates).",
      "Elementwise maximum (NaN propagates).", "maximum", nin=2, identity=-np.inf,
      **_ACI, **_ARITH),
    R("Minimum", "minimum", np.minimum,
      "({0} if {0} < {1} else ({1} if {1} <= {0} else {0} + {1}))",
      partials(lambda gz, x, y, z: ts.mul(gz, ts.le(x, y)),
               lambda gz, x, y, z: ts.mul(gz, ts.gt(x, y))),
      "Elementwise minimum (``np.minimum``: nan propagates).",
      "Elementwise minimum (NaN propagates).", "minimum", nin=2, identity=np.inf, **_ACI, **_ARITH),
    R("Identity", "identity", None, "{0}", _identity_grad,
      "The value itself (a copy for arrays).", "A copy of ``x``.", "copy",
      dtype=same_out, impl=_copy_impl, py_ok=_py_ok_identity, tensor="tensor_copy", **_ARITH),
    # exponentials and logarithms
    R("Exp", "exp", np.exp, "(math.exp({0}) if {0} < 709.0 else _exp({0}))",
      deriv(lambda x, z: z),
      "``e**x`` (``np.exp``; integers give floats).", "Exponential ``e**x``.", "exp", **_BASIC),
    R("Exp2", "exp2", np.exp2, "_exp2({0})", deriv(lambda x, z: ts.mul(z, _LN2)),
      "``2 ** x``.", "``2**x``.", "exp2", **_TRANS),
    R("Expm1", "expm1", np.expm1, "(math.expm1({0}) if {0} < 709.0 else _expm1({0}))",
      deriv(lambda x, z: ts.exp(x)),
      "``exp(x) - 1``, accurate near 0.", "``exp(x) - 1``, accurate near 0.", "expm1", **_TRANS),
    R("Log", "log", np.log, "(math.log({0}) if {0} > 0.0 else _log({0}))",
      chain(lambda gz, x, z: ts.true_div(gz, x)),
      "Natural logarithm (``np.log``: ``log(0) = -inf``, negative -> nan).",
      "Natural logarithm.", "log", **_BASIC),
    R("Log2", "log2", np.log2, "(math.log2({0}) if {0} > 0.0 else _log2({0}))",
      deriv(lambda x, z: ts.true_div(1.0 / _LN2, x)),
      "Base-2 logarithm.", "Base-2 logarithm.", "log2", **_TRANS),
    R("Log10", "log10", np.log10, "(math.log10({0}) if {0} > 0.0 else _log10({0}))",
      deriv(lambda x, z: ts.true_div(1.0 / _LN10, x)),
      "Base-10 logarithm.", "Base-10 logarithm.", "log10", **_TRANS),
    R("Log1p", "log1p", np.log1p, "(math.log1p({0}) if {0} > -1.0 else _log1p({0}))",
      deriv(lambda x, z: ts.true_div(1, ts.add(x, 1))),
      "``log(1 + x)``, accurate near 0.", "``log(1 + x)``, accurate near 0.", "log1p", **_TRANS),
    # trigonometric and hyperbolic
    R("Sin", "sin", np.sin, "_sin({0})", deriv(lambda x, z: ts.cos(x)),
      "Sine.", "Sine.", "sin", **_TRANS),
    R("Cos", "cos", np.cos, "_cos({0})", deriv(lambda x, z: ts.neg(ts.sin(x))),
      "Cosine.", "Cosine.", "cos", **_TRANS),
    R("Tan", "tan", np.tan, "_tan({0})", deriv(lambda x, z: ts.add(1, ts.sqr(z))),
      "Tangent.", "Tangent.", "tan", **_TRANS),
    R("ArcSin", "arcsin", np.arcsin, "_arcsin({0})",
      deriv(lambda x, z: ts.true_div(1, ts.sqrt(ts.sub(1, ts.sqr(x))))),
      "Inverse sine (nan outside [-1, 1]).", "Inverse sine.", "arcsin", **_TRANS),
    R("ArcCos", "arccos", np.arccos, "_arccos({0})",
      deriv(lambda x, z: ts.true_div(-1, ts.sqrt(ts.sub(1, ts.sqr(x))))),
      "Inverse cosine (nan outside [-1, 1]).", "Inverse cosine.", "arccos", **_TRANS),
    R("ArcTan", "arctan", np.arctan, "math.atan({0})",
      deriv(lambda x, z: ts.true_div(1, ts.add(1, ts.sqr(x)))),
      "Inverse tangent.", "Inverse tangent.", "arctan", **_TRANS),
    R("ArcTan2", "arctan2", np.arctan2, "math.atan2({0}, {1})", _arctan2_grad,
      "``arctan2(y, x)``: the angle of the point ``(x, y)``.",
      "Angle of the point ``(y, x)``: ``arctan2(y, x)``.", "arctan2", nin=2, **_TRANS),
    R("Sinh", "sinh", np.sinh, "_sinh({0})", deriv(lambda x, z: ts.cosh(x)),
      "Hyperbolic sine.", "Hyperbolic sine.", "sinh", **_TRANS),
    R("Cosh", "cosh", np.cosh, "_cosh({0})", deriv(lambda x, z: ts.sinh(x)),
      "Hyperbolic cosine.", "Hyperbolic cosine.", "cosh", **_TRANS),
    R("Tanh", "tanh", np.tanh, "math.tanh({0})", deriv(lambda x, z: ts.sub(1, ts.sqr(z))),
      "Hyperbolic tangent.", "Hyperbolic tangent.", "tanh", **_TRANS),
    R("ArcSinh", "arcsinh", np.arcsinh, "_arcsinh({0})",
      deriv(lambda x, z: ts.true_div(1, ts.sqrt(ts.add(ts.sqr(x), 1)))),
      "Inverse hyperbolic sine.", "Inverse hyperbolic sine.", "arcsinh", **_TRANS),
    R("ArcCosh", "arccosh", np.arccosh, "_arccosh({0})",
      deriv(lambda x, z: ts.true_div(1, ts.sqrt(ts.sub(ts.sqr(x), 1)))),
      "Inverse hyperbolic cosine (nan below 1).", "Inverse hyperbolic cosine.", "arccosh",
      **_TRANS),
    R("ArcTanh", "arctanh", np.arctanh, "_arctanh({0})",
      deriv(lambda x, z: ts.true_div(1, ts.sub(1, ts.sqr(x)))),
      "Inverse hyperbolic tangent (+-inf at +-1, nan outside).",
      "Inverse hyperbolic tangent.", "arctanh", **_TRANS),
    # rounding
    R("Floor", "floor", np.floor, "_floor({0})", zero_grads,
      "Round toward -inf (``np.floor``; integers keep their dtype, as in NumPy 2).",
      "Largest integer not above ``x``.", "floor", **_ARITH),
    R("Ceil", "ceil", np.ceil, "_ceil({0})", zero_grads,
      "Round toward +inf (``np.ceil``).", "Smallest integer not below ``x``.", "ceil", **_ARITH),
    R("Trunc", "trunc", np.trunc, "_trunc({0})", zero_grads,
      "Round toward zero (``np.trunc``).", "Round toward zero.", "trunc", **_ARITH),
    # comparisons
    R("LT", "lt", np.less, "({0} < {1})", zero_grads, "``x < y``.", "``x < y``.",
      "less", ("less",), **_CMP),
    R("GT", "gt", np.greater, "({0} > {1})", zero_grads, "``x > y``.", "``x > y``.",
      "greater", ("greater",), **_CMP),
    R("LE", "le", np.less_equal, "({0} <= {1})", zero_grads, "``x <= y``.", "``x <= y``.",
      "less_equal", ("less_equal",), **_CMP),
    R("GE", "ge", np.greater_equal, "({0} >= {1})", zero_grads, "``x >= y``.",
      "``x >= y``.", "greater_equal", ("greater_equal",), **_CMP),
    R("EQ", "eq", np.equal, "({0} == {1})", zero_grads,
      "``x == y`` (nan is not equal to itself).",
      "``x == y`` (elementwise; ``==`` on variables compares identity).", "equal",
      ("equal",), commutative=True, **_CMP),
    R("NEQ", "neq", np.not_equal, "({0} != {1})", zero_grads, "``x != y``.",
      "``x != y`` (elementwise).", "not_equal", ("not_equal",), commutative=True, **_CMP),
    # bitwise (the logical ops on booleans)
    R("AND", "and_", np.bitwise_and, "({0} and {1})", zero_grads,
      "``x & y`` (``np.bitwise_and``).", "Bitwise and (logical and on booleans), ``x & y``.",
      "bitwise_and", ("bitwise_and",), nin=2, py_ok=_py_ok_bool, identity=True, **_ACI, **_LOGIC),
    R("OR", "or_", np.bitwise_or, "({0} or {1})", zero_grads,
      "``x | y`` (``np.bitwise_or``).", "Bitwise or (logical or on booleans), ``x | y``.",
      "bitwise_or", ("bitwise_or",), nin=2, py_ok=_py_ok_bool, identity=False, **_ACI, **_LOGIC),
    R("XOR", "xor", np.bitwise_xor, "({0} != {1})", zero_grads,
      "``x ^ y`` (``np.bitwise_xor``).", "Bitwise exclusive or, ``x ^ y``.",
      "bitwise_xor", ("bitwise_xor",), nin=2, py_ok=_py_ok_bool, identity=False, **_ACI, **_LOGIC),
    R("Invert", "invert", np.invert, "(not {0})", zero_grads,
      "``~x`` (``np.invert``; logical not on booleans).",
      "Bitwise not (logical not on booleans), ``~x``.", "invert", ("bitwise_not",),
      py_ok=_py_ok_bool, **_LOGIC),
    R("LeftShift", "left_shift", np.left_shift, None, zero_grads,
      "``x << y`` on integers.", "``x << y``.", "left_shift", nin=2, **_LOGIC),
    R("RightShift", "right_shift", np.right_shift, None, zero_grads,
      "``x >> y`` on integers.", "``x >> y``.", "right_shift", nin=2, **_LOGIC),
    # logical (any input dtype, boolean output)
    R("LogicalAnd", "logical_and", np.logical_and, "(bool({0}) and bool({1}))", zero_grads,
      "``x and y`` as booleans (``np.logical_and``).", "Logical and of the truth values.",
      "logical_and", nin=2, py_ok=_py_ok_logical, identity=True, **_ACI, **_LOGIC),
    R("LogicalOr", "logical_or", np.logical_or, "(bool({0}) or bool({1}))", zero_grads,
      "``x or y`` as booleans (``np.logical_or``).", "Logical or of the truth values.",
      "logical_or", nin=2, py_ok=_py_ok_logical, identity=False, **_ACI, **_LOGIC),
    R("LogicalXor", "logical_xor", np.logical_xor, "(bool({0}) != bool({1}))", zero_grads,
      "``bool(x) != bool(y)`` (``np.logical_xor``).",
      "Logical exclusive or of the truth values.", "logical_xor",
      nin=2, py_ok=_py_ok_logical, identity=False, **_ACI, **_LOGIC),
    R("LogicalNot", "logical_not", np.logical_not, "(not {0})", zero_grads,
      "``not x`` (``np.logical_not``).", "Logical not of the truth value.", "logical_not",
      py_ok=_py_ok_logical, **_LOGIC),
    R("IsNan", "isnan", np.isnan, "math.isnan({0})", zero_grads,
      "``np.isnan``.", "Whether ``x`` is NaN.", "isnan", **_LOGIC),
    R("IsInf", "isinf", np.isinf, "math.isinf({0})", zero_grads,
      "``np.isinf``.", "Whether ``x`` is infinite.", "isinf", **_LOGIC),
    R("IsFinite", "isfinite", np.isfinite, "math.isfinite({0})", zero_grads,
      "``np.isfinite``.", "Whether ``x`` is finite.", "isfinite", **_LOGIC),
    # special functions (np.exp's dtype rule; SciPy computes in a precision it supports)
    R("Erf", "erf", scipy_ufunc("erf"), "math.erf({0})",
      deriv(lambda x, z: ts.mul(_TWO_OVER_SQRT_PI, ts.exp(ts.neg(ts.sqr(x))))),
      "The error function.", "Error function.", jax="scipy.special.erf", **_SPECIAL),
    R("Erfc", "erfc", scipy_ufunc("erfc"), "math.erfc({0})",
      deriv(lambda x, z: ts.mul(-_TWO_OVER_SQRT_PI, ts.exp(ts.neg(ts.sqr(x))))),
      "``1 - erf(x)``, accurate for large x.",
      "Complementary error function ``1 - erf(x)``.", jax="scipy.special.erfc", **_SPECIAL),
    R("Erfinv", "erfinv", scipy_ufunc("erfinv"), "_erfinv({0})",
      deriv(lambda x, z: ts.mul(_SQRT_PI_OVER_TWO, ts.exp(ts.sqr(z)))),
      "Inverse of erf on (-1, 1) (+-inf at +-1, nan outside).",
      "Inverse error function.", jax="scipy.special.erfinv", **_SPECIAL),
    R("Erfcinv", "erfcinv", scipy_ufunc("erfcinv"), "_erfcinv({0})",
      deriv(lambda x, z: ts.mul(-_SQRT_PI_OVER_TWO, ts.exp(ts.sqr(z)))),
      "Inverse of erfc on (0, 2).", "Inverse complementary error function.", **_SPECIAL),
    R("Gamma", "gamma", scipy_ufunc("gamma"), "_gamma({0})",
      deriv(lambda x, z: ts.mul(z, ts.psi(x))),
      "The gamma function (inf at 0, nan at negative integers, as SciPy).",
      "Gamma function.", jax="scipy.special.gamma", **_SPECIAL),
    R("GammaLn", "gammaln", scipy_ufunc("gammaln"), "_gammaln({0})",
      deriv(lambda x, z: ts.psi(x)),
      "``log(|gamma(x)|)``.", "Logarithm of the absolute value of the gamma function.",
      jax="scipy.special.gammaln", **_SPECIAL),
    R("Psi", "psi", scipy_ufunc("psi"), "_psi({0})",
      deriv(lambda x, z: ts.polygamma(1, x)),
      "The digamma function, ``d/dx log(gamma(x))``.",
      "Digamma function (derivative of ``gammaln``).", aliases=("digamma",),
      jax="scipy.special.digamma", **_SPECIAL),
    # sigmoid(x) * sigmoid(-x), not out * (1 - out): 1 - out cancels to 0 for x > 37;
    # scipy.special.expit is 1 / (1 + exp(-a)) bit for bit; exp(-a) overflows below -709.78
    R("Sigmoid", "sigmoid", scipy_ufunc("expit"),
      "(1.0 / (1.0 + math.exp(-{0})) if {0} > -709.0 else _expit_tail({0}))",
      deriv(lambda x, z: ts.mul(z, ts.sigmoid(ts.neg(x)))),
      "The logistic function ``1 / (1 + exp(-x))`` (``scipy.special.expit``).",
      "Logistic sigmoid ``1 / (1 + exp(-x))``.", aliases=("expit",), **_SPECIAL),
    # np.logaddexp(0, a); exp never overflows on either branch, nan falls through
    R("Softplus", "softplus", _softplus_np,
      "({0} + math.log1p(math.exp(-{0})) if {0} > 0.0 else math.log1p(math.exp({0})))",
      deriv(lambda x, z: ts.sigmoid(x)),
      "``log(1 + exp(x))``, stable for large |x|.", "``log(1 + exp(x))``, computed stably.",
      aliases=("log1pexp",), **_SPECIAL),
    # d/dx log(1 - e^x) = -e^x / (1 - e^x) = -exp(x - out): -inf at 0 (where out is -inf),
    # as the one-sided limit; no 0/0 or signed-zero trouble near 0
    R("Log1mexp", "log1mexp", _log1mexp_np, "_log1mexp({0})",
      deriv(lambda x, z: ts.neg(ts.exp(ts.sub(x, z)))),
      "``log(1 - exp(x))``, accurate for all x <= 0 (-inf at 0, nan above).",
      "``log(1 - exp(x))`` for ``x <= 0``, computed stably.", **_SPECIAL),
    # x / (1 + |x|); its derivative 1 / (1 + |x|)**2 is taken directly: the chain rule
    # through the quotient gives 1/(1+|x|) - |x|/(1+|x|)**2, which cancels for large |x|
    R("Softsign", "softsign", _softsign_np, "({0} / (1.0 + abs({0})))",
      deriv(lambda x, z: ts.true_div(1, ts.sqr(ts.add(1, ts.abs(x))))),
      "``x / (1 + |x|)``: a sigmoid-shaped function with values in (-1, 1).",
      "Softsign ``x / (1 + |x|)``.", **_SPECIAL),
    # SciPy's special functions (theon.scalar.specgrad: their derivative rules)
    *(R(cls, name, uf, None, _SPECIAL_GRADS[name], f"{doc} (``{ref}``).", f"{doc}.", nin=nin,
        jax=jax, **_SPECIAL)
      for cls, name, uf, nin, jax, ref, doc in _SCIPY_ROWS),
    # complex numbers
    R("Real", "real", None, None, chain(lambda gz, x, z: gz),
      "Real part (``np.real``; real inputs pass through).", "Real part.", "real",
      dtype=complex_to_real, impl=lambda op, x: np.real(x), **_ARITH),
    R("Imag", "imag", None, None, _imag_grad,
      "Imaginary part (``np.imag``; zero for real inputs).", "Imaginary part.", "imag",
      dtype=complex_to_real, impl=lambda op, x: np.imag(x), **_ARITH),
    R("Conj", "conj", np.conjugate, None, chain(lambda gz, x, z: ts.conj(gz)),
      "Complex conjugate (``np.conjugate``).", "Complex conjugate.", "conjugate",
      ("conjugate",), **_ARITH),
)

#: the row aliases that are also names of ``theon.scalar`` (the rest are tensor-only)
SCALAR_ALIASES = ("abs_", "floor_div", "log1pexp")


# the classes ---------------------------------------------------------------------------
def base_of(row: OpRow) -> type[ScalarOp]:
    """The base class of ``row``'s class: ``row.base``, else by its number of inputs."""
    return row.base or {1: UnaryScalarOp, 2: BinaryScalarOp}.get(row.nin, ScalarOp)


def _op_class(row: OpRow) -> type[ScalarOp]:
    """The ScalarOp subclass of ``row`` (identity by class: ``__props__`` is empty)."""
    base = base_of(row)
    rule = row.grad

    def L_op(
        self: ScalarOp,
        inputs: Sequence[Variable],
        outputs: Sequence[Variable],
        output_grads: Sequence[Variable],
    ) -> list[Any]:
        return rule(inputs, outputs, output_grads)

    ufunc = row.ufunc
    if ufunc is not None and not isinstance(ufunc, np.ufunc | scipy_ufunc):
        ufunc = staticmethod(ufunc)  # a plain function, not a method
    ns: dict[str, Any] = {
        "__module__": DECLARED_IN,
        "__qualname__": row.cls,
        "__doc__": row.doc,
        "row": row,
        "name": row.name,
        "nin": row.nin,
        "ufunc": ufunc,
        "ufunc_exact": row.impl is None or row.ufunc is None,
        "output_types_preference": row.dtype,
        "identity": row.identity,
        "commutative": row.commutative,
        "associative": row.associative,
        "weak_overflow_ok": row.weak_overflow_ok,
        "L_op": L_op,
    }
    if issubclass(base, _Variadic):
        ns["py_operator"] = row.py
    else:
        ns["py_template"] = row.py
    if row.impl is not None:
        ns["impl"] = row.impl
    if row.py_ok is not None:
        ns["py_expr_ok"] = row.py_ok
    return type(row.cls, (base,), ns)


def _build() -> dict[str, Any]:
    """Each row's class and instance (and its aliases in SCALAR_ALIASES), by name."""
    names: dict[str, Any] = {}
    for row in ROWS:
        cls = _op_class(row)
        names[row.cls] = cls
        names[row.name] = op = cls()
        for alias in row.aliases:
            if alias in SCALAR_ALIASES:
                names[alias] = op
    return names


#: every row's class and op (and its aliases of SCALAR_ALIASES) by name; declared one by
#: one in theon.scalar.rowops
_NAMES = _build()
#: the rows by op name, and the ops by name
ROW: dict[str, OpRow] = {r.name: r for r in ROWS}
OPS: dict[str, ScalarOp] = {r.name: _NAMES[r.name] for r in ROWS}
