"""The scalar op table shared by the scalar tests: op, NumPy/SciPy reference, input domain."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.special as sps

import theon
from theon import scalar as ts
from theon.scalar.basic import ScalarOp


def exp_rule(*arrays: np.ndarray) -> np.ndarray:
    """Dtype reference of the special functions: np.exp's rule, no complex."""
    for a in arrays:
        if a.dtype.kind == "c":
            raise TypeError("complex")
    return np.exp(arrays[0])


def _log1mexp_ref(x: Any) -> Any:
    with np.errstate(all="ignore"):
        return np.log(-np.expm1(x))


@dataclass
class Spec:
    op: ScalarOp
    ref: Callable[..., Any]
    domain: str = "any"  # see sample()
    dtype_ref: Callable[..., Any] | None = None  # reference for the output dtype (default: ref)
    grad: bool = True  # differentiable in float inputs
    complex_ok: bool = True

    @property
    def nin(self) -> int:
        return 2 if self.op.nin < 0 else self.op.nin


SPECS: dict[str, Spec] = {
    "add": Spec(ts.add, np.add),
    "sub": Spec(ts.sub, np.subtract),
    "mul": Spec(ts.mul, np.multiply),
    "true_div": Spec(ts.true_div, np.true_divide, "nonzero2"),
    "int_div": Spec(ts.int_div, np.floor_divide, "nonzero2", grad=False),
    "mod": Spec(ts.mod, np.remainder, "nonzero2"),
    "pow": Spec(ts.pow, np.power, "pow"),
    "neg": Spec(ts.neg, np.negative),
    "abs": Spec(ts.abs, np.absolute, "nonzero"),
    "sign": Spec(ts.sign, np.sign, grad=False),
    "reciprocal": Spec(
        ts.reciprocal, lambda x: np.true_divide(1, x), "nonzero", lambda x: np.true_divide(x, x)
    ),
    "sqr": Spec(ts.sqr, np.square),
    "sqrt": Spec(ts.sqrt, np.sqrt, "pos"),
    "exp": Spec(ts.exp, np.exp),
    "exp2": Spec(ts.exp2, np.exp2),
    "expm1": Spec(ts.expm1, np.expm1),
    "log": Spec(ts.log, np.log, "pos"),
    "log2": Spec(ts.log2, np.log2, "pos"),
    "log10": Spec(ts.log10, np.log10, "pos"),
    "log1p": Spec(ts.log1p, np.log1p, "gtm1"),
    "sin": Spec(ts.sin, np.sin),
    "cos": Spec(ts.cos, np.cos),
    "tan": Spec(ts.tan, np.tan, "unit"),
    "arcsin": Spec(ts.arcsin, np.arcsin, "unit"),
    "arccos": Spec(ts.arccos, np.arccos, "unit"),
    "arctan": Spec(ts.arctan, np.arctan),
    "sinh": Spec(ts.sinh, np.sinh),
    "cosh": Spec(ts.cosh, np.cosh),
    "tanh": Spec(ts.tanh, np.tanh),
    "arcsinh": Spec(ts.arcsinh, np.arcsinh),
    "arccosh": Spec(ts.arccosh, np.arccosh, "gt1"),
    "arctanh": Spec(ts.arctanh, np.arctanh, "unit"),
    "arctan2": Spec(ts.arctan2, np.arctan2, "nonzero2"),
    "floor": Spec(ts.floor, np.floor, "nonint", grad=False),
    "ceil": Spec(ts.ceil, np.ceil, "nonint", grad=False),
    "trunc": Spec(ts.trunc, np.trunc, "nonint", grad=False),
    "round": Spec(ts.round_half_to_even, np.round, "nonint", grad=False),
    "maximum": Spec(ts.maximum, np.maximum, "distinct"),
    "minimum": Spec(ts.minimum, np.minimum, "distinct"),
    "lt": Spec(ts.lt, np.less, grad=False),
    "gt": Spec(ts.gt, np.greater, grad=False),
    "le": Spec(ts.le, np.less_equal, grad=False),
    "ge": Spec(ts.ge, np.greater_equal, grad=False),
    "eq": Spec(ts.eq, np.equal, grad=False),
    "neq": Spec(ts.neq, np.not_equal, grad=False),
    "and_": Spec(ts.and_, np.bitwise_and, "int", grad=False),
    "or_": Spec(ts.or_, np.bitwise_or, "int", grad=False),
    "xor": Spec(ts.xor, np.bitwise_xor, "int", grad=False),
    "invert": Spec(ts.invert, np.invert, "int", grad=False),
    "left_shift": Spec(ts.left_shift, np.left_shift, "shift", grad=False),
    "right_shift": Spec(ts.right_shift, np.right_shift, "shift", grad=False),
    "logical_and": Spec(ts.logical_and, np.logical_and, grad=False),
    "logical_or": Spec(ts.logical_or, np.logical_or, grad=False),
    "logical_xor": Spec(ts.logical_xor, np.logical_xor, grad=False),
    "logical_not": Spec(ts.logical_not, np.logical_not, grad=False),
    "isnan": Spec(ts.isnan, np.isnan, grad=False),
    "isinf": Spec(ts.isinf, np.isinf, grad=False),
    "isfinite": Spec(ts.isfinite, np.isfinite, grad=False),
    "switch": Spec(ts.switch, np.where, "switch"),
    "clip": Spec(ts.clip, np.clip, "clip"),
    "identity": Spec(ts.identity, lambda x: np.array(x, copy=True)),
    "erf": Spec(ts.erf, sps.erf, dtype_ref=exp_rule, complex_ok=False),
    "erfc": Spec(ts.erfc, sps.erfc, dtype_ref=exp_rule, complex_ok=False),
    "erfinv": Spec(ts.erfinv, sps.erfinv, "unit", exp_rule, complex_ok=False),
    "erfcinv": Spec(ts.erfcinv, sps.erfcinv, "zero2", exp_rule, complex_ok=False),
    "gamma": Spec(ts.gamma, sps.gamma, "pos", exp_rule, complex_ok=False),
    "gammaln": Spec(ts.gammaln, sps.gammaln, "pos", exp_rule, complex_ok=False),
    "psi": Spec(ts.psi, sps.psi, "pos", exp_rule, complex_ok=False),
    "sigmoid": Spec(ts.sigmoid, sps.expit, dtype_ref=exp_rule, complex_ok=False),
    "softplus": Spec(
        ts.softplus, lambda x: np.logaddexp(0, x), dtype_ref=exp_rule, complex_ok=False
    ),
    "softsign": Spec(
        ts.softsign, lambda x: x / (1 + np.abs(x)), dtype_ref=exp_rule, complex_ok=False
    ),
    "log1mexp": Spec(ts.log1mexp, _log1mexp_ref, "neg", exp_rule, complex_ok=False),
}


def sample(spec: Spec, rng: np.random.Generator, n: int = 8) -> list[tuple[float, ...]]:
    """``n`` float input tuples inside the op's domain, away from its singular points."""
    dom = spec.domain
    out: list[tuple[float, ...]] = []
    while len(out) < n:
        v = rng.uniform(-3, 3, size=spec.nin)
        if dom in ("pos",):
            v = np.abs(v) + 0.1
        elif dom == "unit":
            v = rng.uniform(-0.95, 0.95, size=spec.nin)
        elif dom == "gt1":
            v = np.abs(v) + 1.1
        elif dom == "gtm1":
            v = np.abs(v) - 0.9
        elif dom == "neg":
            v = -np.abs(v) - 0.05
        elif dom == "zero2":
            v = rng.uniform(0.05, 1.95, size=spec.nin)
        elif dom == "nonint":
            v = np.round(v) + rng.uniform(0.1, 0.4) * rng.choice([-1, 1])
        elif dom in ("nonzero", "nonzero2"):
            v = np.where(np.abs(v) < 0.2, 0.5, v)
            if dom == "nonzero2":
                # keep x / y away from integers for int_div/mod derivatives
                q = v[0] / v[1]
                if abs(q - round(q)) < 0.05:
                    continue
        elif dom == "pow":
            v = np.array([abs(v[0]) + 0.2, v[1]])
        elif dom == "distinct":
            if abs(v[0] - v[1]) < 0.1:
                continue
        elif dom == "switch":
            v = np.array([float(rng.integers(0, 2)), v[1], v[2]])
        elif dom == "clip":
            lo, hi = sorted(v[1:])
            if hi - lo < 0.2 or min(abs(v[0] - lo), abs(v[0] - hi)) < 0.05:
                continue
            v = np.array([v[0], lo, hi])
        elif dom in ("int", "shift"):
            v = rng.integers(0, 6, size=spec.nin).astype(float)
        out.append(tuple(float(a) for a in v))
    return out


def compile_fn(inputs: Any, outputs: Any, **kwargs: Any) -> Any:
    """``theon.function`` in REFERENCE mode: these tests check ops, not rewrites or linkers."""
    kwargs.setdefault("mode", "REFERENCE")
    return theon.function(inputs, outputs, **kwargs)
