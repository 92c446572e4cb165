"""Scalar packing of the JAX linker (theon/link/jax/packing.py): many 0-d inputs and
outputs cross the jit boundary as one vector per dtype; the values, dtypes and errors
are those of the reference VM."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="mode='JAX' needs jax (pip install 'theon[jax]')")

import theon  # noqa: E402
import theon.tensor as tt  # noqa: E402
from theon.compile.mode import Mode  # noqa: E402
from theon.graph.fg import FunctionGraph  # noqa: E402
from theon.link.jax import JAXLinker  # noqa: E402
from theon.link.jax.packing import MIN_PACK, PackPlan  # noqa: E402

VM = Mode(linker="vm")


def _mixed_graph():
    """Five float64 scalars, three int64 scalars, one float32 scalar and a vector; outputs
    of each kind, their gradient included."""
    xs = [tt.dscalar(f"x{k}") for k in range(5)]
    ns = [tt.lscalar(f"n{k}") for k in range(3)]
    s32 = tt.fscalar("s32")
    v = tt.dvector("v")
    total = sum((x - 0.1 * k) ** 2 * (n + 1) for k, (x, n) in enumerate(zip(xs, ns * 2)))
    total = total + tt.log1p(tt.exp(-abs(xs[4]))) + (v * xs[0]).sum()
    grads = theon.grad(total, xs)
    outs = [total, *grads, ns[0] * ns[1], ns[2] + 7, ns[0] - 1, s32 * 2, v * xs[1],
            tt.cast(xs[2] > 0, "int8")]
    ins = [*xs[:2], v, *ns, s32, *xs[2:]]
    return ins, outs


def _args():
    return [0.3, -1.25, np.array([1.0, 2.0, -0.5]), 2, np.int64(-3), np.array(4),
            np.float32(1.5), 0.75, np.array(2.0), 1e-300]


def test_plan_packs_each_dtype_with_enough_scalars():
    ins, outs = _mixed_graph()
    plan = PackPlan.build(ins, outs)
    assert plan is not None
    assert {str(dt): pos for dt, pos in plan.in_groups} == {
        "float64": [0, 1, 7, 8, 9], "int64": [3, 4, 5]}
    assert plan.keep_in == [2, 6]  # the vector and the lone float32
    assert {str(dt): pos for dt, pos in plan.out_groups} == {
        "float64": [0, 1, 2, 3, 4, 5], "int64": [6, 7, 8]}
    assert plan.keep_out == [9, 10, 11]
    assert plan.float64_inputs == frozenset({0, 1, 7, 8, 9})
    assert PackPlan.build(ins, outs, enabled=False) is None
    few = [tt.dscalar() for _ in range(MIN_PACK - 1)]
    assert PackPlan.build(few, [few[0] * few[1]]) is None


def test_packed_function_matches_the_vm_exactly():
    ins, outs = _mixed_graph()
    fj = theon.function(ins, outs, mode="JAX")
    fv = theon.function(ins, outs, mode=VM)
    assert fj._runner.pack_plan is not None
    got, want = fj(*_args()), fv(*_args())
    assert len(got) == len(want)
    for k, (g, w) in enumerate(zip(got, want)):
        assert type(g) is np.ndarray and g.shape == w.shape and g.dtype == w.dtype, k
        np.testing.assert_allclose(g, w, rtol=1e-12, err_msg=str(k))
    # the 0-d results are read-only, as unpacked JAX results are
    assert not got[0].flags.writeable


def test_packed_and_unpacked_linkers_agree():
    ins, outs = _mixed_graph()
    fg = FunctionGraph(ins, outs)
    packed = JAXLinker().make_function(fg)
    plain = JAXLinker(pack_scalars=False).make_function(fg)
    assert packed.pack_plan is not None and plain.pack_plan is None
    assert packed.float_inputs and not plain.float_inputs
    args = [np.asarray(a) for a in _args()]
    args[6] = np.asarray(args[6], dtype="float32")
    for g, w in zip(packed(*args), plain(*args)):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


def test_the_jitted_function_gets_one_vector_per_packed_dtype():
    xs = [tt.dscalar(f"x{k}") for k in range(10)]
    total = tt.add(*[x**2 for x in xs])
    f = theon.function(xs, [total, *theon.grad(total, xs)], mode="JAX")
    plan = f._runner.pack_plan
    jargs = plan.pack([float(k) for k in range(10)])
    assert len(jargs) == 1 and jargs[0].shape == (10,) and jargs[0].dtype == np.float64
    with jax.enable_x64(True):
        res = f._runner.jax_call(jargs)
    assert len(res) == 1 and res[0].shape == (11,)
    out = f(*[float(k) for k in range(10)])
    np.testing.assert_array_equal(np.stack(out), [285.0, *(2.0 * np.arange(10))])


def test_packed_float_inputs_still_filter_other_values():
    xs = [tt.dscalar(f"x{k}") for k in range(4)]
    f = theon.function(xs, tt.add(*xs), mode="JAX")
    # a Python int or a 0-d float32 array is converted as the filter converts it
    assert float(f(1, 2.5, np.float32(0.25), np.array(1.0))) == 4.75
    with pytest.raises(TypeError, match="x1"):
        f(1.0, "two", 3.0, 4.0)
    with pytest.raises((TypeError, ValueError), match="x2"):
        f(1.0, 2.0, np.array([3.0, 4.0]), 4.0)


def test_shared_scalars_with_updates_are_packed_and_updated():
    xs = [tt.dscalar(f"x{k}") for k in range(3)]
    acc = [theon.shared(float(k), name=f"acc{k}") for k in range(3)]
    updates = [(a, a + x) for a, x in zip(acc, xs)]
    f = theon.function(xs, tt.add(*acc), updates=updates, mode="JAX")
    assert f._runner.pack_plan is not None
    assert float(f(1.0, 2.0, 3.0)) == 3.0
    assert [a.get_value() for a in acc] == [1.0, 3.0, 5.0]
    assert float(f(1.0, 1.0, 1.0)) == 9.0
