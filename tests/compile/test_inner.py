"""theon.compile.inner: the one way Ops compile their inner graphs."""

import ast
import gc
import pathlib
import threading

import numpy as np

import theon
import theon.tensor as tt
from theon.compile.inner import InnerCompiler, link_inner_graph, rewrite_inner_graph
from theon.compile.mode import Mode, get_mode
from theon.graph.basic import Apply

ROOT = pathlib.Path(theon.__file__).parent


class Counting:
    """A build function that records the modes it compiled for."""

    def __init__(self):
        self.calls = []

    def __call__(self, mode):
        self.calls.append(mode)
        return object()


def dummy_node():
    x = tt.dscalar("x")
    return (x + 1.0).owner


def test_one_compile_per_mode_key():
    build = Counting()
    inner = InnerCompiler(build)
    a = inner.for_mode(Mode(linker="vm"))
    # an equal mode (same linker class and settings, same rewrites) reuses it
    assert inner.for_mode(Mode(linker="vm")) is a
    b = inner.for_mode(Mode(linker="vm", optimizer="fast_compile"))
    assert b is not a and len(inner) == 2 and len(build.calls) == 2


def test_prepared_node_runs_the_outer_mode_and_others_the_default():
    inner = InnerCompiler(Counting())
    node, other = dummy_node(), dummy_node()
    assert inner.compiled_default is None
    inner.prepare(node, Mode(linker="vm", optimizer=None))
    got = inner.get(node)
    assert got is inner.for_mode(Mode(linker="vm", optimizer=None))
    assert inner.compiled_default is None  # nothing asked for the default yet
    # a node never prepared (a graph linked without theon.function): config.mode
    assert inner.get(other) is inner.for_mode(get_mode(None)) is inner.compiled_default
    assert inner.get() is inner.compiled_default


def test_own_mode_wins_over_the_outer_one():
    build = Counting()
    inner = InnerCompiler(build, "FAST_COMPILE")
    node = dummy_node()
    inner.prepare(node, Mode(linker="vm"))
    assert inner.get(node) is inner.default()
    assert [m.optimizer for m in build.calls] == ["fast_compile"]


def test_prepared_choice_is_forgotten_with_the_node():
    inner = InnerCompiler(Counting())
    node = dummy_node()
    inner.prepare(node, Mode(linker="vm"))
    assert len(inner._by_node) == 1
    del node
    gc.collect()  # a node and its outputs refer to each other
    assert len(inner._by_node) == 0


def test_concurrent_first_uses_compile_once():
    started = threading.Barrier(8)
    build = Counting()
    inner = InnerCompiler(build)
    got = []

    def use():
        started.wait()
        got.append(inner.for_mode(Mode(linker="vm")))

    threads = [threading.Thread(target=use) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(build.calls) == 1 and len(got) == 8 and all(g is got[0] for g in got)


def test_linked_graph_agrees_with_numpy_and_leaves_inputs_alone():
    x, y = tt.dvector("x"), tt.dvector("y")
    out = tt.exp(x) * y + 1.0  # the inplace phase may overwrite a dead intermediate
    for mode in (Mode(linker="vm"), Mode(linker="py"), get_mode("FAST_COMPILE")):
        body = link_inner_graph([x, y], [out, x], mode)
        xv, yv = np.array([0.5, -1.0]), np.array([2.0, 3.0])
        keep = xv.copy(), yv.copy()
        res = body.runner(xv, yv)
        np.testing.assert_allclose(res[0], np.exp(keep[0]) * keep[1] + 1.0, rtol=1e-14)
        np.testing.assert_array_equal(xv, keep[0])
        np.testing.assert_array_equal(yv, keep[1])
        # output 1 is the input itself: a caller writing into it must copy it
        assert body.viewing_outputs() == (1,)
        assert body.mode is mode and body.fgraph.protected_inputs == set(body.fgraph.inputs)


def test_rewrite_without_prepare_leaves_nested_inner_graphs_uncompiled():
    from theon.opfromgraph import OpFromGraph

    a = tt.dvector("a")
    op = OpFromGraph([a], [a * 2.0])
    x = tt.dvector("x")
    rewrite_inner_graph([x], [op(x) + 1.0], get_mode(None), prepare=False)
    assert len(op._inner) == 0
    fg = rewrite_inner_graph([x], [op(x) + 1.0], Mode(linker="vm"))
    assert len(op._inner) == 1
    (node,) = [n for n in fg.apply_nodes if isinstance(n.op, OpFromGraph)]
    assert isinstance(node, Apply) and op.compiled_fn(node).maker.mode.linker.name == "vm"


def _function_level_compile_imports(path):
    tree = ast.parse(path.read_text())
    found = []
    for fn in ast.walk(tree):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for n in ast.walk(fn):
                if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("theon.compile"):
                    found.append(f"{path.name}:{n.lineno} {n.module}")
    return found


def test_inner_graph_ops_compile_only_through_the_helper():
    """Scan and OpFromGraph import the compile layer at the top of their modules (no
    function-level imports), and only theon.compile.inner links their inner graphs."""
    files = [*sorted((ROOT / "scan").glob("*.py")), ROOT / "opfromgraph.py", ROOT / "ifelse.py"]
    assert [f for p in files for f in _function_level_compile_imports(p)] == []
    for p in files:
        text = p.read_text()
        assert "make_function(" not in text and "get_rewriter(" not in text, p
