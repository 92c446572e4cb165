"""Tier 1: kernels compiled in the background, swapped in, checked, cached on disk.

The scheduling tests inject fake compilers (a slow one that waits on an Event
the test holds, a wrong one); the real compilers (jax's XLA, numba) are tested
against NumPy where they are installed.  No timing assertions.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

import theon
import theon.tensor as T
from theon.compile.mode import Mode
from theon.link import tier1
from theon.link.pyfunc.kernel import KConst

ROOT = Path(__file__).resolve().parents[3]


def eval_spec(spec, ins):
    """A KernelSpec evaluated with NumPy on whole arrays (the fake kernels' body)."""
    vals = list(ins)

    def ref(a):
        return a.value if isinstance(a, KConst) else vals[a]

    with np.errstate(all="ignore"):
        for st in spec.steps:
            args = [ref(a) for a in st.args]
            r = args[0]
            if st.fold and len(args) > 2:
                r = st.fn(args[0], args[1])
                for a in args[2:]:
                    r = st.fn(r, a)
            else:
                r = st.fn(*args)
            vals.append(np.asarray(r).astype(st.dtype))
    return [np.asarray(ref(r)).astype(dt) for r, dt in zip(spec.outputs, spec.out_dtypes)]


class FakeKernel:
    """A chunk kernel that counts its calls; ``bias`` makes it wrong."""

    def __init__(self, spec, chunk, bias=0.0):
        self.spec, self.chunk, self.bias = spec, chunk, bias
        self.calls = 0

    def __call__(self, *ins):
        self.calls += 1
        return [o + self.bias for o in eval_spec(self.spec, ins)]


class FakeCompiler:
    """Compiles nothing: waits on ``release`` (the test holds it), then returns a FakeKernel."""

    def __init__(self, bias=0.0, chunk=1000):
        self.release = threading.Event()
        self.started = threading.Event()
        self.finished = threading.Event()
        self.bias, self.chunk = bias, chunk
        self.kernels: list[FakeKernel] = []

    def compile_elemwise(self, spec, sig, size):
        self.started.set()
        assert self.release.wait(10), "the test never released the compiler"
        k = FakeKernel(spec, self.chunk, self.bias)
        self.kernels.append(k)
        self.finished.set()
        return k


def chain(x, y):
    return T.exp(-(x**2)) * T.sin(y) + T.log1p(x**2) - T.tanh(y) / 2 + T.sqrt(abs(x * y) + 1)


def chain_np(a, b):
    return (np.exp(-(a**2)) * np.sin(b) + np.log1p(a**2) - np.tanh(b) / 2
            + np.sqrt(np.abs(a * b) + 1))


@pytest.fixture
def small_threshold(tmp_path):
    with theon.config.change_flags(tier1_threshold=2000, cache_dir=str(tmp_path)):
        yield


def _data(n=40_007, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=n).astype(dtype), rng.normal(size=n).astype(dtype)


def test_first_call_never_waits_on_the_compile(small_threshold):
    comp = FakeCompiler()
    with tier1.use_compiler("elemwise", comp):
        x, y = T.dvectors("x", "y")
        f = theon.function([x, y], chain(x, y), mode=Mode(tier=1))
        a, b = _data()
        first = f(a, b)  # submits the job; must not wait for it
        assert comp.started.wait(30)
        assert not comp.finished.is_set()
        np.testing.assert_allclose(first, chain_np(a, b), rtol=1e-12)
        again = f(a, b)  # still compiling: tier 0 serves this call too
        assert not comp.finished.is_set()
        np.testing.assert_allclose(again, chain_np(a, b), rtol=1e-12)
        comp.release.set()
        assert tier1.wait(30)
        (kern,) = comp.kernels
        f(a, b)  # the first call of the tier-1 kernel: checked against tier 0
        checked = kern.calls
        assert checked > 0
        out = f(a, b)
        assert kern.calls > checked  # this call ran the tier-1 kernel
        np.testing.assert_allclose(out, chain_np(a, b), rtol=1e-12)


def test_wrong_kernel_is_dropped_with_a_warning_naming_the_node(small_threshold):
    comp = FakeCompiler(bias=1.0)
    comp.release.set()
    with tier1.use_compiler("elemwise", comp):
        x, y = T.dvectors("x", "y")
        f = theon.function([x, y], chain(x, y), mode=Mode(tier=1))
        a, b = _data()
        f(a, b)
        assert tier1.wait(30)
        with pytest.warns(RuntimeWarning, match="differ from tier 0") as rec:
            out = f(a, b)
        text = str(rec[0].message)
        assert "Composite" in text and "test_tier1.py" in text  # the node, the user's line
        np.testing.assert_allclose(out, chain_np(a, b), rtol=1e-12)
        (kern,) = comp.kernels
        calls = kern.calls
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out = f(a, b)  # dropped for good: tier 0, no new warning
        assert kern.calls == calls
        np.testing.assert_allclose(out, chain_np(a, b), rtol=1e-12)


def test_below_threshold_nothing_is_compiled(small_threshold):
    comp = FakeCompiler()
    comp.release.set()
    with tier1.use_compiler("elemwise", comp):
        x, y = T.dvectors("x", "y")
        f = theon.function([x, y], chain(x, y), mode=Mode(tier=1))
        a, b = _data(1000)
        np.testing.assert_allclose(f(a, b), chain_np(a, b), rtol=1e-12)
        assert tier1.wait(30)
        assert not comp.started.is_set()


def test_mode_tier0_never_starts_the_worker():
    code = textwrap.dedent("""
        import numpy as np, theon, theon.tensor as T
        from theon.compile.mode import Mode
        from theon.link import tier1
        x, y = T.dvectors("x", "y")
        for mode in (Mode(tier=0), Mode(linker="vm", tier=1), Mode(tier=0).clone()):
            f = theon.function([x, y], T.exp(x) * T.sin(y) + 1, mode=mode)
            a = np.ones(300_000)
            assert np.allclose(f(a, a), np.exp(a) * np.sin(a) + 1)
            f(a, a)
        x0 = T.dscalar("x0")
        xs, _ = theon.scan(lambda v: v * 0.5 + T.sin(v), outputs_info=x0, n_steps=5000)
        g = theon.function([x0], xs[-1], mode=Mode(tier=0))
        g(1.0), g(1.0)
        print("started", tier1.worker_started(), tier1.stats()["submitted"])
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "started False 0" in out.stdout


def test_mode_keeps_its_tier():
    m = Mode(tier=1)
    assert m.clone().tier == 1 and m.including("fast_run").tier == 1
    assert m.linker.tier == 1
    assert Mode(tier=0).linker.tier == 0
    assert Mode(linker="vm", tier=1).linker.name == "vm"
    with pytest.raises(ValueError, match="tier"):
        Mode(tier=2)


def test_profile_says_once_when_no_compiler_is_installed():
    with (tier1.use_compiler("elemwise", None), tier1.use_compiler("loop", None),
          tier1.use_compiler("elemwise_small", None), tier1.use_compiler("graph", None)):
        x, y = T.dvectors("x", "y")
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            f = theon.function([x, y], chain(x, y), mode=Mode(tier="auto"), profile=True)
            f(*_data())
        text = f.profile.summary_text()
    assert text.count("no kernel compiler installed") == 1


def test_config_flag_switches_tier():
    with theon.config.change_flags(tier=0):
        assert tier1.resolve_tier(None) == 0
    with theon.config.change_flags(tier=1):
        assert tier1.resolve_tier(None) == 1


class RaisingKernel(FakeKernel):
    """Right on its first call (the check), raises afterwards."""

    armed = False  # set by the test once the check has passed

    def __call__(self, *ins):
        if self.armed:
            raise FloatingPointError("device lost")
        return super().__call__(*ins)


def test_kernel_that_raises_later_is_dropped_and_tier0_serves(small_threshold):
    comp = FakeCompiler()
    comp.release.set()
    made: list[RaisingKernel] = []

    def compile_elemwise(spec, sig, size):
        made.append(RaisingKernel(spec, comp.chunk))
        return made[-1]

    comp.compile_elemwise = compile_elemwise
    with tier1.use_compiler("elemwise", comp):
        x, y = T.dvectors("x", "y")
        f = theon.function([x, y], chain(x, y), mode=Mode(tier=1))
        a, b = _data()
        f(a, b)
        assert tier1.wait(30)
        verified = tier1.stats()["verified"]
        f(a, b)  # checked: right
        assert tier1.stats()["verified"] == verified + 1 and len(made) == 1
        made[0].armed = True
        with pytest.warns(RuntimeWarning, match="device lost"):
            out = f(a, b)
        np.testing.assert_allclose(out, chain_np(a, b), rtol=1e-12)


def test_without_jax_and_numba_theon_stays_on_tier0():
    code = textwrap.dedent("""
        import sys
        sys.modules["jax"] = None  # as if not installed
        sys.modules["numba"] = None
        import numpy as np, theon, theon.tensor as T
        from theon.link import tier1
        x, y = T.dvectors("x", "y")
        f = theon.function([x, y], T.exp(x) * T.sin(y) + T.tanh(x), profile=True)
        a = np.linspace(-1, 1, 300_000)
        for _ in range(3):
            assert np.allclose(f(a, a), np.exp(a) * np.sin(a) + np.tanh(a))
        x0 = T.dscalar("x0")
        xs, _ = theon.scan(lambda v: v * 0.5 + T.sin(v), outputs_info=x0, n_steps=5000)
        g = theon.function([x0], xs[-1])
        g(1.0), g(1.0)
        print(f.profile.summary_text())
        print("started", tier1.worker_started(), "jax" in sys.modules and sys.modules["jax"])
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("THEON_FLAGS", None)
    out = subprocess.run([sys.executable, "-W", "error", "-c", code], capture_output=True,
                         text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("no kernel compiler installed") == 1
    assert "started False None" in out.stdout


def test_exit_waits_for_the_compile_in_progress(tmp_path):
    """A job still running when the script ends finishes before the interpreter does (a
    daemon thread killed inside a compiler's C++ code aborts the process); the jobs
    queued behind it are skipped."""
    done, skipped = tmp_path / "done", tmp_path / "skipped"
    code = textwrap.dedent(f"""
        import threading, time
        from theon.link.tier1 import worker
        started = threading.Event()
        def slow():
            started.set()
            time.sleep(0.5)
            open({str(done)!r}, "w").close()
        def queued():
            open({str(skipped)!r}, "w").close()
        worker.submit(slow)
        worker.submit(queued)
        started.wait(60)
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT),
                                                          "THEON_FLAGS": "tier1_delay_ms=0"})
    assert out.returncode == 0, out.stderr
    assert done.exists()
    assert not skipped.exists()
