"""Creation ops against NumPy: alloc & friends, sum_to_shape, arange, linspace, eye;
dtypes, static shapes, infer_shape and grads."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import settings

import theon
import theon.tensor as tt
from tests.tensor.core_checks import check_infer_shape, run
from theon.gradient import verify_grad as _verify_grad
from theon.tensor.creation import (
    ARange,
    Eye,
    Linspace,
    SumToShape,
    alloc,
    arange,
    broadcast_to,
    eye,
    full,
    full_like,
    identity,
    linspace,
    ones,
    sum_to_shape,
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


@pytest.mark.parametrize("linker", ["py", "vm"])
@pytest.mark.parametrize(("make", "zero"), [(tt.lscalar, 0), (tt.dscalar, 0.0)])
def test_arange_step_zero_at_run_time_names_the_step(make: Any, zero: Any, linker: str) -> None:
    """Issue 29 item 13: NumPy raises ZeroDivisionError for a zero step; theon names the
    step variable instead of "Maximum allowed size exceeded"."""
    with pytest.raises(ZeroDivisionError):
        np.arange(0, 10, zero)
    step = make("step")
    f = theon.function([step], arange(0, 10, step), mode=theon.Mode(linker=linker))
    np.testing.assert_array_equal(f(2), np.arange(0, 10, 2))
    with pytest.raises(ZeroDivisionError, match=r"arange: the step 'step' \(TensorType\("
                       r"(int64|float64), shape=\(\)\)\).* is 0 at run time"):
        f(zero)


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


def test_alloc_empty_shape_dtype_and_no_folding() -> None:
    """PyTensor's AllocEmpty: an unset buffer of the given shape and dtype; never folded
    into a constant (its values are whatever the memory held)."""
    from theon.tensor.creation import AllocEmpty

    n = tt.lscalar("n")
    y = AllocEmpty("float32")(n, 3)
    assert y.type == tt.TensorType("float32", shape=(None, 3))
    value, shp = theon.function([n], [y, y.shape])(4)
    assert value.shape == (4, 3) and value.dtype == np.float32
    np.testing.assert_array_equal(shp, [4, 3])
    f = theon.function([], AllocEmpty("int8")(2, 2))
    assert any(isinstance(nd.op, AllocEmpty) for nd in f.maker.fgraph.apply_nodes)
    assert f().shape == (2, 2)
    assert AllocEmpty("float64") == AllocEmpty("float64") != AllocEmpty("int8")
    with pytest.raises(ValueError, match="negative dimension -1"):
        AllocEmpty("float64")(-1)
    grads = AllocEmpty("float64").grad([n], [tt.dvector()])
    assert type(grads[0].type).__name__ == "DisconnectedType"
