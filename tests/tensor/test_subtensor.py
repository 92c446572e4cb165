"""Indexing against NumPy: basic, advanced and boolean; set/inc_subtensor; take; grads."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from tests.tensor.core_checks import check_infer_shape, run
from theon.gradient import verify_grad as _verify_grad
from theon.tensor.shape import Shape_i
from theon.tensor.subtensor import (
    AdvancedIncSubtensor,
    AdvancedSubtensor,
    IncSubtensor,
    Subtensor,
    getitem,
    inc_subtensor,
    set_subtensor,
    take,
)


def verify_grad(*args: Any, **kwargs: Any) -> None:
    """verify_grad on the reference VM (no rewrites, no other linker)."""
    _verify_grad(*args, mode="REFERENCE", **kwargs)


SETTINGS = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def _static_ok(var: Any, value: np.ndarray) -> None:
    """The static shape of ``var`` agrees with the value it takes."""
    assert var.type.ndim == value.ndim
    for s, r in zip(var.type.shape, value.shape):
        assert s is None or s == r, (var.type.shape, value.shape)


def _check(inputs: list[Any], out: Any, values: list[Any], expected: np.ndarray) -> None:
    got = run(inputs, out, *values)
    assert isinstance(got, np.ndarray)
    assert got.dtype == expected.dtype
    np.testing.assert_array_equal(got, expected)
    _static_ok(out, expected)
    if out.owner is not None:
        check_infer_shape(out, inputs, values)


# --------------------------------------------------------------------------- strategies
@st.composite
def basic_index(draw: Any, shape: tuple[int, ...]) -> tuple[Any, ...]:
    """A random valid basic index (ints, slices, None, Ellipsis) for ``shape``."""
    nd = len(shape)

    def entry(n: int) -> Any:
        if n > 0 and draw(st.booleans()):
            return draw(st.integers(-n, n - 1))
        bound = st.one_of(st.none(), st.integers(-n - 2, n + 2))
        step = draw(st.sampled_from([None, 1, 2, -1, -2, 3]))
        return slice(draw(bound), draw(bound), step)

    k = draw(st.integers(0, nd))
    entries: list[Any] = [entry(shape[d]) for d in range(k)]
    if draw(st.booleans()):
        q = draw(st.integers(0, nd - k))
        entries.append(Ellipsis)
        entries.extend(entry(shape[d]) for d in range(nd - q, nd))
    for _ in range(draw(st.integers(0, 2))):
        entries.insert(draw(st.integers(0, len(entries))), None)
    return tuple(entries)


shapes = st.lists(st.integers(0, 4), min_size=0, max_size=3).map(tuple)


# --------------------------------------------------------------------------- basic
@SETTINGS
@given(st.data(), shapes, st.sampled_from(["float64", "float32", "int32"]))
def test_basic_indexing_matches_numpy(data: Any, shape: tuple[int, ...], dtype: str) -> None:
    idx = data.draw(basic_index(shape))
    val = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    x = tt.tensor(dtype, shape=(None,) * len(shape), name="x")
    out = x[idx]
    _check([x], out, [val], val[idx])
    # with a fully static input the static shape is exact
    xs = tt.tensor(dtype, shape=shape, name="xs")
    outs = xs[idx]
    assert outs.type.shape == val[idx].shape


@SETTINGS
@given(st.data(), st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple))
def test_symbolic_bounds(data: Any, shape: tuple[int, ...]) -> None:
    """Ints and slice bounds given as int scalar variables."""
    idx = data.draw(basic_index(shape))
    val = np.random.default_rng(0).normal(size=shape)
    x = tt.tensor("float64", shape=(None,) * len(shape), name="x")
    sym_inputs: list[Any] = []
    sym_values: list[Any] = []

    def sym(v: Any) -> Any:
        if v is None or not data.draw(st.booleans()):
            return v
        var = data.draw(st.sampled_from([tt.lscalar, tt.iscalar, tt.bscalar]))()
        sym_inputs.append(var)
        sym_values.append(v)
        return var

    new_idx = []
    for e in idx:
        if isinstance(e, slice):
            new_idx.append(slice(sym(e.start), sym(e.stop), sym(e.step)))
        elif isinstance(e, int):
            new_idx.append(sym(e))
        else:
            new_idx.append(e)
    out = x[tuple(new_idx)]
    _check([x, *sym_inputs], out, [val, *sym_values], val[idx])


def test_basic_is_view_and_props() -> None:
    x = tt.dmatrix("x")
    y = x[1:, 0]
    assert isinstance(y.owner.op, Subtensor)
    assert y.owner.op.view_map == {0: [0]}
    assert str(y.owner.op) == "Subtensor{1:, 0}"
    assert x[1:, 0].owner.op == y.owner.op
    assert hash(x[1:, 0].owner.op) == hash(y.owner.op)
    # trailing full slices are dropped from the description
    assert x[1, :].owner.op == x[1].owner.op
    # an all-int index gives a 0-d array view
    v = np.arange(6.0).reshape(2, 3)
    node = x[1, 2].owner
    out: list[list[Any]] = [[None]]
    node.op.perform(node, [v, *[]], out)
    assert isinstance(out[0][0], np.ndarray) and out[0][0].ndim == 0
    assert np.shares_memory(out[0][0], v)


def test_shape_indexing() -> None:
    x = tt.TensorType("float64", shape=(3, None))("x")
    assert isinstance(x.shape[1].owner.op, Shape_i)
    assert int(x.shape[0].data) == 3
    assert int(x.shape[-2].data) == 3
    f = theon.function([x], [x.shape[1], x.shape[-1], x.shape[:1]])
    a, b, c = f(np.zeros((3, 5)))
    assert int(a) == 5 and int(b) == 5 and list(c) == [3]
    with pytest.raises(IndexError):
        x.shape[2]


def test_basic_errors() -> None:
    x = tt.TensorType("float64", shape=(3, None))("x")
    with pytest.raises(IndexError, match=r"out of bounds for axis 0 with size 3"):
        x[3]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., ...]
    with pytest.raises(IndexError, match="integer or boolean"):
        x[tt.dvector()]
    with pytest.raises(IndexError, match="valid indices"):
        x[1.5]
    with pytest.raises(TypeError, match="slice bound"):
        x[: tt.dscalar()]
    with pytest.raises(ValueError, match="step cannot be zero"):
        x[::0]
    # runtime out of bounds
    i = tt.lscalar("i")
    with pytest.raises(IndexError):
        run([x, i], x[i], np.zeros((3, 2)), 5)


# --------------------------------------------------------------------------- advanced
ADV_CASES: list[tuple[tuple[int, ...], Any]] = [
    ((5,), ([0, 4, -1, 0],)),
    ((4, 3), ([0, 2],)),
    ((4, 3), ([0, 2], 1)),
    ((4, 3), (1, [0, 2])),
    ((4, 3), (slice(None), [0, 0, 1])),
    ((4, 3), ([[0], [3]], [0, 2])),
    ((4, 3, 2), ([0, 1], slice(None), [1, 1])),
    ((4, 3, 2), (0, slice(None), [1, 0])),
    ((4, 3, 2), (None, [0, 1], [1, 2])),
    ((4, 3, 2), ([0, 1], None, [1, 2])),
    ((4, 3, 2), (Ellipsis, [1, 0])),
    ((4, 3, 2), (slice(1, None), [2, 0], None)),
    ((4, 3), ([],)),
    ((4, 3), (np.array([], dtype=np.int64), slice(None, None, -1))),
    ((0, 3), (slice(None), [1, 2])),
    ((4, 3), (np.array([True, False, True, True]),)),
    ((4, 3), (slice(None), np.array([False, True, True]))),
    ((4, 3), (np.array([True, False, True, False]), 2)),
    ((4, 3), (np.ones((4, 3), dtype=bool),)),
    ((4, 3), (np.zeros((4, 3), dtype=bool),)),
    ((4, 3, 2), (np.eye(4, 3, dtype=bool), [1, 0, 1])),
    ((4, 3), (True,)),
    ((4, 3), (False, 1)),
    ((4, 3), ([0, 1], slice(None), True)),
]


@pytest.mark.parametrize("dtype", ["float64", "int32"])
@pytest.mark.parametrize(("shape", "idx"), ADV_CASES)
def test_advanced_constant_indices(shape: tuple[int, ...], idx: Any, dtype: str) -> None:
    val = np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    x = tt.tensor(dtype, shape=(None,) * len(shape), name="x")
    out = x[idx]
    _check([x], out, [val], val[idx])
    # constant indices on a static input: the static shape is exact
    xs = tt.tensor(dtype, shape=shape, name="xs")
    assert xs[idx].type.shape == val[idx].shape


@pytest.mark.parametrize(("shape", "idx"), ADV_CASES)
def test_advanced_symbolic_indices(shape: tuple[int, ...], idx: Any) -> None:
    """The same indices as symbolic int / bool tensors."""
    val = np.arange(int(np.prod(shape)), dtype="float64").reshape(shape)
    x = tt.tensor("float64", shape=(None,) * len(shape), name="x")
    ins: list[Any] = []
    vals: list[Any] = []
    sym = []
    for e in idx:
        if isinstance(e, (list, np.ndarray, bool)):
            arr = np.asarray(e)
            if arr.dtype != bool:
                arr = arr.astype(np.int64)
            v = tt.tensor(str(arr.dtype), shape=(None,) * arr.ndim)
            ins.append(v)
            vals.append(arr)
            sym.append(v)
        else:
            sym.append(e)
    out = x[tuple(sym)]
    assert isinstance(out.owner.op, AdvancedSubtensor)
    _check([x, *ins], out, [val, *vals], val[idx])


@SETTINGS
@given(st.data())
def test_advanced_random(data: Any) -> None:
    shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple))
    val = np.arange(int(np.prod(shape)), dtype="float32").reshape(shape)
    entries: list[Any] = []
    for n in shape[: data.draw(st.integers(1, len(shape)))]:
        kind = data.draw(st.sampled_from(["int", "slice", "arr", "arr2"]))
        if kind == "int":
            entries.append(data.draw(st.integers(-n, n - 1)))
        elif kind == "slice":
            entries.append(slice(data.draw(st.integers(-n, n)), None))
        elif kind == "arr":
            entries.append(data.draw(st.lists(st.integers(-n, n - 1), max_size=3)))
        else:
            entries.append([[data.draw(st.integers(-n, n - 1))]] * 2)
    if not any(isinstance(e, list) for e in entries):
        entries[0] = [0]
    if data.draw(st.booleans()):
        entries.insert(data.draw(st.integers(0, len(entries))), None)
    idx = tuple(entries)
    try:
        expected = val[idx]
    except IndexError:
        with pytest.raises(IndexError):
            run([x := tt.tensor("float32", shape=(None,) * len(shape))], x[idx], val)
        return
    x = tt.tensor("float32", shape=(None,) * len(shape), name="x")
    _check([x], x[idx], [val], expected)


def test_advanced_errors() -> None:
    x = tt.TensorType("float64", shape=(3, None))("x")
    with pytest.raises(IndexError, match="integer or boolean"):
        x[[0.5, 1.0]]
    with pytest.raises(IndexError, match="does not match dimension 0"):
        x[np.array([True, False])]
    with pytest.raises(IndexError, match="could not be broadcast"):
        x[[0, 1], [0, 1, 2]]
    with pytest.raises(IndexError, match="out of bounds"):
        x[3, [0]]
    with pytest.raises(IndexError, match="too many indices"):
        x[np.ones((3, 2, 1), dtype=bool)]


# --------------------------------------------------------------------------- set / inc
def _np_inc(val: np.ndarray, idx: Any, y: Any, set_: bool) -> np.ndarray:
    out = val.copy()
    if set_:
        out[idx] = y
    else:
        np.add.at(out, idx, y)
    return out


INC_CASES: list[tuple[tuple[int, ...], Any, tuple[int, ...]]] = [
    ((5,), (slice(1, 4),), ()),
    ((5,), (slice(None, None, -2),), (3,)),
    ((4, 3), (1,), (3,)),
    ((4, 3), (slice(None), 0), (1,)),
    ((4, 3), (slice(1, 3), slice(None)), (1, 3)),
    ((4, 3), (slice(1, 3), slice(None)), (2, 1)),
    ((4, 3), (2, 1), ()),
    ((5,), ([0, 0, 3, 0],), (4,)),
    ((5,), ([0, 0, 3],), ()),
    ((4, 3), ([0, 2, 0], slice(None)), (3,)),
    ((4, 3), (slice(None), [1, 1]), (4, 1)),
    ((4, 3, 2), ([0, 0], slice(None), [1, 1]), (2, 3)),
    ((4, 3), (np.array([True, False, True, True]),), (3,)),
    ((4, 3), (np.array([[True, False, True]] * 4),), ()),
    ((4, 3), ([],), ()),
]


@pytest.mark.parametrize("set_", [False, True])
@pytest.mark.parametrize(("shape", "idx", "yshape"), INC_CASES)
def test_set_inc_subtensor(shape: tuple[int, ...], idx: Any, yshape: tuple[int, ...],
                           set_: bool) -> None:
    rng = np.random.default_rng(1)
    val = rng.normal(size=shape)
    yv = rng.normal(size=yshape)
    x = tt.tensor("float64", shape=(None,) * len(shape), name="x")
    y = tt.tensor("float64", shape=tuple(1 if s == 1 else None for s in yshape), name="y")
    out = set_subtensor(x[idx], y) if set_ else inc_subtensor(x[idx], y)
    expected = _np_inc(val, idx, yv, set_)
    if set_ and any(isinstance(e, list) and len(set(e)) != len(e) for e in idx):
        # with repeated indices the value written last wins, as in NumPy
        expected = val.copy()
        expected[idx] = yv
    got = run([x, y], out, val, yv)
    np.testing.assert_allclose(got, expected)
    _static_ok(out, expected)
    check_infer_shape(out, [x, y], [val, yv])


def test_inc_accumulates_repeated() -> None:
    x = tt.dvector("x")
    i = tt.lvector("i")
    out = inc_subtensor(x[i], 1.0)
    got = run([x, i], out, np.zeros(3), np.array([0, 0, 2, 0, -1]))
    np.testing.assert_array_equal(got, [3.0, 0.0, 2.0])
    ign = inc_subtensor(x[i], 1.0, ignore_duplicates=True)
    got = run([x, i], ign, np.zeros(3), np.array([0, 0, 2]))
    np.testing.assert_array_equal(got, [1.0, 0.0, 1.0])


@pytest.mark.parametrize(("shape", "index", "yshape"), [
    ((4,), [[0, 1], [1, 1]], (2,)),
    ((4,), [[0, 1], [2, 3]], (2,)),
    ((3, 4), [[0, 2], [2, 2]], (4,)),
    ((3, 4), [[0, 2], [2, 2]], (2, 4)),
    ((3, 4), [[[1]], [[1]]], (4,)),
])
def test_inc_nd_index_broadcasts_y(shape: tuple[int, ...], index: Any,
                                   yshape: tuple[int, ...]) -> None:
    """Every entry of an index array of 2+ dims gets its y, y broadcast to the indexed
    shape (NumPy 2.4's ``np.add.at`` gets this wrong when y has fewer dims)."""
    rng = np.random.default_rng(3)
    xv, yv, iv = rng.normal(size=shape), rng.normal(size=yshape), np.array(index)
    x = tt.tensor("float64", shape=(None,) * len(shape), name="x")
    y = tt.tensor("float64", shape=(None,) * len(yshape), name="y")
    i = tt.tensor("int64", shape=(None,) * iv.ndim, name="i")
    expected = xv.copy()
    flat = expected.reshape(len(xv), -1)
    ys = np.broadcast_to(yv, iv.shape + shape[1:]).reshape(iv.size, -1)
    for k, row in enumerate(iv.reshape(-1)):  # one by one: no ufunc.at
        flat[row] += ys[k]
    for idx in (i, iv):
        out = inc_subtensor(x[idx], y)
        got = run([x, y, i], out, xv, yv, iv)
        np.testing.assert_allclose(got, expected, rtol=1e-12)


def test_inc_dtypes_and_errors() -> None:
    x = tt.ivector("x")
    with pytest.raises(TypeError, match="same_kind"):
        inc_subtensor(x[1:], tt.dscalar("y"))
    # setting casts like NumPy assignment
    out = set_subtensor(x[1:], 2.7)
    assert out.dtype == "int32"
    np.testing.assert_array_equal(run([x], out, np.zeros(3, "int32")), [0, 2, 2])
    f = tt.fvector("f")
    out = inc_subtensor(f[[0]], tt.dscalar("d"))
    assert out.dtype == "float32"
    xs = tt.TensorType("float64", shape=(4, 3))("xs")
    with pytest.raises(ValueError, match="cannot broadcast"):
        set_subtensor(xs[1:3], tt.TensorType("float64", shape=(3, 3))("y"))
    with pytest.raises(ValueError, match="too many dims"):
        set_subtensor(xs[1], tt.dmatrix("y"))
    with pytest.raises(TypeError, match="indexed tensor"):
        set_subtensor(tt.dmatrix("m"), 1.0)


def test_set_complex_into_real_raises() -> None:
    """Writing complex values into a real tensor would drop their imaginary part (NumPy
    only warns): an implicit complex-to-real cast, refused like ``cast``."""
    x, z = tt.dvector("x"), tt.zvector("z")
    for build in (lambda: set_subtensor(x[:1], z), lambda: set_subtensor(x[[0]], z),
                  lambda: inc_subtensor(x[:1], z)):
        with pytest.raises(TypeError, match="'z'"):
            build()
    out = set_subtensor(x[:1], tt.real(z))
    got = run([x, z], out, np.zeros(2), np.array([1.5 + 2j]))
    np.testing.assert_array_equal(got, [1.5, 0.0])


def test_set_through_new_axis() -> None:
    x = tt.dmatrix("x")
    y = tt.dcol("y")
    out = set_subtensor(x[1:, None, 0], y)
    val = np.zeros((3, 2))
    expected = val.copy()
    expected[1:, None, 0] = np.array([[1.0], [2.0]])
    np.testing.assert_array_equal(run([x, y], out, val, np.array([[1.0], [2.0]])), expected)


def test_inplace_variant() -> None:
    x = tt.dvector("x")
    op = IncSubtensor((0,), inplace=True)
    assert op.destroy_map == {0: [0]}
    assert IncSubtensor((0,)).destroy_map == {}
    assert op != IncSubtensor((0,))
    node = op.make_node(x, tt.constant(1.0))
    v = np.zeros(2)
    out: list[list[Any]] = [[None]]
    op.perform(node, [v, np.asarray(1.0)], out)
    assert out[0][0] is v and v[0] == 1.0
    aop = AdvancedIncSubtensor(("?",), inplace=True)
    assert aop.destroy_map == {0: [0]}
    out2 = inc_subtensor(x[0], 1.0)
    assert not out2.owner.op.destroy_map


# --------------------------------------------------------------------------- take
@pytest.mark.parametrize(
    ("shape", "indices", "axis"),
    [((5,), [0, 4, -1], None), ((3, 4), [[0, 1], [2, 11]], None), ((3, 4), [0, 2], 1),
     ((3, 4), 2, 0), ((3, 4), [1], -1), ((3, 4), [], 0)],
)
def test_take(shape: tuple[int, ...], indices: Any, axis: Any) -> None:
    val = np.arange(int(np.prod(shape)), dtype="float64").reshape(shape)
    x = tt.tensor("float64", shape=(None,) * len(shape), name="x")
    out = take(x, indices, axis=axis)
    expected = np.take(val, np.asarray(indices, dtype=np.int64), axis=axis)
    np.testing.assert_array_equal(run([x], out, val), expected)
    np.testing.assert_array_equal(run([x], x.take(indices, axis=axis), val), expected)
    i = tt.lvector("i")
    if np.ndim(indices) == 1:
        np.testing.assert_array_equal(
            run([x, i], take(x, i, axis=axis), val, np.asarray(indices, dtype=np.int64)),
            expected)


# --------------------------------------------------------------------------- grads
GRAD_INDICES: list[Any] = [
    (slice(1, None), 0),
    (slice(None, None, -2),),
    (1, 2),
    (None, slice(1, 3)),
    ([0, 2, 0],),
    (slice(None), [1, 1, 0]),
    (np.array([True, False, True]),),
    ([[0], [2]], [1, 0]),
]


@pytest.mark.parametrize("idx", GRAD_INDICES)
def test_grad_getitem(idx: Any) -> None:
    rng = np.random.default_rng(2)
    verify_grad(lambda x: x[idx], [rng.normal(size=(3, 4))], rng=rng)


@pytest.mark.parametrize("idx", [(slice(1, None), 0), (1,), ([0, 2, 0],),
                                 (slice(None), [1, 1]), (np.array([True, False, True]),)])
@pytest.mark.parametrize("set_", [False, True])
def test_grad_set_inc(idx: Any, set_: bool) -> None:
    rng = np.random.default_rng(3)
    xv = rng.normal(size=(3, 4))
    yshape = xv[idx].shape

    def fn(x: Any, y: Any) -> Any:
        if set_:
            return set_subtensor(x[idx], y) ** 2
        return inc_subtensor(x[idx], y) ** 2

    verify_grad(fn, [xv, rng.normal(size=yshape)], rng=rng)


def test_grad_broadcast_y() -> None:
    """y broadcast along a dimension whose size is only known at run time."""
    x = tt.dmatrix("x")
    y = tt.dvector("y")
    out = inc_subtensor(x[1:, :], y)
    cost = (out**2).sum()
    gy = theon.grad(cost, y)
    xv = np.arange(6.0).reshape(3, 2)
    yv = np.array([1.0, -1.0])
    expected = 2 * (xv[1:] + yv)
    np.testing.assert_allclose(run([x, y], gy, xv, yv), expected.sum(axis=0))
    # y of length 1 at run time, broadcast against 2 columns
    y1 = np.array([0.5])
    expected = 2 * (xv[1:] + y1)
    np.testing.assert_allclose(run([x, y], gy, xv, y1), [expected.sum()])


def test_grad_integer_index_disconnected() -> None:
    x = tt.dvector("x")
    i = tt.lscalar("i")
    out = x[i]
    gs = out.owner.op.grad([x, i], [tt.dscalar("g")])
    assert gs[1].type.__class__.__name__ == "DisconnectedType"
    xi = tt.ivector("xi")
    gs = xi[i].owner.op.grad([xi, i], [tt.dscalar("g")])
    assert gs[0].type.__class__.__name__ == "DisconnectedType"


def test_getitem_function_alias() -> None:
    x = tt.dmatrix("x")
    assert getitem(x, (0,)).owner.op == x[0].owner.op


@settings(max_examples=15, deadline=None)
@given(st.data(), st.lists(st.integers(1, 3), min_size=1, max_size=3).map(tuple))
def test_grad_random_basic_index(data: Any, shape: tuple[int, ...]) -> None:
    """verify_grad on hypothesis-drawn shapes, points and basic indices."""
    idx = data.draw(basic_index(shape))
    seed = data.draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    verify_grad(lambda x: x[idx] ** 2, [rng.normal(size=shape)], rng=rng)


def test_rop_matches_finite_differences() -> None:
    from theon.gradient import Rop

    x, v = tt.dmatrix("x"), tt.dmatrix("v")
    xv = np.arange(6.0).reshape(2, 3)
    vv = np.linspace(-1.0, 1.0, 6).reshape(2, 3)
    outs = [
        x[1:, ::-1] ** 2,
        x[[0, 0, 1]] ** 2,
        x[xv > 2] ** 2,
        inc_subtensor(x[[0, 0]], x[1]) ** 2,
        set_subtensor(x[:, 1], x[0, :2]) ** 2,
        take(x, [2, 0], axis=1) ** 2,
    ]
    for y in outs:
        jvp = run([x, v], Rop(y, x, v), xv, vv)
        g = theon.function([x], y, mode="REFERENCE")
        num = (g(xv + 1e-6 * vv) - g(xv - 1e-6 * vv)) / 2e-6
        np.testing.assert_allclose(jvp, num, rtol=1e-5, atol=1e-6)


def test_slice_entries_are_slice_objects_like_pytensors() -> None:
    """A basic slice is a ``slice`` in the op's ``idx_list`` (code written for PyTensor,
    PyMC's logprob among it, tests ``isinstance(entry, slice)`` and reads its parts);
    a symbolic bound is the next index input, ``"?"``."""
    x, n = tt.dmatrix("x"), tt.lscalar("n")
    y = x[1:, 0]
    assert y.owner.op.idx_list == (slice(1, None, None), 0)
    assert isinstance(y.owner.op.idx_list[0], slice)
    (e,) = x[:n].owner.op.idx_list
    assert isinstance(e, slice) and (e.start, e.stop, e.step) == (None, "?", None)
    (e,) = set_subtensor(x[:n], 0.0).owner.op.idx_list
    assert isinstance(e, slice) and e.stop == "?"
    i = tt.lvector("i")
    assert x[i, ::2].owner.op.idx_list == ("?", slice(None, None, 2))
    xv = np.arange(12.0).reshape(3, 4)
    np.testing.assert_array_equal(run([x], y, xv), xv[1:, 0])
    np.testing.assert_array_equal(run([x, n], x[:n], xv, 2), xv[:2])
    np.testing.assert_array_equal(run([x, i], x[i, ::2], xv, [2, 0]), xv[[2, 0], ::2])


def test_index_ops_built_alike_compare_and_hash_equal() -> None:
    """Op identity is ``__props__``: ops holding (unhashable) slices built alike are
    equal, hash equal (one set entry, one merged node) and survive a pickle round trip;
    a ``(start, stop, step)`` tuple is read as that slice."""
    import pickle

    x = tt.dmatrix("x")
    i = tt.lvector("i")
    pairs = [
        (x[1:, 0].owner.op, Subtensor(((1, None, None), 0))),
        (set_subtensor(x[:2], 1.0).owner.op,
         IncSubtensor([slice(None, 2)], set_instead_of_inc=True)),
        (x[i, 1:].owner.op, AdvancedSubtensor(("?", slice(1, None)))),
        (inc_subtensor(x[i, 1:], 1.0).owner.op, AdvancedIncSubtensor(("?", (1, None, None)))),
    ]
    for a, b in pairs:
        assert a is not b and a == b and hash(a) == hash(b) and len({a, b}) == 1
        c = pickle.loads(pickle.dumps(a))
        assert c == a and hash(c) == hash(a) and c.idx_list == a.idx_list
    assert Subtensor((slice(1, None),)) != Subtensor((slice(None, 1),))
    assert Subtensor((slice(1, None),)) != Subtensor((1,))
    assert IncSubtensor((slice(1, None),)) != IncSubtensor((slice(1, None),),
                                                          set_instead_of_inc=True)
    # two x[1:] built apart merge into one node when compiled
    f = theon.function([x], [x[1:] * 2.0, x[1:] * 3.0])
    subs = [nd for nd in f.maker.fgraph.apply_nodes if isinstance(nd.op, Subtensor)]
    assert len(subs) <= 1
    xv = np.arange(6.0).reshape(3, 2)
    r = f(xv)
    np.testing.assert_array_equal(r[0], xv[1:] * 2.0)
    np.testing.assert_array_equal(r[1], xv[1:] * 3.0)


def test_bad_index_entries_are_named() -> None:
    with pytest.raises(TypeError, match="not an index entry: 1.5"):
        Subtensor((1.5,))
    with pytest.raises(ValueError, match=r"\(start, stop, step\)"):
        Subtensor(((1, 2),))
