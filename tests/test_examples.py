"""The worked examples of ARCHITECTURE.md (``examples/``) do what they say.

Each example is imported as a module (``examples/`` on ``sys.path``, as when it
runs as a script) and checked against NumPy; each also runs as a script.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import theon
import theon.tensor as tt
from theon.compile.mode import Mode

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
sys.path.insert(0, str(EXAMPLES))

import new_backend_rule  # noqa: E402
import new_op  # noqa: E402
import new_rewrite  # noqa: E402
import new_scalar_op  # noqa: E402

VM = Mode(linker="vm")


def np_soft_threshold(x: np.ndarray, lam: float) -> np.ndarray:
    return np.sign(x) * np.maximum(np.abs(x) - lam, 0)


def nodes(f: theon.compile.Function) -> list[str]:
    return [type(n.op).__name__ for n in f.maker.fgraph.toposort()]


# -- new_op.py ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode", [None, VM, "FAST_COMPILE"], ids=["py", "vm", "fast_compile"])
def test_op_values_match_numpy(dtype: str, mode: object) -> None:
    x = tt.vector("x", dtype=dtype)
    f = theon.function([x], new_op.soft_threshold(x, 0.5), mode=mode)
    v = np.array([-np.inf, -2.0, -0.5, -0.25, -0.0, 0.0, 0.3, 0.5, 0.75, 1e30, np.inf, np.nan],
                 dtype=dtype)
    out = f(v)
    ref = np_soft_threshold(v, 0.5).astype(dtype)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, ref)


def test_op_default_linker_uses_the_emitter() -> None:
    x = tt.dvector("x")
    f = theon.function([x], new_op.soft_threshold(x, 1.0))
    src = f._runner.source
    assert src is not None and ".sign(" in src and "perform" not in src
    vm = theon.function([x], new_op.soft_threshold(x, 1.0), mode=VM)
    v = np.random.default_rng(0).normal(size=50) * 3
    np.testing.assert_array_equal(f(v), vm(v))


def test_op_identity_is_its_props() -> None:
    assert new_op.SoftThreshold(0.5) == new_op.SoftThreshold(0.5)
    assert new_op.SoftThreshold(0.5) != new_op.SoftThreshold(0.25)
    assert hash(new_op.SoftThreshold(0.5)) == hash(new_op.SoftThreshold(0.5))


@pytest.mark.parametrize(
    "value",
    [np.array([-2.0, -0.1, 0.2, 3.0]), np.array([-60.0, 7.5, 45.0]), np.array([[0.9, -40.0]])],
)
def test_op_grad_by_finite_differences(value: np.ndarray) -> None:
    theon.verify_grad(lambda v: new_op.SoftThreshold(0.5)(v), [value],
                      rng=np.random.default_rng(1))


def test_op_grad_values() -> None:
    x = tt.dvector("x")
    g = theon.function([x], theon.grad(new_op.soft_threshold(x, 0.5).sum(), x))
    np.testing.assert_array_equal(g(np.array([-2.0, -0.5, 0.1, 0.6])), [1.0, 0.0, 0.0, 1.0])


def test_op_infer_shape_computes_nothing() -> None:
    x = tt.dmatrix("x")
    f = theon.function([x], new_op.soft_threshold(x, 0.5).shape)
    assert "SoftThreshold" not in nodes(f)
    assert tuple(f(np.zeros((3, 4)))) == (3, 4)


def test_op_bad_input_is_a_clear_error() -> None:
    with pytest.raises(TypeError, match="float tensor.*int64"):
        new_op.soft_threshold(tt.lvector("i"), 1.0)
    with pytest.raises(ValueError, match="lam >= 0"):
        new_op.SoftThreshold(-1.0)


# -- new_rewrite.py ----------------------------------------------------------------------
def test_rewrite_twice_fires_and_matches_numpy() -> None:
    x = tt.dvector("x")
    f = theon.function([x], new_op.soft_threshold(new_op.soft_threshold(x, 0.5), 0.25))
    assert nodes(f) == ["SoftThreshold"]
    assert f.maker.fgraph.toposort()[0].op == new_op.SoftThreshold(0.75)
    v = np.array([-3.0, -0.7, 0.0, 0.6, 0.8, 2.0])
    np.testing.assert_allclose(f(v), np_soft_threshold(np_soft_threshold(v, 0.5), 0.25))


def test_rewrite_zero_removes_the_node_exactly() -> None:
    x = tt.dvector("x")
    f = theon.function([x], new_op.soft_threshold(x, 0.0))
    assert nodes(f) == ["DeepCopyOp"]  # only the result's copy of x is left
    v = np.array([-np.inf, -1.5, -0.0, 0.0, 2.0, np.inf, np.nan])
    out = f(v)
    np.testing.assert_array_equal(out, np_soft_threshold(v, 0.0))
    # the one documented difference: -0.0 keeps its sign (the op itself gives +0.0)
    np.testing.assert_array_equal(np.signbit(out), np.signbit(v))


def test_rewrites_are_registered_under_their_names() -> None:
    from theon.rewriting import rewrite_db

    assert "local_soft_threshold_twice" in rewrite_db
    assert "local_soft_threshold_zero" in rewrite_db
    doc = new_rewrite.local_soft_threshold_twice.__doc__
    assert doc is not None and "a + b" in doc


@settings(max_examples=60, deadline=None)
@given(
    v=hnp.arrays(np.float64, st.integers(1, 8),
                 elements=st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=True)),
    a=st.floats(0, 100),
    b=st.floats(0, 100),
)
def test_rewrites_differential(v: np.ndarray, a: float, b: float) -> None:
    """FAST_RUN (rewritten) against the unrewritten graph on the reference VM."""
    x = tt.dvector("x")
    y = new_op.soft_threshold(new_op.soft_threshold(new_op.soft_threshold(x, a), b), 0.0)
    fast = theon.function([x], y)
    plain = theon.function([x], y, mode=Mode(linker="vm", optimizer=None))
    assert nodes(plain).count("SoftThreshold") == 3
    assert nodes(fast).count("SoftThreshold") <= 1
    np.testing.assert_allclose(fast(v), plain(v), rtol=1e-12, atol=1e-9)


# -- new_scalar_op.py ----------------------------------------------------------------------
def np_gd(x: np.ndarray) -> np.ndarray:
    """The Gudermannian in NumPy: arctan(sinh(x))."""
    with np.errstate(over="ignore"):
        return np.arctan(np.sinh(x))


def test_the_reference_is_the_gudermannian() -> None:
    """By two other identities: 2 arctan(tanh(x / 2)), and pi/2 - 2 arctan(exp(-x))."""
    v = np.linspace(-8, 8, 161)
    np.testing.assert_allclose(np_gd(v), 2 * np.arctan(np.tanh(v / 2)), rtol=1e-14, atol=1e-15)
    far = np.array([20.0, 30.0, 300.0])
    np.testing.assert_allclose(np_gd(far), np.pi / 2 - 2 * np.arctan(np.exp(-far)), rtol=1e-16)


EXTREMES = [-np.inf, -800.0, -30.0, -1.0, -1e-300, -0.0, 0.0, 5e-324, 0.5, 2.0, 40.0, 1e308,
            np.inf, np.nan]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int16"])
@pytest.mark.parametrize("mode", [None, VM, "FAST_COMPILE"], ids=["py", "vm", "fast_compile"])
def test_scalar_op_values_match_numpy(dtype: str, mode: object) -> None:
    x = tt.vector("x", dtype=dtype)
    if dtype == "int16":
        v = np.array([-300, -2, -1, 0, 1, 3, 32767], dtype=dtype)
    else:
        with np.errstate(over="ignore"):
            v = np.array(EXTREMES, dtype=dtype)
    want = np_gd(v)
    y = new_scalar_op.gd(x)
    assert y.dtype == want.dtype  # NumPy's rule: int16 gives float32, as sinh does
    out = theon.function([x], y, mode=mode)(v)
    assert out.dtype == want.dtype
    np.testing.assert_allclose(out, want, rtol=1e-6 if want.dtype == "float32" else 1e-15,
                               atol=0)


def test_scalar_op_0d_and_fused_paths_match_numpy() -> None:
    """The 0-d fast path and a fused loop use ``py_template``: the same values."""
    s = tt.dscalar("s")
    f0 = theon.function([s], new_scalar_op.gd(s))
    m = tt.dmatrix("m")
    fused = theon.function([m], new_scalar_op.gd(m * 2.0) + tt.exp(m))
    for v in EXTREMES:
        np.testing.assert_allclose(f0(v), np_gd(np.float64(v)), rtol=1e-15)
    v = np.array(EXTREMES[1:-1]).reshape(3, 4) / 4
    with np.errstate(over="ignore"):
        np.testing.assert_allclose(fused(v), np_gd(v * 2.0) + np.exp(v), rtol=1e-15)


@pytest.mark.parametrize("value", [np.array([-3.0, -0.1, 0.2, 4.0]),
                                   np.array([[-25.0, 18.0], [1e-8, -1e-8]])])
def test_scalar_op_grad_by_finite_differences(value: np.ndarray) -> None:
    theon.verify_grad(new_scalar_op.gd, [value], rng=np.random.default_rng(2))


def test_scalar_op_grad_values_at_extremes() -> None:
    """1/cosh(x): 1 at 0, exp(-|x|) * 2 far out, 0 where cosh overflows, nan at nan."""
    x = tt.dvector("x")
    g = theon.function([x], theon.grad(new_scalar_op.gd(x).sum(), x))
    v = np.array([0.0, -30.0, 30.0, 800.0, -np.inf, np.nan])
    with np.errstate(over="ignore"):
        want = 1.0 / np.cosh(v)
    np.testing.assert_allclose(g(v), want, rtol=1e-15)


def test_scalar_op_jax_rule_matches_the_reference_vm() -> None:
    pytest.importorskip("jax", reason="mode='JAX' needs the optional jax extra")
    x = tt.vector("x", dtype="float32")
    d = tt.dvector("d")
    outs32 = [new_scalar_op.gd(x), theon.grad(new_scalar_op.gd(x).sum(), x)]
    outs64 = [new_scalar_op.gd(d), theon.grad(new_scalar_op.gd(d).sum(), d)]
    v = np.array([-30.0, -1.0, -0.0, 0.25, 3.0, 700.0])
    for var, outs, dt, rtol in [(x, outs32, "float32", 1e-6), (d, outs64, "float64", 1e-12)]:
        jf = theon.function([var], outs, mode="JAX")
        vf = theon.function([var], outs, mode=VM)
        for got, want in zip(jf(v.astype(dt)), vf(v.astype(dt))):
            assert got.dtype == want.dtype == dt
            np.testing.assert_allclose(got, want, rtol=rtol, atol=0)


# -- new_backend_rule.py -------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_backend_rule_jax_matches_numpy_and_the_vm(dtype: str) -> None:
    pytest.importorskip("jax", reason="mode='JAX' needs the optional jax extra")
    x = tt.vector("x", dtype=dtype)
    y = new_op.soft_threshold(x, 0.5)
    outs = [y, theon.grad(y.sum(), x)]
    v = np.array([-np.inf, -2.0, -0.5, -0.25, 0.0, 0.3, 0.75, 1e30, np.inf], dtype=dtype)
    got = theon.function([x], outs, mode="JAX")(v)
    want = theon.function([x], outs, mode=VM)(v)
    np.testing.assert_array_equal(got[0], np_soft_threshold(v, 0.5).astype(dtype))
    for g, w in zip(got, want):
        assert g.dtype == w.dtype == dtype
        np.testing.assert_array_equal(g, w)
    assert new_backend_rule._jax_soft_threshold.__doc__


def test_without_the_rule_jax_names_the_op() -> None:
    """In a process that never imports new_backend_rule, mode="JAX" refuses SoftThreshold."""
    pytest.importorskip("jax", reason="mode='JAX' needs the optional jax extra")
    code = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import theon, theon.tensor as tt, new_op\n"
        "x = tt.dvector('x')\n"
        "try:\n"
        "    theon.function([x], new_op.soft_threshold(x, 0.5), mode='JAX')\n"
        "except Exception as e:\n"
        "    print(type(e).__name__, e)\n"
    )
    res = subprocess.run([sys.executable, "-c", code, str(EXAMPLES)], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert "SoftThreshold" in res.stdout and "JAX rule" in res.stdout, res.stdout


# -- each runs as a script -----------------------------------------------------------------
@pytest.mark.parametrize("script", ["new_op.py", "new_rewrite.py", "new_scalar_op.py",
                                    "new_backend_rule.py"])
def test_example_runs_as_a_script(script: str) -> None:
    if script == "new_backend_rule.py":
        pytest.importorskip("jax", reason="the example runs mode='JAX'")
    res = subprocess.run([sys.executable, str(EXAMPLES / script)], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip()
