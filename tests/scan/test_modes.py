"""A scan body with no ``mode=`` of its own is compiled with the outer function's mode."""

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.compile.mode import Mode
from theon.graph.fg import FunctionGraph
from theon.link.vm import VMLinker
from theon.scan.op import Scan

RNG = np.random.default_rng(7)
XV, WV, H0V = RNG.normal(size=(5, 3)), RNG.normal(size=(3, 3)) * 0.5, RNG.normal(size=3)


def rnn():
    X, W, h0 = tt.dmatrix("X"), tt.dmatrix("W"), tt.dvector("h0")
    hs, _ = theon.scan(lambda x, h, W: tt.tanh(tt.dot(W, h) + x) * 2.0 + 1.0, sequences=X,
                       outputs_info=h0, non_sequences=W)
    return [X, W, h0], hs


def rnn_numpy():
    h, out = H0V, []
    for x in XV:
        h = np.tanh(WV @ h + x) * 2.0 + 1.0
        out.append(h)
    return np.array(out)


def scan_bodies(f):
    """``(node, compiled body)`` of every Scan of ``f``'s graph."""
    return [(n, n.op.compiled_body(n)) for n in f.maker.fgraph.toposort()
            if isinstance(n.op, Scan)]


def fused(c):
    return any("Composite" in str(n.op) for n in c.runner.order)


@pytest.mark.parametrize("mode", [None, "FAST_RUN", "FAST_COMPILE", Mode(linker="vm"),
                                  Mode(linker="py"), Mode(linker="vm", optimizer="fast_compile")])
def test_body_follows_outer_mode_and_agrees_with_numpy(mode):
    ins, hs = rnn()
    f = theon.function(ins, hs, mode=mode)
    np.testing.assert_allclose(f(XV, WV, H0V), rnn_numpy(), rtol=1e-12)
    outer = theon.compile.mode.get_mode(mode)
    ((_, c),) = scan_bodies(f)
    assert c.mode.linker.name == outer.linker.name
    assert (c.runner.source is None) == (outer.linker.name == "vm")
    # elemwise fusion is a fast_run rewrite: it fires in the body only under fast_run
    assert fused(c) == (outer.optimizer == "fast_run")


def test_gradient_scans_follow_outer_vm_mode():
    ins, hs = rnn()
    X, W, h0 = ins
    cost = (hs ** 2).sum()
    f = theon.function(ins, [cost, *theon.grad(cost, [W, h0])], mode=Mode(linker="vm"))
    bodies = scan_bodies(f)
    assert len(bodies) >= 2  # the forward and the backward loop
    assert all(isinstance(c.mode.linker, VMLinker) and c.runner.source is None
               for _, c in bodies)
    g = theon.function(ins, [cost, *theon.grad(cost, [W, h0])])
    for a, b in zip(f(XV, WV, H0V), g(XV, WV, H0V)):
        np.testing.assert_allclose(a, b, rtol=1e-10)
    np.testing.assert_allclose(f(XV, WV, H0V)[0], (rnn_numpy() ** 2).sum(), rtol=1e-12)


def test_explicit_scan_mode_wins():
    X, h0 = tt.dmatrix("X"), tt.dvector("h0")
    hs, _ = theon.scan(lambda x, h: tt.tanh(h + x) * 2.0 + 1.0, sequences=X, outputs_info=h0,
                       mode="FAST_COMPILE")
    f = theon.function([X, h0], hs, mode=Mode(linker="vm"))
    ((_, c),) = scan_bodies(f)
    assert c.mode.optimizer == "fast_compile" and c.mode.linker.name != "vm"
    assert not fused(c)
    h, ref = H0V, []
    for x in XV:
        h = np.tanh(h + x) * 2.0 + 1.0
        ref.append(h)
    np.testing.assert_allclose(f(XV, H0V), ref, rtol=1e-12)


def test_nested_scan_follows_outer_mode():
    """A scan inside a scan body is compiled in the outer function's mode too."""
    A, k = tt.dmatrix("A"), tt.lscalar("k")

    def outer_step(row):
        ps, _ = theon.scan(lambda p: p * row + 1.0, outputs_info=tt.ones_like(row), n_steps=k)
        return ps[-1]

    out, _ = theon.scan(outer_step, sequences=A)
    f = theon.function([A, k], out, mode=Mode(linker="vm"))
    ((_, c),) = scan_bodies(f)
    inner = [n for n in c.runner.order if isinstance(n.op, Scan)]
    assert inner and all(n.op.compiled_body(n).mode.linker.name == "vm" for n in inner)
    Av = RNG.normal(size=(4, 3))
    ref = []
    for row in Av:
        p = np.ones(3)
        for _ in range(3):
            p = p * row + 1.0
        ref.append(p)
    np.testing.assert_allclose(f(Av, 3), ref, rtol=1e-12)


def test_one_op_in_functions_of_two_modes():
    """The same Scan Op compiled into two functions keeps one body per mode."""
    ins, hs = rnn()
    f_vm = theon.function(ins, hs, mode=Mode(linker="vm"))
    f_py = theon.function(ins, hs, mode=Mode(linker="py"))
    ((_, c_vm),), ((_, c_py),) = scan_bodies(f_vm), scan_bodies(f_py)
    assert c_vm is not c_py and c_vm.runner.source is None and c_py.runner.source is not None
    np.testing.assert_allclose(f_vm(XV, WV, H0V), f_py(XV, WV, H0V), rtol=1e-12)
    f_vm2 = theon.function(ins, hs * 1.0, mode=Mode(linker="vm"))
    assert [c for _, c in scan_bodies(f_vm2)] == [c_vm]  # compiled once per mode


def test_bare_function_graph_without_prepare_node_uses_default_mode():
    ins, hs = rnn()
    fg = FunctionGraph(ins, [hs], clone=True)
    runner = VMLinker().make_function(fg)
    np.testing.assert_allclose(runner(XV, WV, H0V)[0], rnn_numpy(), rtol=1e-12)
    (node,) = [n for n in fg.apply_nodes if isinstance(n.op, Scan)]
    assert node.op.compiled_body(node) is node.op.compiled_body()
