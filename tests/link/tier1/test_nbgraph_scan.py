"""The whole-graph numba tier on ``Scan`` (theon.backends.numba.scan): loops of each
supported kind (sequences, sit-sot and mit-sot states with taps, vector and matrix rows,
stacked outputs, ``n_steps`` alone, ``go_backwards``, only the last rows kept, a scan in
a scan's body) against NumPy loops and the reference VM, their gradients (scans too)
against the VM, calls the compiled loop refuses served by tier 0, and the scans it
declines (while loops, carried generators, truncated gradients) leaving the graph on
tier 0; and the scalar spellings ``sigmoid``, ``softplus``, ``log1mexp`` against SciPy
and NumPy."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.special as sp

import theon
import theon.tensor as tt
from tests.link.tier1.nbgraph_helpers import compiled
from theon.compile.mode import Mode
from theon.graph.fg import FunctionGraph
from theon.link import tier1
from theon.link.tier1 import nbgraph
from theon.scalar.table import OPS
from theon.scan.op import Scan
from theon.scan.utils import until
from theon.tensor.elemwise import Elemwise

numba = pytest.importorskip("numba", reason="the whole-graph tier needs numba (theon[numba])")

VM = Mode(linker="vm", optimizer=None)
RNG = np.random.default_rng(31)


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("nbgraph-scan-cache"))


def has_scan(f):
    return any(isinstance(n.op, Scan) for n in f.maker.fgraph.apply_nodes)


def check(ins, outs, args, cache, want=None, rtol=1e-12):
    """The compiled graph (a scan in it) against the VM, and against ``want`` (NumPy).
    (An argument with a dimension of length 1 is served by a function specialised for it,
    so the arguments have none.)"""
    f = compiled(ins, outs, args, cache)
    assert has_scan(f)
    ref = theon.function(ins, outs, mode=VM)
    got = f(*args)
    for g, r in zip(got, ref(*args)):
        assert np.shape(g) == np.shape(r)
        np.testing.assert_allclose(g, r, rtol=rtol, atol=1e-13)
    for g, w in zip(got, want or []):
        np.testing.assert_allclose(g, w, rtol=rtol, atol=1e-13)
    return f, ref


# ------------------------------------------------------------------------------- loops
def test_sit_sot_with_a_sequence_and_a_non_sequence(cache):
    xs, a = tt.dvector("xs"), tt.dscalar("a")
    hs, _ = theon.scan(lambda x, h, a: a * h + x, sequences=xs,
                       outputs_info=tt.constant(0.0), non_sequences=a)
    x = RNG.normal(size=7)
    want, h = [], 0.0
    for v in x:
        h = 0.7 * h + v
        want.append(h)
    f, ref = check([xs, a], [hs], [x, 0.7], cache, [np.array(want)])
    # another length, and no steps at all
    for n in (1, 0, 12):
        x = RNG.normal(size=n)
        np.testing.assert_allclose(f(x, -0.3)[0], ref(x, -0.3)[0], rtol=1e-13)
        assert f(x, -0.3)[0].shape == (n,)
    assert f._runner.slot.state == "ready"


def test_mit_sot_taps_and_a_stacked_output(cache):
    """``x_t = a x_{t-2} + b x_{t-1}`` (taps -2, -1) and ``y_t = x_{t-1} x_{t-2}`` not
    fed back, over ``n_steps`` alone."""
    x0, a, b, n = tt.dvector("x0"), tt.dscalar("a"), tt.dscalar("b"), tt.lscalar("n")
    (xs, ys), _ = theon.scan(lambda xm2, xm1, a, b: (a * xm2 + b * xm1, xm1 * xm2),
                             outputs_info=[dict(initial=x0, taps=[-2, -1]), None],
                             non_sequences=[a, b], n_steps=n)
    init = np.array([1.0, 0.5])
    buf, ys_want = list(init), []
    for _ in range(9):
        ys_want.append(buf[-1] * buf[-2])
        buf.append(0.3 * buf[-2] + 0.9 * buf[-1])
    check([x0, a, b, n], [xs, ys], [init, 0.3, 0.9, 9], cache,
          [np.array(buf[2:]), np.array(ys_want)])


def test_vector_states_matrix_sequences_and_go_backwards(cache):
    """An RNN ``h_t = tanh(W h_{t-1} + x_t)`` over a matrix read backwards, with its
    stacked ``W h_t`` rows and a 3-tap vector state."""
    X, W, h0 = tt.dmatrix("X"), tt.dmatrix("W"), tt.dvector("h0")
    Z0 = tt.dmatrix("Z0")

    def step(x, h, zm3, zm1, W):
        hn = tt.tanh(tt.dot(W, h) + x)
        return hn, zm3 - 0.5 * zm1 + x, tt.dot(W, hn)

    (hs, zs, ws), _ = theon.scan(step, sequences=X,
                                 outputs_info=[h0, dict(initial=Z0, taps=[-3, -1]), None],
                                 non_sequences=W, go_backwards=True)
    Xv, Wv = RNG.normal(size=(6, 4)), RNG.normal(size=(4, 4)) * 0.5
    hv, Zv = RNG.normal(size=4), RNG.normal(size=(3, 4))
    h, z, want_h, want_w = hv, list(Zv), [], []
    for x in Xv[::-1]:
        h = np.tanh(Wv @ h + x)
        z.append(z[-3] - 0.5 * z[-1] + x)
        want_h.append(h)
        want_w.append(Wv @ h)
    check([X, W, h0, Z0], [hs, zs, ws], [Xv, Wv, hv, Zv], cache,
          [np.array(want_h), np.array(z[3:]), np.array(want_w)])


def test_only_the_last_rows_kept(cache):
    """A state of which only the last value is read (the rewrite keeps a ring of its
    last rows), vector rows and 0-d rows, taps -2 and -1."""
    v0, x0, n = tt.dmatrix("v0"), tt.dvector("x0"), tt.lscalar("n")
    (vs, xs), _ = theon.scan(lambda vm2, vm1, xm1: (vm2 + 0.5 * vm1, xm1 * 0.9 + vm1.sum()),
                             outputs_info=[dict(initial=v0, taps=[-2, -1]), x0[0]],
                             n_steps=n)
    V0, X0 = RNG.normal(size=(2, 3)), np.array([0.25, 9.0])  # (no length 1: see check)
    rows, x = list(V0), 0.25
    for _ in range(5):
        x = x * 0.9 + rows[-1].sum()
        rows.append(rows[-2] + 0.5 * rows[-1])
    f = check([v0, x0, n], [vs[-1], xs[-1]], [V0, X0, 5], cache,
              [rows[-1], np.array(x)])[0]
    ref = theon.function([v0, x0, n], [vs[-1], xs[-1]], mode=VM)
    for steps in (4, 1, 2, 3):  # (n mod 2 both ways: the ring turned or not)
        for g, r in zip(f(V0, X0, steps), ref(V0, X0, steps)):
            np.testing.assert_allclose(g, r, rtol=1e-13)
    scans = [n.op for n in f.maker.fgraph.apply_nodes if isinstance(n.op, Scan)]
    assert any(any(op.info.store_last) for op in scans)


def test_ring_states_whose_step_values_view_other_rings(cache):
    """``b_t = a_{t-1}`` (the body returns its input, a view of a's ring) and
    ``c_t = a_{t-1}[::-1]`` (a view) beside ``a_t = 0.5 a_{t-1} + b_{t-1}``, only the
    last rows kept: the views are read before any ring changes."""
    a0, b0, c0, n = tt.dvector("a0"), tt.dvector("b0"), tt.dvector("c0"), tt.lscalar("n")
    (a_s, b_s, c_s), _ = theon.scan(
        lambda a, b, c: (0.5 * a + b, a, a[::-1] + 0 * c), outputs_info=[a0, b0, c0],
        n_steps=n)
    av, bv, cv = RNG.normal(size=3), RNG.normal(size=3), RNG.normal(size=3)
    a, b, c = av, bv, cv
    for _ in range(4):
        a, b, c = 0.5 * a + b, a, a[::-1]
    f, _ = check([a0, b0, c0, n], [a_s[-1], b_s[-1], c_s[-1]], [av, bv, cv, 4], cache,
                 [a, b, c])
    scans = [nd.op for nd in f.maker.fgraph.apply_nodes if isinstance(nd.op, Scan)]
    assert any(any(op.info.store_last) for op in scans)


def test_a_scan_in_a_scans_body(cache):
    """Each row's cumulative sum by an inner scan, summed into an outer state."""
    M = tt.dmatrix("M")

    def row(r, acc):
        cs, _ = theon.scan(lambda v, c: c + v, sequences=r, outputs_info=tt.constant(0.0))
        return acc + cs

    accs, _ = theon.scan(row, sequences=M, outputs_info=tt.zeros((M.shape[1],)))
    Mv = RNG.normal(size=(4, 5))
    check([M], [accs], [Mv], cache, [np.cumsum(np.cumsum(Mv, axis=1), axis=0)])


def test_a_body_returning_its_inputs_and_constants(cache):
    """Step outputs that are a body input (a sequence's row, a state's tap) or a
    constant, and a body input it never reads."""
    X, h0 = tt.dmatrix("X"), tt.dvector("h0")
    (hs, ys, cs), _ = theon.scan(lambda x, u, h: (x, h, tt.constant(2.0)),
                                 sequences=[X, X[:, 0]], outputs_info=[h0, None, None])
    Xv = RNG.normal(size=(3, 2))
    check([X, h0], [hs, ys, cs], [Xv, np.ones(2)], cache,
          [Xv, np.vstack([np.ones(2), Xv[:-1]]), np.full(3, 2.0)])


def test_integer_states_and_boolean_outputs(cache):
    """An int64 counter state over an int64 sequence, a bool output per step."""
    ks, c0 = tt.lvector("ks"), tt.lscalar("c0")
    (cs, bs), _ = theon.scan(lambda k, c: (c + k * 2, tt.gt(c, 3)), sequences=ks,
                             outputs_info=[c0, None])
    kv = np.array([1, -2, 3, 4, 0, 5])
    c, want_c, want_b = 1, [], []
    for k in kv:
        want_b.append(c > 3)
        c = c + 2 * k
        want_c.append(c)
    f, _ = check([ks, c0], [cs, bs], [kv, 1], cache, [np.array(want_c), np.array(want_b)])
    assert f(kv, 1)[0].dtype == np.int64 and f(kv, 1)[1].dtype == np.bool_


# --------------------------------------------------------------------------- gradients
def test_gradients_of_scans_are_compiled_and_match_the_vm(cache):
    xs, a, h0 = tt.dvector("xs"), tt.dscalar("a"), tt.dscalar("h0")
    hs, _ = theon.scan(lambda x, h, a: tt.tanh(a * h + x), sequences=xs,
                       outputs_info=h0, non_sequences=a)
    cost = (hs ** 2).sum() + hs[-1]
    grads = theon.grad(cost, [xs, a, h0])
    args = [RNG.normal(size=8), 0.8, 0.1]
    check([xs, a, h0], [cost, *grads], args, cache)
    # against central differences of the cost
    fc = theon.function([xs, a, h0], cost, mode=VM)
    f = compiled([xs, a, h0], grads, args, cache)
    eps = 1e-6
    ga = (fc(args[0], 0.8 + eps, 0.1) - fc(args[0], 0.8 - eps, 0.1)) / (2 * eps)
    np.testing.assert_allclose(f(*args)[1], ga, rtol=1e-6)


def test_gradient_of_an_rnn_with_taps(cache):
    X, W, Z0 = tt.dmatrix("X"), tt.dmatrix("W"), tt.dmatrix("Z0")

    def step(x, zm2, zm1, W):
        return tt.tanh(tt.dot(W, zm1) + 0.5 * zm2 + x)

    zs, _ = theon.scan(step, sequences=X, outputs_info=dict(initial=Z0, taps=[-2, -1]),
                       non_sequences=W)
    cost = (zs ** 2).sum()
    grads = theon.grad(cost, [X, W])  # (Z0's has nodes without a spelling yet)
    args = [RNG.normal(size=(5, 3)), RNG.normal(size=(3, 3)) * 0.4, RNG.normal(size=(2, 3))]
    check([X, W, Z0], [cost, *grads], args, cache, rtol=1e-11)
    theon.verify_grad(lambda X, W, Z0: (theon.scan(
        step, sequences=X, outputs_info=dict(initial=Z0, taps=[-2, -1]),
        non_sequences=W)[0] ** 2).sum(), args, rng=np.random.default_rng(0))


# --------------------------------------------------------------------- refused, declined
def test_calls_the_compiled_loop_refuses_are_served_by_tier_0(cache):
    xs, h0, n = tt.dvector("xs"), tt.dvector("h0"), tt.lscalar("n")
    hs, _ = theon.scan(lambda x, h: h * x, sequences=xs, outputs_info=h0, n_steps=n)
    f = compiled([xs, h0, n], hs, [np.ones(4), np.ones(2), 3], cache)
    ref = theon.function([xs, h0, n], hs, mode=VM)
    with pytest.raises(ValueError, match="entries but the loop"):
        f(np.ones(4), np.ones(2), 5)  # a sequence shorter than n_steps
    with pytest.raises(ValueError, match="n_steps must be >= 0"):
        f(np.ones(4), np.ones(2), -1)
    assert f._runner.slot.state == "ready"
    args = [np.arange(1.0, 5.0), np.array([1.0, -2.0]), 4]
    np.testing.assert_allclose(f(*args), ref(*args), rtol=1e-15)


def test_a_step_state_of_another_shape_is_refused(cache):
    """``h_t = h_{t-1} * x_t`` where ``x_t`` broadcasts ``h`` to another length at run
    time: tier 0's error (the compiled loop refuses it too)."""
    X, h0 = tt.dmatrix("X"), tt.dvector("h0")
    hs, _ = theon.scan(lambda x, h: h * x, sequences=X, outputs_info=h0)
    f = compiled([X, h0], hs, [np.ones((3, 2)), np.ones(2)], cache)
    with pytest.raises(ValueError):
        f(np.ones((3, 2)), np.ones(1))
    assert f._runner.slot.state == "ready"


def _declined(outs, ins):
    with pytest.raises(nbgraph.Unsupported, match="Scan.*no numba spelling"):
        nbgraph.generate(FunctionGraph(ins, outs))


def test_scans_the_spelling_declines_leave_the_graph_on_tier_0(cache):
    x = tt.dscalar("x")
    # a while loop
    ys, _ = theon.scan(lambda v: (v * 2.0, until(v > 100.0)), outputs_info=x, n_steps=20)
    _declined([ys], [x])
    with theon.config.change_flags(tier1_graph_calls=1, tier1_autotune=False,
                                   cache_dir=cache, tier=1):
        f = theon.function([x], ys)
        np.testing.assert_array_equal(f(1.0), theon.function([x], ys, mode=VM)(1.0))
        assert tier1.wait(300)
        slot = f._runner.slot
        assert slot.state == "failed" and "no numba spelling" in slot.error
        np.testing.assert_array_equal(f(3.0), theon.function([x], ys, mode=VM)(3.0))
    # a body node without a spelling (a sort): the error names it
    X, h0 = tt.dmatrix("X"), tt.dvector("h0")
    ss, _ = theon.scan(lambda r, h: tt.sort(h * r), sequences=X, outputs_info=h0)
    with pytest.raises(nbgraph.Unsupported, match="inner .*no numba spelling"):
        nbgraph.generate(FunctionGraph([X, h0], [ss]))
    with theon.config.change_flags(tier1_graph_calls=1, tier1_autotune=False,
                                   cache_dir=cache, tier=1):
        f = theon.function([X, h0], ss)
        Xv, hv = RNG.normal(size=(3, 4)), RNG.normal(size=4)
        f(Xv, hv)
        assert tier1.wait(300)
        assert f._runner.slot.state == "failed" and "Sort" in f._runner.slot.error
        np.testing.assert_array_equal(f(Xv, hv), theon.function([X, h0], ss, mode=VM)(Xv, hv))
    # a truncated gradient's loop
    xs = tt.dvector("xs")
    hs, _ = theon.scan(lambda v, h: h * v, sequences=xs, outputs_info=x, truncate_gradient=2)
    _declined([hs], [xs, x])


def test_a_scan_carrying_a_generator_is_declined():
    import theon.tensor.random as tr
    from theon.link.tier1.nbgraph import NbContext, _Gen

    rng = theon.shared(np.random.default_rng(3), name="rng")

    def step(acc):
        nxt, x = tr.normal(0.0, 1.0, size=(2,), rng=rng, return_next_rng=True)
        return acc + x, {rng: nxt}

    outs, _ = theon.scan(step, outputs_info=[tt.zeros((2,))], n_steps=3)
    node = outs.owner
    while not isinstance(node.op, Scan):
        node = next(v.owner for v in node.inputs if v.owner is not None)
    assert node.op.info.n_carried == 1
    assert nbgraph.nb_spell(node.op, node, NbContext(_Gen(), node)) is None


# ----------------------------------------------------------------------------- scalars
EDGE = np.concatenate([np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 30.0, -30.0, 37.0, 700.0,
                                 -700.0, -708.9, -709.0, -709.5, -710.0, -740.0, -745.0,
                                 -746.0, 710.0, 1e-300, -1e-300, -0.6931471805599453,
                                 np.nextafter(-0.6931471805599453, 0.0), np.inf, -np.inf,
                                 np.nan]), np.linspace(-40.0, 40.0, 8001)])


def _ulps(got, want, ulps, where=""):
    got, want = np.asarray(got), np.asarray(want)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    g, w = got[ok], want[ok]
    fin = np.isfinite(w)
    np.testing.assert_array_equal(g[~fin], w[~fin])
    assert np.all(np.abs(g[fin] - w[fin]) <= ulps * np.spacing(np.abs(w[fin]))), \
        (where, np.max(np.abs(g[fin] - w[fin]) / np.spacing(np.abs(w[fin]))))


def test_sigmoid_softplus_log1mexp_match_scipy_and_numpy(cache):
    x = tt.dvector("x")
    names = ["sigmoid", "softplus", "log1mexp"]
    outs = [Elemwise(OPS[n])(x) for n in names]
    # (no rewrites: they spell sigmoid by exp(-|x|), finer than SciPy below -709.78)
    f = compiled([x], outs, [EDGE], cache, mode=Mode(optimizer=None))
    ref = theon.function([x], outs, mode=VM)
    got = f(EDGE)
    with np.errstate(all="ignore"):
        # (sigmoid is SciPy's formula; the others' exp and log1p are the C library's,
        # NumPy's own are vectorised: each within an ulp, so 2 apart at most)
        for name, g, r, ulps in zip(names, got, ref(EDGE), [0, 2, 2]):
            _ulps(g, r, ulps, name)
        _ulps(got[0], sp.expit(EDGE), 0)
        _ulps(got[1], np.logaddexp(0.0, EDGE), 2)
        neg = EDGE <= 0
        want = np.where(EDGE[neg] < -np.log(2.0), np.log1p(-np.exp(EDGE[neg])),
                        np.log(-np.expm1(EDGE[neg])))
        _ulps(got[2][neg], want, 2)
    assert np.isnan(got[2][EDGE > 0]).all()
    assert (got[2][EDGE == 0.0] == -np.inf).all()
