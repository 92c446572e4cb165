"""atleast_*, broadcast_arrays/broadcast_shape, horizontal/vertical_stack, stacklists,
concat_with_broadcast, matrix_transpose, split_dims/join_dims, pack/unpack and the
helpers get_vector_length, is_flat, slice_at_axis (issue 35) against NumPy/PyTensor's
documented behaviour; gradients with verify_grad."""

import numpy as np
import pytest

import theon.tensor as tt
from tests.tensor.nscheck import check, check_shape
from theon.gradient import verify_grad
from theon.tensor.shape import static_int

rng = np.random.default_rng(354)


def _var(shape, dtype="float64"):
    return tt.tensor(dtype=dtype, shape=(None,) * len(shape))


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
@pytest.mark.parametrize("fn", ["atleast_1d", "atleast_2d", "atleast_3d"])
def test_atleast(fn, shape):
    x = _var(shape)
    xv = rng.normal(size=shape)
    check([x], getattr(tt, fn)(x), [xv], getattr(np, fn)(xv))
    y = _var((2,))
    outs = getattr(tt, fn)(x, y)
    check([x, y], list(outs), [xv, np.ones(2)], list(getattr(np, fn)(xv, np.ones(2))))


def test_atleast_nd():
    v = tt.dvector("v")
    assert tt.atleast_Nd(v, n=3).type.shape == (1, 1, None)
    assert tt.atleast_Nd(v, n=3, left=False).type.shape == (None, 1, 1)
    assert tt.atleast_Nd(tt.dtensor3("t"), n=2).type.ndim == 3
    verify_grad(lambda a: tt.atleast_3d(a) * 2, [rng.normal(size=3)], rng=rng)
    verify_grad(lambda a: tt.atleast_1d(a) * 2, [np.asarray(0.7)], rng=rng)
    verify_grad(lambda a: tt.atleast_2d(a) * 2, [rng.normal(size=3)], rng=rng)
    verify_grad(lambda a: tt.atleast_Nd(a, n=4, left=False) * 2, [rng.normal(size=(2, 3))],
                rng=rng)


@pytest.mark.parametrize("shapes", [[(3, 1), (4,)], [(2, 1, 3), (1, 4, 1), ()],
                                    [(0, 1), (1, 5)], [(3,), (3,)]])
def test_broadcast_arrays_and_shape(shapes):
    xs = [_var(s) for s in shapes]
    vals = [rng.normal(size=s) for s in shapes]
    check(xs, list(tt.broadcast_arrays(*xs)), vals, list(np.broadcast_arrays(*vals)))
    want = np.broadcast_shapes(*shapes)
    got = check_shapes(xs, tt.broadcast_shape(*xs), vals)
    assert got == want
    assert tuple(static_int(s) for s in tt.broadcast_shape(*shapes, arrays_are_shapes=True)
                 ) == want


def check_shapes(xs, dims, vals):
    from tests.tensor.nscheck import evaluate

    return tuple(int(d) for d in evaluate(xs, list(dims), *vals)) if dims else ()


def test_broadcast_static_checks_and_grad():
    with pytest.raises(ValueError, match="do not broadcast"):
        tt.broadcast_shape(tt.tensor("a", shape=(2,)), tt.tensor("b", shape=(3,)))
    verify_grad(lambda a, b: tt.broadcast_arrays(a, b)[0] * tt.broadcast_arrays(a, b)[1],
                [rng.normal(size=(3, 1)), rng.normal(size=(4,))], rng=rng)


def test_stacks():
    a, b = tt.dmatrix("a"), tt.dmatrix("b")
    av, bv = rng.normal(size=(2, 3)), rng.normal(size=(2, 2))
    check([a, b], tt.horizontal_stack(a, b), [av, bv], np.hstack([av, bv]))
    c = tt.dmatrix("c")
    cv = rng.normal(size=(1, 3))
    check([a, c], tt.vertical_stack(a, c), [av, cv], np.vstack([av, cv]))
    v, w = tt.dvector("v"), tt.dvector("w")
    check([v, w], tt.vertical_stack(v, w), [np.ones(2), np.zeros(2)],
          np.vstack([np.ones(2), np.zeros(2)]))


def test_stacklists():
    a, b, c, d = tt.dscalars("abcd")
    check([a, b, c, d], tt.stacklists([[a, b], [c, d]]), [1.0, 2.0, 3.0, 4.0],
          np.array([[1.0, 2.0], [3.0, 4.0]]))
    m = tt.dmatrices("wxyz")
    out = tt.stacklists([[m[0], m[1]], [m[2], m[3]]])
    assert out.type.ndim == 4
    verify_grad(lambda p, q: tt.stacklists([[p, q], [q, p]]), [rng.normal(size=3),
                                                               rng.normal(size=3)], rng=rng)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_concat_with_broadcast(axis):
    a = tt.tensor("a", shape=(None, 1, 3))
    b = tt.tensor("b", shape=(2, None, 1))
    av, bv = rng.normal(size=(2, 1, 3)), rng.normal(size=(2, 4, 1))
    ax = axis % 3
    shape = list(np.broadcast_shapes(av.shape, bv.shape))
    parts = []
    for v in (av, bv):
        s = list(shape)
        s[ax] = v.shape[ax]
        parts.append(np.broadcast_to(v, s))
    if ax != 1:
        check([a, b], tt.concat_with_broadcast([a, b], axis), [av, bv],
              np.concatenate(parts, axis=ax))
    with pytest.raises(ValueError, match="one number of dimensions"):
        tt.concat_with_broadcast([tt.dmatrix("m"), tt.dvector("v")])


def test_matrix_transpose():
    x = _var((2, 3, 4))
    xv = rng.normal(size=(2, 3, 4))
    check([x], tt.matrix_transpose(x), [xv], np.matrix_transpose(xv))
    with pytest.raises(ValueError, match="at least 2"):
        tt.matrix_transpose(tt.dvector("v"))


def test_split_and_join_dims():
    x = tt.tensor("x", shape=(6, 4, 6))
    assert tt.split_dims(x, (2, 3)).type.shape == (2, 3, 4, 6)
    assert tt.split_dims(x, (2, 3), axis=-1).type.shape == (6, 4, 2, 3)
    y = tt.tensor("y", shape=(2, 3, 4, 5))
    assert tt.join_dims(y).type.shape == (120,)
    assert tt.join_dims(y, start_axis=1).type.shape == (2, 60)
    assert tt.join_dims(y, start_axis=1, n_axes=2).type.shape == (2, 12, 5)
    assert tt.join_dims(y, 1, 0).type.shape == (2, 1, 3, 4, 5)
    z = tt.dtensor3("z")
    zv = rng.normal(size=(2, 6, 5))
    n = tt.lscalar("n")
    check([z, n], tt.split_dims(z, (n, 3), axis=1), [zv, 2], zv.reshape(2, 2, 3, 5))
    check([z], tt.join_dims(z, 0, 2), [zv], zv.reshape(12, 5))
    check_shape(tt.join_dims(z, 1), [z], [zv])
    verify_grad(lambda v: tt.join_dims(tt.split_dims(v, (3, 2), axis=1), 0, 2), [zv], rng=rng)


@pytest.mark.parametrize(("shapes", "keep", "packed"), [
    ([(2, 3), (4, 5, 6)], None, (126,)), ([(2, 3), (2, 5, 6)], 0, (2, 33)),
    ([(4, 2, 3), (5, 2, 3)], (-2, -1), (9, 2, 3)), ([(2, 4, 3), (2, 5, 3)], (0, -1), (2, 9, 3)),
    ([(2, 3), (2,)], 0, (2, 4))])
def test_pack_unpack(shapes, keep, packed):
    xs = [tt.tensor(shape=s) for s in shapes]
    p, packed_shapes = tt.pack(*xs, keep_axes=keep)
    assert p.type.shape == packed
    outs = tt.unpack(p, packed_shapes, keep_axes=keep)
    assert [o.type.shape for o in outs] == shapes
    vals = [rng.normal(size=s) for s in shapes]
    check(xs, outs, vals, vals)
    dyn = [tt.tensor(shape=(None,) * len(s)) for s in shapes]
    p2, s2 = tt.pack(*dyn, keep_axes=keep)
    check(dyn, tt.unpack(p2, s2, keep_axes=keep), vals, vals)
    verify_grad(lambda *v: tt.pack(*v, keep_axes=keep)[0], vals, rng=rng)


def test_pack_keep_axes_rules():
    x = tt.dtensor3("x")
    for bad in (1, -2, (0, 2)):
        with pytest.raises(ValueError, match="kept"):
            tt.pack(x, keep_axes=bad)


def test_helpers():
    assert tt.get_vector_length(tt.dtensor3("t").shape) == 3
    assert tt.get_vector_length(tt.as_tensor([1, 2])) == 2
    with pytest.raises(ValueError, match="not known"):
        tt.get_vector_length(tt.lvector("v"))
    with pytest.raises(TypeError, match="vector"):
        tt.get_vector_length(tt.dmatrix("m"))
    assert tt.is_flat(tt.dvector("v")) and tt.is_flat(tt.dmatrix("m"), ndim=2)
    assert tt.slice_at_axis(slice(None, 1), 1) == (slice(None), slice(None, 1), Ellipsis)


def test_joining_and_transposing_grads():
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(2, 2))
    verify_grad(lambda p, q: tt.horizontal_stack(p, q), [a, b], rng=rng)
    verify_grad(lambda p, q: tt.vertical_stack(p, q.T), [a, rng.normal(size=(3, 1))],
                rng=rng)
    verify_grad(lambda p, q: tt.concat_with_broadcast([p, q], axis=0),
                [a, rng.normal(size=(1, 1))], rng=rng)
    verify_grad(tt.matrix_transpose, [rng.normal(size=(2, 3, 4))], rng=rng)
    shapes = [np.array([2, 2]), np.array([3])]
    verify_grad(lambda p: tt.unpack(p, shapes)[0] * 2 + tt.unpack(p, shapes)[1].sum(),
                [rng.normal(size=7)], rng=rng)
