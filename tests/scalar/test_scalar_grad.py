"""Scalar op gradients against central finite differences, R_op, and disconnected inputs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

import theon
import theon.tensor as tt
from tests.seeding import stable_seed
from theon import scalar as ts
from theon.graph.basic import Variable
from theon.graph.null_type import DisconnectedType, NullType

from .opspec import SPECS, compile_fn, sample

GRAD_OPS = sorted(n for n, s in SPECS.items() if s.grad)


def numeric_grad(f: Callable[..., Any], point: Sequence[float], eps: float = 1e-6) -> list[float]:
    """Central differences of a scalar function of floats."""
    out = []
    for i in range(len(point)):
        h = eps * max(1.0, abs(point[i]))
        up, dn = list(point), list(point)
        up[i] += h
        dn[i] -= h
        out.append((float(f(*up)) - float(f(*dn))) / (2 * h))
    return out


def check_scalar_grad(
    build: Callable[..., Variable],
    points: Sequence[Sequence[float]],
    rtol: float = 1e-5,
    atol: float = 1e-6,
) -> None:
    """Compare the L_op and grad gradients of ``build``'s node (compiled) with finite differences.

    ``build(*xs)`` must apply one op directly to the float64 inputs ``xs`` (and constants).
    """
    n = len(points[0])
    xs = [ts.float64(f"x{i}") for i in range(n)]
    out = build(*xs)
    node = out.owner
    grads = node.op.L_op(node.inputs, node.outputs, [ts.constant(1.0)])
    via_grad = node.op.grad(node.inputs, [ts.constant(1.0)])
    assert len(grads) == len(via_grad) == len(node.inputs)
    pos = [node.inputs.index(x) for x in xs]
    g_vars = [grads[j] for j in pos] + [via_grad[j] for j in pos]
    for g in g_vars:
        assert not isinstance(g.type, DisconnectedType | NullType), (node.op, g.type)
    f = compile_fn(xs, out)
    g = compile_fn(xs, g_vars, on_unused_input="ignore")
    for p in points:
        num = numeric_grad(f, p)
        ana = [float(v) for v in g(*p)]
        for i in range(n):
            for a in (ana[i], ana[i + n]):
                assert abs(a - num[i]) <= atol + rtol * abs(num[i]), (
                    f"{node.op} at {p}: d/dx{i} analytic {a}, numeric {num[i]}"
                )


@pytest.mark.parametrize("name", GRAD_OPS)
def test_grad_matches_finite_differences(name: str) -> None:
    spec = SPECS[name]
    rng = np.random.default_rng(stable_seed(name))
    points = sample(spec, rng, 5)
    check_scalar_grad(lambda *xs: spec.op(*xs), points)


@pytest.mark.parametrize("name", GRAD_OPS)
def test_grad_keeps_input_dtype(name: str) -> None:
    spec = SPECS[name]
    xs = [ts.float32(f"x{i}") for i in range(spec.nin)]
    if name == "switch":
        xs[0] = ts.bool_("c")
    out = spec.op(*xs)
    gz = ts.float32("gz") if out.type.dtype == "float32" else ts.get_scalar_type(out.type.dtype)()
    grads = spec.op.grad(xs, [gz])
    for x, g in zip(xs, grads):
        if x.type.dtype == "bool":
            assert isinstance(g.type, DisconnectedType)
        else:
            assert g.type == x.type, (name, g.type)


INT_OK = [n for n in GRAD_OPS if n not in ("switch",)]


@pytest.mark.parametrize("name", INT_OK)
def test_integer_inputs_are_disconnected(name: str) -> None:
    spec = SPECS[name]
    xs = [ts.int32(f"i{i}") for i in range(spec.nin)]
    try:
        out = spec.op(*xs)
    except TypeError:
        return
    gz = ts.get_scalar_type(out.type.dtype)()
    for g in spec.op.L_op(xs, [out], [gz]):
        assert isinstance(g.type, DisconnectedType), (name, g)


def test_discrete_ops_give_zero_for_float_inputs() -> None:
    x, y = ts.float64("x"), ts.float64("y")
    for op in (ts.lt, ts.eq, ts.int_div):
        gs = op.grad([x, y], [ts.float64("gz")])
        assert all(isinstance(g, ts.ScalarConstant) and g.data == 0 for g in gs)
    (g,) = ts.floor.grad([x], [ts.float64("gz")])
    assert g.data == 0 and g.type == ts.float64
    c, b = ts.bool_("c"), ts.int8("b")
    gs = ts.switch.grad([c, x, b], [ts.float64("gz")])
    assert isinstance(gs[0].type, DisconnectedType) and isinstance(gs[2].type, DisconnectedType)


def test_cast_grad() -> None:
    x = ts.float32("x")
    gz = ts.float64("gz")
    (g,) = ts.cast(x, "float64").owner.op.grad([x], [gz])
    assert g.type == ts.float32
    (g,) = ts.cast(x, "int32").owner.op.grad([x], [ts.int32()])
    assert g.data == 0 and g.type == ts.float32
    i = ts.int16("i")
    (g,) = ts.cast(i, "float64").owner.op.grad([i], [gz])
    assert isinstance(g.type, DisconnectedType)


def test_polygamma_grad() -> None:
    check_scalar_grad(lambda x: ts.psi(x), [(0.7,), (2.3,)])
    check_scalar_grad(lambda x: ts.polygamma(2, x), [(0.7,), (2.3,)])
    n, x = ts.int64("n"), ts.float64("x")
    gn, _ = ts.polygamma.grad([n, x], [ts.float64()])
    assert isinstance(gn.type, DisconnectedType)


def test_mixed_dtype_grads() -> None:
    # int input of a float op: disconnected; the float input keeps its dtype
    x, i = ts.float32("x"), ts.int8("i")
    gx, gi = ts.mul.grad([x, i], [ts.float32("gz")])
    assert gx.type == ts.float32 and isinstance(gi.type, DisconnectedType)
    gx, gi = ts.pow.grad([x, i], [ts.float32("gz")])
    assert gx.type == ts.float32 and isinstance(gi.type, DisconnectedType)
    gz = ts.float32("gz")
    gx, _ = ts.pow.grad([x, i], [gz])
    f = compile_fn([x, i, gz], gx)
    assert np.isclose(f(np.float32(2.0), np.int8(3), np.float32(1.0)), 12.0)


def test_second_derivative_through_grads() -> None:
    # grads are ordinary scalar graphs: differentiate exp(sin(x)**2) twice numerically
    x = ts.float64("x")
    y = ts.exp(ts.sqr(ts.sin(x)))
    (g1,) = y.owner.op.L_op([y.owner.inputs[0]], [y], [ts.constant(1.0)])
    f1 = compile_fn([x], backprop(y, x))
    f0 = compile_fn([x], y)
    for p in (0.3, 1.1, -0.8):
        num = numeric_grad(f0, [p])[0]
        assert abs(float(f1(p)) - num) < 1e-6
        ana = 2 * np.sin(p) * np.cos(p) * np.exp(np.sin(p) ** 2)
        assert abs(float(f1(p)) - ana) < 1e-10
    assert g1 is not None


def backprop(y: Variable, x: Variable) -> Variable:
    """Reverse mode over a scalar graph (a local stand-in for theon.grad)."""
    from theon.graph.traversal import io_toposort

    grads: dict[Variable, Variable] = {y: ts.constant(1.0)}
    for node in reversed(io_toposort([x], [y])):
        gz = grads.get(node.outputs[0])
        if gz is None:
            continue
        for v, g in zip(node.inputs, node.op.L_op(node.inputs, node.outputs, [gz])):
            if isinstance(g.type, DisconnectedType):
                continue
            grads[v] = g if v not in grads else ts.add(grads[v], g)
    return grads[x]


@pytest.mark.parametrize("name", ["add", "mul", "true_div", "pow", "exp", "tanh", "arctan2"])
def test_r_op_matches_partials(name: str) -> None:
    spec = SPECS[name]
    xs = [ts.float64(f"x{i}") for i in range(spec.nin)]
    evs = [ts.float64(f"v{i}") for i in range(spec.nin)]
    (r,) = spec.op.R_op(xs, evs)
    f = compile_fn([*xs, *evs], r, on_unused_input="ignore")
    fx = compile_fn(xs, spec.op(*xs))
    rng = np.random.default_rng(1)
    for p in sample(spec, rng, 3):
        v = rng.normal(size=spec.nin)
        num = numeric_grad(fx, p)
        want = float(np.dot(num, v))
        assert abs(float(f(*p, *v)) - want) < 1e-5 * max(1, abs(want))
    # None eval points drop their term
    (r1,) = spec.op.R_op(xs, [evs[0]] + [None] * (spec.nin - 1))
    assert r1 is not None
    (r0,) = spec.op.R_op(xs, [None] * spec.nin)
    assert r0 is None


@pytest.mark.parametrize("mode", ["FAST_RUN", "FAST_COMPILE", "REFERENCE", "JAX"])
def test_pow_grad_at_zero_base_matches_finite_differences(mode: str) -> None:
    """Issue 29, item 3: ``d(x**y)/dy`` at ``x = 0``, ``y > 0`` is 0 (``0**y`` is 0 around
    ``y``), not ``0 * log(0) = nan``; ``d(x**y)/dx`` at ``y = 0`` is 0 (``x**0`` is 1
    for every ``x``), not ``0 * 0**-1 = nan``.  Elsewhere the rule is unchanged: each
    value is checked against central differences where they exist, and against the
    one-sided limit where only that exists (``d/dx`` of ``x**0.5`` at 0 is +inf,
    ``d/dy`` of ``0**y`` at ``y = 0`` is -inf)."""
    if mode == "JAX":
        pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")
    xs = np.array([0.0, 0.0, -0.0, 0.0, 0.0, 0.0, 0.0, 2.0, -2.0, 0.5, 1.5, 0.0])
    ys = np.array([2.0, 0.5, 2.0, 1.0, 3.0, 0.0, 0.1, 3.0, 2.0, 2000.0, -0.5, 2.5])
    x, y = tt.dvector("x"), tt.dvector("y")
    gx, gy = theon.grad((x ** y).sum(), [x, y])
    got_x, got_y = theon.function([x, y], [gx, gy], mode=mode)(xs, ys)
    h = 1e-7
    with np.errstate(all="ignore"):
        fd_x = ((xs + h) ** ys - (xs - h) ** ys) / (2 * h)
        fd_y = (xs ** (ys + h) - xs ** (ys - h)) / (2 * h)
    # where central differences are not defined (a negative base to a fractional
    # power, 0 to a negative one): the one-sided limits
    fd_x[[1, 6]] = np.inf  # d/dx x**y at 0+ for 0 < y < 1: y * x**(y-1) -> inf
    fd_x[11] = 0.0  # ... and for y = 2.5: 2.5 * 0**1.5
    fd_y[5] = -np.inf  # d/dy 0**y at 0+: (0**h - 0**0) / h = -1/h
    np.testing.assert_allclose(got_x, fd_x, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(got_y, fd_y, rtol=1e-6, atol=1e-6)
    assert got_y[0] == 0.0 and got_x[5] == 0.0  # the points of the issue, exactly


def test_pow_grad_at_zero_by_verify_grad() -> None:
    """Issue 29, item 3, by :func:`theon.verify_grad` (random directions): the gradient
    in ``y`` of ``0**y`` (``y > 0``), and in ``x`` of ``x**0``."""
    rng = np.random.default_rng(29)
    zeros = tt.constant(np.zeros(4))
    theon.verify_grad(lambda y: zeros ** y, [np.array([0.3, 1.0, 2.0, 2.5])], rng=rng)
    theon.verify_grad(lambda x: x ** tt.constant(np.zeros(4)),
                      [np.array([0.0, -1.0, 2.0, 0.0])], rng=rng)
    theon.verify_grad(lambda x, y: x ** y, [np.array([0.5, 2.0, 1.5]),
                                            np.array([0.0, 2.0, -1.5])], rng=rng)
