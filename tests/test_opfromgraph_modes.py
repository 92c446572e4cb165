"""An OpFromGraph with no ``mode=`` of its own is compiled with the outer function's mode."""

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.compile.mode import Mode, get_mode
from theon.opfromgraph import OpFromGraph

RNG = np.random.default_rng(11)
AV, BV = RNG.normal(size=4), RNG.normal(size=4)


def op_and_ref(**kw):
    x, y = tt.dvector("x"), tt.dvector("y")
    op = OpFromGraph([x, y], [tt.exp(x) * y * 2.0 + 1.0], name="f", **kw)
    return op, np.exp(AV) * BV * 2.0 + 1.0


def ofg(f):
    return [(n, n.op.compiled_fn(n)) for n in f.maker.fgraph.toposort()
            if isinstance(n.op, OpFromGraph)]


def fused(fn):
    return any("Composite" in str(n.op) for n in fn.maker.fgraph.apply_nodes)


@pytest.mark.parametrize("mode", [None, "FAST_RUN", "FAST_COMPILE", Mode(linker="vm"),
                                  Mode(linker="py"), Mode(linker="vm", optimizer="fast_compile")])
def test_inner_graph_follows_outer_mode_and_agrees_with_numpy(mode):
    op, ref = op_and_ref()
    a, b = tt.dvector("a"), tt.dvector("b")
    f = theon.function([a, b], op(a, b), mode=mode)
    np.testing.assert_allclose(f(AV, BV), ref, rtol=1e-12)
    outer = get_mode(mode)
    ((_, fn),) = ofg(f)
    assert fn.maker.mode.linker.name == outer.linker.name
    assert fused(fn) == (outer.optimizer == "fast_run")


def test_explicit_op_mode_wins():
    op, ref = op_and_ref(mode="FAST_COMPILE")
    a, b = tt.dvector("a"), tt.dvector("b")
    f = theon.function([a, b], op(a, b), mode=Mode(linker="vm"))
    ((_, fn),) = ofg(f)
    assert fn is op.fn and fn.maker.mode.optimizer == "fast_compile" and not fused(fn)
    np.testing.assert_allclose(f(AV, BV), ref, rtol=1e-12)


def test_gradient_op_follows_outer_mode():
    op, _ = op_and_ref()
    a, b = tt.dvector("a"), tt.dvector("b")
    cost = op(a, b).sum()
    f = theon.function([a, b], theon.grad(cost, [a, b]), mode=Mode(linker="vm"))
    nodes = ofg(f)
    assert nodes and all(fn.maker.mode.linker.name == "vm" for _, fn in nodes)
    ga, gb = f(AV, BV)
    np.testing.assert_allclose(ga, 2.0 * np.exp(AV) * BV, rtol=1e-12)
    np.testing.assert_allclose(gb, 2.0 * np.exp(AV), rtol=1e-12)


def test_default_first_use_compile_without_prepare_node():
    op, ref = op_and_ref()
    np.testing.assert_allclose(op(tt.constant(AV), tt.constant(BV)).eval(), ref, rtol=1e-12)
    from theon.graph.fg import FunctionGraph
    from theon.link.vm import VMLinker

    a, b = tt.dvector("a"), tt.dvector("b")
    fg = FunctionGraph([a, b], [op(a, b)], clone=True)
    np.testing.assert_allclose(VMLinker().make_function(fg)(AV, BV)[0], ref, rtol=1e-12)
    fn = op._inner.compiled_default
    assert fn is not None and fn.maker.mode.optimizer == get_mode(None).optimizer
