"""Joining ops against NumPy: join, concatenate, stack, split, tile, roll, flip;
dtypes, static shapes, infer_shape, grads and R_op."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from tests.tensor.core_checks import run
from tests.tensor.test_creation import DTYPES, SETTINGS, _check, _var, verify_grad
from theon.tensor.creation import alloc
from theon.tensor.joining import (
    Join,
    Split,
    concatenate,
    flip,
    hstack,
    join,
    roll,
    split,
    stack,
    static_axis,
    tile,
    vstack,
)


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
    assert Join() == Join() and hash(Join()) == hash(Join())


def test_join_takes_the_axis_as_its_first_input() -> None:
    """PyTensor's form (PyMC reads ``axis, *pieces = node.inputs``); a negative constant
    axis is stored non-negative."""
    a, b = tt.dmatrix("a"), tt.dmatrix("b")
    out = join(-1, a, b)
    axis, *pieces = out.owner.inputs
    assert isinstance(out.owner.op, Join) and pieces == [a, b]
    assert isinstance(axis, tt.TensorConstant) and int(axis.data) == 1
    assert static_axis(out.owner) == 1
    av, bv = np.ones((2, 1)), np.zeros((2, 3))
    _check([a, b], Join()(1, a, b), [av, bv], np.concatenate([av, bv], axis=1))


@pytest.mark.parametrize("axis_value", [0, 1, -2])
def test_join_and_split_with_an_axis_known_only_at_run_time(axis_value: int) -> None:
    a, b = tt.dmatrix("a"), tt.dmatrix("b")
    k = tt.lscalar("k")
    out = join(k, a, b)
    assert out.type.shape == (None, None) and static_axis(out.owner) is None
    av, bv = np.arange(6.0).reshape(2, 3), -np.arange(6.0).reshape(2, 3)
    expected = np.concatenate([av, bv], axis=axis_value)
    f = theon.function([a, b, k], [out, out.shape])
    value, shp = f(av, bv, axis_value)
    np.testing.assert_array_equal(value, expected)
    np.testing.assert_array_equal(shp, expected.shape)  # infer_shape with a run-time axis
    parts = split(out, [3, 3] if axis_value == 1 else [2, 2], 2, axis=k)
    g = theon.function([a, b, k], [*parts, parts[1].shape])
    p0, p1, s1 = g(av, bv, axis_value)
    np.testing.assert_array_equal(p0, av)
    np.testing.assert_array_equal(p1, bv)
    np.testing.assert_array_equal(s1, bv.shape)
    gx = theon.function([a, b, k], theon.grad((out ** 2).sum(), a))(av, bv, axis_value)
    np.testing.assert_allclose(gx, 2 * av)


def test_join_grad() -> None:
    rng = np.random.default_rng(5)
    verify_grad(lambda a, b: join(1, a, b) ** 2,
                [rng.normal(size=(2, 3)), rng.normal(size=(2, 1))], rng=rng)
    verify_grad(lambda a, b: concatenate([a, b, a], axis=0) * 1.5,
                [rng.normal(size=(1, 3)), rng.normal(size=(2, 3))], rng=rng)
    # an integer input gets a disconnected gradient
    x, i = tt.dvector("x"), tt.ivector("i")
    gs = Join().grad([tt.constant(0), x, i], [tt.dvector()])
    assert type(gs[0].type).__name__ == "DisconnectedType"  # the axis
    assert type(gs[2].type).__name__ == "DisconnectedType"
    assert gs[1].type.ndim == 1


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
    assert Split(2) == Split(2) and Split(2) != Split(3)
    x, axis, sizes = split(y, s, 2)[0].owner.inputs  # PyTensor's order of the inputs
    assert x is y and int(axis.data) == 0 and sizes is s


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
