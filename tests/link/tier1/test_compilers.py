"""The real tier-1 compilers against NumPy: XLA (jax) for fused nodes, numba for scan
loops; their disk cache across processes, and corrupt entries.  Skipped without them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import theon
import theon.tensor as T
from theon.compile.mode import Mode
from theon.link import tier1

ROOT = Path(__file__).resolve().parents[3]
TOL = {"float64": dict(rtol=1e-12, atol=1e-12), "float32": dict(rtol=1e-5, atol=1e-6)}


@pytest.fixture
def cache(tmp_path):
    # (no autotune: these tests check tier 1's results even where it is not faster)
    with theon.config.change_flags(tier1_threshold=40_000, cache_dir=str(tmp_path),
                                   tier1_autotune=False):
        yield tmp_path


def run_tier1(f, *args):
    """Call ``f`` until its tier-1 kernels serve a call; returns that call's result."""
    f(*args)
    assert tier1.wait(120)
    f(*args)  # the check against tier 0
    before = tier1.stats()["tier1_calls"]
    out = f(*args)
    assert tier1.stats()["tier1_calls"] > before, str(tier1.stats())
    return out


def chain_np(a, b):
    return (np.exp(-(a**2)) * np.sin(b) + np.log1p(a**2) - np.tanh(b) / 2
            + np.sqrt(np.abs(a * b) + 1))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_xla_chain_equals_numpy(cache, dtype):
    pytest.importorskip("jax", reason="tier 1 for fused nodes needs jax (theon[jax])")
    x, y = T.vector("x", dtype=dtype), T.vector("y", dtype=dtype)
    expr = (T.exp(-(x**2)) * T.sin(y) + T.log1p(x**2) - T.tanh(y) / 2
            + T.sqrt(abs(x * y) + 1))
    f = theon.function([x, y], expr, mode=Mode(tier=1))
    rng = np.random.default_rng(3)
    a, b = (rng.normal(size=100_003).astype(dtype) for _ in range(2))
    out = run_tier1(f, a, b)
    assert out.dtype == dtype
    np.testing.assert_allclose(out, chain_np(a, b), **TOL[dtype])


def test_xla_broadcasting_and_strided_inputs(cache):
    pytest.importorskip("jax", reason="tier 1 for fused nodes needs jax (theon[jax])")
    m, r = T.dmatrix("m"), T.drow("r")
    f = theon.function([m, r], T.exp(m) * T.sin(r) + T.sqrt(abs(m)), mode=Mode(tier=1))
    rng = np.random.default_rng(4)
    big = rng.normal(size=(400, 402))
    mv, rv = big[:, ::2], rng.normal(size=(1, 201))  # a strided matrix, a broadcast row
    assert not mv.flags.c_contiguous
    out = run_tier1(f, mv, rv)
    np.testing.assert_allclose(out, np.exp(mv) * np.sin(rv) + np.sqrt(np.abs(mv)),
                               **TOL["float64"])


def test_xla_with_destroyed_input(cache):
    pytest.importorskip("jax", reason="tier 1 for fused nodes needs jax (theon[jax])")
    x = T.dvector("x")
    f = theon.function([theon.In(x, mutable=True)], T.exp(x) * 2 + T.cos(x), mode=Mode(tier=1))
    rng = np.random.default_rng(5)
    a = rng.normal(size=100_000)
    ref = np.exp(a) * 2 + np.cos(a)
    f(a.copy())
    assert tier1.wait(120)
    for _ in range(3):
        np.testing.assert_allclose(f(a.copy()), ref, **TOL["float64"])


def test_numba_scan_loop_equals_numpy(cache):
    pytest.importorskip("numba", reason="tier 1 for scan loops needs numba (theon[numba])")
    x0, a = T.dscalar("x0"), T.dscalar("a")
    xs, _ = theon.scan(lambda x, aa: x * aa + T.sin(x), outputs_info=x0, non_sequences=a,
                       n_steps=5000)
    f = theon.function([x0, a], [xs, theon.grad(xs[-1], a)], mode=Mode(tier=1))
    out = run_tier1(f, 1.0, 0.5)
    ref = [1.0]
    for _ in range(5000):
        ref.append(ref[-1] * 0.5 + np.sin(ref[-1]))
    np.testing.assert_allclose(out[0], ref[1:], rtol=1e-12)
    eps = 1e-6  # the gradient by central differences of the NumPy loop
    hi, lo = 1.0, 1.0
    for _ in range(5000):
        hi = hi * (0.5 + eps) + np.sin(hi)
        lo = lo * (0.5 - eps) + np.sin(lo)
    np.testing.assert_allclose(out[1], (hi - lo) / (2 * eps), rtol=1e-5)


def test_numba_loop_with_sequence_and_nit_output(cache):
    pytest.importorskip("numba", reason="tier 1 for scan loops needs numba (theon[numba])")
    q = T.dvector("q")
    h0 = T.dscalar("h0")
    (hs, ys), _ = theon.scan(lambda s, h: (h * 0.9 + s, T.cos(h) * s), sequences=q,
                             outputs_info=[h0, None])
    f = theon.function([q, h0], [hs, ys], mode=Mode(tier=1))
    qv = np.random.default_rng(6).normal(size=3000)
    out = run_tier1(f, qv, 0.25)
    h, hs_ref, ys_ref = 0.25, [], []
    for s in qv:
        ys_ref.append(np.cos(h) * s)
        h = h * 0.9 + s
        hs_ref.append(h)
    np.testing.assert_allclose(out[0], hs_ref, rtol=1e-12)
    np.testing.assert_allclose(out[1], ys_ref, rtol=1e-12)


SCRIPT = """
import json, numpy as np, theon, theon.tensor as T
from theon.compile.mode import Mode
from theon.link import tier1
x, y = T.dvectors("x", "y")
f = theon.function([x, y], T.exp(-x * x) * T.sin(y) + T.tanh(y), mode=Mode(tier=1))
x0, a = T.dscalar("x0"), T.dscalar("a")
xs, _ = theon.scan(lambda v, aa: v * aa + T.sin(v), outputs_info=x0, non_sequences=a,
                   n_steps=3000)
g = theon.function([x0, a], xs[-1], mode=Mode(tier=1))
rng = np.random.default_rng(0)
p, q = rng.normal(size=100_000), rng.normal(size=100_000)
ok = True
for _ in range(3):
    ok &= bool(np.allclose(f(p, q), np.exp(-p * p) * np.sin(q) + np.tanh(q)))
    g(1.0, 0.5)
    tier1.wait(120)
print(json.dumps({"ok": ok, **tier1.stats()}))
"""


def _run(cache_dir: Path) -> dict[str, int]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "THEON_CACHE_DIR": str(cache_dir),
           "THEON_FLAGS": "tier1_threshold=40000,tier1_autotune=False"}
    out = subprocess.run([sys.executable, "-c", textwrap.dedent(SCRIPT)], capture_output=True,
                         text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_disk_cache_next_process_starts_warm_and_survives_corruption(tmp_path):
    have_jax = tier1.available("elemwise")
    have_numba = tier1.available("loop")
    if not (have_jax or have_numba):
        pytest.skip("no tier-1 compiler installed (theon[jax], theon[numba])")
    n = have_jax + have_numba
    first = _run(tmp_path)
    assert first["ok"] and first["disk_misses"] == n and first["disk_hits"] == 0, first
    assert first["verified"] == n
    second = _run(tmp_path)
    assert second["ok"] and second["disk_hits"] == n and second["disk_misses"] == 0, second
    # corrupt every entry: the next process rebuilds them, and the one after finds them again
    root = tmp_path / "tier1"
    files = [p for p in root.rglob("*") if p.is_file() and p.suffix in (".bin", ".nbi", ".nbc")]
    assert files
    for p in files:
        p.write_bytes(b"garbage" + p.read_bytes()[:20])
    third = _run(tmp_path)
    assert third["ok"] and third["verified"] == n, third
    assert third["disk_corrupt"] >= 1 and third["failed"] == 0, third
    fourth = _run(tmp_path)
    assert fourth["ok"] and fourth["disk_hits"] == n, fourth


def test_disk_cache_is_size_bounded(tmp_path):
    from theon.link.tier1.diskcache import DiskCache

    d = DiskCache(tmp_path, max_bytes=3000)
    for k in range(10):
        d.put(f"k{k}", bytes(1000))
        os.utime(d.path(f"k{k}"), (k, k))  # k0 is the least recently used
    assert sum(p.stat().st_size for p in tmp_path.iterdir()) <= 3000
    assert d.get("k9") == bytes(1000) and d.get("k0") is None
    d.path("k9").write_bytes(b"truncated")
    assert d.get("k9") is None and not d.path("k9").exists()  # corrupt: removed


@pytest.fixture
def short_loops(tmp_path):
    with theon.config.change_flags(tier1_scan_steps=1, cache_dir=str(tmp_path)):
        yield


def test_numba_loop_until_and_bool_outputs(short_loops):
    pytest.importorskip("numba", reason="tier 1 for scan loops needs numba (theon[numba])")
    from theon.scan import until

    x0, lim = T.dscalar("x0"), T.dscalar("lim")

    def step(x, lim):
        y = x * 2.0 + 0.5
        return [y, y > 5.0], until(y > lim)

    (xs, big), _ = theon.scan(step, outputs_info=[x0, None], non_sequences=lim, n_steps=100)
    f = theon.function([x0, lim], [xs, big], mode=Mode(tier=1))
    run_tier1(f, 1.0, 40.0)
    for x, limit in [(1.0, 40.0), (1.0, 1e300), (50.0, 1.0), (0.25, 3.0)]:
        got, got_big = f(x, limit)
        ref = [x]
        while len(ref) <= 100:
            ref.append(ref[-1] * 2.0 + 0.5)
            if ref[-1] > limit:
                break
        np.testing.assert_array_equal(got, ref[1:])
        np.testing.assert_array_equal(got_big, np.array(ref[1:]) > 5.0, strict=True)


@pytest.mark.parametrize("n", [7, 8, 2000])
def test_numba_loop_taps_and_last_rows(short_loops, n):
    pytest.importorskip("numba", reason="tier 1 for scan loops needs numba (theon[numba])")
    f0, steps = T.dvector("f0"), T.lscalar("n")

    def step(a, b, acc):
        return [0.5 * a + 0.25 * b, acc + T.sin(b)]

    (seq, acc), _ = theon.scan(step, outputs_info=[dict(initial=f0, taps=[-2, -1]),
                                                   T.constant(0.0, dtype="float64")],
                               n_steps=steps)
    full = theon.function([f0, steps], [seq, acc], mode=Mode(tier=1))
    last = theon.function([f0, steps], [seq[-1], acc[-1]], mode=Mode(tier=1))
    init = np.array([0.3, 1.0])
    got_full = run_tier1(full, init, n)
    got_last = run_tier1(last, init, n)
    ref, s = [0.3, 1.0], [0.0]
    for _ in range(n):
        s.append(s[-1] + np.sin(ref[-1]))
        ref.append(0.5 * ref[-2] + 0.25 * ref[-1])
    np.testing.assert_allclose(got_full[0], ref[2:], rtol=1e-12)
    np.testing.assert_allclose(got_full[1], s[1:], rtol=1e-12)
    np.testing.assert_allclose(got_last[0], ref[-1], rtol=1e-12)
    np.testing.assert_allclose(got_last[1], s[-1], rtol=1e-12)


_UNARY = [T.exp, T.sin, T.cos, T.tanh, T.arctan, T.sinh, T.expm1,
          lambda v: T.log1p(abs(v)), lambda v: T.sqrt(abs(v) + 0.5), lambda v: -v, T.sqr]
_BINARY = [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b,
           lambda a, b: a / (abs(b) + 1.0), T.maximum, T.minimum]


def test_xla_random_chains_match_the_reference_vm(cache):
    """Differential: random fused chains through XLA against the reference VM."""
    pytest.importorskip("jax", reason="tier 1 for fused nodes needs jax (theon[jax])")
    from hypothesis import given, settings
    from hypothesis import strategies as st

    ops = st.lists(st.tuples(st.booleans(), st.integers(0, 99), st.integers(0, 99),
                             st.integers(0, 99)), min_size=2, max_size=8)
    rng = np.random.default_rng(8)
    a, b = rng.normal(size=40_000), rng.normal(size=40_000)

    @settings(max_examples=24, deadline=None)
    @given(ops, st.sampled_from(["float64", "float32"]))
    def check(program, dtype):
        x, y = T.vector("x", dtype=dtype), T.vector("y", dtype=dtype)
        pool = [x, y]
        for binary, k, i, j in program:
            p, q = pool[i % len(pool)], pool[j % len(pool)]
            pool.append(_BINARY[k % len(_BINARY)](p, q) if binary
                        else _UNARY[k % len(_UNARY)](p))
        out = pool[-1]
        f = theon.function([x, y], out, mode=Mode(tier=1), on_unused_input="ignore")
        ref = theon.function([x, y], out, mode=Mode(linker="vm", optimizer=None),
                             on_unused_input="ignore")
        av, bv = a.astype(dtype), b.astype(dtype)
        with np.errstate(all="ignore"):
            want = ref(av, bv)
            f(av, bv)
            tier1.wait(120)
            for _ in range(3):
                got = f(av, bv)
        np.testing.assert_allclose(got, want, equal_nan=True, **TOL[dtype])

    before = tier1.stats()
    check()
    after = tier1.stats()
    # (chains that fused into a Composite ran on tier 1, and were checked)
    assert after["verified"] - before["verified"] >= 4 and after["dropped"] == before["dropped"]


def test_unwritable_cache_directory_only_means_no_cache(tmp_path):
    if not (tier1.available("elemwise") or tier1.available("loop")):
        pytest.skip("no tier-1 compiler installed (theon[jax], theon[numba])")
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with theon.config.change_flags(cache_dir=str(blocker / "cache"), tier1_threshold=40_000,
                                   tier1_scan_steps=10, tier1_autotune=False):
        x, y = T.dvectors("x", "y")
        f = theon.function([x, y], T.exp(x) * T.cos(y) - T.sinh(x * 0.5), mode=Mode(tier=1))
        x0 = T.dscalar("x0")
        xs, _ = theon.scan(lambda v: T.cos(v) * 0.9, outputs_info=x0, n_steps=50)
        g = theon.function([x0], xs, mode=Mode(tier=1))
        rng = np.random.default_rng(9)
        a, b = rng.normal(size=50_000), rng.normal(size=50_000)
        before = tier1.stats()
        got_f = run_tier1(f, a, b) if tier1.available("elemwise") else f(a, b)
        got_g = run_tier1(g, 0.3) if tier1.available("loop") else g(0.3)
        after = tier1.stats()
    assert after["failed"] == before["failed"]
    np.testing.assert_allclose(got_f, np.exp(a) * np.cos(b) - np.sinh(a * 0.5), **TOL["float64"])
    ref = [0.3]
    for _ in range(50):
        ref.append(np.cos(ref[-1]) * 0.9)
    np.testing.assert_allclose(got_g, ref[1:], rtol=1e-12)


def test_xla_leaves_arithmetic_only_nodes_on_tier_0(cache):
    """A fused node of simple arithmetic (xla.SIMPLE) gets no XLA job, however large the
    call (NumPy's passes are as fast); one with an ``exp`` step does."""
    pytest.importorskip("jax", reason="tier 1 for fused nodes needs jax (theon[jax])")
    x, y, z = T.dvector("x"), T.dvector("y"), T.dvector("z")
    rng = np.random.default_rng(9)
    a, b, c = (rng.uniform(1, 2, size=200_000) for _ in range(3))
    arith = theon.function([x, y, z], x * y + z * 0.5 - x / y, mode=Mode(tier=1))
    before = tier1.stats()["submitted"]
    for _ in range(3):
        np.testing.assert_allclose(arith(a, b, c), a * b + c * 0.5 - a / b, rtol=1e-15)
    assert tier1.wait(120)
    assert tier1.stats()["submitted"] == before
    with_exp = theon.function([x, y, z], x * y + T.exp(z) - x / y, mode=Mode(tier=1))
    out = run_tier1(with_exp, a, b, c)
    assert tier1.stats()["submitted"] == before + 1
    np.testing.assert_allclose(out, a * b + np.exp(c) - a / b, **TOL["float64"])
