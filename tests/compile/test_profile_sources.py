"""The profiler names the user's source line of each hot node, and under
``mode="JAX"`` gives each call's steps (compile, run, transfers) instead of empty
per-node tables."""

from __future__ import annotations

import inspect
import os

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.compile.profiling import ProfileStats, built_at

HERE = __file__
#: how the profile names this file: relative to the working directory, when under it
_CWD = os.getcwd() + os.sep
SHOWN = HERE[len(_CWD):] if HERE.startswith(_CWD) else HERE


def _model():
    x = tt.dmatrix("x")
    w = tt.dmatrix("w")
    line = inspect.currentframe().f_lineno + 1
    h = tt.tanh(tt.dot(x, w)) * 2 + 1
    y = (h ** 2).sum()
    return x, w, y, line


def test_hot_nodes_show_the_users_source_line() -> None:
    x, w, y, line = _model()
    f = theon.function([x, w], y, profile=True, name="model")
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(50, 40)), rng.normal(size=(40, 30))
    for _ in range(3):
        out = f(a, b)
    np.testing.assert_allclose(out, ((np.tanh(a @ b) * 2 + 1) ** 2).sum())
    text = f.profile.summary_text()
    nodes_part = text.split("Nodes, by time")[1]
    # every hot node is followed by where the user built it: this file, the Dot's line
    assert f"built at {SHOWN}:{line} in _model: Dot" in nodes_part
    # the fused elementwise node names every user Op fused into it, at their line
    fused = next(n for n in f.maker.fgraph.apply_nodes if "Composite" in str(n.op))
    (where,) = [ln for ln in built_at(fused) if f":{line} " in ln]
    assert {"tanh", "mul", "add"} <= set(where.split(": ", 1)[1].split(", "))
    assert f"{SHOWN}:{line + 1} in _model" in "\n".join(built_at(fused))  # the square
    assert f"{SHOWN}:{line + 1}" in nodes_part


def test_a_node_without_a_recorded_line_gets_none() -> None:
    from theon.graph.basic import Apply
    from theon.graph.op import Op
    from theon.graph.type import Generic

    class Plain(Op):
        __props__ = ()

        def make_node(self, a):
            return Apply(self, [a], [Generic()()])

        def perform(self, node, inputs, out):
            out[0][0] = inputs[0]

    node = Plain().make_node(Generic()("a"))  # made directly: no user frame recorded
    assert built_at(node) == []


def test_jax_profile_shows_call_compile_and_transfer_times() -> None:
    pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")
    x, w, y, _ = _model()
    f = theon.function([x, w], [y, x.sum()], profile=True, mode="JAX", name="jaxmodel")
    rng = np.random.default_rng(1)
    a, b = rng.normal(size=(20, 10)), rng.normal(size=(10, 5))
    for _ in range(4):
        out, s = f(a, b)
    np.testing.assert_allclose(out, ((np.tanh(a @ b) * 2 + 1) ** 2).sum(), rtol=1e-12)
    assert s == pytest.approx(a.sum(), rel=1e-12)
    p = f.profile
    assert p.call_count == 4
    assert p.step_calls == {
        "compile (first call of a shape: trace, XLA compile, run)": 1,
        "run on the device": 3,
        "transfer to the device": 4,
        "transfer from the device": 4,
    }
    assert all(t >= 0 for t in p.step_time.values())
    text = p.summary_text()
    assert "Steps of the calls" in text
    for step in p.step_calls:
        assert step in text
    assert "Ops, by time" not in text and "time in nodes" not in text  # no empty tables
    # a new shape signature compiles again
    f(rng.normal(size=(7, 10)), b)
    assert p.step_calls["compile (first call of a shape: trace, XLA compile, run)"] == 2
    p.reset()
    assert p.step_time == {} and p.step_calls == {}


def test_jax_profile_with_packed_scalars_and_a_random_generator() -> None:
    pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")
    a, b = tt.dscalar("a"), tt.dscalar("b")
    f = theon.function([a, b], [a * b, a + b], profile=ProfileStats("packed"), mode="JAX")
    g = theon.function([a, b], [a * b, a + b])
    for k in range(3):
        assert f(k, 2.5) == g(k, 2.5)
    assert f.profile.step_calls["run on the device"] == 2
    rng = theon.shared(np.random.default_rng(0), name="rng")
    r, draw = tt.random.normal(size=(3,), rng=rng, return_next_rng=True)
    h = theon.function([], draw, updates={rng: r}, profile=True, mode="JAX")
    d1, d2 = h(), h()
    assert d1.shape == (3,) and not np.array_equal(d1, d2)  # the generator advanced
    assert h.profile.step_calls["transfer to the device"] == 2


def test_a_sharded_jax_function_times_whole_calls() -> None:
    jax = pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")
    X = tt.dmatrix("X")
    w = tt.dvector("w")
    out = tt.tanh(tt.dot(X, w)).sum()
    spec = jax.sharding.PartitionSpec("batch")
    f = theon.function([X, w], out, mode="JAX", sharding={X: spec}, profile=True)
    rng = np.random.default_rng(2)
    a, b = rng.normal(size=(8, 3)), rng.normal(size=3)
    for _ in range(3):
        assert f(a, b) == pytest.approx(np.tanh(a @ b).sum(), rel=1e-12)
    from theon.link.jax.profiled import SHARDED, STEPS

    assert f.profile.step_calls == {STEPS[0]: 1, SHARDED: 2}
    text = f.profile.summary_text()
    assert SHARDED in text and "Ops, by time" not in text
