"""The derivative rules of the special-function rows of :mod:`theon.scalar.table`.

Each rule gives, per input, the gradient as a graph of scalar ops (the rows' own ops,
looked up in ``theon.scalar`` when the rule runs, so this module imports no table).
Closed forms where they exist; a parameter of ``gammainc``, ``betainc`` or ``hyp2f1``
differentiates through the rows ``gammainc_grad``, ``betainc_grad_a``/``_b`` and
``hyp2f1_grad_a``/``_b``/``_c``, whose NumPy functions sum a series or continued
fraction (:mod:`theon.scalar.specfun`).  The inverse functions (``gammaincinv``,
``betaincinv``, ...) differentiate by the implicit function theorem:
``dx/dp = -(dF/dp) / (dF/dx)`` at ``x = F^-1(y)``.  The order of a Bessel function
of real order has no gradient (a ``NullType`` naming the op, as in SciPy and PyTensor,
which have no closed form for it).

>>> import theon.scalar as ts
>>> k, x = ts.float64("k"), ts.float64("x")
>>> gk, gx = ts.gammainc.L_op([k, x], [ts.gammainc(k, x)], [ts.float64("gz")])
>>> str(gk.owner.op), str(gx.owner.op)
('mul', 'mul')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import theon.scalar as ts
from theon.graph.basic import Variable
from theon.graph.null_type import disconnected_type, grad_not_implemented
from theon.scalar.basic import GradRule, ScalarOp, _discrete, _grad_as
from theon.scalar.type import constant, scalar_type

__all__ = ["ORDER", "RULES", "SECOND", "ZERO", "NoGrad", "grads"]

#: a partial derivative: ``part(*inputs, out)`` -> the derivative of the output in
#: that input (multiplied by the output gradient by :func:`grads`)
Part = Callable[..., Variable]


@dataclass(frozen=True)
class NoGrad:
    """A part with no gradient: a ``NullType`` saying ``why`` (``ZERO``: a zero)."""

    why: str


#: the order of a Bessel function of real order
ORDER = NoGrad("the derivative in the order of a Bessel function has no closed form")
#: a parameter of a parameter derivative (``gammainc_grad``'s ``k``)
SECOND = NoGrad("the second derivative in a parameter is not implemented")
#: a piecewise-constant input (``kn``'s float order, truncated): a zero gradient
ZERO = NoGrad("")

_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_INV_2_SQRT_2PI = 1.0 / (2.0 * math.sqrt(2.0 * math.pi))
_INV_2PI = 1.0 / (2.0 * math.pi)


def grads(*parts: Part | NoGrad) -> GradRule:
    """The rule of an op of ``len(parts)`` inputs from its partial derivatives.

    Input ``i`` gets ``gz * parts[i](*inputs, out)`` cast to its dtype; an integer
    input is disconnected; a :class:`NoGrad` gives a ``NullType`` gradient naming the
    op, the input and why (:data:`ZERO`: a zero).

    >>> import theon.scalar as ts
    >>> rule = grads(lambda x, y, out: y, ORDER)
    >>> x, y = ts.float64("x"), ts.float64("y")
    >>> gx, gy = rule([x, y], [ts.mul(x, y)], [ts.float64("gz")])
    >>> str(gx.owner.op), gy.type.why_null.endswith("no closed form")
    ('mul', True)
    """

    def rule(inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        (gz,) = output_grads
        out = outputs[0]
        res: list[Any] = []
        for i, (x, part) in enumerate(zip(inputs, parts)):
            if _discrete(x):
                res.append(disconnected_type())
            elif part is ZERO:
                res.append(constant(0, dtype=scalar_type(x).dtype))
            elif isinstance(part, NoGrad):
                op = out.owner.op if out.owner is not None else "this op"
                res.append(grad_not_implemented(op, i, x, part.why))
            else:
                res.append(_grad_as(ts.mul(gz, part(*inputs, out)), x))
        return res

    return rule


# shared pieces ----------------------------------------------------------------------------
def _half(v: Variable) -> Variable:
    return ts.mul(0.5, v)


def _gamma_density(k: Variable, x: Variable) -> Variable:
    """``d/dx gammainc(k, x) = x^(k-1) e^-x / Gamma(k)`` (``xlogy0``: 0 * log 0 is 0)."""
    return ts.exp(ts.sub(ts.sub(ts.xlogy0(ts.sub(k, 1), x), x), ts.gammaln(k)))


def _betaln(a: Variable, b: Variable) -> Variable:
    return ts.sub(ts.add(ts.gammaln(a), ts.gammaln(b)), ts.gammaln(ts.add(a, b)))


def _beta_density(a: Variable, b: Variable, x: Variable) -> Variable:
    """``d/dx betainc(a, b, x) = x^(a-1) (1-x)^(b-1) / B(a, b)``."""
    log_d = ts.add(ts.xlogy0(ts.sub(a, 1), x), ts.xlogy0(ts.sub(b, 1), ts.sub(1, x)))
    return ts.exp(ts.sub(log_d, _betaln(a, b)))


def _bessel_mean(fn: Any, v: Variable, x: Variable, sign: int) -> Variable:
    """``(fn(v - 1, x) + sign * fn(v + 1, x)) / 2``: the recurrences of the derivatives."""
    lo, hi = fn(ts.sub(v, 1), x), fn(ts.add(v, 1), x)
    return _half(ts.add(lo, hi) if sign > 0 else ts.sub(lo, hi))


def _shifted(fn: ScalarOp, a: Variable, b: Variable, c: Variable, z: Variable) -> Variable:
    return fn(ts.add(a, 1), ts.add(b, 1), ts.add(c, 1), z)


# the rules, by row name ---------------------------------------------------------------------
def _erfcx(x: Variable, out: Variable) -> Variable:
    # d/dx e^(x^2) erfc(x) = 2 x erfcx(x) - 2 / sqrt(pi)
    return ts.sub(ts.mul(2, ts.mul(x, out)), _TWO_OVER_SQRT_PI)


def _owens_dh(h: Variable, a: Variable, out: Variable) -> Variable:
    # -e^(-h^2/2) erf(a h / sqrt 2) / (2 sqrt(2 pi))
    e = ts.exp(ts.mul(-0.5, ts.sqr(h)))
    return ts.mul(-_INV_2_SQRT_2PI, ts.mul(e, ts.erf(ts.mul(math.sqrt(0.5), ts.mul(a, h)))))


def _owens_da(h: Variable, a: Variable, out: Variable) -> Variable:
    # e^(-h^2 (1 + a^2) / 2) / (2 pi (1 + a^2))
    one_a2 = ts.add(1, ts.sqr(a))
    return ts.mul(_INV_2PI, ts.true_div(ts.exp(ts.mul(-0.5, ts.mul(ts.sqr(h), one_a2))), one_a2))


def _inv_gamma_dy(k: Variable, x: Variable) -> Variable:
    """``1 / (d/dx gammainc(k, x))``."""
    return ts.exp(ts.add(ts.sub(x, ts.xlogy0(ts.sub(k, 1), x)), ts.gammaln(k)))


def _hyp_dz(a: Variable, b: Variable, c: Variable, z: Variable, out: Variable) -> Variable:
    return ts.mul(ts.true_div(ts.mul(a, b), c), _shifted(ts.hyp2f1, a, b, c, z))


def _hyp_grad_dz(which: str) -> Part:
    """d/dz of ``hyp2f1_grad_<which>``: the parameter derivative of ``(ab/c) F(a+1, b+1;
    c+1; z)``, by the product rule and the same row at the shifted parameters."""

    def part(a: Variable, b: Variable, c: Variable, z: Variable, out: Variable) -> Variable:
        f1 = _shifted(ts.hyp2f1, a, b, c, z)
        grad_row = {"a": ts.hyp2f1_grad_a, "b": ts.hyp2f1_grad_b, "c": ts.hyp2f1_grad_c}[which]
        scale = ts.true_div(ts.mul(a, b), c)
        direct = {"a": ts.true_div(b, c), "b": ts.true_div(a, c),
                  "c": ts.neg(ts.true_div(scale, c))}[which]
        return ts.add(ts.mul(direct, f1), ts.mul(scale, _shifted(grad_row, a, b, c, z)))

    return part


RULES: dict[str, GradRule] = {
    "erfcx": grads(_erfcx),
    "owens_t": grads(_owens_dh, _owens_da),
    "i0": grads(lambda x, out: ts.i1(x)),
    "i1": grads(lambda x, out: _half(ts.add(ts.i0(x), ts.iv(2, x)))),
    "j0": grads(lambda x, out: ts.neg(ts.j1(x))),
    "j1": grads(lambda x, out: _half(ts.sub(ts.j0(x), ts.jv(2, x)))),
    "iv": grads(ORDER, lambda v, x, out: _bessel_mean(ts.iv, v, x, 1)),
    "ive": grads(ORDER, lambda v, x, out: ts.sub(_bessel_mean(ts.ive, v, x, 1),
                                                 ts.mul(ts.sign(x), out))),
    "jv": grads(ORDER, lambda v, x, out: _bessel_mean(ts.jv, v, x, -1)),
    "kv": grads(ORDER, lambda v, x, out: ts.neg(_bessel_mean(ts.kv, v, x, 1))),
    "kve": grads(ORDER, lambda v, x, out: ts.sub(out, _bessel_mean(ts.kve, v, x, 1))),
    "kn": grads(ZERO, lambda n, x, out: ts.neg(_bessel_mean(ts.kn, n, x, 1))),
    "gammainc": grads(lambda k, x, out: ts.gammainc_grad(k, x),
                      lambda k, x, out: _gamma_density(k, x)),
    "gammaincc": grads(lambda k, x, out: ts.neg(ts.gammainc_grad(k, x)),
                       lambda k, x, out: ts.neg(_gamma_density(k, x))),
    "gammaincinv": grads(
        lambda k, y, x: ts.neg(ts.mul(ts.gammainc_grad(k, x), _inv_gamma_dy(k, x))),
        lambda k, y, x: _inv_gamma_dy(k, x)),
    "gammainccinv": grads(
        lambda k, y, x: ts.neg(ts.mul(ts.gammainc_grad(k, x), _inv_gamma_dy(k, x))),
        lambda k, y, x: ts.neg(_inv_gamma_dy(k, x))),
    "gammal": grads(
        lambda k, x, out: ts.add(ts.mul(ts.gamma(k), ts.gammainc_grad(k, x)),
                                 ts.mul(out, ts.psi(k))),
        lambda k, x, out: ts.exp(ts.sub(ts.xlogy0(ts.sub(k, 1), x), x))),
    "gammau": grads(
        lambda k, x, out: ts.sub(ts.mul(out, ts.psi(k)),
                                 ts.mul(ts.gamma(k), ts.gammainc_grad(k, x))),
        lambda k, x, out: ts.neg(ts.exp(ts.sub(ts.xlogy0(ts.sub(k, 1), x), x)))),
    "chi2sf": grads(
        lambda x, k, out: ts.neg(_half(_gamma_density(_half(k), _half(x)))),
        lambda x, k, out: ts.neg(_half(ts.gammainc_grad(_half(k), _half(x))))),
    "gammainc_grad": grads(
        SECOND,
        lambda k, x, out: ts.mul(_gamma_density(k, x), ts.sub(ts.log(x), ts.psi(k)))),
    "betainc": grads(lambda a, b, x, out: ts.betainc_grad_a(a, b, x),
                     lambda a, b, x, out: ts.betainc_grad_b(a, b, x),
                     lambda a, b, x, out: _beta_density(a, b, x)),
    "betaincinv": grads(
        lambda a, b, y, x: ts.neg(ts.true_div(ts.betainc_grad_a(a, b, x),
                                              _beta_density(a, b, x))),
        lambda a, b, y, x: ts.neg(ts.true_div(ts.betainc_grad_b(a, b, x),
                                              _beta_density(a, b, x))),
        lambda a, b, y, x: ts.true_div(1, _beta_density(a, b, x))),
    "betainc_grad_a": grads(
        SECOND, SECOND,
        lambda a, b, x, out: ts.mul(_beta_density(a, b, x), ts.add(
            ts.sub(ts.log(x), ts.psi(a)), ts.psi(ts.add(a, b))))),
    "betainc_grad_b": grads(
        SECOND, SECOND,
        lambda a, b, x, out: ts.mul(_beta_density(a, b, x), ts.add(
            ts.sub(ts.log1p(ts.neg(x)), ts.psi(b)), ts.psi(ts.add(a, b))))),
    "hyp2f1": grads(lambda a, b, c, z, out: ts.hyp2f1_grad_a(a, b, c, z),
                    lambda a, b, c, z, out: ts.hyp2f1_grad_b(a, b, c, z),
                    lambda a, b, c, z, out: ts.hyp2f1_grad_c(a, b, c, z),
                    _hyp_dz),
    "hyp2f1_grad_a": grads(SECOND, SECOND, SECOND, _hyp_grad_dz("a")),
    "hyp2f1_grad_b": grads(SECOND, SECOND, SECOND, _hyp_grad_dz("b")),
    "hyp2f1_grad_c": grads(SECOND, SECOND, SECOND, _hyp_grad_dz("c")),
    "xlogx": grads(lambda x, out: ts.add(ts.log(x), 1)),
    "xlogy0": grads(lambda x, y, out: ts.log(y), lambda x, y, out: ts.true_div(x, y)),
}
