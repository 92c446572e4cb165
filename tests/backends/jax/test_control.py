"""``mode="JAX"`` on the Ops with inner graphs: ``Scan`` (``lax.scan`` and
``lax.while_loop``), ``IfElse`` (``lax.cond``) and ``OpFromGraph`` (inlined), against
the reference VM and NumPy loops; gradients (backpropagation through time is a
backward ``Scan``); the Theano tutorials that loop."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")

import theon  # noqa: E402
import theon.tensor as tt  # noqa: E402
from theon.compile.mode import Mode  # noqa: E402
from theon.ifelse import ifelse  # noqa: E402
from theon.opfromgraph import OpFromGraph  # noqa: E402
from theon.scan.op import Scan  # noqa: E402

VM = Mode(linker="vm")


def both(ins, outs, *args, **kw):
    """The outputs of the function compiled with mode="JAX" and with the VM."""
    fj = theon.function(ins, outs, mode="JAX", **kw)
    fv = theon.function(ins, outs, mode=VM, **kw)
    return fj(*args), fv(*args)


def assert_same(got, want, rtol=1e-10):
    if not isinstance(want, list | tuple):
        got, want = [got], [want]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-12)


def scan_nodes(f):
    return [n for n in f.maker.fgraph.toposort() if isinstance(n.op, Scan)]


# -- scan -----------------------------------------------------------------------------------
def test_running_sum_and_its_gradient_through_time():
    x, a = tt.dvector("x"), tt.dscalar("a")
    hs, _ = theon.scan(lambda x, h, a: a * h + x, sequences=x, outputs_info=tt.constant(0.0),
                       non_sequences=a)
    xv, av = np.array([1.0, -2.0, 3.0, 0.5, 4.0]), 0.7
    want = []
    h = 0.0
    for v in xv:  # NumPy loop
        h = av * h + v
        want.append(h)
    got, ref = both([x, a], hs, xv, av)
    np.testing.assert_allclose(got, want, rtol=1e-13)
    assert_same(got, ref)
    gx, ga = theon.grad(hs.sum(), [x, a])
    got, ref = both([x, a], [gx, ga], xv, av)
    assert_same(got, ref)
    # d/dx_k sum_t h_t = sum_{t>=k} a^(t-k)
    n = len(xv)
    np.testing.assert_allclose(got[0], [sum(av ** (t - k) for t in range(k, n))
                                        for k in range(n)], rtol=1e-12)
    f = theon.function([x, a], hs, mode="JAX")
    assert f.maker.fgraph.toposort(), "compiled"


def test_rnn_with_matrices_several_outputs_and_bptt():
    rng = np.random.default_rng(0)
    X = tt.dmatrix("X")
    W, U = tt.dmatrix("W"), tt.dmatrix("U")
    h0 = tt.dvector("h0")

    def step(x, h, W, U):
        hn = tt.tanh(tt.dot(W, h) + tt.dot(U, x))
        return hn, (hn ** 2).sum()

    (hs, es), _ = theon.scan(step, sequences=X, outputs_info=[h0, None], non_sequences=[W, U])
    cost = es.sum() + hs[-1].sum()
    grads = theon.grad(cost, [X, W, U, h0])
    args = (rng.normal(size=(6, 3)), rng.normal(size=(4, 4)) * 0.5, rng.normal(size=(4, 3)),
            rng.normal(size=4))
    got, ref = both([X, W, U, h0], [hs, es, cost, *grads], *args)
    assert_same(got, ref)
    h = args[3]
    for t in range(6):  # NumPy loop
        h = np.tanh(args[1] @ h + args[2] @ args[0][t])
        np.testing.assert_allclose(got[0][t], h, rtol=1e-12)


def test_taps_fibonacci_with_constant_steps_and_the_last_value_only():
    init = tt.dvector("init")
    fib, _ = theon.scan(lambda a, b: a + b, outputs_info=dict(initial=init, taps=[-2, -1]),
                        n_steps=10)
    got, ref = both([init], [fib, fib[-1]], np.array([0.0, 1.0]))
    assert_same(got, ref)
    seq = [0.0, 1.0]
    for _ in range(10):
        seq.append(seq[-1] + seq[-2])
    np.testing.assert_array_equal(got[0], seq[2:])
    # only the last value read: the loop keeps its last rows (store_last)
    f = theon.function([init], fib[-1], mode="JAX")
    (node,) = scan_nodes(f)
    assert any(node.op.info.store_last)
    assert f(np.array([0.0, 1.0])) == seq[-1]


def test_sequence_taps_and_go_backwards():
    x = tt.dvector("x")
    ys, _ = theon.scan(lambda xm1, x1: xm1 * x1, sequences=dict(input=x, taps=[-1, 1]))
    rs, _ = theon.scan(lambda v, acc: acc + v, sequences=x, outputs_info=tt.constant(0.0),
                       go_backwards=True)
    xv = np.arange(1.0, 7.0)
    got, ref = both([x], [ys, rs], xv)
    assert_same(got, ref)
    np.testing.assert_array_equal(got[0], xv[:-2] * xv[2:])
    np.testing.assert_array_equal(got[1], np.cumsum(xv[::-1]))


def test_n_steps_computed_from_shapes_and_from_a_run_time_value():
    x = tt.dvector("x")
    hs, _ = theon.scan(lambda v, h: h + v, sequences=x, outputs_info=tt.constant(0.0),
                       n_steps=x.shape[0] // 2)
    got, ref = both([x], hs, np.arange(8.0))
    assert_same(got, ref)
    assert got.shape == (4,)
    # a length read from an argument's value is a shape XLA cannot know when compiling
    k = tt.lscalar("k")
    hk, _ = theon.scan(lambda v, h: h + v, sequences=x, outputs_info=tt.constant(0.0),
                       n_steps=k)
    f = theon.function([x, k], hk, mode="JAX")
    with pytest.raises(Exception, match="run-time value"):
        f(np.arange(8.0), 5)


def test_nested_scan():
    m = tt.dmatrix("m")

    def row_cumsum(row):
        cs, _ = theon.scan(lambda v, acc: acc + v, sequences=row, outputs_info=tt.constant(0.0))
        return cs

    out, _ = theon.scan(row_cumsum, sequences=m)
    mv = np.arange(12.0).reshape(3, 4)
    got, ref = both([m], [out, theon.grad((out ** 2).sum(), m)], mv)
    assert_same(got, ref)
    np.testing.assert_array_equal(got[0], np.cumsum(mv, axis=1))


def test_loop_with_until_keeping_the_last_value():
    x0 = tt.dscalar("x0")
    vals, _ = theon.scan(lambda x: (x * 2, theon.scan_module.until(x * 2 > 100)),
                         outputs_info=x0, n_steps=50)
    last = vals[-1]
    got, ref = both([x0], last, 3.0)
    assert_same(got, ref)
    assert float(got) == 192.0  # 3 * 2**6, the first value above 100
    f = theon.function([x0], last, mode="JAX")
    (node,) = scan_nodes(f)
    assert node.op.info.as_while


def test_loop_with_until_whose_length_is_read_is_refused_by_name():
    x0 = tt.dscalar("x0")
    vals, _ = theon.scan(lambda x: (x * 2, theon.scan_module.until(x * 2 > 100)),
                         outputs_info=x0, n_steps=50)
    with pytest.raises(Exception, match="until condition") as info:
        theon.function([x0], vals, mode="JAX")
    assert "Scan" in str(info.value)
    # the other linkers run it
    assert theon.function([x0], vals, mode=VM)(3.0).shape == (6,)


def test_ifelse_in_a_loop():
    x = tt.dvector("x")

    def step(v, acc):
        return ifelse(tt.gt(v, 0), acc + v, acc * 0.5)

    hs, _ = theon.scan(step, sequences=x, outputs_info=tt.constant(1.0))
    xv = np.array([1.0, -1.0, 2.0, -3.0, 0.5])
    got, ref = both([x], [hs, theon.grad(hs[-1], x)], xv)
    assert_same(got, ref)
    acc, want = 1.0, []
    for v in xv:
        acc = acc + v if v > 0 else acc * 0.5
        want.append(acc)
    np.testing.assert_allclose(got[0], want)


def test_random_draws_inside_a_loop_are_fresh_per_step_and_per_call():
    import theon.tensor.random as tr

    rng = tr.shared_rng(3)
    def step(acc, rng):
        nxt, d = tr.normal(0.0, 1.0, rng=rng, return_next_rng=True)
        return acc + d, {rng: nxt}

    out, updates = theon.scan(step, outputs_info=tt.constant(0.0), non_sequences=rng,
                              n_steps=5)
    f = theon.function([], out, updates=updates, mode="JAX")
    a, b = f(), f()
    assert a.shape == (5,) and len(set(np.diff(a).round(12))) == 4  # fresh each step
    assert not np.allclose(a, b)  # the rng was updated


# -- ifelse -----------------------------------------------------------------------------------
def test_ifelse_picks_a_branch_with_several_outputs():
    c, x, y = tt.bscalar("c"), tt.dvector("x"), tt.dvector("y")
    outs = ifelse(c, [x * 2, y.sum()], [x - 1, y.prod()])
    for cv in (0, 1):
        got, ref = both([c, x, y], outs, cv, np.array([1.0, 2.0]), np.array([3.0, 4.0]))
        assert_same(got, ref)
    g = theon.grad(ifelse(c, (x ** 2).sum(), x.sum() * 3), x)
    for cv in (0, 1):
        got, ref = both([c, x], g, cv, np.array([1.0, 2.0]))
        assert_same(got, ref)


def test_ifelse_branches_of_different_shapes_are_refused_by_name():
    c, x, y = tt.bscalar("c"), tt.dvector("x"), tt.dvector("y")
    f = theon.function([c, x, y], ifelse(c, x, y), mode="JAX")
    with pytest.raises(Exception, match="cannot depend"):
        f(1, np.ones(2), np.ones(3))
    assert theon.function([c, x, y], ifelse(c, x, y), mode=VM)(1, np.ones(2),
                                                                 np.ones(3)).shape == (2,)


def _primitive_names(jaxpr, inside_cond=False):
    """(primitive, inside a cond branch) of every equation, nested jaxprs included."""
    found = []
    for eqn in jaxpr.eqns:
        found.append((eqn.primitive.name, inside_cond))
        for sub in jax.extend.core.jaxprs_in_params(eqn.params):
            found += _primitive_names(sub, inside_cond or eqn.primitive.name == "cond")
    return found


def test_ifelse_branch_work_runs_inside_the_cond():
    """Each branch's own nodes are traced inside lax.cond (XLA runs only the branch
    taken); a value read by both branches and outside is computed once, in front."""
    import jax.extend.core

    from theon.link.jax.linker import JAXLinker

    c, x = tt.dscalar("c"), tt.dvector("x")
    shared = tt.sin(x)
    out = ifelse(c > 0, (tt.exp(x) * shared).sum(), (tt.log(x) + shared).sum())
    f = theon.function([c, x], [out, shared.sum()], mode="JAX")
    fn = JAXLinker().funcify_fgraph(f.maker.fgraph)
    with jax.enable_x64(True):
        jaxpr = jax.make_jaxpr(fn)(1.0, np.ones(3))
    prims = _primitive_names(jaxpr.jaxpr)
    assert ("exp", True) in prims and ("log", True) in prims
    assert ("exp", False) not in prims and ("log", False) not in prims
    assert ("sin", False) in prims and ("sin", True) not in prims
    xv = np.array([0.5, 1.0, 2.0])
    for cv in (1.0, -1.0):
        got, ref = both([c, x], [out, shared.sum()], cv, xv)
        assert_same(got, ref)


def test_nested_ifelse_and_gradients_through_lazy_branches():
    a, b, x = tt.dscalar("a"), tt.dscalar("b"), tt.dvector("x")
    inner = ifelse(b > 0, tt.tanh(x * 2), tt.cosh(x))
    out = ifelse(a > 0, [(inner * x).sum(), inner], [tt.exp(x).sum(), x ** 2])
    cost = out[0] + out[1].sum()
    outs = [*out, theon.grad(cost, x)]
    f = theon.function([a, b, x], outs, mode="JAX")
    from theon.link.lazy import Branch, lazy_schedule

    assert any(isinstance(s, Branch) for s in lazy_schedule(f.maker.fgraph).steps)
    xv = np.array([0.3, -0.7, 1.1])
    for av in (1.0, -1.0):
        for bv in (1.0, -1.0):
            got, ref = both([a, b, x], outs, av, bv, xv)
            assert_same(got, ref)


# -- OpFromGraph -------------------------------------------------------------------------------
def test_op_from_graph_is_inlined_with_its_gradient_and_a_shared_variable():
    a, b = tt.dmatrix("a"), tt.dvector("b")
    w = theon.shared(np.array([0.5, -1.0]), name="w")
    op = OpFromGraph([a, b], [tt.dot(a, b) * w, (a ** 2).sum()], name="affine")
    x, v = tt.dmatrix("x"), tt.dvector("v")
    y, s = op(x, v)
    cost = (y ** 2).sum() + s
    args = (np.arange(4.0).reshape(2, 2), np.array([1.0, -2.0]))
    got, ref = both([x, v], [y, s, *theon.grad(cost, [x, v])], *args)
    assert_same(got, ref)
    np.testing.assert_allclose(got[0], args[0] @ args[1] * np.array([0.5, -1.0]))


# -- the tutorials that loop -------------------------------------------------------------------
TUTORIALS = Path(__file__).resolve().parents[3] / "examples" / "tutorials"


def test_hmc_tutorial_samples_the_gaussian_in_jax_mode():
    """Leapfrog steps in ``scan``, a RandomStreams draw per move, shared updates."""
    sys.path.insert(0, str(TUTORIALS))
    import hmc

    with theon.config.change_flags(mode="JAX"):
        res = hmc.sampler_on_nd_gaussian()
    assert 0.6 < res["acceptance_rate"] < 1.0
    np.testing.assert_allclose(res["samples"].mean(axis=0), res["mu"], atol=0.3)


def test_lstm_tutorial_trains_in_jax_mode():
    """``scan`` over a masked minibatch, dropout draws, the gradient through time."""
    sys.path.insert(0, str(TUTORIALS))
    import lstm

    with theon.config.change_flags(mode="JAX"):
        res = lstm.train_lstm(optimizer=lstm.sgd, lrate=2.0, max_epochs=3, n_train=96)
    costs = res["costs"]
    assert np.all(np.isfinite(costs)) and costs[-1] < costs[0]


@pytest.mark.parametrize("persistent", [False, True], ids=["CD-2", "PCD-2"])
def test_rbm_tutorial_trains_in_jax_mode(persistent):
    """Gibbs sampling in ``scan`` with a random stream, the persistent chain and the
    pseudo-likelihood's bit index as shared updates.  (The tutorial's own loop slices
    the minibatch by an argument, a run-time length under jit: minibatches are given
    directly here.)"""
    sys.path.insert(0, str(TUTORIALS))
    import rbm
    from _data import mnist_like

    from theon.tensor.shared_randomstreams import RandomStreams

    bs, n_hidden, n_train = 20, 30, 100
    data = np.asarray(mnist_like(n_train, seed=4)[0] > 0.5, dtype=theon.config.floatX)
    x = tt.matrix("x")
    rng = np.random.RandomState(123)
    chain = None
    if persistent:
        chain = theon.shared(np.zeros((bs, n_hidden), dtype=theon.config.floatX))
    model = rbm.RBM(input=x, n_visible=28 * 28, n_hidden=n_hidden, numpy_rng=rng,
                    theano_rng=RandomStreams(rng.randint(2 ** 30)))
    cost, updates = model.get_cost_updates(lr=0.1, persistent=chain, k=2)
    f = theon.function([x], cost, updates=updates, mode="JAX")
    costs = [float(np.mean([f(data[i * bs:(i + 1) * bs]) for i in range(n_train // bs)]))
             for _ in range(3)]
    assert np.all(np.isfinite(costs)) and costs[-1] > costs[0]  # a log-likelihood proxy


def test_gradient_through_a_loop_that_draws_reads_the_same_draws():
    """The backward loop reads the forward loop's draws (stacked), never draws again:
    d/da of sum_t h_t, h_t = a h_(t-1) + e_t, is computed from the returned e_t."""
    import theon.tensor.random as tr

    a = tt.dscalar("a")
    rng = tr.shared_rng(11)

    def step(h, a, rng):
        nxt, e = tr.normal(0.0, 1.0, rng=rng, return_next_rng=True)
        return [a * h + e, e], {rng: nxt}

    (hs, es), updates = theon.scan(step, outputs_info=[tt.constant(1.0), None],
                                   non_sequences=[a, rng], n_steps=6)
    g = theon.grad(hs.sum(), a)
    f = theon.function([a], [hs, es, g], updates=updates, mode="JAX")
    av = 0.8
    h, e, gv = f(av)
    hh, dh, want = 1.0, 0.0, 0.0
    for t in range(6):  # NumPy loop on the same draws: h' = a h + e, dh' = h + a dh
        dh = hh + av * dh
        hh = av * hh + e[t]
        want += dh
        np.testing.assert_allclose(h[t], hh, rtol=1e-12)
    np.testing.assert_allclose(gv, want, rtol=1e-12)
