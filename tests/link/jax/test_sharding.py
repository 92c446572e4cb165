"""Data-parallel mode="JAX" on 2 devices (CPU devices forced with
``XLA_FLAGS=--xla_force_host_platform_device_count=2``, in a subprocess: the flag must
be set before jax starts).  An MLP's forward pass and gradients over a batch sharded
on axis 0 equal the single-device results, and the per-example output really lies
in two halves on two devices."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")

import theon  # noqa: E402
import theon.tensor as tt  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]

SCRIPT = textwrap.dedent("""
    import numpy as np
    import jax
    import theon
    import theon.tensor as T
    from jax.sharding import PartitionSpec as P

    assert len(jax.devices()) == 2, jax.devices()
    rng = np.random.default_rng(0)
    W1 = theon.shared(0.1 * rng.normal(size=(8, 16)), name="W1")
    W2 = theon.shared(0.1 * rng.normal(size=(16, 3)), name="W2")
    X, Y = T.dmatrix("X"), T.dmatrix("Y")
    prob = T.special.softmax(T.dot(T.tanh(T.dot(X, W1)), W2), axis=-1)
    per_example = -T.sum(Y * T.log(prob), axis=1)
    loss = per_example.mean()
    outs = [per_example, loss, *theon.grad(loss, [W1, W2])]
    Xv = rng.normal(size=(64, 8))
    Yv = np.eye(3)[rng.integers(0, 3, 64)]

    single = theon.function([X, Y], outs, mode="JAX")
    spec = {X: P("batch"), Y: P("batch")}
    sharded = theon.function([X, Y], outs, mode="JAX", sharding=spec)
    resharded = theon.link.jax.shard(single, spec)
    from jax.sharding import Mesh
    on_mesh = theon.link.jax.shard(single, {X: P("data")},
                                   mesh=Mesh(np.array(jax.devices()), ("data",)))
    reference = theon.function([X, Y], outs, mode=theon.Mode(linker="vm"))
    want = reference(Xv, Yv)
    for name, f in (("single", single), ("sharded", sharded), ("shard()", resharded),
                    ("shard(mesh=)", on_mesh)):
        for k, (g, w) in enumerate(zip(f(Xv, Yv), want)):
            assert type(g) is np.ndarray and g.dtype == w.dtype, (name, k)
            np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-15, err_msg=f"{name} {k}")

    # the jitted function's own results: sharded over the two devices
    args = [Xv, Yv, W1.get_value(), W2.get_value()]
    with jax.enable_x64(True):
        raw = sharded._runner.jax_call(args)
        raw_single = single._runner.jax_call(args)
    per, total, g1, g2 = raw
    assert len(per.sharding.device_set) == 2, per.sharding
    assert sorted(s.data.shape for s in per.addressable_shards) == [(32,), (32,)]
    assert {s.device for s in per.addressable_shards} == set(jax.devices())
    assert g1.sharding.is_fully_replicated and g1.shape == (8, 16)
    assert len(raw_single[0].sharding.device_set) == 1  # the default: one device

    # an SGD loop with shared weights: the sharded function's updates equal one device's
    def sgd(**kw):
        W = theon.shared(0.1 * np.random.default_rng(3).normal(size=(8, 3)), name="W")
        p = T.special.softmax(T.tanh(T.dot(X, W)), axis=-1)
        cost = -T.mean(T.sum(Y * T.log(p), axis=1))
        g = theon.grad(cost, W)
        return theon.function([X, Y], cost, updates=[(W, W - 0.5 * g)], mode="JAX", **kw), W
    (f1, W1), (f2, W2) = sgd(), sgd(sharding=spec)
    l1 = [float(f1(Xv, Yv)) for _ in range(4)]
    l2 = [float(f2(Xv, Yv)) for _ in range(4)]
    np.testing.assert_allclose(l1, l2, rtol=1e-12)
    assert l1[-1] < l1[0]
    np.testing.assert_allclose(W1.get_value(), W2.get_value(), rtol=1e-12)
    print("SHARDED-OK")
""")


def test_mlp_forward_and_grad_sharded_over_two_devices_equal_single_device():
    env = dict(os.environ)
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=2")
    env["JAX_PLATFORMS"] = "cpu"
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    res = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                         text=True, timeout=600, cwd=ROOT)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "SHARDED-OK" in res.stdout


def test_sharding_needs_the_jax_mode():
    x = tt.dmatrix("x")
    with pytest.raises(ValueError, match="sharding= needs mode='JAX'"):
        theon.function([x], x.sum(), sharding={x: jax.sharding.PartitionSpec("batch")})


def test_sharding_names_a_variable_that_is_no_input():
    x, y = tt.dmatrix("x"), tt.dmatrix("y")
    with pytest.raises(ValueError, match="'y'.* is not an input"):
        theon.function([x], x.sum(), mode="JAX",
                       sharding={y: jax.sharding.PartitionSpec("batch")})


def test_a_spec_longer_than_the_input_is_refused():
    x = tt.dvector("x")
    P = jax.sharding.PartitionSpec
    with pytest.raises(ValueError, match="2 entries"):
        theon.function([x], x.sum(), mode="JAX", sharding={x: P("batch", None)})


def test_sharding_on_one_device_gives_the_same_results():
    x = tt.dmatrix("x")
    f = theon.function([x], [x * 2, x.sum()], mode="JAX",
                       sharding={x: jax.sharding.PartitionSpec("batch")})
    a = np.arange(8.0).reshape(4, 2)
    got = f(a)
    np.testing.assert_array_equal(got[0], a * 2)
    assert float(got[1]) == a.sum()


REPORT_SCRIPT = textwrap.dedent("""
    import numpy as np
    import jax
    import theon
    import theon.tensor as T
    from jax.sharding import PartitionSpec as P

    W = theon.shared(np.ones((3, 2)), name="W")
    X = T.dmatrix("X")
    h = T.dot(X, W)
    h.name = "h"
    cost = h.sum()
    cost.name = "cost"
    f = theon.function([X], [h, cost], updates=[(W, W - 0.1 * theon.grad(cost, W))],
                       mode="JAX", sharding={X: P("batch")})
    f(np.ones((8, 3)))
    rep = f.sharding_report()
    assert rep.mesh == {"batch": 2} and rep.n_processes == 1, rep
    x, w = rep.inputs
    assert (x.name, x.shape, x.dtype, x.spec) == ("X", (8, 3), "float64", "P('batch',)"), x
    assert x.devices == {"cpu:0": "[0:4, :]", "cpu:1": "[4:8, :]"}, x
    assert w.name == "W" and w.replicated and w.spec == "replicated", w
    assert [o.name for o in rep.outputs] == ["h", "cost", "update of W"], rep
    assert rep.outputs[0].devices == {"cpu:0": "[0:4, :]", "cpu:1": "[4:8, :]"}, rep
    assert rep.outputs[1].replicated and rep.outputs[2].replicated, rep
    assert "X: float64[8, 3] P('batch',), cpu:0 [0:4, :]; cpu:1 [4:8, :]" in str(rep), str(rep)
    # for other shapes, without running: example arguments
    assert f.sharding_report(np.ones((6, 3))).inputs[0].devices["cpu:1"] == "[3:6, :]"
    # an uneven batch: theon's error naming the input, its length and the mesh axis size
    try:
        f(np.ones((5, 3)))
    except ValueError as e:
        msg = str(e)
        assert "input 'X' has length 5 on axis 0" in msg, msg
        assert "mesh axis 'batch' of size 2" in msg, msg
        print("UNEVEN-OK")
    np.testing.assert_allclose(W.get_value(), 1 - 0.1 * 8)   # the failed call changed nothing
    print("REPORT-OK")
""")


def test_sharding_report_and_an_uneven_batch_on_two_devices():
    env = dict(os.environ)
    env["XLA_FLAGS"] = (env.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=2")
    env["JAX_PLATFORMS"] = "cpu"
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    res = subprocess.run([sys.executable, "-c", REPORT_SCRIPT], env=env, capture_output=True,
                         text=True, timeout=600, cwd=ROOT)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "UNEVEN-OK" in res.stdout and "REPORT-OK" in res.stdout


def test_sharding_report_on_one_device():
    x, b = tt.dmatrix("x"), theon.shared(np.zeros(2), name="b")
    y = x + b
    y.name = "y"
    f = theon.function([x], y, mode="JAX", sharding={x: jax.sharding.PartitionSpec("batch")})
    with pytest.raises(ValueError, match="not been called yet"):
        f.sharding_report()
    rep = f.sharding_report(np.zeros((4, 2)))
    assert [p.name for p in rep.inputs] == ["x", "b"]
    assert [p.shape for p in rep.inputs] == [(4, 2), (2,)]
    assert rep.outputs[0].name == "y" and rep.outputs[0].shape == (4, 2)
    assert rep.inputs[0].spec == "P('batch',)"
    assert rep.inputs[0].devices == {f"{jax.devices()[0].platform}:0": "whole"}
    f(np.ones((3, 2)))
    assert f.sharding_report().inputs[0].shape == (3, 2)   # the last call's shapes


def test_sharding_report_needs_a_sharded_function():
    x = tt.dvector("x")
    f = theon.function([x], x * 2, mode="JAX")
    with pytest.raises(ValueError, match="compiled without sharding="):
        f.sharding_report()
