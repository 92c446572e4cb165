"""Blocked elementwise kernels (theon.link.pyfunc.kernel) against whole-array NumPy."""

from __future__ import annotations

import numpy as np
import pytest

from tests.link.pyfunc_helpers import assert_same, call, runners
from theon import scalar as ts
from theon.backends.py.fused import composite_spec
from theon.config import change_flags
from theon.link.pyfunc.kernel import KConst, KernelSpec, KStep, build_kernel
from theon.scalar import arith, transcendental
from theon.scalar.composite import Composite
from theon.tensor.elemwise import DimShuffle, Elemwise
from theon.tensor.type import TensorType

CHAIN = KernelSpec(
    2,
    [
        KStep(np.square, (0,), "float64"),  # 2
        KStep(np.negative, (2,), "float64"),  # 3
        KStep(np.exp, (3,), "float64"),  # 4
        KStep(np.sin, (1,), "float64"),  # 5
        KStep(np.multiply, (4, 5), "float64"),  # 6
        KStep(np.log1p, (2,), "float64"),  # 7
        KStep(np.add, (6, 7), "float64"),  # 8
        KStep(np.true_divide, (8, KConst(np.float64(2.0))), "float64"),  # 9
    ],
    [9, 6],
    ["float64", "float64"],
)


def chain_ref(x, y):
    a = np.exp(-np.square(x)) * np.sin(y)
    return [(a + np.log1p(np.square(x))) / 2.0, a]


@pytest.mark.parametrize(
    "block,threads,threshold", [(16384, 1, 10**9), (7, 1, 10**9), (7, 2, 0), (64, 3, 100)]
)
@pytest.mark.parametrize(
    "shapes",
    [
        ((1000,), (1000,)),
        ((40, 25), (40, 25)),
        ((40, 25), (25,)),
        ((40, 1), (1, 25)),
        ((), (300,)),
        ((0,), (0,)),
    ],
)
def test_chain_kernel_matches_numpy(block, threads, threshold, shapes):
    rng = np.random.default_rng(1)
    x = rng.normal(size=shapes[0])
    y = rng.normal(size=shapes[1])
    k = build_kernel(CHAIN, block=block, threads=threads, threshold=threshold)
    got = k(x, y)
    want = chain_ref(x, y)
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype
        assert np.array_equal(g, w)
        assert g.flags.c_contiguous and g.flags.writeable


def test_non_contiguous_inputs():
    rng = np.random.default_rng(2)
    x = rng.normal(size=(60, 50)).T  # F-ordered view
    y = rng.normal(size=(50, 120))[:, ::2]
    k = build_kernel(CHAIN, block=32, threads=2, threshold=0)
    for g, w in zip(k(x, y), chain_ref(x, y)):
        assert np.array_equal(g, w)


def test_outputs_are_fresh_and_distinct():
    spec = KernelSpec(
        1,
        [KStep(np.exp, (0,), "float64")],
        [1, 1, 0, KConst(np.float64(3.0))],
        ["float64", "float64", "float64", "float64"],
    )
    x = np.linspace(0, 1, 5)
    for block in (2, 100):
        outs = build_kernel(spec, block=block)(x)
        assert np.array_equal(outs[0], np.exp(x)) and np.array_equal(outs[1], np.exp(x))
        assert np.array_equal(outs[2], x) and np.array_equal(outs[3], np.full(5, 3.0))
        for i, a in enumerate(outs):
            assert not np.shares_memory(a, x)
            for b in outs[i + 1 :]:
                assert not np.shares_memory(a, b)


def test_integer_fold_and_callable_steps():
    spec = KernelSpec(
        3,
        [
            KStep(np.add, (0, 1, 2), "int64", fold=True),
            KStep(lambda a: np.where(a > 2, a, -a), (3,), "int64", use_out=False),
            KStep(np.multiply, (4, KConst(np.int64(3))), "int64"),
        ],
        [5],
        ["int32"],
    )
    a, b, c = (np.arange(20, dtype=np.int64) - k for k in range(3))
    want = (np.where(a + b + c > 2, a + b + c, -(a + b + c)) * 3).astype(np.int32)
    for block in (3, 1000):
        (got,) = build_kernel(spec, block=block, threads=2, threshold=0)(a, b, c)
        assert got.dtype == np.int32 and np.array_equal(got, want)


def _chain_composite():
    a, b = ts.float64("a"), ts.float64("b")
    sq = arith.sqr(a)
    e = ts.add(
        ts.sub(
            ts.add(ts.mul(ts.exp(ts.neg(sq)), transcendental.sin(b)), transcendental.log1p(sq)),
            ts.true_div(transcendental.tanh(b), 2.0),
        ),
        arith.sqrt(ts.add(arith.abs(ts.mul(a, b)), 1.0)),
    )
    return Composite([a, b], [e])


def test_composite_spec_matches_composite_impl():
    comp = _chain_composite()
    spec = composite_spec(comp)
    assert spec is not None and all(s.use_out for s in spec.steps)
    rng = np.random.default_rng(3)
    x, y = rng.normal(size=50_000), rng.normal(size=50_000)
    (got,) = build_kernel(spec, block=4096, threads=2, threshold=0)(x, y)
    assert np.array_equal(got, comp.impl(x, y))


@pytest.mark.parametrize("n", [1, 10, 5000])
def test_fused_node_in_linker_matches_vm(n):
    comp = _chain_composite()
    x, y = TensorType("float64", (None,))("x"), TensorType("float64", (None,))("y")
    out = Elemwise(comp)(x, DimShuffle(1, (0,))(y))
    with change_flags(elemwise_block=256, elemwise_parallel_threshold=1000, elemwise_threads=2):
        run, vm = runners([x, y], [out])
    assert "_kern" in run.source
    rng = np.random.default_rng(4)
    args = [rng.normal(size=n), rng.normal(size=n)]
    assert_same(call(run, args), call(vm, args))
    bad = [np.ones(n + 1), np.ones(n)] if n > 1 else [np.ones(3), np.ones(2)]
    assert_same(call(run, bad), call(vm, bad))


def test_kernel_errors_come_back_to_the_caller():
    def boom(a):
        raise RuntimeError("inner failure")

    spec = KernelSpec(1, [KStep(boom, (0,), "float64", use_out=False)], [1], ["float64"])
    k = build_kernel(spec, block=4, threads=2, threshold=0)
    with pytest.raises(RuntimeError, match="inner failure"):
        k(np.ones(100))


def _kernel_in_child(q):
    k = build_kernel(CHAIN, block=8, threads=2, threshold=0)
    x = np.linspace(-1, 1, 100)
    q.put(bool(np.array_equal(k(x, x)[0], chain_ref(x, x)[0])))


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs fork")
def test_thread_pool_survives_fork():
    import multiprocessing as mp

    build_kernel(CHAIN, block=8, threads=2, threshold=0)(np.ones(100), np.ones(100))
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=_kernel_in_child, args=(q,))
    p.start()
    p.join(60)
    alive = p.is_alive()
    if alive:
        p.kill()
    assert not alive, "the kernel hung in the forked child"
    assert q.get(timeout=5) is True


# a fold of 3+ operands writes its first partial result before it reads operand 3:
# that result must not go into the scratch block of an operand still to be read
FOLD = KernelSpec(
    3,
    [
        KStep(np.exp, (2,), "float64"),  # 3
        KStep(np.sin, (0,), "float64"),  # 4
        KStep(np.multiply, (0, 1, 3), "float64", fold=True),  # 5: x*y*exp(z)
        KStep(np.add, (1, 0, 4, 4), "float64", fold=True),  # 6: y+x+sin(x)+sin(x)
        KStep(np.multiply, (5, 6), "float64"),  # 7
    ],
    [7],
    ["float64"],
)


@pytest.mark.parametrize("block,threads,threshold", [(16384, 1, 10**9), (3, 1, 10**9), (5, 2, 0)])
def test_fold_never_overwrites_an_operand_it_still_reads(block, threads, threshold):
    rng = np.random.default_rng(4)
    x, y, z = (rng.normal(size=50_000) for _ in range(3))
    k = build_kernel(FOLD, block=block, threads=threads, threshold=threshold)
    (got,) = k(x, y, z)
    want = (x * y * np.exp(z)) * (y + x + np.sin(x) + np.sin(x))
    assert np.array_equal(got, want)


def test_fused_product_of_three_on_large_arrays():
    """The issue's differential find: ``x*y*exp(z) + y`` with the default block size."""
    import theon
    import theon.tensor as tt

    x, y, z = tt.dvectors("x", "y", "z")
    f = theon.function([x, y, z], x * y * tt.exp(z) + y)
    X, Y, Z = (np.random.default_rng(0).normal(size=40_000) for _ in range(3))
    np.testing.assert_array_equal(f(X, Y, Z), X * Y * np.exp(Z) + Y)


def test_a_pool_in_hand_still_takes_work_after_a_larger_one_replaced_it():
    """Kernels of different thread counts running at once: one thread holds the pool
    while another makes a larger one; the first must still be able to submit."""
    from theon.link.pyfunc import kernel

    small = kernel._get_pool(1)
    larger = kernel._get_pool(kernel._pool_size + 1)
    assert larger is not small
    assert small.submit(lambda: 42).result() == 42


@pytest.mark.parametrize("block", [16384, 7])
def test_call_like_matches_the_general_call(block):
    """``call_like(k, ...)`` (output shape taken from input ``k``) equals the general call,
    including when another input turns out larger (it then falls back)."""
    kern = build_kernel(CHAIN, block=block, threads=1, threshold=10**9)
    rng = np.random.default_rng(3)
    cases = [
        (0, (rng.normal(size=(5, 1)), rng.normal(size=(1, 1)))),  # same shape as x0
        (1, (rng.normal(size=(1, 4)), rng.normal(size=(3, 4)))),
        (0, (rng.normal(size=(1,)), rng.normal(size=(6,)))),  # x0 broadcasts: fallback
    ]
    for lead, args in cases:
        got = kern.call_like(lead, *args)
        ref = chain_ref(*args)
        for g, r in zip(got, ref):
            assert g.shape == r.shape
            np.testing.assert_array_equal(g, r)


def test_fused_node_with_broadcast_inputs_in_linker_matches_vm():
    """A fused node whose inputs broadcast (the emitter picks the lead input)."""
    import theon
    import theon.tensor as tt

    x, c, m = tt.dcol("x"), tt.dcol("c"), tt.dmatrix("m")
    y = (x * (1 - tt.sqr(c))) * m + tt.exp(x)
    f = theon.function([x, c, m], y)
    fused = [n for n in f.maker.fgraph.apply_nodes if "Composite" in str(n.op)]
    assert fused
    rng = np.random.default_rng(4)
    vals = [rng.normal(size=(3, 1)), rng.normal(size=(3, 1)), rng.normal(size=(3, 5))]
    expect = vals[0] * (1 - vals[1] ** 2) * vals[2] + np.exp(vals[0])
    np.testing.assert_allclose(f(*vals), expect, rtol=1e-14)


def _runner_source(f) -> str:
    return str(f._runner.source)


@pytest.mark.parametrize("n", [5, 40_000])
def test_inline_small_path_matches_numpy_and_vm(n):
    """Small fused nodes run their steps inline; large ones call the kernel: both equal
    NumPy and the reference VM, outputs are fresh arrays."""
    import theon
    import theon.tensor as tt

    x, c = tt.dvector("x"), tt.dvector("c")
    y1 = tt.exp(x) * (1 - tt.sqr(c)) + x
    y2 = tt.tanh(x * c)
    f = theon.function([x, c], [y1, y2])
    ref = theon.function([x, c], [y1, y2], mode="REFERENCE")
    src = _runner_source(f)
    assert "<= 16384:" in src  # the inline branch exists
    rng = np.random.default_rng(8)
    xv, cv = rng.normal(size=n), rng.normal(size=n)
    x0 = xv.copy()
    got = f(xv, cv)
    want = [np.exp(xv) * (1 - cv**2) + xv, np.tanh(xv * cv)]
    for g, r, w in zip(got, ref(xv, cv), want):
        np.testing.assert_allclose(g, w, rtol=1e-14)
        np.testing.assert_array_equal(g, r)
    got[0][:] = 0  # fresh: the input is untouched
    np.testing.assert_array_equal(xv, x0)
    assert not np.shares_memory(got[0], got[1])
