"""unique, searchsorted, bincount, ravel_multi_index, unravel_index, compress,
nonzero_values, inverse_permutation, permute_row_elements, put_along_axis (issue 35)
against NumPy: values, dtypes, errors, infer_shape; gradients with verify_grad."""

import numpy as np
import pytest

import theon.tensor as tt
from tests.tensor.core_checks import check_infer_shape
from tests.tensor.nscheck import EXTREMES, check, check_shape, evaluate
from theon.gradient import verify_grad
from theon.tensor.searching import Unique

rng = np.random.default_rng(353)

FLAGS = [(False, False, False), (True, False, False), (False, True, False),
         (False, False, True), (True, True, True)]


@pytest.mark.parametrize("flags", FLAGS)
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
def test_unique(flags, axis, dtype):
    x = tt.matrix("x", dtype=dtype)
    if dtype == "float64":
        xv = rng.choice(np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5]), size=(4, 3))
        xv[1] = xv[3]
    else:
        xv = rng.integers(0, 3, size=(4, 3)).astype(dtype)
    ref = np.unique(xv, *flags, axis=axis)
    out = tt.unique(x, *flags, axis=axis)
    check([x], out, [xv], ref)
    node = (out[0] if isinstance(out, list) else out).owner
    check_infer_shape(node.outputs[0], [x], [xv])


def test_unique_values_grad():
    # where the entries differ, the unique values are the sorted entries
    verify_grad(lambda v: tt.unique(v) * tt.arange(4), [np.array([3.0, -1.0, 2.0, 0.5])],
                rng=rng)
    verify_grad(lambda m: tt.unique(m, axis=0), [rng.normal(size=(3, 2))], rng=rng)


def test_unique_count_shape_without_computing_unique():
    x = tt.dvector("x")
    xv = np.array([np.nan, 1.0, np.nan, 1.0, 2.0])
    node = Unique(return_counts=True)(x)[0].owner
    check_infer_shape(node.outputs[0], [x], [xv])
    shape_graph = node.op.infer_shape(node, [(x.shape[0],)])[0][0]
    from theon.graph.traversal import ancestors
    assert not any(isinstance(getattr(v.owner, "op", None), Unique)
                   for v in ancestors([shape_graph]))


@pytest.mark.parametrize("side", ["left", "right"])
@pytest.mark.parametrize("with_sorter", [False, True])
def test_searchsorted(side, with_sorter):
    a, v = tt.dvector("a"), tt.dmatrix("v")
    av = np.array([-np.inf, -1.0, 0.0, 0.0, 2.5, np.inf, np.nan])
    vv = rng.choice(EXTREMES, size=(3, 4))
    if with_sorter:
        perm = rng.permutation(len(av))
        s = tt.lvector("s")
        inv = np.argsort(perm)
        shuffled = av[perm]
        out = tt.searchsorted(a, v, side=side, sorter=s)
        check([a, v, s], out, [shuffled, vv, inv], np.searchsorted(shuffled, vv, side, inv))
    else:
        out = tt.searchsorted(a, v, side=side)
        check([a, v], out, [av, vv], np.searchsorted(av, vv, side))
        check_shape(out, [a, v], [av, vv])
    with pytest.raises(ValueError, match="side"):
        tt.searchsorted(a, v, side="middle")


def test_searchsorted_has_no_gradient_path():
    a, v = tt.dvector("a"), tt.dvector("v")
    out = tt.searchsorted(a, v)
    assert out.dtype == "int64"
    assert out.owner.op.connection_pattern(out.owner) == [[False], [False]]


@pytest.mark.parametrize("minlength", [None, 0, 3, 10])
@pytest.mark.parametrize("weights", [None, "float32", "int64"])
def test_bincount(minlength, weights):
    x = tt.lvector("x")
    xv = np.array([0, 4, 4, 1, 7])
    ins, vals = [x], [xv]
    w = None
    if weights:
        w = tt.vector("w", dtype=weights)
        wv = (rng.normal(size=5) * 3).astype(weights)
        ins, vals = [x, w], [xv, wv]
    ref = np.bincount(xv, None if w is None else vals[1], minlength or 0)
    out = tt.bincount(x, w, minlength)
    check(ins, out, vals, ref)
    check_infer_shape(out, ins, vals)


def test_bincount_empty_negative_and_grad():
    x = tt.lvector("x")
    check([x], tt.bincount(x, minlength=2), [np.zeros(0, "int64")], np.zeros(2, "int64"))
    with pytest.raises(ValueError, match="negative"):
        evaluate([x], tt.bincount(x), np.array([1, -1]))
    xv = np.array([0, 2, 2, 5])
    verify_grad(lambda w: tt.bincount(xv, w) ** 2, [rng.normal(size=4)], rng=rng)


@pytest.mark.parametrize("mode", ["raise", "wrap", "clip", ("wrap", "clip")])
@pytest.mark.parametrize("order", ["C", "F"])
def test_ravel_multi_index(mode, order):
    i, j = tt.lvector("i"), tt.lmatrix("j")
    iv = np.array([0, 2, 1]) if mode == "raise" else np.array([-1, 5, 1])
    jv = np.array([[3, 0, 1], [2, 2, 0]]) if mode == "raise" else np.array([[7, -2, 1],
                                                                             [2, 9, 0]])
    out = tt.ravel_multi_index((i, j), (3, 4), mode=mode, order=order)
    check([i, j], out, [iv, jv], np.ravel_multi_index((iv, jv), (3, 4), mode=mode,
                                                      order=order))
    check_infer_shape(out, [i, j], [iv, jv])


def test_ravel_multi_index_raises_like_numpy():
    i = tt.lvector("i")
    with pytest.raises(ValueError, match="invalid entry"):
        evaluate([i], tt.ravel_multi_index((i, i), (2, 2)), np.array([0, 5]))


@pytest.mark.parametrize("order", ["C", "F"])
def test_unravel_index(order):
    i = tt.lmatrix("i")
    d = tt.lvector("d")
    iv = np.array([[0, 5, 11], [7, 3, 2]])
    outs = tt.unravel_index(i, (3, 4), order=order)
    check([i], list(outs), [iv], list(np.unravel_index(iv, (3, 4), order=order)))
    outs = tt.unravel_index(i, tt.as_tensor(np.array([3, 4])), order=order)
    check([i], list(outs), [iv], list(np.unravel_index(iv, (3, 4), order=order)))
    check_infer_shape(outs[0], [i], [iv])
    with pytest.raises(ValueError, match="out of bounds"):
        evaluate([i], list(tt.unravel_index(i, (2, 2))), iv)
    with pytest.raises(ValueError, match="must be known"):
        tt.unravel_index(i, d)


@pytest.mark.parametrize(("cond", "axis"), [([True, False, True], 1), ([1, 0], 0),
                                            ([True, True, False, True, False], None),
                                            ([False, True], 1)])
def test_compress(cond, axis):
    x = tt.dmatrix("x")
    xv = rng.normal(size=(2, 3))
    out = tt.compress(cond, x, axis=axis)
    check([x], out, [xv], np.compress(cond, xv, axis=axis))
    verify_grad(lambda v: tt.compress(cond, v, axis=axis), [xv], rng=rng)


def test_nonzero_values():
    x = tt.dmatrix("x")
    xv = np.array([[0.0, 2.0, np.nan], [-0.0, np.inf, 0.0]])
    check([x], tt.nonzero_values(x), [xv], xv[np.nonzero(xv)])
    mask = np.array([[0.0, 1.0], [1.0, 0.0]])  # the zeros stay zeros when v moves
    verify_grad(lambda v: tt.nonzero_values(v * mask), [rng.normal(size=(2, 2))], rng=rng)


def test_inverse_permutation():
    p = tt.lmatrix("p")
    pv = np.stack([rng.permutation(5) for _ in range(3)])
    check([p], tt.inverse_permutation(p), [pv], np.argsort(pv, axis=-1))
    i = tt.ivector("i")
    check([i], tt.inverse_permutation(i), [pv[0].astype("int32")],
          np.argsort(pv[0]).astype("int32"))


@pytest.mark.parametrize(("sx", "sy"), [((4,), (4,)), ((3, 4), (4,)), ((3, 4), (3, 4)),
                                        ((2, 1, 4), (3, 4)), ((4,), (2, 4))])
@pytest.mark.parametrize("inverse", [False, True])
def test_permute_row_elements(sx, sy, inverse):
    x = tt.tensor("x", dtype="float64", shape=(None,) * len(sx))
    y = tt.tensor("y", dtype="int64", shape=(None,) * len(sy))
    xv = rng.normal(size=sx)
    yv = np.reshape([rng.permutation(sy[-1]) for _ in range(int(np.prod(sy[:-1])))], sy)
    yy = np.argsort(yv, axis=-1) if inverse else yv
    shape = np.broadcast_shapes(sx[:-1], sy[:-1]) + (sx[-1],)
    ref = np.take_along_axis(np.broadcast_to(xv, shape), np.broadcast_to(yy, shape), -1)
    check([x, y], tt.permute_row_elements(x, y, inverse), [xv, yv], ref)
    verify_grad(lambda v: tt.permute_row_elements(v, yv, inverse), [xv], rng=rng)


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_put_along_axis(axis):
    a = tt.dmatrix("a")
    av = rng.normal(size=(3, 4))
    if axis is None:
        idx = np.array([0, 5, 11])
    else:
        idx = np.argsort(rng.normal(size=(3, 4)), axis=axis)[:2] if axis == 0 else \
            np.argsort(rng.normal(size=(3, 4)), axis=axis)[:, :2]
    vals = rng.normal(size=idx.shape[-1:])
    ref = av.copy()
    np.put_along_axis(ref, idx, vals, axis)
    if axis is None:
        ref = ref.reshape(-1)
    check([a], tt.put_along_axis(a, idx, vals, axis), [av], ref)
    verify_grad(lambda p, q: tt.put_along_axis(p, idx, q, axis), [av, vals], rng=rng)
