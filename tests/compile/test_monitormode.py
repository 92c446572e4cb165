"""MonitorMode (PyTensor's compile.MonitorMode, Theano's compile.MonitorMode): callbacks
before and after each node, written the way PyTensor's documentation writes them."""

from __future__ import annotations

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.compile import MonitorMode
from theon.ifelse import ifelse


def test_inspect_inputs_and_outputs_as_pytensors_documentation_writes_it():
    seen: list[tuple[str, int, str, list[float]]] = []

    def inspect_inputs(fgraph, i, node, fn):
        seen.append(("in", i, str(node.op), [float(inp[0]) for inp in fn.inputs]))

    def inspect_outputs(fgraph, i, node, fn):
        assert fgraph is f.maker.fgraph
        seen.append(("out", i, str(node.op), [float(out[0]) for out in fn.outputs]))

    x = tt.dscalar("x")
    f = theon.function([x], [5 * x], mode=MonitorMode(pre_func=inspect_inputs,
                                                      post_func=inspect_outputs))
    assert f(3.0) == [15.0]
    order = f.maker.fgraph.toposort()
    assert len(seen) == 2 * len(order)
    # each node: its inputs before, its outputs after, in run order
    for k, node in enumerate(order):
        (w1, i1, op1, _), (w2, i2, op2, _) = seen[2 * k], seen[2 * k + 1]
        assert (w1, w2, i1, i2, op1, op2) == ("in", "out", k, k, str(node.op), str(node.op))
    assert seen[-1][3] == [15.0]


def test_theanos_three_argument_callbacks_and_nan_detection():
    found: list[int] = []

    def detect_nan(i, node, fn):  # Theano's form: no fgraph
        for output in fn.outputs:
            if np.isnan(output[0]).any():
                found.append(i)
                break

    x = tt.dvector("x")
    y = tt.log(x) * tt.exp(x)
    f = theon.function([x], y, mode=MonitorMode(post_func=detect_nan))
    with np.errstate(all="ignore"):
        got = f(np.array([1.0, -1.0]))
        want = np.log([1.0, -1.0]) * np.exp([1.0, -1.0])
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    assert got[0] == want[0] == 0.0
    assert found and found[0] == len(f.maker.fgraph.toposort()) - 1


def test_values_equal_numpy_with_the_default_rewrites_or_fast_compile():
    rng = np.random.default_rng(0)
    a, b = tt.dmatrices("a", "b")
    out = tt.tanh(tt.dot(a, b) + 1.0).sum(axis=0)
    av, bv = rng.normal(size=(3, 4)), rng.normal(size=(4, 2))
    want = np.tanh(av @ bv + 1.0).sum(axis=0)
    counts = []
    for opt in ("default", "fast_compile", None):
        calls: list[int] = []
        f = theon.function([a, b], out, mode=MonitorMode(
            pre_func=lambda fg, i, node, fn, calls=calls: calls.append(i), optimizer=opt))
        np.testing.assert_allclose(f(av, bv), want, rtol=1e-12)
        assert calls == list(range(len(f.maker.fgraph.toposort())))
        counts.append(len(calls))
    assert counts[2] >= counts[0]  # without rewrites, at least as many nodes


def test_lazy_conditional_runs_only_the_taken_branch():
    ran: list[str] = []
    c, x = tt.dscalar("c"), tt.dvector("x")
    out = ifelse(tt.gt(c, 0), tt.exp(x), tt.log(x))
    f = theon.function([c, x], out, mode=MonitorMode(
        post_func=lambda fg, i, node, fn: ran.append(str(node.op)), optimizer=None))
    np.testing.assert_allclose(f(1.0, np.array([2.0])), np.exp([2.0]))
    assert any("exp" in r for r in ran) and not any("log" in r for r in ran)


def test_including_and_clone_keep_the_callbacks():
    calls: list[int] = []
    mode = MonitorMode(pre_func=lambda fg, i, node, fn: calls.append(i))
    for m in (mode.including("fast_run"), mode.excluding("fusion"), mode.clone()):
        assert isinstance(m, MonitorMode) and m.pre_func is mode.pre_func
        x = tt.dvector("x")
        theon.function([x], tt.exp(x) * 2, mode=m)(np.ones(2))
    assert calls


def test_eval_runs_the_node_between_the_callbacks():
    order: list[str] = []
    mode = MonitorMode(pre_func=lambda fg, i, n, fn: order.append("pre"),
                       post_func=lambda fg, i, n, fn: order.append(f"post {fn.outputs[0][0]}"))
    x = tt.dscalar("x")
    node = (x + 1.0).owner
    from theon.compile.monitormode import NodeThunk

    fn = NodeThunk(node, [np.float64(2.0), node.inputs[1].data])
    mode.eval(None, 0, node, fn)
    assert order == ["pre", "post 3.0"]
    with pytest.raises(ValueError, match="2 inputs"):
        NodeThunk(node, [np.float64(2.0)])


def test_an_error_in_a_node_names_it():
    x = tt.lvector("x")
    f = theon.function([x], x[5], mode=MonitorMode())
    with pytest.raises(IndexError) as e:
        f(np.arange(3))
    assert "while computing" in "".join(getattr(e.value, "__notes__", []))
