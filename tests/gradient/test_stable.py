"""``grad`` differentiates the stabilized form of the cost (theon.gradient.stable)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sps

import theon
import theon.tensor as tt
from theon.gradient.stable import stable_seeds
from theon.graph.traversal import io_toposort

MODES = ["FAST_RUN", "FAST_COMPILE"]


def _eval(inputs, outputs, *values, mode="FAST_RUN"):
    return theon.function(inputs, outputs, mode=mode)(*values)


# ------------------------------------------------------------------ the issue's examples
@pytest.mark.parametrize("mode", MODES)
def test_log_one_minus_manual_sigmoid(mode) -> None:
    z = tt.dscalar("z")
    e = tt.log(1 - 1 / (1 + tt.exp(-z)))
    g = theon.grad(e, z)
    for zv in (40.0, 800.0):
        value, grad = _eval([z], [e, g], zv, mode="FAST_RUN")
        assert float(value) == -zv
        assert float(grad) == -1.0
        assert float(_eval([z], g, zv, mode=mode)) == -1.0


@pytest.mark.parametrize(("dtype", "gap"), [("float64", 1000.0), ("float32", 90.0),
                                            ("float32", 1000.0)])
@pytest.mark.parametrize("mode", MODES)
def test_softmax_nll_gradient(dtype, gap, mode) -> None:
    X = tt.matrix("X", dtype=dtype)
    y = tt.ivector("y")
    n = X.shape[0]
    nll = -tt.mean(tt.log(tt.special.softmax(X))[tt.arange(n), y])
    g = theon.grad(nll, X)
    xv = np.array([[gap, 0, -gap], [0.5, 0.25, 0.0]], dtype=dtype)
    yv = np.array([2, 0], dtype="int32")
    got = _eval([X, y], g, xv, yv, mode=mode)
    assert got.dtype == dtype
    # d nll / d X = (softmax(X) - onehot(y)) / n
    want = (sps.softmax(xv.astype("float64"), axis=1) - np.eye(3)[yv]) / 2
    np.testing.assert_allclose(got, want, rtol=1e-5 if dtype == "float32" else 1e-12,
                               atol=1e-7 if dtype == "float32" else 1e-15)
    if mode == "FAST_RUN":
        value = _eval([X, y], nll, xv, yv)
        want_nll = -np.mean(sps.log_softmax(xv.astype("float64"), axis=1)[[0, 1], yv])
        np.testing.assert_allclose(value, want_nll, rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("mode", MODES)
def test_softplus_and_log_one_minus_sigmoid_gradients(dtype, mode) -> None:
    x = tt.vector("x", dtype=dtype)
    g1 = theon.grad(tt.log(1 + tt.exp(x)).sum(), x)
    g2 = theon.grad(tt.log(1 - tt.sigmoid(x)).sum(), x)
    xv = np.array([1000.0, -1000.0, 0.0], dtype=dtype)
    a, b = _eval([x], [g1, g2], xv, mode=mode)
    np.testing.assert_array_equal(a, np.array([1.0, 0.0, 0.5], dtype=dtype))
    np.testing.assert_array_equal(b, np.array([-1.0, 0.0, -0.5], dtype=dtype))


def test_second_derivative_is_stable() -> None:
    x = tt.dvector("x")
    h = theon.hessian(tt.log(1 + tt.exp(x)).sum(), x)
    xv = np.array([1000.0, 0.0, -1000.0])
    np.testing.assert_allclose(_eval([x], h, xv), np.diag([0.0, 0.25, 0.0]))


# ------------------------------------------------------------------ the mechanism
def _snapshot(outputs):
    return [(n, list(n.inputs)) for n in io_toposort([], outputs)]


def test_the_users_graph_is_left_untouched() -> None:
    x = tt.dvector("x")
    cost = tt.log(1 + tt.exp(x)).sum() + tt.log(tt.special.softmax(x)).sum()
    before = _snapshot([cost])
    theon.grad(cost, x)
    after = _snapshot([cost])
    assert [n for n, _ in before] == [n for n, _ in after]
    assert all(a == b for (_, a), (_, b) in zip(before, after))


def test_nothing_to_stabilize_returns_the_seeds_themselves() -> None:
    x = tt.dvector("x")
    cost = (tt.sin(x) * x).sum()
    seeds = {cost: tt.constant(1.0)}
    assert stable_seeds(seeds, [x]) is seeds
    # and the gradient reads the user's own nodes
    g = theon.grad(cost, x)
    assert cost.owner.inputs[0].owner in io_toposort([x], [g])


def test_stabilized_seed_replaces_the_cost() -> None:
    x = tt.dvector("x")
    cost = tt.log(1 + tt.exp(x)).sum()
    one = tt.constant(1.0)
    (new,) = stable_seeds({cost: one}, [x])
    assert new is not cost
    assert "softplus" in {str(n.op.scalar_op) for n in io_toposort([x], [new])
                          if hasattr(n.op, "scalar_op")}


def test_wrt_an_intermediate_variable_is_kept() -> None:
    x = tt.dvector("x")
    s = tt.special.softmax(x)
    cost = tt.log(s).sum()
    # s is cut: the gradient is d/ds sum(log s) = 1/s, not a log_softmax gradient
    g = theon.grad(cost, s)
    xv = np.array([0.0, 1.0, 2.0])
    np.testing.assert_allclose(_eval([x], g, xv), 1 / sps.softmax(xv))
    # the same cost differentiated with respect to x is stable
    gx = theon.grad(cost, x)
    np.testing.assert_allclose(_eval([x], gx, np.array([1000.0, 0.0, -1000.0])),
                               [-2.0, 1.0, 1.0])


def test_consider_constant_blocks_the_stabilized_path() -> None:
    x = tt.dscalar("x")
    c = tt.sigmoid(x)
    cost = tt.log(1 + tt.exp(x)) * c
    g = theon.grad(cost, x, consider_constant=[c])
    # only the softplus factor is differentiated: sigmoid(x) * c
    assert float(_eval([x], g, 0.0)) == 0.25
    assert float(_eval([x], g, 1000.0)) == 1.0
    full = theon.grad(cost, x)
    assert float(_eval([x], full, 0.0)) == pytest.approx(0.25 + np.log(2) * 0.25)


def test_known_grads_seeds_are_stabilized() -> None:
    x = tt.dvector("x")
    sp = tt.log(1 + tt.exp(x))
    g = theon.grad(None, x, known_grads={sp: tt.ones_like(x)})
    np.testing.assert_array_equal(_eval([x], g, np.array([1000.0, -1000.0])), [1.0, 0.0])


def test_known_grads_and_cost_on_the_same_stabilized_variable() -> None:
    x = tt.dvector("x")
    sp = tt.log(1 + tt.exp(x))
    g = theon.grad(sp.sum(), x, known_grads={sp: 2 * tt.ones_like(x)})
    np.testing.assert_array_equal(_eval([x], g, np.array([1000.0, 0.0])), [3.0, 1.5])


def test_issue29_item4_known_grads_seed_on_an_input_next_to_a_stabilized_seed() -> None:
    """A ``known_grads`` seed on a graph input (what a scan's backward step gives for a
    state the step returns unchanged) beside one on a stabilized expression: the
    input's gradient is its seed, the other is stable (it raised MissingInputError)."""
    x, y = tt.dvector("x"), tt.dvector("y")
    sp = tt.log(1 + tt.exp(x))
    gx, gy = theon.grad(None, [x, y], known_grads={sp: tt.ones_like(x), y: 2 * tt.ones_like(y)})
    got = _eval([x, y], [gx, gy], np.array([1000.0, -1000.0]), np.array([5.0, 6.0]))
    np.testing.assert_array_equal(got[0], [1.0, 0.0])
    np.testing.assert_array_equal(got[1], [2.0, 2.0])


def test_jacobian_rows_are_stable() -> None:
    x = tt.dvector("x")
    J = theon.jacobian(tt.log(1 + tt.exp(x)), x)
    np.testing.assert_array_equal(_eval([x], J, np.array([1000.0, -1000.0])),
                                  [[1.0, 0.0], [0.0, 0.0]])


def test_rewrites_registered_after_a_first_grad_stabilize_later_costs() -> None:
    """A module imported after the first ``grad`` (here ``theon.tensor.linalg``) adds
    stabilizations that later gradients use: ``log(det(K))`` of a symmetric ``K`` with
    its Cholesky factor is differentiated through the factor, not through ``inv(K)``.
    A fresh interpreter, so that no earlier test imported linalg first."""
    import subprocess
    import sys
    import textwrap

    code = textwrap.dedent("""
        import sys
        import theon, theon.tensor as T
        x = T.dvector("x")
        theon.grad(T.tanh(x).sum(), x)          # the first grad, before linalg exists
        assert "theon.tensor.linalg" not in sys.modules
        from theon.tensor import linalg as la
        X = T.dmatrix("X")
        K = T.dot(X, X.T) + T.eye(X.shape[0])
        cost = T.log(la.det(K)) + la.cholesky(K).sum()
        f = theon.function([X], theon.grad(cost, X))
        print(sorted({type(n.op).__name__ for n in f.maker.fgraph.apply_nodes}))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert "Cholesky" in out and "MatrixInverse" not in out, out
