"""The JAX linker (``mode="JAX"``): the runner, missing rules, the bounded trace cache,
updates, dtypes and x64, against the reference VM."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")

import theon  # noqa: E402
import theon.tensor as tt  # noqa: E402
from theon.compile.mode import Mode, get_mode  # noqa: E402
from theon.graph.basic import Apply  # noqa: E402
from theon.graph.fg import FunctionGraph  # noqa: E402
from theon.graph.op import Op  # noqa: E402
from theon.link.jax import JAXLinker  # noqa: E402
from theon.link.jax.linker import JAXLinkError, TraceCache  # noqa: E402
from theon.link.vm import VMLinker  # noqa: E402
from theon.tensor.type import TensorType  # noqa: E402

HERE = __file__
_LINES = Path(HERE).read_text().splitlines()


def line_of(marker: str) -> int:
    found = [k for k, ln in enumerate(_LINES, 1) if ln.rstrip().endswith(f"# {marker}")]
    assert len(found) == 1, marker
    return found[0]


VM = Mode(linker="vm")


def test_mode_names_reach_the_jax_linker():
    assert get_mode("JAX").linker.name == "jax"
    assert Mode(linker="jax").linker.name == "jax"
    x = tt.dvector("x")
    f = theon.function([x], tt.exp(x) * 2, mode=Mode(linker="jax"))
    np.testing.assert_allclose(f(np.arange(3.0)), np.exp(np.arange(3.0)) * 2)


def test_results_are_numpy_arrays_of_the_exact_dtype():
    x = tt.dvector("x")
    i = tt.lvector("i")
    f32 = tt.fvector("f")
    outs = [x * 2, i + 1, (x > 0), tt.sum(i), f32 * 2, tt.cast(x, "int8")]
    fj = theon.function([x, i, f32], outs, mode="JAX")
    fv = theon.function([x, i, f32], outs, mode=VM)
    args = (np.array([1.5, -2.0]), np.array([3, 4]), np.array([1.0, 2.0], dtype="float32"))
    for got, want in zip(fj(*args), fv(*args)):
        assert type(got) is np.ndarray
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        np.testing.assert_array_equal(got, want)


def test_float64_is_kept_without_changing_the_users_jax_config():
    assert not jax.config.jax_enable_x64
    x = tt.dvector("x")
    f = theon.function([x], x + 1e-12, mode="JAX")
    out = f(np.ones(2))
    assert out.dtype == np.float64 and out[0] != 1.0  # 1 + 1e-12 survives: float64
    assert not jax.config.jax_enable_x64  # the user's setting is untouched
    assert jax.numpy.ones(2).dtype == np.float32  # and their own jax code sees it


class ToyOpA(Op):
    __props__ = ()

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] + 1


class ToyOpB(ToyOpA):
    pass


def test_missing_rules_are_reported_together_with_the_users_lines():
    x = tt.dvector("x")
    a = ToyOpA()(x)  # MISSING-A
    b = ToyOpB()(tt.exp(a))  # MISSING-B
    with pytest.raises(JAXLinkError) as info:
        theon.function([x], b, mode="JAX")
    msg = str(info.value)
    assert "2 Op type(s)" in msg and "ToyOpA" in msg and "ToyOpB" in msg
    name = "test_missing_rules_are_reported_together_with_the_users_lines"
    assert f"{HERE}:{line_of('MISSING-A')} in {name}" in msg
    assert f"{HERE}:{line_of('MISSING-B')} in {name}" in msg
    assert {type(n.op) for n in info.value.nodes} == {ToyOpA, ToyOpB}
    # the same graph runs on the other linkers: only the JAX mode lacks the rules
    assert theon.function([x], b, mode=VM)(np.zeros(1))[0] == pytest.approx(np.exp(1) + 1)


def test_a_rule_added_later_is_used():
    from theon.link.jax import jax_funcify

    class ToyOpC(ToyOpA):
        pass

    x = tt.dvector("x")
    with pytest.raises(JAXLinkError):
        theon.function([x], ToyOpC()(x), mode="JAX")
    jax_funcify.register(ToyOpC)(lambda op, node, **kw: (lambda v: v + 1))
    f = theon.function([x], ToyOpC()(x), mode="JAX")
    np.testing.assert_array_equal(f(np.zeros(2)), [1.0, 1.0])


def test_run_time_error_names_the_node():
    x, y = tt.dvector("x"), tt.dvector("y")
    f = theon.function([x, y], x * y, mode="JAX")  # RUNTIME
    with pytest.raises(Exception) as info:
        f(np.ones(3), np.ones(4))
    notes = "\n".join(getattr(info.value, "__notes__", []))
    assert "while computing Elemwise{mul" in notes
    assert f"{HERE}:{line_of('RUNTIME')}" in notes


def test_traces_per_shape_signature_and_the_cache_is_bounded():
    x = tt.dvector("x")
    fg = FunctionGraph([x], [tt.exp(x).sum()])
    runner = JAXLinker(max_traces=3).make_function(fg)
    cache = runner.jax_call
    assert isinstance(cache, TraceCache) and cache.size == 3
    for n in (1, 2, 3, 4, 5):
        assert runner(np.ones(n))[0] == pytest.approx(n * np.e)
    assert cache.n_traces == 5
    assert len(cache.versions) == 3  # bounded: the two oldest were dropped
    assert list(cache.versions) == [((3,),), ((4,),), ((5,),)]
    runner(np.ones(5))  # cached: no new trace
    assert cache.n_traces == 5
    runner(np.ones(3))  # still cached; now the most recently used
    assert list(cache.versions)[-1] == ((3,),)
    runner(np.ones(1))  # was dropped: traced again, dropping the least recent (4,)
    assert cache.n_traces == 6 and ((4,),) not in cache.versions


def test_static_shapes_trace_once():
    x = TensorType("float64", shape=(3,))("x")
    runner = JAXLinker().make_function(FunctionGraph([x], [x * 2]))
    assert runner.jax_call.size == 1
    np.testing.assert_array_equal(runner(np.ones(3))[0], [2.0, 2.0, 2.0])


def test_max_traces_must_be_positive():
    with pytest.raises(ValueError, match="max_traces"):
        JAXLinker(max_traces=0)


def test_shapes_computed_from_input_shapes_trace():
    m = tt.dmatrix("m")
    out = [tt.reshape(m, (m.shape[1], m.shape[0])), tt.zeros((m.shape[0] * 2,)),
           tt.arange(m.shape[1]), tt.eye(m.shape[0]), m.flatten()]
    fj = theon.function([m], out, mode="JAX")
    fv = theon.function([m], out, mode=VM)
    a = np.arange(6.0).reshape(2, 3)
    for got, want in zip(fj(a), fv(a)):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


def test_a_shape_from_an_argument_value_is_a_clear_error():
    x = tt.dvector("x")
    n = tt.lscalar("n")
    with pytest.raises(Exception, match="run-time value"):
        theon.function([x, n], tt.zeros((n,)) + x.sum(), mode="JAX")(np.ones(2), 3)


def test_nonzero_is_a_clear_error():
    x = tt.dvector("x")
    f = theon.function([x], tt.nonzero(x)[0], mode="JAX")
    with pytest.raises(Exception, match="nonzero"):
        f(np.array([0.0, 1.0]))


def _sgd(mode):
    rng = np.random.default_rng(3)
    W = theon.shared(0.1 * rng.normal(size=(6, 4)), name="W")
    b = theon.shared(np.zeros(4), name="b")
    X, Y = tt.dmatrix("X"), tt.dmatrix("Y")
    prob = tt.special.softmax(tt.tanh(tt.dot(X, W) + b), axis=-1)
    loss = -tt.mean(tt.sum(Y * tt.log(prob), axis=1))
    grads = theon.grad(loss, [W, b])
    f = theon.function([X, Y], loss, mode=mode,
                       updates=[(p, p - 0.5 * g) for p, g in zip([W, b], grads)])
    return f, W, b


def test_sgd_with_shared_weights_matches_the_vm():
    rng = np.random.default_rng(4)
    Xv = rng.normal(size=(5, 6))
    Yv = np.eye(4)[rng.integers(0, 4, size=5)]
    fj, Wj, bj = _sgd("JAX")
    fv, Wv, bv = _sgd(VM)
    losses_j = [float(fj(Xv, Yv)) for _ in range(6)]
    losses_v = [float(fv(Xv, Yv)) for _ in range(6)]
    np.testing.assert_allclose(losses_j, losses_v, rtol=1e-12)
    assert losses_j[-1] < losses_j[0]
    np.testing.assert_allclose(Wj.get_value(), Wv.get_value(), rtol=1e-12)
    np.testing.assert_allclose(bj.get_value(), bv.get_value(), rtol=1e-12, atol=1e-15)
    assert type(Wj.get_value()) is np.ndarray and Wj.get_value().dtype == np.float64


def test_updates_see_the_old_values_and_outputs_are_not_aliased():
    s = theon.shared(np.array([1.0, 2.0]), name="s")
    f = theon.function([], [s, s * 2], updates=[(s, s + 1)], mode="JAX")
    a, b = f()
    np.testing.assert_array_equal(a, [1.0, 2.0])
    np.testing.assert_array_equal(b, [2.0, 4.0])
    np.testing.assert_array_equal(s.get_value(), [2.0, 3.0])
    c, _ = f()
    np.testing.assert_array_equal(a, [1.0, 2.0])  # the first result is unchanged
    np.testing.assert_array_equal(c, [2.0, 3.0])


def test_funcify_fgraph_gives_an_unjitted_function_of_jax_values():
    x = tt.dvector("x")
    fg = FunctionGraph([x], [tt.exp(x), x.sum()])
    fn = JAXLinker().funcify_fgraph(fg)
    with jax.enable_x64(True):
        outs = fn(jax.numpy.ones(3))
        assert outs[0].dtype == np.float64
        np.testing.assert_allclose(outs[0], np.e)
        # it composes with jax transformations, as inner-graph rules need
        g = jax.grad(lambda v: fn(v)[1])(jax.numpy.ones(3))
    np.testing.assert_array_equal(g, [1.0, 1.0, 1.0])


def test_constants_keep_their_dtype():
    x = tt.dvector("x")
    f = theon.function([x], x + np.float64(1e-12) + tt.constant(np.int64(2**40)), mode="JAX")
    out = f(np.zeros(1))
    assert out[0] == 1e-12 + 2**40


def test_vm_and_jax_agree_on_a_grad_graph():
    X, t = tt.dmatrix("X"), tt.dvector("t")
    w, bias = tt.dvector("w"), tt.dscalar("b")
    p = tt.sigmoid(tt.dot(X, w) + bias)
    loss = -tt.mean(t * tt.log(p) + (1 - t) * tt.log(1 - p)) + 0.01 * (w**2).sum()
    gw, gb = theon.grad(loss, [w, bias])
    rng = np.random.default_rng(2)
    args = (rng.normal(size=(50, 7)), (rng.random(50) > 0.5).astype(float),
            0.1 * rng.normal(size=7), np.array(0.1))
    got = theon.function([X, t, w, bias], [loss, gw, gb], mode="JAX")(*args)
    want = theon.function([X, t, w, bias], [loss, gw, gb], mode=VM)(*args)
    for g, v in zip(got, want):
        np.testing.assert_allclose(g, v, rtol=1e-12)


def test_vm_linker_is_the_reference_for_a_direct_fgraph():
    x = tt.dmatrix("x")
    fg = FunctionGraph([x], [x.T[::-1, 1:], tt.max(x, axis=0), tt.argmax(x, axis=1)])
    a = np.random.default_rng(0).normal(size=(3, 4))
    got = JAXLinker().make_function(fg)(a)
    want = VMLinker().make_function(fg)(a)
    for g, v in zip(got, want):
        assert g.dtype == v.dtype
        np.testing.assert_array_equal(g, v)


def test_pickle_copy_and_profile_keep_the_jax_mode():
    import pickle

    x = tt.dvector("x")
    s = theon.shared(np.ones(2), name="s")
    f = theon.function([x], (x * s).sum(), updates=[(s, s + 1)], mode="JAX", profile=True)
    assert float(f(np.ones(2))) == 2.0
    g = pickle.loads(pickle.dumps(f))
    assert g.maker.mode.linker.name == "jax"
    assert float(g(np.ones(2))) == 4.0  # the pickled function has the updated value
    h = f.copy()
    assert h.maker.mode.linker.name == "jax" and float(h(np.ones(2))) == 4.0
    assert f.profile.call_count == 1 and f.profile.call_time > 0  # calls are profiled


def test_jax_is_imported_only_when_a_function_is_linked_in_jax_mode():
    import subprocess
    import sys

    code = (
        "import sys, numpy as np, theon, theon.tensor as T\n"
        "from theon.compile.mode import preload\n"
        "preload()  # loads every linker's rule modules, the JAX ones included\n"
        "x = T.dvector('x')\n"
        "theon.function([x], x * 2)(np.ones(2))\n"
        "assert 'jax' not in sys.modules, 'jax imported by a default-mode compile'\n"
        "theon.function([x], x * 2, mode='JAX')(np.ones(2))\n"
        "assert 'jax' in sys.modules\n"
        "print('OK')\n"
    )
    import os

    root = Path(__file__).resolve().parents[3]
    env = dict(os.environ, PYTHONPATH=str(root) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=root, timeout=300, env=env)
    assert res.returncode == 0 and "OK" in res.stdout, res.stdout + res.stderr
