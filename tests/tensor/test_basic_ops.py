"""Creation and joining ops against NumPy: alloc & friends, arange, linspace, eye, join,
stack, split, tile, roll, flip; dtypes, static shapes, infer_shape and grads."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from tests.tensor.core_checks import check_infer_shape, run
from theon.gradient import verify_grad as _verify_grad
from theon.tensor.basic_ops import (
    ARange,
    Eye,
    Join,
    Linspace,
    Split,
    SumToShape,
    alloc,
    arange,
    broadcast_to,
    concatenate,
    eye,
    flip,
    full,
    full_like,
    hstack,
    identity,
    join,
    linspace,
    ones,
    roll,
    split,
    stack,
    sum_to_shape,
    tile,
    vstack,
    zeros,
)


def verify_grad(*args: Any, **kwargs: Any) -> None:
    """verify_grad on the reference VM (no rewrites, no other linker)."""
    _verify_grad(*args, mode="REFERENCE", **kwargs)


SETTINGS = settings(max_examples=30, deadline=None)
DTYPES = ["float64", "float32", "int32"]


def _var(shape: tuple[int, ...], dtype: str = "float64", static: bool = False) -> Any:
    return tt.tensor(dtype, shape=shape if static else (None,) * len(shape), name="x")


def _check(inputs: list[Any], out: Any, values: list[Any], expected: np.ndarray,
           infer: bool = True) -> None:
    got = run(inputs, out, *values)
    assert isinstance(got, np.ndarray)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_allclose(got, expected, rtol=1e-6)
    assert got.shape == expected.shape
    for s, r in zip(out.type.shape, expected.shape):
        assert s is None or s == r, (out.type.shape, expected.shape)
    if infer and out.owner is not None:
        check_infer_shape(out, inputs, values)


# --------------------------------------------------------------------------- alloc & co
@pytest.mark.parametrize("dtype", [None, "int8", "float32", "bool"])
@pytest.mark.parametrize("shp", [(), (3,), (2, 0), (2, 3, 1)])
def test_zeros_ones_full(shp: tuple[int, ...], dtype: Any) -> None:
    _check([], zeros(shp, dtype), [], np.zeros(shp, dtype), infer=False)
    _check([], ones(shp, dtype), [], np.ones(shp, dtype), infer=False)
    for fill in (3, 2.5, True):
        _check([], full(shp, fill, dtype), [], np.full(shp, fill, dtype), infer=False)
    assert zeros(shp, dtype).type.shape == shp


def test_alloc_symbolic_and_errors() -> None:
    n, m = tt.lscalar("n"), tt.iscalar("m")
    v = tt.fvector("v")
    out = alloc(v, n, m)
    assert out.type.shape == (None, None) and out.dtype == "float32"
    vv = np.arange(3, dtype="float32")
    _check([v, n, m], out, [vv, 2, 3], np.broadcast_to(vv, (2, 3)).copy())
    # the value broadcasts at run time along a dim of unknown static size
    _check([v, n, m], out, [np.ones(1, "float32"), 2, 3], np.ones((2, 3), "float32"))
    with pytest.raises(ValueError):
        run([v, n, m], out, vv, 2, 4)
    assert alloc(tt.TensorType("float64", shape=(3,))(), n).type.shape == (3,)
    with pytest.raises(ValueError, match=r"static shape \(3,\) to shape \(2,\)"):
        alloc(tt.TensorType("float64", shape=(3,))("w"), 2)
    with pytest.raises(ValueError, match="more than"):
        alloc(tt.dmatrix(), 3)
    with pytest.raises(ValueError, match="negative"):
        zeros((2, -1))
    with pytest.raises(TypeError):
        zeros((2.5,))
    # shape given as a vector
    x = tt.dmatrix("x")
    out = zeros(x.shape, dtype="int16")
    _check([x], out, [np.ones((2, 5))], np.zeros((2, 5), "int16"))
    s = tt.lvector("s")
    out = alloc(1.0, tt.as_tensor_variable(s)[0], 2)
    _check([s], out, [np.array([3])], np.ones((3, 2)))


def test_alloc_output_is_fresh_and_folding() -> None:
    v = tt.dvector("v")
    f = theon.function([v], alloc(v, 2, 3), mode="REFERENCE")
    a = np.arange(3.0)
    out = f(a)
    out[0, 0] = 10.0
    assert a[0] == 0.0
    node = alloc(1.0, 2, 2).owner
    assert node.op.do_constant_folding(node)
    node = alloc(1.0, 1000, 1000).owner
    assert not node.op.do_constant_folding(node)


@pytest.mark.parametrize("vshape", [(), (3,), (1, 3), (2, 1)])
def test_alloc_grad(vshape: tuple[int, ...]) -> None:
    rng = np.random.default_rng(0)
    verify_grad(lambda v: alloc(v, 2, 2, 3) ** 2, [rng.normal(size=vshape)], rng=rng)


def test_alloc_grad_runtime_broadcast() -> None:
    """A value dim of unknown static size that is 1 at run time still gets summed."""
    v = tt.dmatrix("v")
    cost = (alloc(v, 4, 3) * np.arange(12.0).reshape(4, 3)).sum()
    g = theon.grad(cost, v)
    np.testing.assert_allclose(run([v], g, np.ones((1, 3))),
                               np.arange(12.0).reshape(4, 3).sum(0, keepdims=True))
    np.testing.assert_allclose(run([v], g, np.ones((4, 1))),
                               np.arange(12.0).reshape(4, 3).sum(1, keepdims=True))
    np.testing.assert_allclose(run([v], g, np.ones((4, 3))), np.arange(12.0).reshape(4, 3))


def test_sum_to_shape() -> None:
    g = tt.tensor("float64", shape=(None,) * 3, name="g")
    like = tt.dmatrix("like")
    out = sum_to_shape(g, like)
    assert isinstance(out.owner.op, SumToShape)
    gv = np.arange(24.0).reshape(2, 3, 4)
    lv = np.zeros((1, 4))
    _check([g, like], out, [gv, lv], gv.sum(0).sum(0, keepdims=True))
    with pytest.raises(ValueError, match="cannot sum"):
        run([g, like], out, gv, np.zeros((2, 4)))
    verify_grad(lambda g: SumToShape()(g, np.array([1, 4])) ** 2, [gv])
    static = sum_to_shape(g, tt.TensorType("float64", shape=(1, 4))())
    assert not isinstance(static.owner.op, SumToShape)


@pytest.mark.parametrize("dtype", [None, "float32", "int8"])
def test_like_functions(dtype: Any) -> None:
    x = tt.ivector("x")
    xv = np.array([1, 2, 3], dtype="int32")
    _check([x], full_like(x, 2.7, dtype), [xv], np.full_like(xv, 2.7, dtype))
    _check([x], tt.zeros_like(x, dtype), [xv], np.zeros_like(xv, dtype))
    _check([x], tt.ones_like(x, dtype), [xv], np.ones_like(xv, dtype))


def test_broadcast_to() -> None:
    x = tt.dvector("x")
    n = tt.lscalar("n")
    xv = np.arange(3.0)
    _check([x], broadcast_to(x, (2, 3)), [xv], np.broadcast_to(xv, (2, 3)).copy())
    _check([x, n], broadcast_to(x, (n, 3)), [xv, 4], np.broadcast_to(xv, (4, 3)).copy())
    verify_grad(lambda x: broadcast_to(x, (2, 3)) ** 2, [xv])


# --------------------------------------------------------------------------- ranges
ARANGE_ARGS: list[tuple[Any, ...]] = [
    (5,), (0,), (-3,), (2, 7), (7, 2), (7, 2, -2), (0, 1, 0.1), (1.5, 4), (0, 10, 3),
    (np.float32(0), np.float32(2), np.float32(0.5)), (np.int8(1), 5), (np.uint8(3),),
    (np.int32(2), np.int32(9), np.int32(3)), (np.float16(1), 3),
]


@pytest.mark.parametrize("args", ARANGE_ARGS)
def test_arange_constant(args: tuple[Any, ...]) -> None:
    _check([], arange(*args), [], np.arange(*args), infer=False)


@pytest.mark.parametrize("args", ARANGE_ARGS)
def test_arange_symbolic(args: tuple[Any, ...]) -> None:
    syms, vals = [], []
    call: list[Any] = []
    for a in args:
        arr = np.asarray(a)
        if type(a) in (int, float):
            call.append(a)  # Python numbers stay weak, as in NumPy
            continue
        v = tt.tensor(str(arr.dtype), shape=())
        syms.append(v)
        vals.append(arr)
        call.append(v)
    out = arange(*call)
    assert out.type.shape == (None,) or not syms
    _check(syms, out, vals, np.arange(*args))


def test_arange_dtype_and_errors() -> None:
    _check([], arange(5, dtype="float32"), [], np.arange(5, dtype="float32"), infer=False)
    with pytest.raises(ZeroDivisionError):
        arange(0, 5, 0)
    with pytest.raises(TypeError):
        arange(tt.dvector())
    assert arange(4).type.shape == (4,)
    assert ARange("int64") == ARange("int64")


def test_arange_grad() -> None:
    verify_grad(lambda a, s: arange(a, 5.0, s) ** 2, [np.asarray(0.3), np.asarray(0.7)])


@pytest.mark.parametrize("endpoint", [True, False])
@pytest.mark.parametrize(("start", "stop", "num"), [(0, 1, 5), (2.5, -1.0, 7), (0, 1, 1),
                                                   (0, 1, 0), (np.float32(1), np.float32(3), 4)])
def test_linspace(start: Any, stop: Any, num: int, endpoint: bool) -> None:
    expected = np.linspace(start, stop, num, endpoint=endpoint)
    _check([], linspace(start, stop, num, endpoint), [], expected, infer=False)
    a = tt.tensor(np.asarray(start).dtype.name if not isinstance(start, int) else "int64",
                  shape=())
    n = tt.lscalar("n")
    out = linspace(a, stop, n, endpoint)
    _check([a, n], out, [np.asarray(start, dtype=a.dtype), num], expected)
    _check([], linspace(start, stop, num, endpoint, dtype="float32"), [],
           np.linspace(start, stop, num, endpoint=endpoint, dtype="float32"), infer=False)
    with pytest.raises(ValueError):
        linspace(0, 1, -1)
    assert Linspace(True, "float64") != Linspace(False, "float64")


@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace_grad(endpoint: bool) -> None:
    verify_grad(lambda a, b: linspace(a, b, 5, endpoint) ** 2,
                [np.asarray(0.3), np.asarray(2.0)])


@pytest.mark.parametrize(("n", "m", "k"), [(3, None, 0), (2, 4, 1), (4, 2, -1), (3, 3, 5),
                                           (0, 2, 0)])
@pytest.mark.parametrize("dtype", [None, "int32", "bool"])
def test_eye(n: int, m: Any, k: int, dtype: Any) -> None:
    _check([], eye(n, m, k, dtype), [], np.eye(n, m, k, dtype), infer=False)
    nv, kv = tt.lscalar("n"), tt.lscalar("k")
    _check([nv, kv], eye(nv, m, kv, dtype), [n, k], np.eye(n, m, k, dtype))
    if m is None and k == 0:
        _check([], identity(n, dtype), [], np.identity(n, dtype), infer=False)
    assert Eye("float64").grad([nv, nv, kv], [tt.dmatrix()])[0].type.__class__.__name__ == (
        "DisconnectedType")


# --------------------------------------------------------------------------- join & co
@SETTINGS
@given(st.data())
def test_join_matches_numpy(data: Any) -> None:
    nd = data.draw(st.integers(1, 3))
    base = data.draw(st.lists(st.integers(0, 3), min_size=nd, max_size=nd))
    axis = data.draw(st.integers(-nd, nd - 1))
    k = data.draw(st.integers(1, 3))
    dts = [data.draw(st.sampled_from(DTYPES)) for _ in range(k)]
    vals = []
    for dt in dts:
        shp = list(base)
        shp[axis] = data.draw(st.integers(0, 3))
        vals.append(np.arange(int(np.prod(shp)), dtype=dt).reshape(shp))
    xs = [tt.tensor(dt, shape=(None,) * nd) for dt in dts]
    expected = np.concatenate(vals, axis=axis)
    _check(xs, concatenate(xs, axis=axis), vals, expected)
    _check(xs, join(axis, *xs), vals, expected)
    # static shapes add up along the axis
    statics = [tt.tensor(v.dtype.name, shape=v.shape) for v in vals]
    assert concatenate(statics, axis).type.shape == expected.shape


def test_join_errors_and_forms() -> None:
    a = tt.TensorType("float64", shape=(2, 3))("a")
    b = tt.TensorType("float64", shape=(2, 4))("b")
    assert join(1, a, b).type.shape == (2, 7)
    with pytest.raises(ValueError, match=r"dimension 1 differs .*\(2, 3\).*\(2, 4\)"):
        join(0, a, b)
    with pytest.raises(ValueError, match="same number of dims"):
        join(0, a, tt.dvector())
    with pytest.raises(ValueError, match="zero-dimensional"):
        join(0, tt.dscalar(), tt.dscalar())
    with pytest.raises(np.exceptions.AxisError):
        join(2, a, a)
    assert join(0, a) is a
    x = tt.dmatrix("x")
    xv = np.arange(6.0).reshape(2, 3)
    _check([x], concatenate([x, x], axis=None), [xv], np.concatenate([xv, xv], axis=None))
    _check([x], concatenate([x, [[1.0, 2.0, 3.0]]]), [xv],
           np.concatenate([xv, [[1.0, 2.0, 3.0]]]))
    assert Join(0) == Join(0) and Join(0) != Join(1)


def test_join_grad() -> None:
    rng = np.random.default_rng(5)
    verify_grad(lambda a, b: join(1, a, b) ** 2,
                [rng.normal(size=(2, 3)), rng.normal(size=(2, 1))], rng=rng)
    verify_grad(lambda a, b: concatenate([a, b, a], axis=0) * 1.5,
                [rng.normal(size=(1, 3)), rng.normal(size=(2, 3))], rng=rng)
    # an integer input gets a disconnected gradient
    x, i = tt.dvector("x"), tt.ivector("i")
    gs = Join(0).grad([x, i], [tt.dvector()])
    assert type(gs[1].type).__name__ == "DisconnectedType"
    assert gs[0].type.ndim == 1


@pytest.mark.parametrize("axis", [0, 1, -1, 2, -3])
@pytest.mark.parametrize("shp", [(2, 3), (0, 2)])
def test_stack(shp: tuple[int, ...], axis: int) -> None:
    vals = [np.arange(int(np.prod(shp)), dtype="float32").reshape(shp) + i for i in range(3)]
    xs = [_var(shp, "float32") for _ in vals]
    _check(xs, stack(xs, axis=axis), vals, np.stack(vals, axis=axis))


def test_stack_scalars_hstack_vstack_and_grad() -> None:
    a, b = tt.dscalar("a"), tt.lscalar("b")
    _check([a, b], stack([a, b]), [np.asarray(1.5), np.asarray(2)], np.stack([1.5, 2]))
    v, w = tt.dvector("v"), tt.dvector("w")
    vv, wv = np.arange(3.0), np.arange(2.0)
    _check([v, w], hstack([v, w]), [vv, wv], np.hstack([vv, wv]))
    _check([v], vstack([v, v]), [vv], np.vstack([vv, vv]))
    m = tt.dmatrix("m")
    mv = np.ones((2, 2))
    _check([m], hstack([m, m]), [mv], np.hstack([mv, mv]))
    with pytest.raises(ValueError, match="same shape"):
        stack([v, m])
    verify_grad(lambda x, y: stack([x, y], axis=1) ** 2, [vv, vv + 1.0])


@pytest.mark.parametrize(("shp", "sizes", "axis"), [((5,), [2, 3], 0), ((2, 6), [1, 0, 5], -1),
                                                    ((4, 3), [4], 0), ((0, 3), [0, 0], 0)])
def test_split(shp: tuple[int, ...], sizes: list[int], axis: int) -> None:
    val = np.arange(int(np.prod(shp)), dtype="float64").reshape(shp)
    x = _var(shp)
    outs = split(x, sizes, len(sizes), axis=axis)
    expected = np.split(val, np.cumsum(sizes)[:-1], axis=axis)
    assert len(outs) == len(sizes)
    for o, e in zip(outs, expected):
        _check([x], o, [val], e)
    s = tt.lvector("s")
    outs = split(x, s, len(sizes), axis)
    for o, e in zip(outs, expected):
        _check([x, s], o, [val, np.array(sizes)], e)
    assert outs[0].owner.op.view_map == {i: [0] for i in range(len(sizes))}


def test_split_errors_and_grad() -> None:
    x = tt.TensorType("float64", shape=(5,))("x")
    with pytest.raises(ValueError, match="do not add up"):
        split(x, [2, 2])
    with pytest.raises(ValueError, match="pass n_splits"):
        split(x, tt.lvector())
    y = tt.dvector("y")
    s = tt.lvector("s")
    with pytest.raises(ValueError, match="do not add up"):
        run([y, s], split(y, s, 2)[0], np.zeros(5), np.array([2, 2]))
    rng = np.random.default_rng(6)
    verify_grad(lambda x: split(x, [1, 3], axis=1)[1] ** 2, [rng.normal(size=(2, 4))])
    verify_grad(lambda x: sum(p.sum() * (k + 1.0) for k, p in enumerate(split(x, [2, 2, 1]))),
                [rng.normal(size=5)])
    assert Split(2, 0) != Split(2, 1)


# --------------------------------------------------------------------------- tile/roll/flip
@SETTINGS
@given(st.lists(st.integers(0, 3), max_size=3).map(tuple),
       st.lists(st.integers(0, 3), min_size=1, max_size=4).map(tuple))
def test_tile_matches_numpy(shp: tuple[int, ...], reps: tuple[int, ...]) -> None:
    val = np.arange(int(np.prod(shp)), dtype="int32").reshape(shp)
    x = _var(shp, "int32")
    _check([x], tile(x, reps), [val], np.tile(val, reps))
    assert tile(_var(shp, "int32", static=True), reps).type.shape == np.tile(val, reps).shape


def test_tile_symbolic_and_grad() -> None:
    x = tt.dmatrix("x")
    r = tt.lscalar("r")
    xv = np.arange(6.0).reshape(2, 3)
    _check([x, r], tile(x, (r, 2)), [xv, 3], np.tile(xv, (3, 2)))
    verify_grad(lambda x: tile(x, (2, 1, 3)) ** 2, [xv])


@SETTINGS
@given(st.lists(st.integers(0, 4), min_size=1, max_size=3).map(tuple), st.data())
def test_roll_matches_numpy(shp: tuple[int, ...], data: Any) -> None:
    val = np.arange(int(np.prod(shp)), dtype="float32").reshape(shp)
    x = _var(shp, "float32")
    shift = data.draw(st.integers(-7, 7))
    axis = data.draw(st.one_of(st.none(), st.integers(-len(shp), len(shp) - 1)))
    _check([x], roll(x, shift, axis), [val], np.roll(val, shift, axis))
    s = tt.lscalar("s")
    _check([x, s], roll(x, s, axis), [val, shift], np.roll(val, shift, axis))
    if len(shp) >= 2:
        _check([x], roll(x, (shift, 1), (0, -1)), [val], np.roll(val, (shift, 1), (0, -1)))


def test_roll_grad() -> None:
    verify_grad(lambda x: roll(x, 2, 1) * np.arange(12.0).reshape(3, 4), [np.ones((3, 4))])


@pytest.mark.parametrize("axis", [None, 0, -1, (0, 1)])
def test_flip(axis: Any) -> None:
    val = np.arange(12, dtype="int32").reshape(3, 4)
    x = _var((3, 4), "int32")
    _check([x], flip(x, axis), [val], np.flip(val, axis))
    verify_grad(lambda x: flip(x, axis) * np.arange(12.0).reshape(3, 4), [val.astype(float)])


@settings(max_examples=6, deadline=None)
@given(st.data())
def test_join_grad_random(data: Any) -> None:
    """verify_grad of join/stack on hypothesis-drawn shapes and points (incl. broadcasting)."""
    nd = data.draw(st.integers(1, 3))
    base = data.draw(st.lists(st.integers(1, 3), min_size=nd, max_size=nd))
    axis = data.draw(st.integers(-nd, nd - 1))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    shapes = []
    for _ in range(data.draw(st.integers(2, 3))):
        shp = list(base)
        shp[axis] = data.draw(st.integers(1, 3))
        shapes.append(tuple(shp))
    pts = [rng.normal(size=s) for s in shapes]
    verify_grad(lambda *xs: concatenate(xs, axis=axis) ** 2, pts, rng=rng)
    sax = data.draw(st.integers(-nd - 1, nd))
    w = rng.normal(size=base)
    weight = np.expand_dims(w, sax)  # broadcasts along the new axis of the stack
    verify_grad(lambda a, b: stack([a, b], axis=sax) * weight, [w, w + 1.0], rng=rng)


def test_rop_creation_and_joining() -> None:
    from theon.gradient import Rop

    x, v = tt.dmatrix("x"), tt.dmatrix("v")
    xv = np.arange(6.0).reshape(2, 3)
    vv = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    outs = [
        alloc(x[0], 4, 3) ** 2,
        concatenate([x, x**2], axis=1),
        split(x, [1, 2], 2, axis=1)[1] ** 2,
        stack([x, x * 3.0]),
        flip(x) ** 2,
        roll(x, 1, 1) ** 2,
        tile(x, (2, 1)) ** 2,
    ]
    for y in outs:
        jvp = run([x, v], Rop(y, x, v), xv, vv)
        g = theon.function([x], y, mode="REFERENCE")
        num = (g(xv + 1e-6 * vv) - g(xv - 1e-6 * vv)) / 2e-6
        np.testing.assert_allclose(jvp, num, rtol=1e-5, atol=1e-6)
