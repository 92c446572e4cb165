"""The whole-graph numba tier (theon.link.tier1.nbgraph, spellings in theon.backends.numba)
against NumPy/SciPy and the reference VM: every scalar spelling on edge values, the
structural Ops, fallback to tier 0 on calls the compiled graph refuses, the swap itself
(verified on its first call, dropped with a warning when it disagrees), and graphs that
stay on tier 0."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.special as sp

import theon
import theon.scalar.basic as sb
import theon.tensor as tt
from tests.link.tier1.nbgraph_helpers import compiled
from theon.compile.mode import Mode
from theon.link import tier1
from theon.link.tier1 import nbgraph
from theon.scalar.table import OPS
from theon.tensor.elemwise import Elemwise

numba = pytest.importorskip("numba", reason="the whole-graph tier needs numba (theon[numba])")

VM = Mode(linker="vm", optimizer=None)
EDGE = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, 3.0, 30.0, -30.0, 700.0, -745.0, 1e-300,
                 np.inf, -np.inf, np.nan])


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return str(tmp_path_factory.mktemp("nbgraph-cache"))


def same(got, want, ulps=4, where=""):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, where
    if want.dtype.kind != "f":
        np.testing.assert_array_equal(got, want)
        return
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    ok = ~np.isnan(want)
    g, w = got[ok], want[ok]
    np.testing.assert_array_equal(np.isinf(g), np.isinf(w))
    fin = np.isfinite(w)
    tol = ulps * np.spacing(np.abs(w[fin]))
    assert np.all(np.abs(g[fin] - w[fin]) <= tol), (where, g[fin], w[fin])
    assert np.array_equal(g[~fin], w[~fin])


UNARY = ["neg", "sqr", "abs", "exp", "expm1", "log", "log1p", "log2", "log10", "sqrt",
         "tanh", "sin", "cos", "erf", "erfc", "erfcx", "isnan", "isinf"]
BINARY = ["add", "mul", "sub", "true_div", "pow", "maximum", "minimum", "gt", "ge", "lt",
          "le", "eq", "neq"]


def test_every_spelled_scalar_op_is_theons_op_of_that_name():
    from theon.backends.numba.scalar import SPELLINGS

    for name in SPELLINGS:
        assert name in OPS or getattr(getattr(sb, name, None), "name", None) == name, name


def test_unary_spellings_match_numpy_on_edge_values(cache):
    x = tt.dvector("x")
    outs = [Elemwise(OPS[n])(x) for n in UNARY]
    f = compiled([x], outs, [EDGE], cache)
    ref = theon.function([x], outs, mode=VM)
    with np.errstate(all="ignore"):
        for name, got, want in zip(UNARY, f(EDGE), ref(EDGE)):
            same(got, want, where=name)
        same(f(EDGE)[UNARY.index("erfcx")], sp.erfcx(EDGE), ulps=8)


def test_binary_spellings_match_numpy_on_edge_values(cache):
    x, y = tt.dvector("x"), tt.dvector("y")
    outs = [Elemwise(OPS[n])(x, y) for n in BINARY]
    a = np.repeat(EDGE, len(EDGE))
    b = np.tile(EDGE, len(EDGE))
    f = compiled([x, y], outs, [a, b], cache)
    ref = theon.function([x, y], outs, mode=VM)
    with np.errstate(all="ignore"):
        for name, got, want in zip(BINARY, f(a, b), ref(a, b)):
            same(got, want, where=name)


def test_logic_switch_clip_and_casts_on_numbers_and_arrays(cache):
    x, y = tt.dvector("x"), tt.dvector("y")
    s = tt.dscalar("s")
    c = tt.TensorType("bool", shape=(None,))("c")
    outs = [tt.switch(c, x, y), tt.switch(tt.gt(x, s), x * s, y - s),
            tt.clip(x, -1.0, 2.0), tt.and_(c, tt.gt(x, y)), tt.or_(c, tt.lt(x, y)),
            tt.invert(c), tt.cast(c, "float64") * x, (x * s).sum() + s,
            tt.switch(tt.cast(tt.gt(x, 0.0), "int64"), 1.0, y)]
    cv = np.arange(len(EDGE)) % 3 == 0
    args = [EDGE, EDGE[::-1].copy(), cv, 1.5]
    f = compiled([x, y, c, s], outs, args, cache)
    ref = theon.function([x, y, c, s], outs, mode=VM)
    with np.errstate(all="ignore"):
        for got, want in zip(f(*args), ref(*args)):
            same(got, want)


def test_structural_ops_match_numpy(cache):
    m = tt.dmatrix("m")
    v = tt.dvector("v")
    i = tt.lvector("i")
    k = tt.lscalar("k")
    outs = [
        m.T * 2.0,                                    # DimShuffle (transpose)
        v[:3].dimshuffle("x", 0) + m,                 # a new dimension, broadcast
        m.sum(axis=0), m.sum(), m.max(), m.min(axis=1), tt.all(tt.gt(m, -5.0)),
        tt.any(tt.isnan(v)),
        m[1:, ::2], m[k], v[k] * 3.0,                 # Subtensor (constant and symbolic)
        tt.inc_subtensor(v[1:3], 1.0), tt.set_subtensor(m[0, 1], -1.0),
        tt.concatenate([v, v[:2]]), tt.stack([v[0], v[1], k]),
        v[i], tt.inc_subtensor(v[i], 1.0),            # the ...1 advanced indexing Ops
        tt.dot(m, v[:3]), tt.dot(v[:4], m), tt.dot(m.T, m),
        tt.cumsum(v), tt.special.softmax(v, axis=0), tt.special.log_softmax(m, axis=1),
        tt.special.softmax(m, axis=0), tt.reshape(v, (2, 3)), tt.reshape(v[:1], ()),
        tt.alloc(v[0], 2, k), tt.zeros_like(m) + v[:3],
        tt.specify_shape(m, (4, None)) * 2.0,
    ]
    outs += list(tt.split(v, [2, 4], 2))
    mv = np.arange(12.0).reshape(4, 3) / 7.0 - 0.5
    vv = np.array([0.3, -1.2, 2.0, 0.0, 5.5, -0.1])
    args = [mv, vv, np.array([5, 0, 0, -1]), 2]
    f = compiled([m, v, i, k], outs, args, cache)
    ref = theon.function([m, v, i, k], outs, mode=VM)
    for n, (got, want) in enumerate(zip(f(*args), ref(*args))):
        try:
            same(got, want, ulps=8)
        except AssertionError as e:
            raise AssertionError(f"output {n}: {outs[n]}") from e
    np.testing.assert_allclose(f(*args)[21], sp.softmax(vv), rtol=1e-15)
    np.testing.assert_allclose(f(*args)[22], sp.log_softmax(mv, axis=1), rtol=1e-14)


def test_calls_the_compiled_graph_refuses_are_served_by_tier_0(cache):
    v = tt.dvector("v")
    i = tt.lvector("i")
    w = tt.TensorType("float64", shape=(None,))("w")
    outs = [v[i].sum(), v + w]
    f = compiled([v, i, w], outs, [np.arange(3.0), np.array([2, 0]), np.ones(3)], cache)
    ref = theon.function([v, i, w], outs, mode=VM)
    # an index out of range: tier 0's IndexError
    with pytest.raises(IndexError):
        f(np.arange(3.0), np.array([3, 0]), np.ones(3))
    # lengths that differ: tier 0's error naming the broadcast
    with pytest.raises(ValueError):
        f(np.arange(3.0), np.array([0, 1]), np.ones(4))
    # and the compiled graph is still in use
    assert f._runner.slot.state == "ready"
    got, want = f(np.arange(3.0), np.array([-1, 0]), np.ones(3)), ref(
        np.arange(3.0), np.array([-1, 0]), np.ones(3))
    for g, w_ in zip(got, want):
        same(g, w_)


class _WrongCompiler:
    """A compiler whose graph function adds 1 to every output."""

    def compile_loop(self, header, source, fname, sample, options="", elsewhere=False):
        ns = {"np": np, "math": __import__("math")}
        exec(source, ns)
        fn = ns[fname]
        return lambda *a: tuple(np.asarray(o) + 1 for o in fn(*a))


def test_a_compiled_graph_that_disagrees_with_tier_0_is_dropped_with_a_warning():
    x = tt.dvector("x")
    with theon.config.change_flags(tier1_graph_calls=1, tier1_autotune=False, tier=1), \
            tier1.use_compiler("graph", _WrongCompiler()):
        f = theon.function([x], (x * 2.0).sum())
        f(np.ones(3))
        assert tier1.wait(60)
        with pytest.warns(RuntimeWarning, match="gave other values than tier 0"):
            assert f(np.ones(3)) == 6.0
    assert f._runner.slot.state == "dropped"
    assert f(np.ones(3)) == 6.0


def test_the_tier_waits_for_its_number_of_calls_and_can_be_off():
    x = tt.dvector("x")
    with theon.config.change_flags(tier1_graph_calls=3, tier=1), \
            tier1.use_compiler("graph", _WrongCompiler()):
        f = theon.function([x], x + 1.0)
        f(np.ones(2)), f(np.ones(2))
        assert f._runner.slot.state == "idle"
        f(np.ones(2))
        assert f._runner.slot.state != "idle"
        tier1.wait(60)
    with theon.config.change_flags(tier1_graph_calls=0, tier=1):
        assert not isinstance(theon.function([x], x + 1.0)._runner, nbgraph.GraphRunner)
    with theon.config.change_flags(tier1_graph_calls=3, tier=0):
        assert not isinstance(theon.function([x], x + 1.0)._runner, nbgraph.GraphRunner)


def test_graphs_numba_is_not_given_stay_on_tier_0():
    x = tt.dvector("x")
    s = tt.TensorType("complex128", shape=(None,))("s")
    with theon.config.change_flags(tier1_graph_calls=1, tier1_autotune=False, tier=1):
        # a dtype the generated code does not take
        assert not isinstance(theon.function([s], s * 2)._runner, nbgraph.GraphRunner)
        # an Op without a spelling (sorting)
        assert not isinstance(theon.function([x], tt.sort(x))._runner, nbgraph.GraphRunner)
    with pytest.raises(nbgraph.Unsupported, match="no numba spelling"):
        from theon.graph.fg import FunctionGraph

        nbgraph.generate(FunctionGraph([x], [Elemwise(OPS["gammaln"])(x)]))


def test_erfcx_is_within_eight_ulps_of_scipys(cache):
    """The generated ``_erfcx`` (a product below 2, a continued fraction above) on a grid
    over the whole range and across the switch at 2."""
    x = tt.dvector("x")
    mags = np.logspace(0, 300, 3001)
    grid = np.concatenate([np.linspace(-27.0, 27.0, 54001), mags, -mags[:200],
                           np.nextafter(2.0, [-np.inf, np.inf]), [2.0]])
    f = compiled([x], Elemwise(OPS["erfcx"])(x), [grid], cache)
    with np.errstate(all="ignore"):
        same(f(grid), sp.erfcx(grid), ulps=8)


def test_a_first_call_the_compiled_graph_refuses_still_leaves_it_compiled(cache):
    """The call that asks for the compile has an index out of range: tier 0 raises, the
    compile (run on that call's values) succeeds, and later calls use it."""
    v, i = tt.dvector("v"), tt.lvector("i")
    with theon.config.change_flags(tier1_graph_calls=1, tier1_autotune=False,
                                   cache_dir=cache, tier=1):
        f = theon.function([v, i], v[i] * 2.0)
        with pytest.raises(IndexError):
            f(np.arange(3.0), np.array([7, 0]))
        assert tier1.wait(300)
        np.testing.assert_array_equal(f(np.arange(3.0), np.array([2, 0])), [4.0, 0.0])
    assert f._runner.slot.state == "ready", f._runner.slot.error


def _compile_once(tmp_path, fn):
    """Compile a graph of its own (compiled functions are also kept in memory, by text)."""
    x = tt.dvector("x")
    with theon.config.change_flags(tier1_graph_calls=1, tier1_autotune=False,
                                   cache_dir=str(tmp_path), tier=1):
        f = theon.function([x], fn(x).sum())
        before = tier1.stats()
        f(np.arange(4.0))
        assert tier1.wait(300)
        f(np.arange(4.0))
    assert f._runner.slot.state == "ready", f._runner.slot.error
    after = tier1.stats()
    return {k: after[k] - before.get(k, 0) for k in ("disk_hits", "disk_misses")}


def test_the_whole_graph_is_compiled_in_a_child_process_and_loaded_here(tmp_path):
    """The child writes numba's machine code to the cache; this process loads it (a hit)."""
    assert _compile_once(tmp_path, lambda x: tt.exp(x) * 3.0 - x) == {"disk_hits": 1,
                                                                      "disk_misses": 0}
    assert list((tmp_path / "tier1" / "numba" / "__pycache__").glob("*.nbc"))


def test_a_child_that_fails_leaves_the_compile_to_this_process(tmp_path, monkeypatch):
    from theon.link.tier1 import loops

    monkeypatch.setattr(loops, "_CHILD", "raise SystemExit(3)")
    assert _compile_once(tmp_path, lambda x: tt.log1p(x * x) + tt.cos(x)) == {
        "disk_hits": 0, "disk_misses": 1}


class _SlowCompiler:
    """A compiler whose graph function is right but sleeps 20 ms a call."""

    def compile_loop(self, header, source, fname, sample, options="", elsewhere=False):
        import time

        ns = {"np": np, "math": __import__("math")}
        exec(source, ns)
        fn = ns[fname]

        def slow(*a):
            time.sleep(0.02)
            return fn(*a)

        return slow


def test_a_compiled_graph_slower_than_tier_0_is_dropped_quietly():
    x = tt.dvector("x")
    with theon.config.change_flags(tier1_graph_calls=1, tier=1, tier1_autotune=True), \
            tier1.use_compiler("graph", _SlowCompiler()):
        f = theon.function([x], (x * 2.0).sum())
        f(np.ones(3))
        assert tier1.wait(60)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            assert f(np.ones(3)) == 6.0
    assert f._runner.slot.state == "dropped"


def test_calls_refused_while_checking_keep_the_check_for_a_later_call(cache):
    """The first call after the compile broadcasts at run time (refused): tier 0 serves
    it, and the next call is checked instead."""
    x = tt.dvector("x")
    y = tt.dvector("y")
    with theon.config.change_flags(tier1_graph_calls=1, tier1_autotune=False, cache_dir=cache,
                                   tier=1):
        f = theon.function([x, y], x * y + 1.0)
        f(np.ones(3), np.ones(3))
        assert tier1.wait(300)
        np.testing.assert_array_equal(f(np.ones(3), np.ones(1)), [2.0, 2.0, 2.0])
        assert f._runner.slot.state == "verify"
        np.testing.assert_array_equal(f(np.ones(2), np.ones(2)), [2.0, 2.0])
    assert f._runner.slot.state == "ready"
