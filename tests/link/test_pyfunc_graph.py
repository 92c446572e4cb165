"""The py linker's framework on toy (non-tensor) graphs, against the reference VM."""

from __future__ import annotations

import gc
import weakref

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.graph.toy import Binary, add, divmod_, ft, mul, neg, sub
from theon.compile.mode import Mode
from theon.graph.basic import Apply, Constant
from theon.graph.fg import FunctionGraph
from theon.graph.op import Op
from theon.graph.type import Generic
from theon.link.pyfunc import PyLinker
from theon.link.vm import VMLinker

div = Binary("div", lambda a, b: a / b)


def both(fg):
    return PyLinker().make_function(fg), VMLinker().make_function(fg)


def test_registered_as_py_linker():
    assert isinstance(Mode(linker="py", optimizer=None).linker, PyLinker)


def test_one_function_per_graph_with_perform_calls():
    x, y = ft("x"), ft("y")
    q, r = divmod_(mul(add(x, y), x), y)
    fg = FunctionGraph([x, y], [q, neg(r), x, Constant(ft, 2.0)])
    run, vm = both(fg)
    assert run(3.0, 2.0) == vm(3.0, 2.0) == [7.0, -1.0, 3.0, 2.0]
    assert run.source.startswith("def run(i0, i1):")
    assert [n.op for n in run.order] == [n.op for n in fg.toposort()]


def test_same_output_twice_and_input_as_output():
    x = ft("x")
    y = neg(x)
    fg = FunctionGraph([x], [y, y, x], clone=False)
    run, vm = both(fg)
    assert run(2.0) == vm(2.0) == [-2.0, -2.0, 2.0]


def test_no_inputs_and_constant_only_graph():
    fg = FunctionGraph([], [add(Constant(ft, 1.0), Constant(ft, 2.0))])
    run, vm = both(fg)
    assert run() == vm() == [3.0]


def test_wrong_number_of_arguments():
    x = ft("x")
    run = PyLinker().make_function(FunctionGraph([x], [neg(x)]))
    with pytest.raises(TypeError):
        run(1.0, 2.0)


def test_error_carries_node_context():
    x, y = ft("x"), ft("y")
    z = div(x, y)  # this line is where the failing node is built
    fg = FunctionGraph([x, y], [neg(z)])
    run = PyLinker().make_function(fg)
    with pytest.raises(ZeroDivisionError) as info:
        run(1.0, 0.0)
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "while computing div" in notes
    assert "test_pyfunc_graph.py" in notes
    # and the next call still works
    assert run(1.0, 2.0) == [-0.5]


def test_error_in_second_of_two_nodes_names_that_node():
    x = ft("x")
    bad = Binary("bad", lambda a, b: (_ for _ in ()).throw(RuntimeError("boom")))
    fg = FunctionGraph([x], [bad(neg(x), x)])
    with pytest.raises(RuntimeError) as info:
        PyLinker().make_function(fg)(1.0)
    assert any("while computing bad" in n for n in info.value.__notes__)
    assert not any("while computing neg" in n for n in info.value.__notes__)


class Recorder:
    def __init__(self):
        self.calls = []

    def record(self, node, seconds):
        self.calls.append((node, seconds))


def test_profile_records_every_node():
    x, y = ft("x"), ft("y")
    fg = FunctionGraph([x, y], [sub(mul(x, y), x)])
    prof = Recorder()
    run = PyLinker().make_function(fg, profile=prof)
    assert run(2.0, 3.0) == [4.0]
    assert [n.op.name for n, _ in prof.calls] == ["mul", "sub"]
    assert all(s >= 0 for _, s in prof.calls)


class Box:
    """A weak-referenceable value."""

    def __init__(self, v):
        self.v = v


class MakeBox(Op):
    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [Generic()()])

    def perform(self, node, inputs, out):
        out[0][0] = Box(inputs[0])


class Unbox(Op):
    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [Generic()()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0].v


class Probe(Op):
    """Records, when it runs, whether the boxes made so far are still alive."""

    __props__ = ()
    seen: list = []

    def make_node(self, x):
        return Apply(self, [x], [Generic()()])

    def perform(self, node, inputs, out):
        gc.collect()
        Probe.seen.append([r() is not None for r in Watch.refs])
        out[0][0] = inputs[0]


class Watch(Op):
    __props__ = ()
    refs: list = []

    def make_node(self, x):
        return Apply(self, [x], [Generic()()])

    def perform(self, node, inputs, out):
        Watch.refs.append(weakref.ref(inputs[0]))
        out[0][0] = inputs[0].v


def test_intermediates_are_freed_after_last_use():
    Watch.refs, Probe.seen = [], []
    x = Generic()("x")
    y = Probe()(Watch()(MakeBox()(x)))
    run = PyLinker().make_function(FunctionGraph([x], [y]))
    assert run(5) == [5]
    assert Probe.seen == [[False]]  # the box died right after Watch read it


def test_runner_keeps_no_reference_to_outputs():
    x = Generic()("x")
    run = PyLinker().make_function(FunctionGraph([x], [MakeBox()(x)]))
    (b,) = run(1)
    ref = weakref.ref(b)
    del b
    gc.collect()
    assert ref() is None


def test_instance_level_perform_like_the_seed_tutorial():
    op = Op()

    def make_node(a):
        return Apply(op, [a], [Generic()()])

    def perform(node, inputs, out):
        out[0][0] = inputs[0] * 3

    op.make_node = make_node
    op.perform = perform
    x = Generic()("x")
    fg = FunctionGraph([x], [op.make_node(x).outputs[0]])
    run, vm = both(fg)
    assert run(2) == vm(2) == [6]


OPS = [add, sub, mul, neg]


@st.composite
def toy_graphs(draw):
    n_in = draw(st.integers(1, 3))
    ins = [ft(f"x{i}") for i in range(n_in)]
    pool = list(ins)
    for _ in range(draw(st.integers(1, 12))):
        op = draw(st.sampled_from(OPS))
        if op is neg:
            pool.append(neg(draw(st.sampled_from(pool))))
        else:
            a = draw(st.sampled_from(pool))
            b = draw(st.sampled_from(pool + [Constant(ft, 1.5)]))
            pool.append(op(a, b))
    outs = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=3))
    vals = draw(st.lists(st.integers(-5, 5).map(float), min_size=n_in, max_size=n_in))
    return ins, outs, vals


@settings(max_examples=60, deadline=None)
@given(toy_graphs())
def test_random_toy_graphs_match_vm(g):
    ins, outs, vals = g
    fg = FunctionGraph(ins, outs)
    run, vm = both(fg)
    assert run(*vals) == vm(*vals)


def test_deep_graph_of_thousands_of_nodes():
    x = ft("x")
    v = x
    for i in range(3000):
        v = add(v, Constant(ft, float(i % 7))) if i % 2 else mul(v, Constant(ft, 0.5))
    fg = FunctionGraph([x], [v])
    assert PyLinker().make_function(fg)(1.0) == VMLinker().make_function(fg)(1.0)


def test_no_out_buffer_reuse_when_a_view_of_the_root_is_an_output():
    """A value destroyed into by an inplace node, and viewed by a graph output, stays intact."""
    import numpy as np

    import theon
    import theon.tensor as tt
    from theon.compile.mode import Mode

    r = tt.TensorType("float64", shape=(1, None))("r")
    m = tt.mean(r, axis=1, keepdims=True)
    outs = [tt.prod(m, keepdims=True), m / 0]
    rv = np.array([[-2.72058479, 0.76582809, 0.18571743, -1.54275429]])
    with np.errstate(divide="ignore"):
        ref = theon.function([r], outs, mode=Mode("vm", "fast_run"))(rv)
        got = theon.function([r], outs)(rv)
    np.testing.assert_allclose(got[0], ref[0])
    np.testing.assert_allclose(ref[0], [[rv.mean()]])
    assert np.isneginf(got[1]).all()
