"""theon.grad on toy scalar Types and Ops (no tensors)."""

from __future__ import annotations

import math
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
from theon.gradient import (
    DisconnectedInputError,
    GradNotImplementedError,
    Lop,
    NullTypeGradError,
    Rop,
    grad,
)
from theon.graph.basic import Apply, Variable
from theon.graph.null_type import DisconnectedType, NullType
from theon.graph.op import Op
from theon.graph.traversal import ancestors, toposort

from .toy_grad import (
    Cos,
    Exp,
    Sin,
    Undef,
    Vec,
    add,
    cos,
    exp,
    float_of,
    floor,
    int_t,
    mul,
    no_grad,
    real,
    scale,
    select_first,
    sin,
    sincos,
    to_int,
)

floats = st.floats(-3.0, 3.0, allow_nan=False)


def ev(outputs, inputs, *values):
    return theon.function(list(inputs), outputs, on_unused_input="ignore")(*values)


@settings(max_examples=25, deadline=None)
@given(floats)
def test_seed_example_exp_sin_squared(xv):
    x = real("x")
    s = sin(x)
    y = exp(s * s)
    g = grad(y, x)
    expected = 2 * math.sin(xv) * math.cos(xv) * math.exp(math.sin(xv) ** 2)
    assert ev(g, [x], xv) == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_terms_are_accumulated_not_recomputed():
    x = real("x")
    z = sin(x)
    c = z * z + z + exp(z)
    g = grad(c, x)
    nodes = toposort([g])
    # d c / d z is summed once, then multiplied by cos(x) exactly once
    assert sum(isinstance(n.op, Cos) for n in nodes) == 1
    # and the forward sin node is reused, not rebuilt
    assert sum(isinstance(n.op, Sin) for n in nodes) == 1
    xv = 0.7
    s, cs = math.sin(xv), math.cos(xv)
    assert ev(g, [x], xv) == pytest.approx((2 * s + 1 + math.exp(s)) * cs)


def test_l_op_reuses_outputs():
    x = real("x")
    y = exp(x)
    g = grad(y * y, x)
    assert y in set(ancestors([g]))
    assert sum(isinstance(n.op, Exp) for n in toposort([g])) == 1
    assert ev(g, [x], 0.5) == pytest.approx(2 * math.exp(1.0))


def test_multi_output_both_used():
    x = real("x")
    s, c = sincos(x)
    g = grad(s * c, x)
    assert ev(g, [x], 0.4) == pytest.approx(math.cos(0.8))


def test_multi_output_one_used_gets_zero_for_other():
    x = real("x")
    s, c = sincos(x)
    assert ev(grad(c * 3.0, x), [x], 0.4) == pytest.approx(-3 * math.sin(0.4))
    assert ev(grad(s, x), [x], 0.4) == pytest.approx(math.cos(0.4))


def test_seed004_style_custom_op():
    class Double(Op):
        """Seed 004 contract: grad(inputs, output_gradients) -> one entry per input."""

        __props__ = ()

        def make_node(self, x):
            return Apply(self, [x], [real()])

        def perform(self, node, inputs, output_storage):
            output_storage[0][0] = 2 * inputs[0]

        def grad(self, inputs, output_gradients):
            return [output_gradients[0] * 2.0]

    x = real("x")
    c = Double()(Double()(x)) * x
    g = grad(c, x)
    assert ev(g, [x], 1.5) == pytest.approx(8 * 1.5)


def test_op_without_grad_raises_naming_it_and_where_built():
    x = real("x")
    y = no_grad(x)  # built here
    with pytest.raises(GradNotImplementedError) as info:
        grad(y + x, x)
    msg = str(info.value)
    assert "NoGrad" in msg
    assert "test_grad_core.py" in msg
    assert isinstance(info.value, NotImplementedError)


def test_op_without_grad_is_fine_when_not_needed():
    x, w = real("x"), real("w")
    c = x * x + no_grad(w)
    assert ev(grad(c, x), [x, w], 3.0, 1.0) == pytest.approx(6.0)


def test_null_gradient_raised_only_when_needed():
    x, y = real("x"), real("y")
    c = Undef("undefined")(x, y) + sin(y)
    gx = grad(c, x)
    assert ev(gx, [x, y], 2.0, 3.7) == pytest.approx(3.0)
    with pytest.raises(NullTypeGradError) as info:
        grad(c, y)
    msg = str(info.value)
    assert "undefined" in msg and "floor is a step" in msg and "Undef" in msg
    assert "'y'" in msg
    gy = grad(c, y, null_gradients="return")
    assert isinstance(gy.type, NullType)
    with pytest.raises(NullTypeGradError, match="not implemented"):
        grad(Undef("notimpl")(x, y), x)
    with pytest.raises(ValueError, match="null_gradients"):
        grad(c, x, null_gradients="zero")


def test_null_gradient_propagates_through_upstream_ops():
    x = real("x")
    c = Undef("undefined")(2.0, sin(x) * x)
    with pytest.raises(NullTypeGradError, match="undefined"):
        grad(exp(c), x)


def test_cost_must_be_scalar_and_error_names_shape():
    v = Vec()("v")
    with pytest.raises(TypeError) as info:
        grad(v, v)
    msg = str(info.value)
    assert "scalar" in msg and "ndim 1" in msg and "(3,)" in msg and "'v'" in msg


def test_known_grads_seed_and_add_to_cost():
    x = real("x")
    y = sin(x)
    gseed = real("gseed")
    g = grad(None, x, known_grads={y: gseed})
    assert ev(g, [x, gseed], 0.3, 2.0) == pytest.approx(2 * math.cos(0.3))
    # cost and known_grads are both seeds: their gradients add up
    g2 = grad(y, x, known_grads={y: gseed})
    assert ev(g2, [x, gseed], 0.3, 2.0) == pytest.approx(3 * math.cos(0.3))
    # plain values are accepted as known gradients
    g3 = grad(None, x, known_grads={y: 4.0})
    assert ev(g3, [x], 0.3) == pytest.approx(4 * math.cos(0.3))
    with pytest.raises(ValueError, match="known_grads"):
        grad(None, x)


def test_consider_constant():
    x = real("x")
    s = sin(x)
    c = x * s
    g = grad(c, x, consider_constant=[s])
    assert ev(g, [x], 0.9) == pytest.approx(math.sin(0.9))
    g_full = grad(c, x)
    assert ev(g_full, [x], 0.9) == pytest.approx(math.sin(0.9) + 0.9 * math.cos(0.9))


def test_disconnected_inputs_modes():
    x, y = real("x"), real("y")
    c = sin(y)
    with pytest.raises(DisconnectedInputError, match="'x'"):
        grad(c, x)
    with pytest.warns(UserWarning, match="disconnected"):
        gz = grad(c, [x, y], disconnected_inputs="warn")
    assert ev(gz[0], [x, y], 1.0, 1.0) == 0.0
    assert ev(gz[1], [x, y], 1.0, 1.0) == pytest.approx(math.cos(1.0))
    assert grad(c, x, disconnected_inputs="ignore", return_disconnected="None") is None
    d = grad(c, x, disconnected_inputs="ignore", return_disconnected="Disconnected")
    assert isinstance(d.type, DisconnectedType)
    with pytest.raises(ValueError, match="disconnected_inputs"):
        grad(c, x, disconnected_inputs="bogus")
    with pytest.raises(ValueError, match="return_disconnected"):
        grad(c, x, disconnected_inputs="ignore", return_disconnected="bogus")


def test_connection_pattern_disconnects():
    x, y = real("x"), real("y")
    c = select_first(x, y) * 2.0
    assert ev(grad(c, x), [x], 1.0) == 2.0
    with pytest.raises(DisconnectedInputError):
        grad(c, y)


def test_integer_inputs_are_disconnected():
    x = real("x")
    k = int_t("k")
    c = scale(x, k)
    assert ev(grad(c, x), [x, k], 2.0, 3) == 3.0
    with pytest.raises(DisconnectedInputError, match="integer"):
        grad(c, k)
    gk = grad(c, k, disconnected_inputs="ignore", return_disconnected="Disconnected")
    assert isinstance(gk.type, DisconnectedType)


def test_gradient_does_not_flow_through_integer_outputs():
    x = real("x")
    c = float_of(to_int(x)) + x  # ToInt.grad asserts if called
    assert ev(grad(c, x), [x], 2.5) == 1.0
    with pytest.raises(DisconnectedInputError):
        grad(float_of(to_int(x)), x)


def test_none_gradient_means_zero_contribution():
    x = real("x")
    assert ev(grad(floor(x) + x * 2.0, x), [x], 1.3) == 2.0
    # connected (the op says so), so not an error: a zero gradient
    assert ev(grad(floor(x), x), [x], 1.3) == 0.0


@settings(max_examples=20, deadline=None)
@given(floats)
def test_second_derivative(xv):
    x = real("x")
    c = sin(x) * x
    g = grad(c, x)
    h = grad(g, x)
    expected = 2 * math.cos(xv) - xv * math.sin(xv)
    assert ev(h, [x], xv) == pytest.approx(expected, abs=1e-12)
    h3 = grad(h, x)
    assert ev(h3, [x], xv) == pytest.approx(
        -3 * math.sin(xv) - xv * math.cos(xv), abs=1e-12
    )


def test_wrt_structure_and_intermediates():
    x = real("x")
    z = sin(x)
    c = z * z
    assert isinstance(grad(c, x), Variable)
    gl = grad(c, [x, z])
    assert isinstance(gl, list) and len(gl) == 2
    gt = grad(c, (x, z))
    assert isinstance(gt, tuple)
    vals = ev(list(gl), [x], 0.5)
    assert vals[0] == pytest.approx(2 * math.sin(0.5) * math.cos(0.5))
    assert vals[1] == pytest.approx(2 * math.sin(0.5))
    assert ev(grad(c, c), [x], 0.5) == 1.0
    with pytest.raises(TypeError, match="element 1"):
        grad(c, [x, 3.0])


@pytest.mark.parametrize("wrt", [1.0, None, "x", 3])
def test_a_wrt_that_is_not_a_variable_or_a_list_is_named(wrt):
    """Issue 29 item 13: ``grad(cost, 1.0)`` names the argument and what it got, not
    "'float' object is not iterable"."""
    x = real("x")
    with pytest.raises(TypeError) as err:
        grad(sin(x), wrt)
    assert str(err.value) == (
        "theon.grad: wrt must be a Variable or a list or tuple of Variables, got "
        f"{type(wrt).__name__} {wrt!r}"
    )


def test_deep_chain_is_iterative():
    x = real("x")
    y = x
    n = max(3 * sys.getrecursionlimit(), 3000)
    for _ in range(n):
        y = add(y, x)
    g = grad(y, x)
    assert ev(g, [x], 1.0) == pytest.approx(n + 1)


def test_lop_and_rop_on_scalars():
    x, u = real("x"), real("u")
    y = exp(sin(x))
    d = math.cos(0.3) * math.exp(math.sin(0.3))
    assert ev(Lop(y, x, u), [x, u], 0.3, 2.0) == pytest.approx(2 * d)
    assert ev(Rop(y, x, u), [x, u], 0.3, 2.0) == pytest.approx(2 * d)
    # SinCos has no R_op: the transpose trick takes over
    s, c = sincos(x)
    f = mul(s, c)
    r = Rop(f, x, u)
    assert ev(r, [x, u], 0.3, 2.0) == pytest.approx(2 * math.cos(0.6))
    r2 = Rop([f, y], [x], [u], use_op_rop_implementation=False)
    vals = ev(r2, [x, u], 0.3, 2.0)
    assert vals == pytest.approx([2 * math.cos(0.6), 2 * d])


def test_rop_disconnected_outputs():
    x, w, u = real("x"), real("w"), real("u")
    with pytest.raises(ValueError, match="does not depend"):
        Rop(sin(w), x, u)
    r = Rop(sin(w), x, u, disconnected_outputs="ignore")
    assert ev(r, [w], 1.0) == 0.0
    assert Rop(sin(w), x, u, disconnected_outputs="ignore", return_disconnected="None") is None


def test_custom_cos_class_roundtrip():
    # the class-level helpers are usable as Ops created anew (equality by props)
    assert Cos() == cos and Sin() == sin and mul(1.0, 2.0).owner.op == mul


def test_grad_one_input_at_a_time_shares_one_walk_and_matches_the_joint_gradient():
    """PyMC differentiates a cost once per variable: the walk to every input is made
    once and kept, and each result equals the gradient taken with all inputs at once."""
    import numpy as np

    import theon
    import theon.tensor as tt
    from theon.gradient import core

    xs = [tt.dscalar(f"x{i}") for i in range(4)]
    cost = sum(tt.log1p(tt.exp(x * (i + 1))) for i, x in enumerate(xs)) + xs[0] * xs[3]
    one_by_one = [theon.grad(cost, x) for x in xs]
    assert core._entry(cost, core._WALK_KEY)[1] is not None
    joint = theon.grad(cost, xs)
    f = theon.function(xs, [*one_by_one, *joint])
    vals = [0.5, -1.0, 2.0, 800.0]
    got = f(*vals)
    for a, b in zip(got[:4], got[4:]):
        np.testing.assert_allclose(a, b, rtol=1e-15)
    want = [1 / (1 + np.exp(-v * (i + 1))) * (i + 1) for i, v in enumerate(vals)]
    want[0] += vals[3]
    want[3] += vals[0]
    np.testing.assert_allclose(got[:4], want, rtol=1e-12)


def test_a_walk_that_fails_off_the_path_of_wrt_does_not_stop_grad():
    """An Op without a gradient on another input's path: grad with respect to ``x``
    works (its own walk never meets the Op), and grad with respect to ``y`` names it."""
    import numpy as np

    import theon
    import theon.tensor as tt
    from theon.compile.ops import as_op

    @as_op(itypes=[tt.dvector], otypes=[tt.dvector])
    def double(v):
        return 2 * v

    x, y = tt.dvector("x"), tt.dvector("y")
    cost = (x ** 2).sum() + double(y).sum()
    gx = theon.grad(cost, x)
    got = gx.eval({x: np.array([1.0, 2.0]), y: np.array([3.0])})
    np.testing.assert_allclose(got, [2.0, 4.0])
    with pytest.raises(Exception, match="double|FromFunctionOp|gradient"):
        theon.grad(cost, y)


def test_the_shared_walk_does_not_keep_its_cost_alive():
    """The walk kept for a cost reads the cost: it lives with the cost (on its tag), so
    a cost nobody holds is freed with its walk (a weak-keyed table kept both forever)."""
    import gc
    import weakref

    import theon
    import theon.tensor as tt
    from theon.gradient import core

    xs = [tt.dscalar(f"x{i}") for i in range(3)]
    cost = tt.exp(xs[0] * xs[1]) + xs[2] ** 2
    grads = [theon.grad(cost, x) for x in xs]
    assert core._entry(cost, core._WALK_KEY)[1] is not None
    ref = weakref.ref(cost)
    del cost, grads
    gc.collect()
    assert ref() is None


def test_a_copy_of_a_cost_makes_its_own_walk():
    """A copied variable copies its tag: the copy must not use the original's walk."""
    import numpy as np

    import theon
    import theon.tensor as tt
    from theon.gradient import core
    from theon.graph.replace import clone_replace

    x, y = tt.dscalar("x"), tt.dscalar("y")
    cost = x * y + tt.exp(x)
    [theon.grad(cost, v) for v in (x, y)]
    a, b = tt.dscalar("a"), tt.dscalar("b")
    copy = clone_replace(cost, {x: a, y: b})
    assert core._WALK_KEY in cost.tag.__dict__
    assert core._WALK_KEY not in copy.tag.__dict__  # (and so does not keep it alive)
    assert core._WALK_KEY not in cost.clone().tag.__dict__
    g = [theon.grad(copy, v) for v in (a, b)]
    got = theon.function([a, b], g)(0.5, 2.0)
    np.testing.assert_allclose(got, [2.0 + np.exp(0.5), 0.5], rtol=1e-15)


def test_the_gradient_makes_each_node_once():
    """Equal nodes a walk makes are made once (the same formula of many terms, and a
    later walk of the same cost reuses the first walk's): no node of the gradients
    repeats another (same op, same inputs, equal constants)."""
    import numpy as np

    import theon
    import theon.tensor as tt
    from theon.graph.basic import Constant
    from theon.graph.traversal import io_toposort

    xs = [tt.dscalar(f"x{i}") for i in range(5)]
    mu = tt.dscalar("mu")
    cost = sum(-0.5 * (x - mu) ** 2 for x in xs)
    one_by_one = [theon.grad(cost, v) for v in [mu, *xs]]
    forward = set(io_toposort([], [cost]))
    seen = {}
    for node in io_toposort([], one_by_one):
        if node in forward:
            continue
        key = (node.op, *[(i.type, i.signature()) if isinstance(i, Constant) else i
                          for i in node.inputs])
        assert key not in seen, f"{node} made twice"
        seen[key] = node
    vals = [0.3, -1.0, 2.0, 0.5, 1.5, 4.0]
    got = theon.function([mu, *xs], one_by_one)(*vals)
    m, x = vals[0], np.array(vals[1:])
    np.testing.assert_allclose(got, [np.sum(x - m), *(m - x)], rtol=1e-14)


def test_nodes_are_shared_only_inside_a_walk_and_its_thread():
    """Outside ``grad`` (after it, or in another thread while a walk runs) every Op
    call makes its own node, as a user's graph needs (two equal draws stay two)."""
    import threading

    import theon
    import theon.tensor as tt
    from theon.graph.op import making_nodes_once

    x = tt.dscalar("x")
    theon.grad(tt.exp(x) + x * 2, x)
    assert (x + 1).owner is not (x + 1).owner
    seen = []
    with making_nodes_once({}):
        assert (x + 1).owner is (x + 1).owner
        t = threading.Thread(target=lambda: seen.append((x + 1).owner is (x + 1).owner))
        t.start()
        t.join()
    assert seen == [False]
    assert (x + 1).owner is not (x + 1).owner


def test_one_grad_per_input_walks_the_cost_twice_in_all(monkeypatch):
    """PyMC's gradient calls grad once per input: the first call walks to its own input,
    the second makes the walk to every input that later calls share: two walks for
    any number of inputs (one per call was quadratic in the model's size)."""
    import numpy as np

    import theon
    import theon.tensor as tt
    from theon.gradient import core

    runs = []
    real_run = core._Backprop.run

    def counting_run(self, memo=None):
        runs.append(len(self.wrt))
        return real_run(self, memo)

    monkeypatch.setattr(core._Backprop, "run", counting_run)
    xs = [tt.dscalar(f"x{i}") for i in range(8)]
    mu = tt.dscalar("mu")
    cost = sum(-0.5 * (x - mu) ** 2 for x in xs)
    grads = [theon.grad(cost, v) for v in [mu, *xs]]
    assert runs == [1, 9]
    vals = np.linspace(-1.0, 2.0, 9)
    got = theon.function([mu, *xs], grads)(*vals)
    np.testing.assert_allclose(got, [np.sum(vals[1:] - vals[0]), *(vals[0] - vals[1:])],
                               rtol=1e-14)
