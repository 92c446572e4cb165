"""The compile pipeline's cost structure: linear work, paused collector, late DestroyHandler."""

from __future__ import annotations

import gc
import sys

import numpy as np
import pytest

import theon
from theon.compile.mode import Mode
from theon.graph.basic import Constant
from theon.graph.features import Feature
from theon.graph.fg import FunctionGraph
from theon.rewriting import rewrite_db
from theon.rewriting.basic import graph_rewriter
from theon.rewriting.db import Phase, RewriteDatabase

tt = pytest.importorskip("theon.tensor")


def _logp_and_grad(nv: int):
    """A model log-density over ``nv`` scalars and its gradient (the big_graph workload)."""
    xs = [tt.dscalar(f"x{i}") for i in range(nv)]
    terms = [
        -0.5 * ((x - i * 0.01) / (1 + 0.001 * i)) ** 2
        - tt.log(1 + 0.001 * i)
        + tt.log1p(tt.exp(-tt.abs(x)))
        for i, x in enumerate(xs)
    ]
    logp = tt.add(*terms)
    return xs, [logp, *theon.grad(logp, xs)]


class _Count(Feature):
    """Counts the graph changes a compile makes."""

    def __init__(self) -> None:
        self.n = 0

    def on_import(self, fgraph, node, reason):
        self.n += 1

    def on_prune(self, fgraph, node, reason):
        self.n += 1

    def on_change_input(self, fgraph, node, i, old, new, reason):
        self.n += 1


def _work(nv: int) -> tuple[int, int, int, int]:
    """(rewrite attempts, fires, graph changes, final nodes) of compiling the workload."""
    counter = _Count()
    fast_run = rewrite_db.query("fast_run")

    def optimizer(fgraph):
        fgraph.attach_feature(counter)
        return fast_run(fgraph)

    xs, outs = _logp_and_grad(nv)
    f = theon.function(xs, outs, mode=Mode(linker="py", optimizer=optimizer))
    values = [0.1 * (k % 7) - 0.3 for k in range(nv)]
    ref = theon.function(xs, outs, mode="REFERENCE")
    np.testing.assert_allclose(f(*values), ref(*values), rtol=1e-12, atol=1e-12)
    stats = f.maker.fgraph.rewrite_stats
    return stats.attempts, stats.total_fires, counter.n, len(f.maker.fgraph.apply_nodes)


def test_compile_work_grows_linearly_with_the_graph():
    """Tripling the number of parameters triples the work (no rescans, no quadratic steps)."""
    small = _work(20)
    large = _work(60)
    for name, a, b in zip(("attempts", "fires", "changes", "nodes"), small, large):
        assert 2.7 <= b / a <= 3.3, (name, a, b)


def test_phases_attach_nothing_up_front():
    """Only the phase that needs it attaches the DestroyHandler (and its validation)."""
    x = tt.dvector("x")
    fg = FunctionGraph([x], [tt.exp(x) * 2])
    rewrite_db.query("fast_run").add_requirements(fg)
    assert getattr(fg, "destroy_handler", None) is None
    assert not hasattr(fg, "replace_all_validate")


def test_destroy_handler_arrives_with_its_phase():
    seen: dict[str, object] = {}

    @graph_rewriter
    def look(fgraph):
        """g -> g (records the attached features)"""
        seen[fgraph._rewrite_phase] = getattr(fgraph, "destroy_handler", None)

    db = RewriteDatabase([Phase("early", "sequential"),
                          Phase("late", "sequential", destroy_handler=True)])
    db.register("look", look, "everything", phase=("early", "late"))
    x = tt.dvector("x")
    fg = FunctionGraph([x], [tt.exp(x)])
    db.query("everything")(fg)
    assert seen["early"] is None and seen["late"] is fg.destroy_handler


@pytest.mark.parametrize("enabled", [True, False])
def test_compiling_holds_back_the_collector_and_restores_it(enabled):
    from theon.graph.collector import LINGER_GEN0 as _LINGER_GEN0
    from theon.graph.collector import PAUSED_GEN0 as _PAUSED_GEN0
    from theon.graph.collector import gc_resume

    def restored_at_the_next_collection() -> bool:
        lingering = gc.get_threshold() == (_LINGER_GEN0, 10, 10)
        gc.collect(0)  # (the first run after a compile: theon was at work since the last)
        gc.collect(0)
        return lingering and gc.get_threshold() == (700, 10, 10)

    seen = []

    def optimizer(fgraph):
        seen.append((gc.isenabled(), gc.get_threshold()))

    gc_resume()
    was, before = gc.isenabled(), gc.get_threshold()
    try:
        (gc.enable if enabled else gc.disable)()
        gc.set_threshold(700, 10, 10)
        x = tt.dscalar("x")
        theon.function([x], x + 1, mode=Mode(linker="py", optimizer=optimizer))
        assert seen == [(enabled, (_PAUSED_GEN0, 10, 10))]
        assert gc.isenabled() is enabled and restored_at_the_next_collection()

        def failing(fgraph):
            theon.function([x], x * 2)  # a nested compile
            assert gc.get_threshold() == (_PAUSED_GEN0, 10, 10)
            raise RuntimeError("rewrite failed")

        with pytest.raises(RuntimeError, match="rewrite failed"):
            theon.function([x], x + 1, mode=Mode(linker="py", optimizer=failing))
        assert gc.isenabled() is enabled and restored_at_the_next_collection()
        gc.set_threshold(0)  # collection turned off stays off
        seen.clear()
        theon.function([x], x + 1, mode=Mode(linker="py", optimizer=optimizer))
        assert seen[0][1][0] == 0 and gc.get_threshold()[0] == 0
    finally:
        gc_resume()
        (gc.enable if was else gc.disable)()
        gc.set_threshold(*before)


def test_equal_fused_groups_share_one_op():
    """Groups of one structure share one fused op, whatever their constants; others do not.

    Constants are operands of the fused node (not baked into its Composite), so
    ``exp(-|x|)*2`` and ``exp(-|z|)*3`` run one kernel; ``exp(-|w|)+2`` needs another.
    """
    x, y, z, w = (tt.dvector(n) for n in "xyzw")
    outs = [tt.exp(-tt.abs(x)) * 2, tt.exp(-tt.abs(y)) * 2, tt.exp(-tt.abs(z)) * 3,
            tt.exp(-tt.abs(w)) + 2]
    f = theon.function([x, y, z, w], outs)
    nodes = [o.owner for o in f.maker.fgraph.outputs]
    ops = [n.op for n in nodes]
    assert all("Composite" in str(op) for op in ops)
    assert ops[0] is ops[1] is ops[2]
    assert ops[3] != ops[0]
    consts = [[float(i.data.item()) for i in n.inputs if isinstance(i, Constant)] for n in nodes]
    assert consts == [[2.0], [2.0], [3.0], [2.0]]
    v = np.array([-1.0, 0.5, 2.0])
    got = f(v, v + 1, v - 1, v * 2)
    want = [np.exp(-np.abs(v)) * 2, np.exp(-np.abs(v + 1)) * 2, np.exp(-np.abs(v - 1)) * 3,
            np.exp(-np.abs(v * 2)) + 2]
    for g, w_ in zip(got, want):
        np.testing.assert_allclose(g, w_, rtol=1e-15)


def test_importing_tensor_fills_the_registries():
    """The first compile does not import the rewrites or the linker."""
    assert "theon.tensor.rewriting" in sys.modules
    assert "theon.link.pyfunc" in sys.modules
    assert "local_mul_canonizer" in rewrite_db
