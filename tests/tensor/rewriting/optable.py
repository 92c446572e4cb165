"""One table of operations for the random-graph tests: a theon builder and a NumPy reference.

Each :class:`OpSpec` says how to build an operation in theon (``build``, on
variables and Python numbers) and how NumPy computes the same thing (``ref``, on
arrays and the same Python numbers).  Python numbers stay Python numbers on both
sides, so NumPy 2's promotion (``np.result_type``, Python numbers weak as in
NEP 50) gives the NumPy side exactly the dtypes theon promises.

``err`` is the rounding a correct implementation may add on top of NumPy's
(:class:`Err`); ``family`` marks the sum and product operations whose trees
theon's canonicalizer flattens, reorders and cancels; ``kinds`` the input dtype
kinds an op accepts; ``domain`` the safe domain of its argument for the
finite-difference gradient tests (None: not smooth, not used there).

Composite patterns (``log(1 + x)``, ``x*y/y``) are not entries: the generator
builds them from these primitives, so the NumPy side sees every intermediate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.special as sps

import theon.tensor as tt
from theon.tensor.special import log_softmax, softmax

__all__ = ["BINARY", "COMPARE", "DOMAINS", "UNARY", "Err", "OpSpec", "op", "ops"]


@dataclass(frozen=True)
class Err:
    """Rounding a correct implementation may add, in units of the eps of the value's dtype.

    ``out``: relative error of the result (of ``max(|result|, floor)``: ``log_softmax``
    computes ``x - max - log(s)``, whose error is absolute); ``inp``: relative error
    of each float argument (backward error: what an op that computes ``x - max(x)``
    or sums in another order may commit).  An operation NumPy and theon both
    compute with one correctly rounded IEEE operation (``x / c``) gets none: it must
    agree bit for bit, unless it is part of a sum or product tree (``family``) that
    the canonicalizer reassociates (the oracle's rounding runs then move it by the
    rounding of a sum of its terms in any order).
    """

    out: float = 0.0
    inp: float = 0.0
    floor: float = 0.0  # ``out`` is relative to ``max(|result|, floor)``


EXACT = Err()
IEEE = Err()  # correctly rounded (bit for bit, unless reassociated: see ``family``)
TRANS = Err(out=4.0, inp=1.0)  # libm vs NumPy's SIMD loops; blocks vs whole arrays
COMPOSITE = Err(out=8.0, inp=2.0)  # several roundings inside (sigmoid, softmax, erf)
LOG_COMPOSITE = Err(out=8.0, inp=2.0, floor=1.0)  # ... ending in ``- log(sum)``


@dataclass(frozen=True)
class OpSpec:
    """One operation: how theon builds it and how NumPy computes it.

    ``precise``: the NumPy reference in the extended-precision world, when it is
    not ``ref`` (a cast to float32 stays extended there).
    """

    name: str
    build: Callable[..., Any]
    ref: Callable[..., Any]
    err: Err = EXACT
    family: str | None = None  # "add", "sub", "neg", "mul", "div", "recip"
    kinds: str = "iuf"  # accepted input dtype kinds ("b": bool, "i"/"u": int, "f": float)
    domain: str | None = None
    domain_arg: int = 0  # the argument ``domain`` is about (-1: the difference of two)
    precise: Callable[..., Any] | None = None
    params: tuple[tuple[str, Any], ...] = ()  # e.g. (("axis", 0),), for the oracle's rules
    noop_if_same: bool = False  # gives back its input when shape and dtype stay (theon drops it)
    pads: bool = False  # only adds leading length-1 dims (what elementwise ops do anyway)


def float_of(dtype: Any) -> np.dtype[Any]:
    """The dtype of a float function of ``dtype`` values: what ``np.exp`` gives.

    theon's casting rule for every unary float op, NumPy ufunc or not (sigmoid,
    softplus, erf): int8, uint8 and bool give float16, int16 float32, larger ints
    float64, floats stay.  (SciPy's own functions give float64 for small ints.)

    >>> [str(float_of(d)) for d in ("int8", "int16", "int32", "float32")]
    ['float16', 'float32', 'float64', 'float32']
    """
    return np.exp(np.zeros(0, dtype)).dtype


def _float_fn(fn: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """``fn`` computed in float64 (extended stays extended), then in :func:`float_of`."""
    def ref(x: Any) -> Any:
        x = np.asarray(x)
        work = x if x.dtype == np.longdouble else x.astype("float64")
        out = np.asarray(fn(work))
        return out if x.dtype == np.longdouble else out.astype(float_of(x.dtype))

    return ref


def _erf(x: Any) -> Any:
    if x.dtype == np.longdouble:  # SciPy has no extended-precision erf
        return sps.erf(x.astype("float64")).astype(np.longdouble)
    return sps.erf(x)


_expit = _float_fn(sps.expit)
_softplus = _float_fn(lambda x: np.logaddexp(0, x))
_log1mexp = _float_fn(lambda x: np.where(x > -np.log(2), np.log(-np.expm1(x)),
                                         np.log1p(-np.exp(x))))
_erf_ref = _float_fn(_erf)


UNARY: list[OpSpec] = [
    OpSpec("neg", tt.neg, np.negative, EXACT, "neg"),
    OpSpec("abs", tt.abs, np.abs, EXACT),
    OpSpec("sqr", tt.sqr, np.square, IEEE, domain="all"),
    OpSpec("sqrt", tt.sqrt, np.sqrt, IEEE, domain="pos"),
    OpSpec("reciprocal", tt.reciprocal, lambda x: np.true_divide(1, x), IEEE, "recip", "f",
           domain="nonzero"),
    OpSpec("exp", tt.exp, np.exp, TRANS, domain="small"),
    OpSpec("exp2", tt.exp2, np.exp2, TRANS, domain="small"),
    OpSpec("expm1", tt.expm1, np.expm1, TRANS, domain="small"),
    OpSpec("log", tt.log, np.log, TRANS, domain="pos"),
    OpSpec("log2", tt.log2, np.log2, TRANS, domain="pos"),
    OpSpec("log10", tt.log10, np.log10, TRANS, domain="pos"),
    OpSpec("log1p", tt.log1p, np.log1p, TRANS, domain="gt-1"),
    OpSpec("sin", tt.sin, np.sin, TRANS, domain="all"),
    OpSpec("cos", tt.cos, np.cos, TRANS, domain="all"),
    OpSpec("tan", tt.tan, np.tan, TRANS, domain="unit"),
    OpSpec("tanh", tt.tanh, np.tanh, TRANS, domain="all"),
    OpSpec("sinh", tt.sinh, np.sinh, TRANS, domain="small"),
    OpSpec("cosh", tt.cosh, np.cosh, TRANS, domain="small"),
    OpSpec("arcsin", tt.arcsin, np.arcsin, TRANS, domain="unit"),
    OpSpec("arccos", tt.arccos, np.arccos, TRANS, domain="unit"),
    OpSpec("arctan", tt.arctan, np.arctan, TRANS, domain="all"),
    OpSpec("arcsinh", tt.arcsinh, np.arcsinh, TRANS, domain="all"),
    OpSpec("arctanh", tt.arctanh, np.arctanh, TRANS, domain="unit"),
    OpSpec("sigmoid", tt.sigmoid, _expit, COMPOSITE, domain="all"),
    OpSpec("softplus", tt.softplus, _softplus, COMPOSITE, domain="all"),
    OpSpec("log1mexp", tt.log1mexp, _log1mexp, COMPOSITE, kinds="f", domain="neg"),
    OpSpec("erf", tt.erf, _erf_ref, COMPOSITE, domain="all"),
    OpSpec("floor", tt.floor, np.floor, EXACT),
    OpSpec("ceil", tt.ceil, np.ceil, EXACT),
    OpSpec("trunc", tt.trunc, np.trunc, EXACT),
    OpSpec("round", tt.round, np.round, EXACT),
    OpSpec("sign", tt.sign, np.sign, EXACT),
    OpSpec("copy", tt.tensor_copy, np.copy, EXACT, domain="all", noop_if_same=True),
    OpSpec("isnan", tt.isnan, np.isnan, EXACT, kinds="f"),
    OpSpec("isinf", tt.isinf, np.isinf, EXACT, kinds="f"),
    OpSpec("isfinite", tt.isfinite, np.isfinite, EXACT, kinds="f"),
    OpSpec("not", tt.logical_not, np.logical_not, EXACT, kinds="b"),
]

BINARY: list[OpSpec] = [
    OpSpec("add", tt.add, np.add, IEEE, "add", "iuf", domain="all"),
    OpSpec("sub", tt.sub, np.subtract, IEEE, "sub", "iuf", domain="all"),
    OpSpec("mul", tt.mul, np.multiply, IEEE, "mul", "iuf", domain="all"),
    OpSpec("div", tt.true_div, np.true_divide, IEEE, "div", "iuf", domain="nonzero",
           domain_arg=1),
    OpSpec("floordiv", tt.floor_div, np.floor_divide, EXACT, kinds="iuf"),
    OpSpec("mod", tt.mod, np.remainder, EXACT, kinds="iuf"),
    OpSpec("maximum", tt.maximum, np.maximum, EXACT, kinds="iufb", domain="apart",
           domain_arg=-1),
    OpSpec("minimum", tt.minimum, np.minimum, EXACT, kinds="iufb", domain="apart",
           domain_arg=-1),
    OpSpec("pow", tt.pow, np.power, TRANS, kinds="f", domain="pos"),
    OpSpec("arctan2", tt.arctan2, np.arctan2, TRANS, kinds="iuf", domain="nonzero",
           domain_arg=1),
    OpSpec("and", tt.and_, np.logical_and, EXACT, kinds="b"),
    OpSpec("or", tt.or_, np.logical_or, EXACT, kinds="b"),
    OpSpec("xor", tt.xor, np.logical_xor, EXACT, kinds="b"),
]

COMPARE: list[OpSpec] = [
    OpSpec("lt", tt.lt, np.less, EXACT, kinds="iufb"),
    OpSpec("le", tt.le, np.less_equal, EXACT, kinds="iufb"),
    OpSpec("gt", tt.gt, np.greater, EXACT, kinds="iufb"),
    OpSpec("ge", tt.ge, np.greater_equal, EXACT, kinds="iufb"),
    OpSpec("eq", tt.eq, np.equal, EXACT, kinds="iufb"),
    OpSpec("neq", tt.neq, np.not_equal, EXACT, kinds="iufb"),
]

WHERE = OpSpec("where", tt.where, np.where, EXACT, kinds="iufb")
SWITCH = OpSpec("switch", tt.switch, np.where, EXACT, kinds="iufb")

_BY_NAME: dict[str, OpSpec] = {o.name: o for o in (*UNARY, *BINARY, *COMPARE, WHERE, SWITCH)}

# the argument domains of the smooth ops (gradient tests): what is safe, and a smooth
# map of any value into it (built from table ops, by name)
DOMAINS: dict[str, tuple[Callable[[np.ndarray], Any], list[tuple[str, Any]]]] = {
    "all": (lambda v: np.abs(v) < 1e3, []),
    "small": (lambda v: np.abs(v) < 5, [("tanh", None), ("mul", 3.0)]),
    "pos": (lambda v: (v > 0.2) & (v < 1e3), [("softplus", None), ("add", 0.25)]),
    "neg": (lambda v: (v < -0.2) & (v > -1e3), [("softplus", None), ("add", 0.25),
                                                  ("neg", None)]),
    "gt-1": (lambda v: (v > -0.8) & (v < 1e3), [("softplus", None), ("add", -0.75)]),
    "unit": (lambda v: np.abs(v) < 0.8, [("tanh", None), ("mul", 0.75)]),
    "nonzero": (lambda v: (np.abs(v) > 0.2) & (np.abs(v) < 1e3),
                [("softplus", None), ("add", 0.25)]),
    "apart": (lambda d: np.abs(d) > 0.2, []),  # checked on the difference of the two
}


def op(name: str) -> OpSpec:
    """The table entry called ``name``."""
    return _BY_NAME[name]


def ops(kind: str, table: list[OpSpec]) -> list[OpSpec]:
    """The entries of ``table`` that accept inputs of dtype kind ``kind``."""
    return [o for o in table if kind in o.kinds]


def red_spec(name: str, axis: Any, keepdims: bool, n: int) -> OpSpec:
    """A reduction over ``n`` elements per result (sum, prod, mean, max, min, any, all)."""
    tfn = {"sum": tt.sum, "prod": tt.prod, "mean": tt.mean, "max": tt.max, "min": tt.min,
           "any": tt.any, "all": tt.all}[name]
    nfn = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "max": np.max, "min": np.min,
           "any": np.any, "all": np.all}[name]
    # summation in another order: each term's relative error up to n eps (backward error)
    err = {"sum": Err(inp=n), "mean": Err(inp=n, out=1), "prod": Err(out=n + 1)}.get(name, EXACT)
    return OpSpec(f"{name}(axis={axis}, keepdims={keepdims})",
                  lambda x: tfn(x, axis=axis, keepdims=keepdims),
                  lambda x: nfn(x, axis=axis, keepdims=keepdims), err,
                  domain="all" if name in ("sum", "mean", "prod", "max", "min") else None,
                  params=(("axis", axis), ("keepdims", keepdims)))


def cum_spec(name: str, axis: int | None, n: int) -> OpSpec:
    """cumsum / cumprod along ``axis`` (None: flattened) of ``n`` elements."""
    tfn, nfn = (tt.cumsum, np.cumsum) if name == "cumsum" else (tt.cumprod, np.cumprod)
    err = Err(inp=n) if name == "cumsum" else Err(out=n + 1)
    return OpSpec(f"{name}(axis={axis})", lambda x: tfn(x, axis=axis),
                  lambda x: nfn(x, axis=axis), err, domain="all")


def dot_spec(name: str, n: int) -> OpSpec:
    """dot or matmul with inner dimension ``n``."""
    tfn, nfn = (tt.dot, np.dot) if name == "dot" else (tt.matmul, np.matmul)
    return OpSpec(name, tfn, nfn, Err(inp=n + 1), domain="all")


def stable_logsumexp(x: Any, axis: Any, keepdims: bool = False) -> Any:
    """``log(sum(exp(x), axis))`` shifted by the max where it is finite (as SciPy's)."""
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def stable_softmax(x: Any, axis: Any) -> Any:
    """``exp(x) / sum(exp(x))`` shifted by the max where it is finite."""
    m = np.max(x, axis=axis, keepdims=True)
    e = np.exp(x - np.where(np.isfinite(m), m, 0))
    return e / np.sum(e, axis=axis, keepdims=True)


def softmax_spec(form: str, axis: int) -> OpSpec:
    """softmax / log_softmax / logsumexp along ``axis`` (the ops, not the manual forms).

    NumPy's value is the definition (``exp(x) / sum(exp(x))``, which overflows);
    the precise world's the shifted form, so an op that does not overflow agrees
    with one of them, and both give NumPy's nan and inf where ``x`` has infinities.
    """
    par = (("axis", axis),)
    if form == "softmax":
        return OpSpec(f"softmax(axis={axis})", lambda x: softmax(x, axis=axis),
                      lambda x: np.exp(x) / np.sum(np.exp(x), axis=axis, keepdims=True),
                      COMPOSITE, kinds="f", domain="all",
                      precise=lambda x: stable_softmax(x, axis), params=par)
    if form == "log_softmax":
        return OpSpec(f"log_softmax(axis={axis})", lambda x: log_softmax(x, axis=axis),
                      lambda x: np.log(np.exp(x) / np.sum(np.exp(x), axis=axis, keepdims=True)),
                      LOG_COMPOSITE, kinds="f", domain="all",
                      precise=lambda x: x - stable_logsumexp(x, axis, keepdims=True),
                      params=par)
    return OpSpec(f"logsumexp(axis={axis})", lambda x: tt.logsumexp(x, axis=axis),
                  lambda x: np.log(np.sum(np.exp(x), axis=axis)), LOG_COMPOSITE, kinds="f",
                  domain="all", precise=lambda x: stable_logsumexp(x, axis), params=par)


def unit_var_spec(name: str, axis: Any, ddof: int, keepdims: bool) -> OpSpec:
    """var / std over ``axis``, axes of length 1 (or none: ``axis=()``).

    Exact: 0 for a finite entry, nan for inf and nan (NumPy's ``x - mean(x)``), and
    nan everywhere for ``ddof=1`` (0 / 0): a rewrite that cancels ``x - mean(x)``
    to 0 shows up as a 0 where NumPy has nan.
    """
    tfn, nfn = (tt.var, np.var) if name == "var" else (tt.std, np.std)
    return OpSpec(f"{name}(axis={axis}, ddof={ddof}, keepdims={keepdims})",
                  lambda x: tfn(x, axis=axis, ddof=ddof, keepdims=keepdims),
                  lambda x: nfn(x, axis=axis, ddof=ddof, keepdims=keepdims), EXACT,
                  params=(("axis", axis), ("keepdims", keepdims)))


def int_logsumexp_spec(axis: Any, keepdims: bool, empty: bool) -> OpSpec:
    """logsumexp of integers over ``axis``: SciPy's value, computed in float64 (in
    extended precision in the precise world).  ``empty``: of the empty slice
    ``x[..., :0]`` (over its last axis or all of them), which gives -inf."""
    def part(x: Any) -> Any:
        return x[..., :0] if empty else x

    def ref(x: Any, dtype: Any = np.float64) -> Any:
        v = np.asarray(part(x)).astype(dtype)
        m = np.max(v, axis=axis, keepdims=True, initial=-np.inf)
        m = np.where(np.isfinite(m), m, 0)
        out = np.log(np.sum(np.exp(v - m), axis=axis, keepdims=True)) + m
        return out if keepdims else np.squeeze(out, axis=axis)

    return OpSpec(f"logsumexp(axis={axis}, keepdims={keepdims}{', empty' if empty else ''})",
                  lambda x: tt.logsumexp(part(x), axis=axis, keepdims=keepdims), ref,
                  LOG_COMPOSITE, kinds="iub", precise=lambda x: ref(x, np.longdouble),
                  params=(("axis", axis), ("keepdims", keepdims)))


def cast_spec(dtype: str) -> OpSpec:
    """A cast to ``dtype``; between float dtypes it stays extended in the precise world."""
    def precise(x: Any) -> Any:
        x = np.asarray(x)
        if np.dtype(dtype).kind == "f" and x.dtype.kind == "f":
            return x
        return x.astype(dtype)

    return OpSpec(f"cast({dtype})", lambda x: tt.cast(x, dtype),
                  lambda x: np.asarray(x).astype(dtype), EXACT, precise=precise,
                  noop_if_same=True)


def shape_spec(name: str, build: Callable[..., Any], ref: Callable[..., Any],
               noop_if_same: bool = False, pads: bool = False) -> OpSpec:
    """A structural op (reshape, dimshuffle, indexing, joining): exact, any dtype, smooth.

    ``noop_if_same``: it gives back its input when the shape stays (a reshape);
    ``pads``: it only adds leading length-1 dims."""
    return OpSpec(name, build, ref, EXACT, kinds="iufb", domain="all",
                  noop_if_same=noop_if_same, pads=pads)
