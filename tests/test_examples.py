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

import new_op  # noqa: E402
import new_rewrite  # noqa: E402

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
    assert nodes(f) == []
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


# -- both run as scripts -------------------------------------------------------------------
@pytest.mark.parametrize("script", ["new_op.py", "new_rewrite.py"])
def test_example_runs_as_a_script(script: str) -> None:
    res = subprocess.run([sys.executable, str(EXAMPLES / script)], capture_output=True,
                         text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip()
