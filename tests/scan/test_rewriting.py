"""The scan rewrites: each fires, keeps values (NumPy and an unrewritten run), saves memory."""

from __future__ import annotations

import tracemalloc

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from theon.scan import Scan

PLAIN = theon.Mode(linker="vm", optimizer=None)


def scans(f):
    return [n for n in f.maker.fgraph.toposort() if isinstance(n.op, Scan)]


def body_ops(node):
    return [type(n.op).__name__ for n in node.op.fgraph.toposort()]


def recurrence(n_steps):
    a, x0 = tt.dscalar("a"), tt.dscalar("x0")
    xs, _ = theon.scan(lambda x, a: x * a + tt.sin(x), outputs_info=x0, non_sequences=a,
                       n_steps=n_steps)
    return a, x0, xs


def numpy_recurrence(a, x, n):
    out = []
    for _ in range(n):
        x = x * a + np.sin(x)
        out.append(x)
    return out


def test_save_mem_keeps_only_the_last_row():
    a, x0, xs = recurrence(50)
    f = theon.function([a, x0], xs[-1])
    (node,) = scans(f)
    assert node.op.info.store_last == (True,)
    np.testing.assert_allclose(f(0.5, 0.1), numpy_recurrence(0.5, 0.1, 50)[-1])
    g = theon.function([a, x0], [xs[-1], xs])  # the whole output is read: no saving
    (node,) = scans(g)
    assert node.op.info.store_last == (False,)


def test_save_mem_memory_does_not_grow_with_n_steps():
    n = tracemalloc_steps = 100_000
    a, x0, xs = recurrence(n)
    f = theon.function([a, x0], xs[-1])
    full = theon.function([a, x0], xs.sum())
    f(0.5, 0.1)
    full(0.5, 0.1)
    # (tier-1 loops compile in a background thread: let it finish, as its allocations
    # would count in the peak)
    from theon.link import tier1

    tier1.wait(120)

    def peak(fn):
        tracemalloc.start()
        fn(0.5, 0.1)
        p = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        return p

    assert peak(full) > 8 * tracemalloc_steps  # the full buffer: n float64 rows
    assert peak(f) < 64_000


def test_save_mem_multi_tap_state():
    x0 = tt.dvector("x0")
    fib, _ = theon.scan(lambda a, b: a + b, outputs_info=dict(initial=x0, taps=[-2, -1]),
                        n_steps=7)
    f = theon.function([x0], fib[-1])
    (node,) = scans(f)
    assert node.op.info.store_last == (True,)
    ref = [0.0, 1.0]
    for _ in range(7):
        ref.append(ref[-1] + ref[-2])
    assert f(np.array([0.0, 1.0])) == ref[-1]


def test_prune_drops_unread_outputs_and_inputs():
    x, y = tt.dvector("x"), tt.dvector("y")
    (s1, s2, n1), _ = theon.scan(
        lambda u, v, h1, h2: [h1 + u, h2 * v, u * 3], sequences=[x, y],
        outputs_info=[tt.constant(0.0), tt.constant(1.0), None])
    f = theon.function([x, y], s1, on_unused_input="ignore")
    (node,) = scans(f)
    assert node.op.info.n_states == 1 and node.op.info.n_nit == 0
    assert node.op.info.n_seqs == 1
    np.testing.assert_allclose(f(np.array([1.0, 2.0]), np.array([5.0, 6.0])), [1.0, 3.0])


def test_prune_keeps_states_other_outputs_read():
    x = tt.dvector("x")
    (h, acc), _ = theon.scan(lambda u, h, acc: [h + u, acc + h], sequences=x,
                             outputs_info=[tt.constant(0.0), tt.constant(0.0)])
    f = theon.function([x], acc)
    (node,) = scans(f)
    assert node.op.info.n_states == 2
    xv = np.array([1.0, 2.0, 3.0])
    hs = np.cumsum(xv)
    np.testing.assert_allclose(f(xv), np.cumsum(np.r_[0.0, hs[:-1]]))  # reads the old h


def test_hoist_moves_invariant_computation_out():
    x0, W = tt.dvector("x0"), tt.dmatrix("W")
    hs, _ = theon.scan(lambda h, W: tt.dot(tt.exp(W) * 2, h), outputs_info=x0,
                       non_sequences=W, n_steps=3)
    f = theon.function([x0, W], hs)
    (node,) = scans(f)
    ops = body_ops(node)
    assert "Elemwise" not in " ".join(ops) or all("exp" not in str(n.op) for n in
                                                  node.op.fgraph.toposort())
    outer = [str(n.op) for n in f.maker.fgraph.toposort()]
    assert any("exp" in o.lower() for o in outer)
    Wv, h = np.array([[0.1, -0.2], [0.3, 0.0]]), np.array([1.0, 2.0])
    ref = []
    for _ in range(3):
        h = (np.exp(Wv) * 2) @ h
        ref.append(h)
    np.testing.assert_allclose(f(np.array([1.0, 2.0]), Wv), ref)


def test_merge_two_scans_over_the_same_sequence():
    x = tt.dvector("x")
    s1, _ = theon.scan(lambda u, h: h + u, sequences=x, outputs_info=tt.constant(0.0))
    s2, _ = theon.scan(lambda u: u * u, sequences=x)
    f = theon.function([x], [s1, s2])
    assert len(scans(f)) == 1
    xv = np.array([1.0, -2.0, 3.0])
    a, b = f(xv)
    np.testing.assert_allclose(a, np.cumsum(xv))
    np.testing.assert_allclose(b, xv**2)


def test_no_merge_when_one_reads_the_other():
    x = tt.dvector("x")
    s1, _ = theon.scan(lambda u: u + 1, sequences=x)
    s2, _ = theon.scan(lambda u: u * 2, sequences=s1)
    f = theon.function([x], s2)
    np.testing.assert_allclose(f(np.array([1.0, 2.0])), [4.0, 6.0])


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.floats(-2, 2), min_size=1, max_size=6),
    st.floats(-1.5, 1.5),
    st.integers(0, 5),
)
def test_differential_rewritten_vs_plain(xs, a, k):
    """Every scan rewrite at once (FAST_RUN) against the unrewritten reference VM."""
    x, av, W = tt.dvector("x"), tt.dscalar("a"), tt.dmatrix("W")
    (h, unused, y), _ = theon.scan(
        lambda u, h, g, a, W: [tt.tanh(h * tt.exp(a) + u), g * 2, u * W.sum()],
        sequences=x, outputs_info=[tt.constant(0.1), tt.constant(1.0), None],
        non_sequences=[av, W])
    z, _ = theon.scan(lambda u: u * av, sequences=x)
    outs = [h[-1], y, z, h[k:].sum()]
    fast = theon.function([x, av, W], outs)
    plain = theon.function([x, av, W], outs, mode=PLAIN)
    vals = (np.array(xs), a, np.array([[0.5, -1.0]]))
    for got, ref in zip(fast(*vals), plain(*vals)):
        np.testing.assert_allclose(got, ref, rtol=1e-12)
