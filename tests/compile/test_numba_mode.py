"""mode="NUMBA" (PyTensor's name): theon's generated Python with tier-1 numba kernels for
the nodes numba takes, tier 0 elsewhere, said once in a warning (theon.link.numba)."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.compile.mode import Mode, get_mode
from theon.link import tier1
from theon.link.numba import NumbaLinker
from theon.link.pyfunc.linker import PyLinker


@pytest.fixture
def cache(tmp_path):
    with theon.config.change_flags(cache_dir=str(tmp_path), tier1_small_threshold=1024):
        yield


def _kernels(f):
    runner = getattr(f._runner, "tier0", None) or f._runner  # (under the whole-graph tier)
    return [v for v in runner.fn.__globals__.values() if type(v).__name__ == "Tier1Kernel"]


def compile_quietly(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return theon.function(*args, **kwargs)


def test_the_names_pytensor_programs_use():
    for mode in (get_mode("NUMBA"), Mode(linker="numba")):
        assert isinstance(mode.linker, NumbaLinker) and mode.linker.tier == 1
    assert get_mode("NUMBA").optimizer == "fast_run"
    # PyMC's testing helper asks whether the default mode's linker is numba's: it is not
    assert not isinstance(theon.compile.get_default_mode().linker, NumbaLinker)
    assert isinstance(NumbaLinker(), PyLinker)


def test_the_warning_is_said_once_per_process():
    code = textwrap.dedent("""
        import warnings, numpy as np, theon, theon.tensor as tt
        x = tt.dvector("x")
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            f = theon.function([x], tt.tanh(x) + 1, mode="NUMBA")
            g = theon.function([x], tt.exp(x) * 2, mode="NUMBA")
        assert np.allclose(f(np.zeros(3)), 1.0) and np.allclose(g(np.zeros(3)), 2.0)
        msgs = [str(w.message) for w in seen if "NUMBA" in str(w.message)]
        print(len(msgs)); print(msgs[0])
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    count, msg = r.stdout.splitlines()[:2]
    assert count == "1"
    assert "tier 0" in msg and "docs/tier1.md" in msg


def test_numba_serves_the_nodes_it_takes_and_tier0_the_rest(cache):
    pytest.importorskip("numba", reason="mode='NUMBA' kernels need numba")
    rng = np.random.default_rng(0)
    x, b = tt.dmatrix("x"), tt.dvector("b")
    f = compile_quietly([x, b], tt.tanh(x + b) * 2.0 - x, mode="NUMBA")
    xv, bv = rng.normal(size=(64, 64)), rng.normal(size=64)
    want = np.tanh(xv + bv) * 2.0 - xv
    np.testing.assert_allclose(f(xv, bv), want, rtol=1e-14)
    assert tier1.wait(120)
    f(xv, bv)  # (checked against tier 0)
    before = tier1.stats()["tier1_calls"]
    np.testing.assert_allclose(f(xv, bv), want, rtol=1e-14, atol=1e-15)
    assert tier1.stats()["tier1_calls"] - before >= 1
    (kern,) = _kernels(f)
    assert type(kern.slot.impl).__name__ == "WholeKernel"  # numba's, not XLA's chunks
    # a large call stays with numba (no XLA in this mode)
    big = rng.normal(size=(512, 512))
    bb = rng.normal(size=512)
    np.testing.assert_allclose(f(big, bb), np.tanh(big + bb) * 2.0 - big, rtol=1e-14,
                               atol=1e-15)
    assert tier1.wait(120)
    assert type(kern.slot.impl).__name__ == "WholeKernel"


def test_a_node_only_xla_takes_runs_tier0_code(cache):
    """exp is not numba's (its kernels take arithmetic and tanh): even a call far past
    tier1_threshold stays on tier 0, where the default mode would ask XLA."""
    x = tt.dvector("x")
    f = compile_quietly([x], tt.exp(x) * 2.0 + 1.0, mode="NUMBA")
    kernels = _kernels(f)
    assert not kernels or all(k.slot.state == "idle" for k in kernels)
    v = np.linspace(-1, 1, 1 << 18)
    before = tier1.stats()["submitted"]
    np.testing.assert_allclose(f(v), np.exp(v) * 2.0 + 1.0, rtol=1e-14)
    assert tier1.wait(120)
    assert tier1.stats()["submitted"] == before


def test_scan_loops_get_numba_loops_and_equal_numpy(cache):
    pytest.importorskip("numba", reason="mode='NUMBA' kernels need numba")
    v = tt.dvector("v")
    out, _ = theon.scan(lambda xt, acc: acc * 0.5 + tt.tanh(xt), sequences=[v],
                        outputs_info=[tt.zeros(())])
    a = np.linspace(-2, 2, 50)
    acc, want = 0.0, []
    for t in a:
        acc = acc * 0.5 + np.tanh(t)
        want.append(acc)
    with theon.config.change_flags(tier1_scan_steps=10):
        f = compile_quietly([v], out, mode="NUMBA")
        before = tier1.stats()["submitted"]
        np.testing.assert_allclose(f(a), want, rtol=1e-13)
        assert tier1.wait(120)
        assert tier1.stats()["submitted"] > before  # the loop's numba kernel
        for _ in range(2):
            np.testing.assert_allclose(f(a), want, rtol=1e-13)
