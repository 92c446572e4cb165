"""The cache of fused elementwise kernels is a bounded LRU (theon.link.pyfunc.kernel)."""

from __future__ import annotations

import numpy as np
import pytest

from tests.link.pyfunc_helpers import runners
from theon import scalar as ts
from theon.backends.py import fused
from theon.config import change_flags
from theon.link.pyfunc.kernel import KERNEL_CACHE_SIZE, KernelCache
from theon.scalar import transcendental
from theon.scalar.composite import Composite
from theon.tensor.elemwise import Elemwise
from theon.tensor.type import TensorType

# inner ops the composites below are made of, with their NumPy reference
UNARY = [
    (transcendental.sin, np.sin),
    (transcendental.tanh, np.tanh),
    (ts.exp, np.exp),
    (ts.neg, np.negative),
]


def test_lru_keeps_the_most_recently_used():
    built: list[str] = []

    def build(key: str):
        built.append(key)
        return None

    cache = KernelCache(maxsize=3)
    for key in "abc":
        cache.get_or_build(key, lambda key=key: build(key))
    cache.get_or_build("a", lambda: build("a"))  # a hit: "a" becomes the most recent
    cache.get_or_build("d", lambda: build("d"))  # evicts "b", the least recent
    assert built == ["a", "b", "c", "d"]
    assert len(cache) == 3 and "b" not in cache
    assert all(k in cache for k in "acd")
    cache.clear()
    assert len(cache) == 0


def test_lru_refuses_a_size_below_one():
    with pytest.raises(ValueError, match="maxsize"):
        KernelCache(maxsize=0)


def test_the_fused_kernel_cache_has_the_documented_bound():
    assert isinstance(fused._cache, KernelCache)
    assert fused._cache.maxsize == KERNEL_CACHE_SIZE > 0


def _composite(k: int) -> tuple[Composite, object]:
    """A chain of inner ops picked by the digits of ``k`` (base 4), and its NumPy twin."""
    a = ts.float64("a")
    e, steps = a, []
    for d in (k % 4, (k // 4) % 4, (k // 16) % 4):
        op, ref = UNARY[d]
        e = op(e)
        steps.append(ref)
    e = ts.add(e, a)

    def reference(x: np.ndarray) -> np.ndarray:
        y = x
        for f in steps:
            y = f(y)
        return y + x

    return Composite([a], [e]), reference


def test_compiling_many_fused_nodes_keeps_the_cache_bounded(monkeypatch):
    bound = 4
    monkeypatch.setattr(fused, "_cache", KernelCache(maxsize=bound))
    x = TensorType("float64", (None,))("x")
    data = np.linspace(-1.0, 1.0, 2000)
    with change_flags(elemwise_block=256, elemwise_parallel_threshold=10**9):
        for k in range(3 * bound):
            comp, reference = _composite(k)
            run, _ = runners([x], [Elemwise(comp)(x)])
            assert "_kern" in run.source  # the node runs as a blocked kernel
            assert len(fused._cache) <= bound
            (got,) = run(data)
            np.testing.assert_allclose(got, reference(data), rtol=1e-12)
    assert len(fused._cache) == bound
