"""The py linker against the reference VM on random tensor graphs (hypothesis).

Graphs mix Elemwise (plain, inplace and fused Composite nodes), DimShuffle and
CAReduce over inputs of several ranks, broadcast patterns and dtypes.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.link.pyfunc_helpers import assert_same, call, runners
from theon import scalar as ts
from theon.config import change_flags
from theon.scalar import arith, logic, transcendental
from theon.scalar.composite import Composite
from theon.tensor import shape_i
from theon.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from theon.tensor.type import TensorType

UNARY = [
    ts.neg,
    ts.exp,
    ts.log,
    arith.sqrt,
    arith.abs,
    transcendental.tanh,
    transcendental.sin,
    arith.sqr,
    transcendental.log1p,
]
BINARY = [ts.add, ts.sub, ts.mul, ts.true_div, arith.maximum, arith.minimum, logic.lt, arith.pow]
REDUCERS = [ts.add, ts.mul, arith.maximum]
DTYPES = ["float64", "float64", "float32", "int64", "bool"]


def _composite(draw, n_in):
    """A random Composite over ``n_in`` float64 scalars."""
    ins = [ts.float64(f"s{i}") for i in range(n_in)]
    pool = list(ins)
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.booleans()):
            pool.append(draw(st.sampled_from(UNARY))(draw(st.sampled_from(pool))))
        else:
            a, b = draw(st.sampled_from(pool)), draw(st.sampled_from(pool + [ts.constant(0.5)]))
            pool.append(draw(st.sampled_from([ts.add, ts.sub, ts.mul, ts.true_div]))(a, b))
    # every input takes part in the first output (Elemwise.perform takes the output
    # shape from the computed value, so an unused input would not be broadcast)
    first = pool[-1]
    for v in ins:
        first = ts.add(first, ts.mul(v, 0.0))
    n_out = draw(st.integers(1, 2))
    outs = [first] + [
        ts.add(draw(st.sampled_from(pool[n_in:] or pool)), ts.mul(first, 0.0))
        for _ in range(n_out - 1)
    ]
    return Composite(ins, outs)


def _cast_to(v, dtype):
    from theon.scalar.basic import Cast
    from theon.scalar.type import get_scalar_type

    if v.type.dtype == dtype:
        return v
    return Elemwise(Cast(get_scalar_type(dtype)))(v)


@st.composite
def graphs(draw):
    ndim = draw(st.integers(0, 2))
    n_in = draw(st.integers(1, 3))
    ins, vals = [], []
    sizes = [draw(st.integers(1, 4)) for _ in range(ndim)]
    for i in range(n_in):
        dt = draw(st.sampled_from(DTYPES))
        bcast = [draw(st.booleans()) and draw(st.booleans()) for _ in range(ndim)]
        shape = tuple(1 if b else None for b in bcast)
        ins.append(TensorType(dt, shape)(f"x{i}"))
        rshape = tuple(1 if b else s for b, s in zip(bcast, sizes))
        data = draw(
            st.lists(
                st.sampled_from([0.0, -0.0, 1.0, -1.5, 2.0, 0.25, 3.0, np.inf, np.nan, -7.0]),
                min_size=int(np.prod(rshape)),
                max_size=int(np.prod(rshape)),
            )
        )
        with np.errstate(all="ignore"):
            vals.append(np.array(data, dtype="float64").reshape(rshape).astype(dt))
    pool = list(ins)
    for _ in range(draw(st.integers(2, 12))):
        kind = draw(
            st.sampled_from(
                [
                    "unary",
                    "binary",
                    "binary",
                    "fused",
                    "reduce",
                    "dimshuffle",
                    "inplace",
                    "variadic",
                    "shape",
                ]
            )
        )
        a = draw(st.sampled_from(pool))
        try:
            if kind == "unary":
                v = Elemwise(draw(st.sampled_from(UNARY)))(a)
            elif kind == "binary":
                v = Elemwise(draw(st.sampled_from(BINARY)))(a, draw(st.sampled_from(pool)))
            elif kind == "shape":
                if a.type.ndim == 0:
                    continue
                n = _cast_to(shape_i(a, 0), "float64")
                v = Elemwise(ts.mul)(n, a) if draw(st.booleans()) else n
            elif kind == "variadic":
                op = draw(st.sampled_from([ts.add, ts.mul]))
                rest = draw(st.lists(st.sampled_from(pool), min_size=2, max_size=3))
                v = Elemwise(op)(
                    a, *[Elemwise(ts.neg)(r) if draw(st.booleans()) else r for r in rest]
                )
            elif kind == "inplace":
                b = draw(st.sampled_from(pool))
                v0 = Elemwise(ts.mul)(a, b)  # a fresh intermediate, destroyed next
                v = (
                    Elemwise(ts.add, {0: 0})(v0, _cast_to(b, v0.type.dtype))
                    if (v0.type.ndim == b.type.ndim)
                    else v0
                )
            elif kind == "fused":
                n = draw(st.integers(1, 3))
                args = [_cast_to(draw(st.sampled_from(pool)), "float64") for _ in range(n)]
                comp = _composite(draw, n)
                outs = Elemwise(comp)(*args, return_list=True)
                pool.extend(outs[1:])
                v = outs[0]
            elif kind == "reduce":
                if a.type.ndim == 0:
                    continue
                axis = draw(st.sampled_from([None, 0, a.type.ndim - 1]))
                op = draw(st.sampled_from(REDUCERS))
                if a.type.dtype == "bool" and op is not arith.maximum:
                    continue
                v = CAReduce(op, axis)(a)
            else:
                nd = a.type.ndim
                order = list(draw(st.permutations(range(nd))))
                order = [o for o in order if not (a.type.shape[o] == 1 and draw(st.booleans()))]
                if draw(st.booleans()):
                    order.insert(draw(st.integers(0, len(order))), "x")
                v = DimShuffle(nd, order)(a)
        except (TypeError, ValueError):
            continue
        pool.append(v)
    outs = [pool[-1], *draw(st.lists(st.sampled_from(pool), max_size=2))]
    return ins, outs, vals


SETTINGS = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@SETTINGS
@given(graphs())
def test_random_graphs_numpy_path_exact(g):
    ins, outs, vals = g
    run, vm = runners(ins, outs, float_path=False)
    assert_same(call(run, vals), call(vm, vals))


@SETTINGS
@given(graphs())
def test_random_graphs_float_path(g):
    ins, outs, vals = g
    run, vm = runners(ins, outs)
    # math's and NumPy's exp, log, sin ... differ by an ulp; chains may magnify that
    assert_same(call(run, vals), call(vm, vals), rtol=1e-9)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
@given(graphs())
def test_random_graphs_blocked_threaded_kernels(g):
    """Tiny blocks and thresholds, so fused nodes run blocked and on the pool."""
    ins, outs, vals = g
    with change_flags(elemwise_block=2, elemwise_parallel_threshold=3, elemwise_threads=2):
        run, vm = runners(ins, outs, float_path=False)
    assert_same(call(run, vals), call(vm, vals))


@SETTINGS
@given(graphs())
def test_outputs_never_alias_across_calls(g):
    ins, outs, vals = g
    run, _ = runners(ins, outs)
    first = call(run, vals)
    if isinstance(first, Exception):
        return
    snapshot = [np.array(o, copy=True) for o in first]
    second = call(run, [np.array(v, copy=True) for v in vals])
    for a, b, s in zip(first, second, snapshot):
        if isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.size:
            owned = not any(np.shares_memory(a, v) for v in vals)
            if owned:
                assert not np.shares_memory(a, b)
        assert np.array_equal(np.asarray(a), s, equal_nan=True)


def test_inplace_elemwise_on_an_input_matches_vm():
    x = TensorType("float64", (None,))("x")
    y = TensorType("float64", (None,))("y")
    out = Elemwise(ts.add, {0: 0})(Elemwise(ts.exp)(x), y)
    run, vm = runners([x, y], [out])
    a, b = np.arange(4.0), np.ones(4)
    assert_same(run(a, b), vm(a, b))
    assert np.array_equal(a, np.arange(4.0))  # the destroyed value was an intermediate


def test_broadcast_error_names_node():
    x = TensorType("float64", (None,))("x")
    y = TensorType("float64", (None,))("y")
    out = Elemwise(ts.add)(x, y)
    run, vm = runners([x, y], [Elemwise(ts.exp)(out)])
    got, want = call(run, [np.ones(3), np.ones(1)]), call(vm, [np.ones(3), np.ones(1)])
    assert isinstance(got, ValueError) and str(got) == str(want)
    assert any("while computing Elemwise{add" in n for n in got.__notes__)


@pytest.mark.parametrize("shape", [(), (3,)])
def test_dimshuffle_and_reduce_of_constants(shape):
    from theon.tensor.basic import constant

    c = constant(np.ones(shape) * 2.0)
    x = TensorType("float64", (None,) * len(shape))("x")
    e = Elemwise(ts.mul)(x, DimShuffle(len(shape), tuple(range(len(shape))))(c))
    r = CAReduce(ts.add)(e)
    run, vm = runners([x], [r, e])
    v = np.ones(shape)
    assert_same(run(v), vm(v))
