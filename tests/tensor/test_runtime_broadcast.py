"""NumPy broadcasting at run time (issue 15 item 5).

A function's argument whose static length is unknown (``None``) may be 1 at run time
and broadcast as in NumPy; the function compiles a variant with that length declared
1 (once per pattern), so values and gradients (summed back to the argument's length)
are NumPy's.  Checked against NumPy values and central finite differences, on the
default linker and the reference VM; the rewrite resolving ``BroadcastGrad`` gets a
hypothesis differential run; statically shaped graphs compile as before.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from theon.compile.mode import Mode
from theon.gradient import verify_grad
from theon.graph.traversal import toposort
from theon.scalar.table import ROWS
from theon.tensor.broadcast_grad import BroadcastGrad
from theon.tensor.type import TensorType

MODES = {"py": None, "vm": Mode(linker="vm")}
UNREWRITTEN = Mode(linker="vm", optimizer=None)

# every binary op of the scalar table with a derivative (not the piecewise-constant
# int_div/mod, the comparisons, or the bitwise and logical ops), with a smooth range;
# the special functions (family "special": SciPy's, no NumPy function to compare with)
# are checked against SciPy and finite differences with tests/scalar/special_cases.py
RANGES = {"true_div": ((-2, 2), (0.5, 2)), "pow": ((0.5, 2), (-2, 2)),
          "arctan2": ((-2, 2), (0.5, 2))}
NOT_DIFFERENTIABLE = {"int_div", "mod", "lt", "gt", "le", "ge", "eq", "neq", "and_", "or_",
                      "xor", "left_shift", "right_shift", "logical_and", "logical_or",
                      "logical_xor"}
BINARY = sorted(r.tensor or r.name for r in ROWS
                if r.nin in (2, -1) and (r.tensor or r.name) not in NOT_DIFFERENTIABLE
                and r.family != "special")
SHAPES = [((1, 4), (3, 4)), ((3, 1), (1, 4)), ((3, 4), (1, 1)), ((2, 1, 3), (4, 1)),
          ((1,), (2, 3)), ((2, 3, 1), (2, 1, 5))]


def _var(shape: tuple[int, ...], name: str) -> tt.TensorVariable:
    return TensorType("float64", shape=(None,) * len(shape))(name)


def _vals(rng: np.random.Generator, shape: tuple[int, ...], lo: float, hi: float) -> np.ndarray:
    return rng.uniform(lo, hi, size=shape)


def _numeric_grads(f, args: list[np.ndarray], w: np.ndarray, eps: float = 1e-6
                   ) -> list[np.ndarray]:
    """Central differences of ``sum(w * f(*args))`` (NumPy-evaluated cost)."""
    out = []
    for k, a in enumerate(args):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            hi, lo = [x.copy() for x in args], [x.copy() for x in args]
            hi[k][idx] += eps
            lo[k][idx] -= eps
            g[idx] = ((w * f(*hi)).sum() - (w * f(*lo)).sum()) / (2 * eps)
        out.append(g)
    return out


def test_the_op_table_gives_the_binary_ops() -> None:
    assert set(BINARY) == {"add", "sub", "mul", "true_div", "pow", "maximum", "minimum",
                           "arctan2"}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
@pytest.mark.parametrize("name", BINARY)
def test_binary_op_value_and_gradient_broadcast_at_run_time(name, shapes, mode) -> None:
    rng = np.random.default_rng(len(name) * 31 + len(str(shapes)))
    ra, rb = RANGES.get(name, ((-2, 2), (-2, 2)))
    av, bv = _vals(rng, shapes[0], *ra), _vals(rng, shapes[1], *rb)
    while name in ("maximum", "minimum") and np.any(np.abs(np.subtract(av, bv)) < 0.05):
        bv = _vals(rng, shapes[1], *rb)  # away from ties, where there is no derivative
    a, b = _var(shapes[0], "a"), _var(shapes[1], "b")
    out = getattr(tt, name)(a, b)
    ref = np.broadcast_shapes(av.shape, bv.shape)
    w = rng.normal(size=ref)
    cost = (out * w).sum()
    f = theon.function([a, b], [out, *theon.grad(cost, [a, b])], mode=MODES[mode])
    val, ga, gb = f(av, bv)
    np_fn = getattr(np, {"true_div": "true_divide", "pow": "power", "sub": "subtract",
                         "mul": "multiply"}.get(name, name))
    np.testing.assert_allclose(val, np_fn(av, bv), rtol=1e-12)
    assert ga.shape == av.shape and gb.shape == bv.shape
    na, nb = _numeric_grads(np_fn, [av, bv], w)
    np.testing.assert_allclose(ga, na, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gb, nb, rtol=1e-5, atol=1e-6)
    verify_grad(getattr(tt, name), [av, bv], rng=0, mode=MODES[mode], static_shape=False)


def test_one_variant_per_pattern_sharing_updates() -> None:
    """Each pattern of lengths of 1 compiles once; every variant updates the same shared
    variable; arguments without a length of 1 take the function's own graph."""
    x, y = tt.dmatrix("x"), tt.dmatrix("y")
    acc = theon.shared(0.0, name="acc")
    f = theon.function([x, y], x * y, updates={acc: acc + (x * y).sum()})
    np.testing.assert_allclose(f(np.ones((1, 3)), np.full((2, 3), 2.0)), np.full((2, 3), 2.0))
    np.testing.assert_allclose(f(np.ones((2, 3)), np.ones((2, 3))), np.ones((2, 3)))
    f(np.ones((1, 3)), np.full((2, 3), 2.0))
    assert len(f._specialized) == 1
    f(np.ones((2, 1)), np.ones((1, 3)))
    assert len(f._specialized) == 2
    assert acc.get_value() == 12.0 + 6.0 + 12.0 + 6.0


def test_incompatible_lengths_still_raise_naming_the_op() -> None:
    x, y = tt.dmatrix("x"), tt.dmatrix("y")
    f = theon.function([x, y], x + y, mode=Mode(linker="vm"))
    with pytest.raises(ValueError) as err:
        f(np.ones((2, 3)), np.ones((3, 3)))
    assert "add" in str(err.value) + "".join(getattr(err.value, "__notes__", []))


def test_a_computed_value_of_unknown_length_does_not_broadcast() -> None:
    """Only arguments broadcast at run time: a computed value must declare its length 1."""
    x, y = tt.dvector("x"), tt.dvector("y")
    f = theon.function([x, y], x[:1] + y, mode=Mode(linker="vm"))
    with pytest.raises(ValueError, match="specify_broadcastable"):
        f(np.ones(3), np.ones(3))
    g = theon.function([x, y], tt.specify_broadcastable(x[:1], 0) + y)
    np.testing.assert_allclose(g(np.arange(3.0), np.ones(3)), np.ones(3))


# computed operand, written in place (or into a dead buffer) by the Elemwise
# (theon, NumPy)
IN_PLACE = {
    "add": (lambda c, e: c + e, lambda c, e: c + e),
    "pow": (lambda c, e: c ** e, lambda c, e: c ** e),
    "add, operands swapped": (lambda c, e: e + c, lambda c, e: e + c),
    "add of three": (lambda c, e: tt.add(c, e, e), lambda c, e: c + e + e),
    "fused": (lambda c, e: tt.exp(c) * 2 + e, lambda c, e: np.exp(c) * 2 + e),
}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("name", sorted(IN_PLACE))
def test_a_computed_value_written_in_place_does_not_broadcast(name, mode) -> None:
    """Issue 29 item 12: the documented limit (a computed value of unknown length does
    not broadcast) through the in-place path gives theon's message, naming the node and
    the input, not NumPy's "non-broadcastable output operand"."""
    a, e = tt.dvector("a"), tt.dvector("e")
    build, reference = IN_PLACE[name]
    f = theon.function([a, e], build(tt.concatenate([a, e]), e), mode=MODES[mode])
    node = next(n for n in f.maker.fgraph.toposort() if isinstance(n.op, tt.Elemwise)
                and (n.op.destroy_map or name == "fused"))
    # values where nothing broadcasts, and where an argument does: NumPy's
    av, ev = np.array([0.5]), np.array([2.0])
    want = reference(np.concatenate([av, ev]), ev)
    np.testing.assert_allclose(f(av, ev), want)
    with pytest.raises(ValueError) as err:
        f(np.ones(1), np.ones(0))  # the concatenation has length 1, e length 0
    msg = str(err.value)
    assert "non-broadcastable output operand" not in msg
    assert msg.startswith(f"{node.op}: input ")
    assert "'Join.0' (TensorType(float64, shape=(None,)))" in msg
    assert "has shape (1,) at runtime, which broadcasts along dimension 0 to (0,)" in msg
    assert "specify_broadcastable" in msg
    # (NumPy's error is not shown as its cause)
    assert err.value.__context__ is None or err.value.__suppress_context__


def test_a_dead_buffer_reused_for_a_result_does_not_broadcast() -> None:
    """The same through an output written into a dead intermediate (no inplace phase)."""
    a, e = tt.dvector("a"), tt.dvector("e")
    mode = Mode(linker="py").excluding("inplace", "fusion")
    f = theon.function([a, e], tt.concatenate([a, e]) * 2 - e, mode=mode)
    assert "out=" in f._runner.source
    np.testing.assert_allclose(f(np.array([1.0]), np.array([3.0])), [-1.0, 3.0])
    with pytest.raises(ValueError, match=r"input 0 'Elemwise\{mul.* has shape \(1,\) at run"):
        f(np.ones(1), np.ones(0))


def test_static_graphs_compile_as_before() -> None:
    """With lengths that are statically known, no BroadcastGrad is built; with unknown
    ones it is resolved at compile time, leaving the graph of the static reduction."""
    x = tt.TensorType("float64", shape=(None, 4))("x")
    b = tt.TensorType("float64", shape=(1, 4))("b")
    g = theon.grad((x * b).sum(), [x, b])
    assert not any(isinstance(n.op, BroadcastGrad) for n in toposort(g))
    x, y = tt.dmatrix("x"), tt.dmatrix("y")
    gy = theon.grad((x * y).sum(), [x, y])
    assert any(isinstance(n.op, BroadcastGrad) for n in toposort(gy))
    f = theon.function([x, y], gy)
    ops = {type(n.op).__name__ for n in f.maker.fgraph.apply_nodes}
    assert "BroadcastGrad" not in ops and "SumToShape" not in ops and "Sum" not in ops


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_broadcast_grad_rewrite_matches_unrewritten_and_numpy(data) -> None:
    """``BroadcastGrad(g, x) -> sum_to_type(g, x)`` agrees with the Op's own run-time
    reduction and with NumPy, for types with lengths 1 static, unknown, or known."""
    nd = data.draw(st.integers(1, 3))
    xshape = tuple(data.draw(st.sampled_from([1, 2, 3])) for _ in range(nd))
    lead = data.draw(st.integers(0, 1))
    gshape = tuple(data.draw(st.integers(2, 3)) for _ in range(lead)) + tuple(
        s if s != 1 else data.draw(st.sampled_from([1, 4])) for s in xshape)
    static = tuple(data.draw(st.sampled_from(["known", "none"])) if s != 1 else
                   data.draw(st.sampled_from(["one", "known"])) for s in xshape)
    xt = TensorType("float64", shape=tuple(
        None if k == "none" else s for k, s in zip(static, xshape)))
    x, g = xt("x"), tt.TensorType("float64", shape=(None,) * len(gshape))("g")
    out = BroadcastGrad()(g, x)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    gv, xv = rng.normal(size=gshape), rng.normal(size=xshape)
    axes = tuple(range(lead)) + tuple(lead + d for d, s in enumerate(xshape)
                                      if s == 1 and gshape[lead + d] != 1)
    want = gv.sum(axis=axes, keepdims=True).reshape(xshape) if axes else gv.reshape(xshape)
    unrewritten = theon.function([g, x], out, mode=UNREWRITTEN)(gv, xv)
    np.testing.assert_allclose(unrewritten, want, rtol=1e-12)
    f = theon.function([g, x], out)  # the rewritten graph decides from the types
    assert not any(isinstance(n.op, BroadcastGrad) for n in f.maker.fgraph.apply_nodes)
    np.testing.assert_allclose(f(gv, xv), want, rtol=1e-12)


def test_vectorized_jacobian_keeps_the_static_reduction_and_broadcasts() -> None:
    """A jacobian (the gradient vectorized over rows) resolves its batched BroadcastGrad
    at compile time too, and follows run-time broadcasting of its arguments."""
    x, y = tt.dvector("x"), tt.dvector("y")
    jx, jy = theon.gradient.jacobian(x * y, [x, y], vectorize=True)
    f = theon.function([x, y], [jx, jy])
    ops = {type(n.op).__name__ for n in f.maker.fgraph.apply_nodes}
    assert not ops & {"BroadcastGrad", "SumToShape", "LoopedApply"}, ops
    xv, yv = np.array([1.0, 2.0, 3.0]), np.array([4.0, 5.0, 6.0])
    a, b = f(xv, yv)
    np.testing.assert_allclose(a, np.diag(yv))
    np.testing.assert_allclose(b, np.diag(xv))
    a, b = f(xv, np.array([4.0]))  # y broadcast: d(x*y)/dy is the column x
    np.testing.assert_allclose(a, 4.0 * np.eye(3))
    np.testing.assert_allclose(b, xv[:, None])
