"""Scan used PyTensor's way: ``ScanArgs`` (taking a node apart by kind of state and
building one again, as PyMC's log-probability of a scan does), ``ScanInfo``'s names,
``get_oinp_iinp_iout_oout_mappings``, the ``Scan(...)`` constructor and ``op.fgraph``,
``scan(return_updates=)`` and non-tensor states in ``outputs_info``, the initial
buffers in PyTensor's form, and the rewrite databases ``scan_eqopt1``/``scan_eqopt2``.

Values are checked against loops written in NumPy, gradients with ``verify_grad``.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.graph.basic import Variable
from theon.graph.op import HasInnerGraph
from theon.rewriting import node_rewriter
from theon.rewriting.db import rewrite_db
from theon.rewriting.optdb import rewrite_graph
from theon.scan.op import Scan
from theon.scan.rewriting import scan_eqopt1, scan_eqopt2
from theon.scan.utils import ScanArgs, ScanBuffer, initial_rows
from theon.tensor.creation import AllocEmpty
from theon.tensor.random.basic import normal
from theon.tensor.subtensor import IncSubtensor

RNG = np.random.default_rng(20260)


def scan_node(v: Variable):
    """The Scan node computing ``v`` (through the slice ``scan`` returns)."""
    for a in theon.graph.traversal.ancestors([v]):
        if a.owner is not None and isinstance(a.owner.op, Scan):
            return a.owner
    raise AssertionError(f"no Scan under {v}")


def every_kind():
    """One scan with a sequence read at two taps, a mit-sot (taps -2, -1), a sit-sot, a
    nit-sot, a non-sequence and a random generator carried from step to step."""
    x, m0, s0, a = tt.dvector("x"), tt.dvector("m0"), tt.dscalar("s0"), tt.dscalar("a")
    rng = theon.shared(np.random.default_rng(11), name="rng")

    def step(x_prev, x_now, m2, m1, s, a):
        nxt, d = normal(0.0, 1.0, rng=rng).owner.outputs
        return [m2 + m1 * a + x_now, s * a + x_prev + d, x_now * x_prev], {rng: nxt}

    (m, s, p), upd = theon.scan(
        step, sequences=[dict(input=x, taps=[-1, 0])],
        outputs_info=[dict(initial=m0, taps=[-2, -1]), s0, None], non_sequences=[a])
    return (x, m0, s0, a), rng, (m, s, p), upd


def every_kind_numpy(x, m0, s0, a, seed=11):
    gen = np.random.default_rng(seed)
    m, s, p = list(m0), [s0], []
    for t in range(1, len(x)):
        m.append(m[-2] + m[-1] * a + x[t])
        s.append(s[-1] * a + x[t - 1] + gen.normal())
        p.append(x[t] * x[t - 1])
    return np.array(m), np.array(s), np.array(p)


def test_scaninfo_and_mappings_pytensor_names():
    _, _, (m, s, p), _ = every_kind()
    node = scan_node(m)
    info = node.op.info
    # the node's own layout: the second nit-sot is the stack of draws theon keeps for the
    # gradient (theon.scan.draws), which ScanArgs leaves out
    assert (info.n_seqs, info.n_mit_mot, info.n_mit_sot, info.n_sit_sot, info.n_nit_sot,
            info.n_untraced_sit_sot, info.n_shared_outs) == (2, 0, 1, 1, 2, 1, 1)
    assert ScanArgs.from_node(node).n_nit_sot == 1
    assert info.mit_sot_in_slices == ((-2, -1),) and info.sit_sot_in_slices == ((-1,),)
    assert info.n_non_seqs == 1 and not info.as_while
    # theon's layout: n_steps, 2 sequences, the two states, the non-sequence, the generator;
    # outputs: the two states, the nit-sot, the kept draws, the generator
    maps = node.op.get_oinp_iinp_iout_oout_mappings()
    assert maps["outer_out_from_outer_inp"] == {0: -1, 1: -1, 2: -1, 3: 0, 4: 1, 5: -1, 6: 4}
    assert maps["inner_inp_from_outer_inp"] == {0: [], 1: [0], 2: [1], 3: [2, 3], 4: [4],
                                                5: [5], 6: [6]}
    assert maps["inner_out_from_outer_out"] == {0: [0], 1: [1], 2: [2], 3: [3], 4: [4]}
    assert maps["outer_inp_from_outer_out"] == {0: 3, 1: 4, 2: -1, 3: -1, 4: 6}
    assert maps["outer_out_from_inner_inp"][3] == 0 and maps["outer_inp_from_inner_out"][1] == 4
    # a generator's next state is found from the node, as PyMC finds it
    rng_pos = node.inputs.index(scan_node(m).inputs[6])
    assert node.outputs[maps["outer_out_from_outer_inp"][rng_pos]].type == node.inputs[6].type


def test_scanargs_groups_and_round_trip_against_numpy():
    (x, m0, s0, a), rng, (m, s, p), upd = every_kind()
    node = scan_node(m)
    args = ScanArgs.from_node(node)
    assert len(args.outer_in_seqs) == 2 and len(args.inner_in_seqs) == 2
    assert args.mit_sot_in_slices == [(-2, -1)] and len(args.inner_in_mit_sot[0]) == 2
    assert len(args.outer_in_sit_sot) == 1 and len(args.inner_out_nit_sot) == 1
    assert len(args.outer_in_shared) == 1 and args.outer_in_shared[0] is rng
    assert args.outer_in_nit_sot == [node.inputs[0]] and args.n_steps is node.inputs[0]
    assert args.cond == [] and args.info.n_sit_sot == 1
    assert set(args.outer_outputs) == set(node.outputs) - {node.outputs[3]}  # (kept draws)
    # the groups rebuild a node computing the same values
    new = Scan(args.inner_inputs, args.inner_outputs, args.info)(*args.outer_inputs,
                                                                 return_list=True)
    by_old = dict(zip(args.outer_outputs, new))
    m_new, s_new = by_old[node.outputs[0]][2:], by_old[node.outputs[1]][1:]
    p_new = by_old[node.outputs[2]]
    assert args.outer_out_shared == [node.outputs[4]]
    f = theon.function([x, m0, s0, a], [m_new, s_new, p_new],
                       updates={rng: by_old[args.outer_out_shared[0]]})
    xv, m0v, s0v, av = RNG.normal(size=6), RNG.normal(size=2), 0.3, 0.7
    rm, rs, rp = every_kind_numpy(xv, m0v, s0v, av)
    gm, gs, gp = f(xv, m0v, s0v, av)
    np.testing.assert_allclose(gm, rm[2:])
    np.testing.assert_allclose(gs, rs[1:])
    np.testing.assert_allclose(gp, rp)


def test_scanargs_find_alt_remove_copy():
    _, _, (m, s, p), _ = every_kind()
    node = scan_node(m)
    args = ScanArgs.from_node(node, clone=True)
    assert args.inner_inputs[0] is not node.op.inner_inputs[0]  # a copy of the body
    oo = args.outer_out_sit_sot[0]
    fi = args.find_among_fields(oo)
    assert (fi.name, fi.index, fi.agg_name) == ("outer_out_sit_sot", 0, "outer_outputs")
    assert args.get_alt_field(fi, "inner_out") is args.inner_out_sit_sot[0]
    assert args.get_alt_field(oo, "outer_in") is args.outer_in_sit_sot[0]
    tap = args.inner_in_mit_sot[0][1]
    assert args.find_among_fields(tap).inner_index == 1
    assert args.find_among_fields(
        oo, field_filter=lambda name: name.startswith("inner")) is None
    # removing from a copy leaves the original alone
    c = copy.copy(args)
    c.remove_from_fields(c.outer_out_nit_sot[0], rm_dependents=False)
    assert len(c.outer_out_nit_sot) == 0 and len(args.outer_out_nit_sot) == 1
    # with its dependents: the whole sit-sot (its input, body input and output) goes
    d = copy.copy(args)
    gone = d.remove_from_fields(d.outer_in_sit_sot[0])
    assert {g.name for g in gone} == {"outer_in_sit_sot", "inner_in_sit_sot",
                                      "inner_out_sit_sot", "outer_out_sit_sot"}
    assert d.info.n_sit_sot == 0 and args.info.n_sit_sot == 1
    assert "outer_in_seqs" in args.field_names and "ScanArgs(" in str(args)


def test_sit_sot_turned_into_a_sequence_like_pymc_logprob():
    """Replace a recurrent output by given values (read as two sequences, taps -1 and 0)
    and compute each step's residual as a new nit-sot: what PyMC's logprob of a scan
    builds with ``ScanArgs``."""
    a, x0 = tt.dscalar("a"), tt.dscalar("x0")
    xs, _ = theon.scan(lambda x, a: a * x + 1.0, outputs_info=x0, non_sequences=a, n_steps=5)
    node = scan_node(xs)
    args = copy.copy(ScanArgs.from_node(node))
    # the initial value, read back from the buffer in PyTensor's form
    buf = args.outer_in_sit_sot[0]
    assert isinstance(buf.owner.op, IncSubtensor) and buf.owner.op.set_instead_of_inc
    assert isinstance(buf.owner.inputs[0].owner.op, AllocEmpty)
    init = buf.owner.inputs[1]
    vals = tt.dvector("vals")
    full = tt.join(0, init, vals)
    prev_in, out_in = args.inner_in_sit_sot[0], args.inner_out_sit_sot[0]
    now_in = out_in.clone()
    args.remove_from_fields(out_in, rm_dependents=False)
    args.remove_from_fields(args.outer_out_sit_sot[0], rm_dependents=False)
    args.inner_in_sit_sot, args.outer_in_sit_sot = [], []
    n = full.shape[0] - 1
    args.n_steps = n
    args.inner_in_seqs = [*args.inner_in_seqs, now_in, prev_in]
    args.outer_in_seqs = [*args.outer_in_seqs, full[1:], full[:-1]]
    args.inner_out_nit_sot = [*args.inner_out_nit_sot,
                              now_in - theon.clone_replace(out_in, {})]
    new = Scan(args.inner_inputs, args.inner_outputs, args.info)(*args.outer_inputs,
                                                                 return_list=True)
    f = theon.function([vals, x0, a], new[-1])
    v = RNG.normal(size=5)
    prev = np.concatenate([[0.5], v[:-1]])
    np.testing.assert_allclose(f(v, 0.5, 0.8), v - (0.8 * prev + 1.0))


def test_scanargs_while_loop_round_trip():
    x0 = tt.dscalar("x0")
    out, _ = theon.scan(lambda p: (2 * p, theon.scan.until(2 * p > 50)), outputs_info=x0,
                        n_steps=20)
    args = ScanArgs.from_node(scan_node(out))
    assert len(args.cond) == 1 and args.info.as_while
    new = Scan(args.inner_inputs, args.inner_outputs, args.info)(*args.outer_inputs)
    np.testing.assert_allclose(theon.function([x0], new[1:])(1.0), [2, 4, 8, 16, 32, 64])


def test_rebuilt_scan_gradient_and_jax():
    x, w = tt.dvector("x"), tt.dscalar("w")
    hs, _ = theon.scan(lambda xt, h, w: tt.tanh(w * h + xt), sequences=x,
                       outputs_info=tt.constant(0.1), non_sequences=w)
    args = ScanArgs.from_node(scan_node(hs))
    new = Scan(args.inner_inputs, args.inner_outputs, args.info)(*args.outer_inputs)

    def rebuilt(xv, wv):
        return theon.graph_replace(new[1:].sum(), {x: xv, w: wv})

    xv = RNG.normal(size=4)
    theon.verify_grad(rebuilt, [xv, np.array(0.6)], rng=np.random.default_rng(2))
    pytest.importorskip("jax")
    h = [0.1]
    for v in xv:
        h.append(np.tanh(0.6 * h[-1] + v))
    f = theon.function([x, w], new[1:], mode="JAX")
    np.testing.assert_allclose(f(xv, 0.6), h[1:], rtol=1e-6)


def test_scan_constructor_keywords_fgraph_and_subclass():
    """PyTensor's ``Scan(inputs, outputs, info, mode=..., truncate_gradient=..., ...)``, a
    subclass (PyMC's MeasurableScan) built from ``op.fgraph.clone()``."""

    class TaggedScan(Scan):
        def __str__(self):
            return f"Tagged{super().__str__()}"

    a = tt.dscalar("a")
    xs, _ = theon.scan(lambda x, a: a * x, outputs_info=tt.constant(1.0), non_sequences=a,
                       n_steps=4)
    node = scan_node(xs)
    op = node.op
    assert isinstance(op, HasInnerGraph)
    fg = op.fgraph.clone()
    assert fg.inputs[0] is op.inner_inputs[0] and fg.outputs[0] is not op.inner_outputs[0]
    new_op = TaggedScan(fg.inputs, fg.outputs, op.info, mode=op.mode, profile=op.profile,
                        truncate_gradient=op.truncate_gradient, name="tagged",
                        allow_gc=op.allow_gc)
    assert new_op.name == "tagged" and str(new_op).startswith("TaggedScan")
    out = new_op(*node.inputs)[1:]
    np.testing.assert_allclose(theon.function([a], out)(2.0), [2.0, 4.0, 8.0, 16.0])
    with pytest.raises(ValueError, match="as_while"):
        Scan(fg.inputs, fg.outputs, op.info, as_while=True)


def test_return_updates_and_untraced_states():
    rng = theon.shared(np.random.default_rng(5), name="rng")

    def step(p, g):
        nxt, d = normal(0.0, 1.0, rng=g).owner.outputs
        return p + d, nxt

    walk, last = theon.scan(step, outputs_info=[tt.constant(0.0), rng], n_steps=6,
                            return_updates=False)
    assert last.type == rng.type
    node = scan_node(walk)
    assert node.op.info.n_untraced_sit_sot == 1
    f = theon.function([], walk, updates={rng: last})
    ref = np.random.default_rng(5)
    np.testing.assert_allclose(f(), np.cumsum(ref.normal(size=6)))
    np.testing.assert_allclose(f(), np.cumsum(ref.normal(size=6)))  # advanced
    # with updates, return_updates=False is an error; by default they come back
    s = theon.shared(0.0, name="s")
    with pytest.raises(ValueError, match="return_updates=False"):
        theon.scan(lambda: {s: s + 1.0}, n_steps=3, return_updates=False)
    _, upd = theon.scan(lambda: {s: s + 1.0}, n_steps=3)
    assert list(upd) == [s]
    with pytest.raises(ValueError, match="tap -1"):
        theon.scan(step, outputs_info=[tt.constant(0.0), dict(initial=rng, taps=[-2])],
                   n_steps=2)


def test_initial_buffers_in_pytensor_form_and_stripped_when_compiled():
    x0, m0 = tt.dvector("x0"), tt.dmatrix("m0")
    xs, _ = theon.scan(lambda p: p * 2.0, outputs_info=x0, n_steps=3)
    ms, _ = theon.scan(lambda a, b: a + b, outputs_info=dict(initial=m0, taps=[-2, -1]),
                       n_steps=3)
    for out, lag in ((xs, 1), (ms, 2)):
        buf = scan_node(out).inputs[1]
        assert isinstance(buf.owner.inputs[0].owner.op, ScanBuffer)
        # ``[:lag]``, its stop an index input (PyMC unpacks the node's three inputs)
        assert buf.owner.op.idx_list == (slice(None, "?"),) and len(buf.owner.inputs) == 3
        assert int(buf.owner.inputs[2].data) == lag
        assert initial_rows(buf, lag) is buf.owner.inputs[1]
    f = theon.function([x0, m0], [xs, ms])
    assert not any(isinstance(n.op, AllocEmpty) for n in f.maker.fgraph.apply_nodes)
    r1, r2 = f(np.array([1.0, -1.0]), np.array([[1.0], [2.0], [7.0]]))
    np.testing.assert_allclose(r1, [[2, -2], [4, -4], [8, -8]])
    np.testing.assert_allclose(r2, [[3.0], [5.0], [8.0]])
    # too few initial rows: the Scan names the state (as before the buffers)
    with pytest.raises(ValueError, match="initial value"):
        f(np.array([1.0, -1.0]), np.array([[1.0]]))


def test_initial_buffer_reads_back_as_pymc_reads_it():
    """PyMC's logprob of a scan finds a state's initial value in its buffer
    ``set_subtensor(AllocEmpty(...)[:k], x0)``: an ``IncSubtensor`` setting through one
    ``slice`` entry (no start, a stop, no step) of an ``AllocEmpty``, whose inputs are
    the buffer, ``x0`` and the stop.  Two scans built alike give equal buffer ops."""
    x0 = tt.dscalar("x0")
    a = tt.dscalar("a")
    bufs = []
    for _ in range(2):
        xs, _ = theon.scan(lambda p, a: a * p, outputs_info=x0, non_sequences=a, n_steps=4)
        bufs.append(scan_node(xs).inputs[1])
    buf = bufs[0]
    op = buf.owner.op
    assert isinstance(op, IncSubtensor) and op.set_instead_of_inc
    (e,) = op.idx_list
    assert isinstance(e, slice) and e.start is None and e.stop is not None and e.step is None
    empty, init, stop = buf.owner.inputs
    assert isinstance(empty.owner.op, AllocEmpty) and init.ndim == 1  # x0 as one row
    assert bufs[1].owner.op == op and hash(bufs[1].owner.op) == hash(op)
    # the values a logp would put after the initial value: join(x0, values)
    vals = tt.dvector("vals")
    f = theon.function([x0, vals], tt.join(0, init, vals))
    np.testing.assert_array_equal(f(0.5, np.array([1.0, 2.0])), [0.5, 1.0, 2.0])
    np.testing.assert_array_equal(theon.function([x0], buf[:1])(0.5), [0.5])
    assert int(stop.data) == 1


def test_scan_rewrite_databases():
    """A rewrite registered PyTensor's way in ``scan_eqopt2`` runs when a mode's rewrites
    run; a query of "canonicalize" alone runs no scan rewrite, and PyMC's query of its
    own tag finds nothing here."""
    calls = []

    @node_rewriter([Scan])
    def count_scans(fgraph, node):
        calls.append(node)
        return None

    scan_eqopt2.register("test_count_scans", count_scans, "fast_run", "scan")
    try:
        x0 = tt.dscalar("x0")
        xs, _ = theon.scan(lambda p: p + 1.0, outputs_info=x0, n_steps=3)
        theon.function([x0], xs)
        assert calls
        assert "test_count_scans" in scan_eqopt2 and len(scan_eqopt2.query("+basic")) == 0
        assert "scan_prune" in scan_eqopt1 and "scan_save_mem" in scan_eqopt2
        kept = rewrite_graph(xs, include=("canonicalize",))
        assert isinstance(initial_rows(scan_node(kept).inputs[1], 1), Variable)
    finally:
        rewrite_db.unregister("test_count_scans")


def test_views_map_reduce_folds_filter():
    x, y = tt.dvector("x"), tt.dvector("y")
    sq, upd = theon.scan.map(lambda a, b: a * b, [x, y])
    assert len(upd) == 0
    total = theon.scan.reduce(lambda a, acc: acc + a, x, tt.constant(0.0), return_updates=False)
    left = theon.scan.foldl(lambda a, acc: acc * 2.0 + a, x, tt.constant(0.0),
                            return_updates=False)
    right = theon.scan.foldr(lambda a, acc: acc * 2.0 + a, x, tt.constant(0.0),
                             return_updates=False)
    kept = theon.scan.filter(lambda a: a > 0.0, x)
    f = theon.function([x, y], [sq, total, left, right, kept])
    xv, yv = RNG.normal(size=5), RNG.normal(size=5)
    r_sq, r_tot, r_l, r_r, r_k = f(xv, yv)
    np.testing.assert_allclose(r_sq, xv * yv)
    np.testing.assert_allclose(r_tot, xv.sum())
    acc_l = acc_r = 0.0
    for v in xv:
        acc_l = acc_l * 2.0 + v
    for v in xv[::-1]:
        acc_r = acc_r * 2.0 + v
    np.testing.assert_allclose([r_l, r_r], [acc_l, acc_r])
    np.testing.assert_allclose(r_k, xv[xv > 0.0])


def test_taps_other_than_the_list_minus_one_read_rows():
    """As in Theano and PyTensor, ``taps=[-1]`` reads the initial value as the previous
    value, while any other spelling of the same taps (``(-1,)``, ``range(-1, 0)``) reads
    it as one past value stacked along a first dimension (PyMC's AR of order 1)."""
    x0 = tt.dvector("x0")
    as_value, _ = theon.scan(lambda p: p * 2.0, outputs_info=dict(initial=x0, taps=[-1]),
                             n_steps=2)
    as_rows, _ = theon.scan(lambda p: p * 2.0,
                            outputs_info=dict(initial=x0, taps=range(-1, 0)), n_steps=2)
    assert as_value.type.ndim == 2 and as_rows.type.ndim == 1
    f = theon.function([x0], [as_value, as_rows])
    v, r = f(np.array([1.5]))
    np.testing.assert_allclose(v, [[3.0], [6.0]])
    np.testing.assert_allclose(r, [3.0, 6.0])
