"""theon.backends.jax.host.host_call: 64-bit values cross the host boundary intact,
under jit and vmap, whatever jax's 64-bit setting on the thread that runs the callback."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")

from theon.backends.jax.host import host_call  # noqa: E402

VALUES = {
    "float64": np.array([[1e-300, -2.5, np.pi], [np.inf, -0.0, 1 + 2**-52]]),
    "int64": np.array([[2**62 + 1, -(2**63), 3], [0, -1, 2**40]], dtype="int64"),
    "uint64": np.array([[2**63 + 5, 1, 2], [3, 4, 2**64 - 1]], dtype="uint64"),
    "complex128": np.array([[1 + 1e-300j, -2.5j, np.pi], [np.inf, -0.0, 1 + 2**-52j]]),
    "float32": np.array([[1.5, -2.0, 3.0], [0.0, 1e-30, 7.0]], dtype="float32"),
    "int8": np.array([[1, -2, 3], [127, -128, 0]], dtype="int8"),
    "bool": np.array([[True, False, True], [False, False, True]]),
}


def _twice(a: np.ndarray) -> np.ndarray:
    return a if a.dtype == bool else a * 2


@pytest.mark.parametrize("dtype", sorted(VALUES))
def test_values_cross_bit_for_bit(dtype: str) -> None:
    x = VALUES[dtype]
    got: dict[str, object] = {}

    def fn(a):
        got["dtype"] = a.dtype
        return [_twice(a), a.sum(0)]

    f = jax.jit(lambda v: host_call(fn, [(v.shape, v.dtype), (v.shape[1:], v.dtype)], v))
    with jax.enable_x64(True):
        a, b = f(x)
    assert got["dtype"] == x.dtype
    assert a.dtype == x.dtype and b.dtype == x.dtype
    np.testing.assert_array_equal(np.asarray(a), _twice(x))
    np.testing.assert_array_equal(np.asarray(b), x.sum(0).astype(x.dtype))


@pytest.mark.parametrize("vectorized", [True, False])
@pytest.mark.parametrize("dtype", ["float64", "complex128", "int64"])
def test_under_vmap(dtype: str, vectorized: bool) -> None:
    x = VALUES[dtype]
    with jax.enable_x64(True):
        out = jax.vmap(lambda v: host_call(lambda a: [a * 2], [(v.shape, v.dtype)], v,
                                           vectorized=vectorized)[0])(x)
    np.testing.assert_array_equal(np.asarray(out), x * 2)


def test_several_callbacks_of_several_dtypes_in_one_function() -> None:
    """Several host calls of several dtypes in one jitted function (XLA may run them on
    its own threads, where jax's 32-bit default holds; theon's graphs of several
    host-computed special functions failed so at random with a plain
    ``jax.pure_callback``, "Incorrect output dtype ... Actual: float32"): every result
    has its dtype and exact value."""
    xs = [VALUES["float64"], VALUES["float32"], VALUES["float64"][:1] * 3,
          VALUES["int64"], VALUES["complex128"], VALUES["float32"][:1]]

    def g(*vs):
        return [host_call(lambda a: [a + a], [(v.shape, v.dtype)], v)[0] for v in vs]

    for _ in range(5):  # (a fresh compile each time: the threads' choice varies)
        with jax.enable_x64(True):
            outs = jax.jit(g)(*xs)
        for o, x in zip(outs, xs):
            assert o.dtype == x.dtype
            np.testing.assert_array_equal(np.asarray(o), x + x)
