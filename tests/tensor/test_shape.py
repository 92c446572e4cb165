"""Shape ops against NumPy: shape, reshape, flatten, specify_shape, transpose & co; grads."""

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
from theon.tensor.reshaping import (
    Reshape,
    expand_dims,
    flatten,
    moveaxis,
    ravel,
    reshape,
    shape_padaxis,
    shape_padleft,
    shape_padright,
    squeeze,
    swapaxes,
    transpose,
)
from theon.tensor.shape import (
    MakeVector,
    Shape,
    Shape_i,
    SpecifyShape,
    make_vector,
    shape,
    shape_i,
    specify_broadcastable,
    specify_shape,
)


def verify_grad(*args: Any, **kwargs: Any) -> None:
    """verify_grad on the reference VM (no rewrites, no other linker)."""
    _verify_grad(*args, mode="REFERENCE", **kwargs)


SETTINGS = settings(max_examples=40, deadline=None)
DTYPES = ["float64", "float32", "int32"]


def _var(shape: tuple[int, ...], dtype: str = "float64", static: bool = False) -> Any:
    return tt.tensor(dtype, shape=shape if static else (None,) * len(shape), name="x")


def _check(inputs: list[Any], out: Any, values: list[Any], expected: np.ndarray) -> None:
    got = run(inputs, out, *values)
    assert isinstance(got, np.ndarray)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    np.testing.assert_array_equal(got, expected)
    assert out.type.ndim == expected.ndim
    for s, r in zip(out.type.shape, expected.shape):
        assert s is None or s == r, (out.type.shape, expected.shape)
    if out.owner is not None:
        check_infer_shape(out, inputs, values)


# --------------------------------------------------------------------------- Shape
@pytest.mark.parametrize("shp", [(), (3,), (2, 0, 4)])
def test_shape_and_shape_i(shp: tuple[int, ...]) -> None:
    x = _var(shp)
    val = np.zeros(shp)
    s = shape(x)
    assert isinstance(s.owner.op, Shape) and s.type == tt.TensorType("int64", shape=(len(shp),))
    got = run([x], s, val)
    assert got.dtype == np.int64 and tuple(got) == shp
    check_infer_shape(s, [x], [val])
    for i in range(len(shp)):
        si = shape_i(x, i)
        assert isinstance(si.owner.op, Shape_i) and si.type.ndim == 0 and si.dtype == "int64"
        r = run([x], si, val)
        assert isinstance(r, np.ndarray) and r.dtype == np.int64 and int(r) == shp[i]
        assert int(run([x], x.shape[i], val)) == shp[i]
        assert int(run([x], shape_i(x, i - len(shp)), val)) == shp[i]
    # static dims are constants
    xs = _var(shp, static=True)
    for i in range(len(shp)):
        assert int(shape_i(xs, i).data) == shp[i]


def test_shape_grad_disconnected_and_errors() -> None:
    x = tt.dmatrix("x")
    g = Shape().grad([x], [tt.lvector()])
    assert type(g[0].type).__name__ == "DisconnectedType"
    with pytest.raises(np.exceptions.AxisError):
        shape_i(x, 2)


def test_make_vector() -> None:
    a, b = tt.lscalar("a"), tt.iscalar("b")
    v = make_vector(a, b, 3)
    assert isinstance(v.owner.op, MakeVector) and v.type.shape == (3,)
    np.testing.assert_array_equal(run([a, b], v, 4, 5), [4, 5, 3])
    check_infer_shape(v, [a, b], [4, 5])
    assert make_vector(1, 2).data.tolist() == [1, 2]
    verify_grad(lambda x, y: MakeVector("float64")(x, y) ** 2, [1.5, -2.0])
    with pytest.raises(TypeError):
        MakeVector("int64")(tt.dvector())


# --------------------------------------------------------------------------- Reshape
@st.composite
def reshape_case(draw: Any) -> tuple[tuple[int, ...], tuple[int, ...]]:
    shp = tuple(draw(st.lists(st.integers(0, 4), max_size=4)))
    size = int(np.prod(shp))
    # factor the size into a new shape, maybe with a -1
    if size == 0:
        new = [0, *draw(st.lists(st.integers(1, 3), max_size=2))]
        draw(st.randoms()).shuffle(new)
        return shp, tuple(new)
    new: list[int] = []
    rest = size
    for _ in range(draw(st.integers(0, 3))):
        divs = [d for d in range(1, rest + 1) if rest % d == 0]
        d = draw(st.sampled_from(divs))
        new.append(d)
        rest //= d
    new.append(rest)
    draw(st.randoms()).shuffle(new)
    if draw(st.booleans()):
        new[draw(st.integers(0, len(new) - 1))] = -1
    return shp, tuple(new)


@SETTINGS
@given(reshape_case(), st.sampled_from(DTYPES))
def test_reshape_matches_numpy(case: Any, dtype: str) -> None:
    shp, new = case
    val = np.arange(int(np.prod(shp)), dtype=dtype).reshape(shp)
    x = _var(shp, dtype)
    out = reshape(x, new)
    _check([x], out, [val], val.reshape(new))
    assert out.owner.op.view_map == {0: [0]}
    # static input: the -1 is resolved statically
    xs = _var(shp, dtype, static=True)
    assert reshape(xs, new).type.shape == val.reshape(new).shape
    # the same new shape as a symbolic vector, and as symbolic scalars
    v = tt.lvector("v")
    out2 = reshape(x, v, ndim=len(new))
    _check([x, v], out2, [val, np.array(new)], val.reshape(new))
    syms = [tt.lscalar() for _ in new]
    out3 = reshape(x, syms)
    _check([x, *syms], out3, [val, *new], val.reshape(new))


def test_reshape_forms_and_errors() -> None:
    x = tt.TensorType("float64", shape=(2, 6))("x")
    assert x.reshape(3, 4).type.shape == (3, 4)
    assert x.reshape((3, -1)).type.shape == (3, 4)
    assert x.reshape(-1).type.shape == (12,)
    assert reshape(x, 12).type.shape == (12,)
    y = tt.dmatrix("y")
    assert reshape(x, y.shape).type.ndim == 2
    with pytest.raises(ValueError, match=r"cannot reshape an array of shape \(2, 6\)"):
        x.reshape(5, 2)
    with pytest.raises(ValueError, match="only specify one unknown"):
        x.reshape(-1, -1)
    with pytest.raises(ValueError, match="cannot reshape"):
        x.reshape(5, -1)
    with pytest.raises(ValueError, match="invalid size"):
        x.reshape(-2, 6)
    with pytest.raises(ValueError, match="pass ndim"):
        reshape(x, tt.lvector())
    with pytest.raises(TypeError, match="integer"):
        reshape(x, tt.dvector())
    # run-time mismatch
    z = tt.dvector("z")
    with pytest.raises(ValueError):
        run([z], z.reshape(2, 2), np.zeros(3))


def test_reshape_infer_shape_with_symbolic_minus_one() -> None:
    x = tt.tensor3("x")
    a, b = tt.lscalar("a"), tt.lscalar("b")
    out = reshape(x, (a, b))
    val = np.zeros((2, 3, 4))
    check_infer_shape(out, [x, a, b], [val, -1, 6])
    check_infer_shape(out, [x, a, b], [val, 4, -1])
    check_infer_shape(out, [x, a, b], [val, 8, 3])
    out = reshape(x, (-1, a))
    check_infer_shape(out, [x, a], [val, 12])


@pytest.mark.parametrize("ndim", [1, 2, 3])
@pytest.mark.parametrize("shp", [(2, 3, 4), (0, 2, 3), (3, 1, 0)])
def test_flatten(shp: tuple[int, ...], ndim: int) -> None:
    val = np.arange(int(np.prod(shp)), dtype="float32").reshape(shp)
    expected = val.reshape(shp[: ndim - 1] + (-1,)) if np.prod(shp) else val.reshape(
        shp[: ndim - 1] + (int(np.prod(shp[ndim - 1:])),))
    x = _var(shp, "float32")
    _check([x], flatten(x, ndim), [val], expected)
    assert _var(shp, static=True).flatten(ndim).type.shape == expected.shape
    if ndim == 1:
        _check([x], ravel(x), [val], val.ravel())
    with pytest.raises(ValueError):
        flatten(x, 4)


@pytest.mark.parametrize("fn", [
    lambda x: reshape(x, (4, 3)),
    lambda x: reshape(x, (-1,)),
    lambda x: flatten(x, 1),
    lambda x: reshape(x, (2, -1, 2)) * 2,
])
def test_reshape_grad(fn: Any) -> None:
    rng = np.random.default_rng(0)
    verify_grad(fn, [rng.normal(size=(3, 4))], rng=rng)


# --------------------------------------------------------------------------- SpecifyShape
def test_specify_shape() -> None:
    x = tt.dmatrix("x")
    n = tt.lscalar("n")
    out = specify_shape(x, (None, 3))
    assert isinstance(out.owner.op, SpecifyShape)
    assert out.type.shape == (None, 3)
    assert out.owner.op.view_map == {0: [0]}
    val = np.zeros((2, 3))
    _check([x], out, [val], val)
    with pytest.raises(AssertionError, match="should be 3"):
        run([x], out, np.zeros((2, 4)))
    out2 = specify_shape(x, (n, None))
    _check([x, n], out2, [val, 2], val)
    with pytest.raises(AssertionError):
        run([x, n], out2, val, 3)
    assert specify_shape(x, (None, None)) is x
    xs = tt.TensorType("float64", shape=(2, None))("xs")
    with pytest.raises(ValueError, match=r"static shape \(2, None\)"):
        specify_shape(xs, (3, None))
    with pytest.raises(ValueError, match="has 2 dims"):
        specify_shape(x, (1,))
    b = specify_broadcastable(x, 0)
    assert b.type.shape == (1, None)
    verify_grad(lambda x: specify_shape(x, (2, 3)) * 3.0, [np.ones((2, 3))])


# --------------------------------------------------------------------------- DimShuffle-based
@SETTINGS
@given(st.lists(st.integers(0, 3), min_size=0, max_size=4).map(tuple), st.data())
def test_transpose_matches_numpy(shp: tuple[int, ...], data: Any) -> None:
    val = np.arange(int(np.prod(shp)), dtype="float64").reshape(shp)
    x = _var(shp)
    perm = data.draw(st.permutations(range(len(shp))))
    perm = [p - len(shp) if data.draw(st.booleans()) else p for p in perm]
    _check([x], transpose(x, perm), [val], np.transpose(val, perm))
    _check([x], transpose(x), [val], val.T)
    _check([x], x.T, [val], val.T)
    if shp:
        a1 = data.draw(st.integers(-len(shp), len(shp) - 1))
        a2 = data.draw(st.integers(-len(shp), len(shp) - 1))
        _check([x], swapaxes(x, a1, a2), [val], np.swapaxes(val, a1, a2))
        src = data.draw(st.lists(st.integers(0, len(shp) - 1), unique=True))
        dst = data.draw(st.permutations(range(len(shp))))[: len(src)]
        _check([x], moveaxis(x, src, dst), [val], np.moveaxis(val, src, dst))


def test_transpose_errors() -> None:
    x = tt.dmatrix("x")
    with pytest.raises(ValueError, match="don't match"):
        transpose(x, (0,))
    with pytest.raises(ValueError, match="repeated"):
        transpose(x, (0, 0))
    with pytest.raises(np.exceptions.AxisError):
        transpose(x, (0, 2))


@pytest.mark.parametrize(("shp", "axis"), [
    ((1, 3, 1), None), ((1, 3, 1), 0), ((1, 3, 1), -1), ((1, 3, 1), (0, 2)), ((3,), None),
    ((1,), 0), ((), None),
])
def test_squeeze(shp: tuple[int, ...], axis: Any) -> None:
    val = np.arange(int(np.prod(shp)), dtype="int32").reshape(shp)
    xs = _var(shp, "int32", static=True)
    _check([xs], squeeze(xs, axis), [val], np.squeeze(val, axis))
    # unknown static sizes: named axes are checked at run time
    x = _var(shp, "int32")
    if axis is not None:
        _check([x], squeeze(x, axis), [val], np.squeeze(val, axis))
        _check([x], x.squeeze(axis), [val], np.squeeze(val, axis))
    else:
        assert squeeze(x) is x


def test_squeeze_errors() -> None:
    xs = tt.TensorType("float64", shape=(2, None))("xs")
    with pytest.raises(ValueError, match="its size is not 1"):
        squeeze(xs, 0)
    out = squeeze(xs, 1)
    with pytest.raises(AssertionError):
        run([xs], out, np.zeros((2, 3)))
    verify_grad(lambda x: squeeze(x, 1) * 2.0, [np.ones((3, 1))])


@pytest.mark.parametrize(("shp", "axis"), [
    ((3,), 0), ((3,), -1), ((3,), (0, 2)), ((2, 3), (-1, 0)), ((), 0), ((2, 3), (1, -2)),
])
def test_expand_dims(shp: tuple[int, ...], axis: Any) -> None:
    val = np.arange(int(np.prod(shp)), dtype="float32").reshape(shp)
    x = _var(shp, "float32")
    _check([x], expand_dims(x, axis), [val], np.expand_dims(val, axis))
    ax = axis if isinstance(axis, int) else axis[0]
    if isinstance(axis, int):
        _check([x], shape_padaxis(x, ax), [val], np.expand_dims(val, ax))
    _check([x], shape_padleft(x, 2), [val], val[None, None])
    _check([x], shape_padright(x), [val], val[..., None])


def test_expand_dims_errors() -> None:
    x = tt.dvector("x")
    with pytest.raises(np.exceptions.AxisError):
        expand_dims(x, 2)
    with pytest.raises(ValueError, match="repeated"):
        expand_dims(x, (0, 0))


def test_dimshuffle_family_grads() -> None:
    rng = np.random.default_rng(4)
    v = rng.normal(size=(2, 3, 4))
    verify_grad(lambda x: transpose(x, (2, 0, 1)) * np.arange(24.0).reshape(4, 2, 3), [v])
    verify_grad(lambda x: moveaxis(x, 0, -1) ** 2, [v])
    verify_grad(lambda x: expand_dims(x, 1) ** 2, [v])


def test_reshape_view_and_function() -> None:
    x = tt.dvector("x")
    f = theon.function([x], reshape(x, (2, 2)) + 1.0)
    np.testing.assert_array_equal(f(np.arange(4.0)), np.arange(4.0).reshape(2, 2) + 1)
    assert Reshape(2) == Reshape(2) and Reshape(2) != Reshape(3)


def test_moved_names_keep_their_old_import_path() -> None:
    import importlib

    import theon.tensor.reshaping as reshaping

    # (``import theon.tensor.shape as m`` would give the function tt.shape)
    shape_mod = importlib.import_module("theon.tensor.shape")

    for name in shape_mod._MOVED:
        assert getattr(shape_mod, name) is getattr(reshaping, name), name
    assert set(reshaping.__all__) <= shape_mod._MOVED
    with pytest.raises(AttributeError, match="no_such_name"):
        shape_mod.no_such_name  # noqa: B018
