"""Theano's and PyTensor's spellings of tensor code, written as their users write them
(issue 15, item 3), each checked against NumPy; gradients with ``verify_grad``."""

from __future__ import annotations

import numpy as np
import pytest

import theon
import theon.tensor as T
from theon.tensor import extra_ops

RNG = np.random.default_rng(15)


def vgrad(fn, pt):
    theon.verify_grad(fn, pt, rng=np.random.default_rng(0))


# constructors --------------------------------------------------------------------------
def test_plural_constructors_split_one_letter_names_as_theano() -> None:
    a, b = T.matrices("ab")
    x, y = T.vectors("xy")
    i, j, k = T.iscalars("ijk")
    assert [v.name for v in (a, b, x, y, i, j, k)] == list("abxyijk")
    assert a.ndim == 2 and x.ndim == 1 and k.dtype == "int32"
    # one name is one variable; several names or a spaced string still work
    assert T.dmatrices("w").name == "w"
    assert [v.name for v in T.dvectors("u", "vv")] == ["u", "vv"]
    assert [v.name for v in T.dvectors("p q")] == ["p", "q"]
    f = theon.function([a, b], a + b)
    np.testing.assert_array_equal(f(np.ones((2, 2)), np.eye(2)), np.ones((2, 2)) + np.eye(2))


def test_tensor_with_name_first_as_pytensor() -> None:
    x = T.tensor("x", shape=(None, 3), dtype="float32")
    assert x.name == "x" and x.type == T.TensorType("float32", shape=(None, 3))
    y = T.tensor(name="y", shape=(2,), dtype="int64")
    assert y.type.shape == (2,) and y.dtype == "int64"
    # theon's and Theano's order: the dtype first, then the shape or broadcastable pattern
    assert T.tensor("float64", shape=(3,), name="z").name == "z"
    assert T.tensor("float64", (False, True)).type.shape == (None, 1)
    # single letters are names even where NumPy reads them as type codes
    assert T.tensor("f", shape=(None,)).name == "f"
    v = np.arange(6, dtype="float32").reshape(2, 3)
    np.testing.assert_array_equal((x * 2).eval({x: v}), v * 2)


def test_typed_constructor_with_shape() -> None:
    A = T.dmatrix("A", shape=(5, 5))
    assert A.type.shape == (5, 5) and A.name == "A"
    assert T.dmatrix("B", shape=(None, 4)).type.shape == (None, 4)
    assert T.drow("r", shape=(None, 3)).type.shape == (1, 3)  # None keeps the row's 1
    with pytest.raises(ValueError, match="entries"):
        T.dmatrix("C", shape=(5,))
    with pytest.raises(ValueError, match="does not agree"):
        T.drow("r", shape=(2, 3))
    a = RNG.random((5, 5))
    np.testing.assert_allclose(T.dot(A, A).eval({A: a}), a @ a)
    with pytest.raises(TypeError):
        T.dot(A, A).eval({A: np.ones((4, 4))})


def test_tensortype_positional_broadcastable_pattern() -> None:
    col_t = T.TensorType("float64", (False, True))
    assert col_t.shape == (None, 1) and col_t.broadcastable == (False, True)
    assert col_t == T.dcol.clone()
    assert T.TensorType("float64", shape=(None, 1)) == col_t  # PyTensor's keyword
    assert T.TensorType(dtype="float32", broadcastable=(True, False)).shape == (1, None)
    c = col_t("c")
    m = T.dmatrix("m")
    cv, mv = RNG.random((3, 1)), RNG.random((3, 4))
    np.testing.assert_allclose((m + c).eval({m: mv, c: cv}), mv + cv)


def test_broadcast_pattern_functions() -> None:
    x = T.dmatrix("x")
    xb = T.addbroadcast(x, 0)
    assert xb.broadcastable == (True, False)
    row = T.drow("row")
    ub = T.unbroadcast(row, 0)
    assert ub.broadcastable == (False, False)
    assert T.unbroadcast(x, 0) is x
    pb = T.patternbroadcast(row, (False, True))
    assert pb.broadcastable == (False, True)
    assert T.specify_broadcastable(x, 1).broadcastable == (False, True)
    assert T.specify_shape(x, (2, 3)).type.shape == (2, 3)
    rv = RNG.random((1, 4))
    np.testing.assert_array_equal(ub.eval({row: rv}), rv)
    np.testing.assert_array_equal(xb.eval({x: rv}), rv)
    with pytest.raises(AssertionError):
        xb.eval({x: np.ones((2, 4))})  # addbroadcast checks the length at run time
    with pytest.raises(AssertionError):
        pb.eval({row: rv})  # the pattern says axis 1 has length 1
    vgrad(lambda r: T.unbroadcast(r, 0) * 3.0, [rv])
    vgrad(lambda r: T.addbroadcast(r, 0) ** 2, [rv])


# functions -------------------------------------------------------------------------------
def test_grad_and_inv_in_tensor() -> None:
    x = T.dscalar("x")
    g = T.grad(T.inv(x) ** 2, x)
    assert T.grad is theon.grad
    np.testing.assert_allclose(g.eval({x: 2.0}), -2 / 2.0**3)
    np.testing.assert_allclose(T.inv(x).eval({x: 4.0}), 0.25)
    vgrad(T.inv, [np.array([0.5, 2.0, -3.0])])


def test_stack_varargs_as_theano() -> None:
    a, b, c = T.dscalars("abc")
    s = T.stack(a, b, c)
    np.testing.assert_array_equal(s.eval({a: 1.0, b: 2.0, c: 3.0}), [1.0, 2.0, 3.0])
    u, v = T.dvectors("uv")
    uv, vv = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    np.testing.assert_array_equal(T.stack(u, v, axis=1).eval({u: uv, v: vv}),
                                  np.stack([uv, vv], axis=1))
    np.testing.assert_array_equal(T.stack([u, v], 1).eval({u: uv, v: vv}),
                                  np.stack([uv, vv], 1))
    np.testing.assert_array_equal(T.stack(w for w in (u, v)).eval({u: uv, v: vv}),
                                  np.stack([uv, vv]))
    vgrad(lambda p, q: T.stack(p, q, p * q), [uv, vv])


def test_list_of_slices_is_a_tuple_index() -> None:
    x = T.dmatrix("x")
    xv = RNG.random((3, 4))
    np.testing.assert_array_equal(x[[slice(None), slice(0, 2)]].eval({x: xv}), xv[:, 0:2])
    np.testing.assert_array_equal(x[[1, slice(None)]].eval({x: xv}), xv[1, :])
    np.testing.assert_array_equal(x[[0, 2]].eval({x: xv}), xv[[0, 2]])  # ints: fancy index
    vgrad(lambda t: t[[slice(None), slice(0, 2)]], [xv])


def test_numpy_functions_on_lists_of_symbolic_scalars() -> None:
    x = T.dmatrix("x")
    xv = np.ones((4, 2))
    n = np.prod([x.shape[0], 3])
    assert isinstance(n, theon.Variable)
    assert int(n.eval({x: xv})) == 12
    assert int(np.sum([x.shape[0], x.shape[1]]).eval({x: xv})) == 6
    assert int(np.prod(x.shape).eval({x: xv})) == 8  # a variable: its prod method
    r = x.reshape((x.shape[0] // 2, np.prod([x.shape[1], 2])))
    assert r.eval({x: xv}).shape == (2, 4)
    # arrays (not symbolic scalars) still do not convert, and the error names the function
    with pytest.raises(TypeError, match=r"numpy\.prod"):
        np.prod([x, 3])
    with pytest.raises(TypeError, match="NumPy array"):
        np.asarray(x.shape[0])


def test_sum_with_numpy_array_axis() -> None:
    x = T.dmatrix("x")
    xv = RNG.random((2, 3))
    np.testing.assert_allclose(x.sum(axis=np.array(1)).eval({x: xv}), xv.sum(axis=1))
    np.testing.assert_allclose(T.max(x, axis=np.array([0, 1])).eval({x: xv}), xv.max())
    np.testing.assert_allclose(x.mean(axis=np.int64(0)).eval({x: xv}), xv.mean(axis=0))


def test_to_one_hot() -> None:
    y = T.ivector("y")
    yv = np.array([2, 0, 1, 2], dtype="int32")
    oh = extra_ops.to_one_hot(y, 3)
    np.testing.assert_array_equal(oh.eval({y: yv}), np.eye(3)[yv])
    assert oh.dtype == theon.config.floatX
    assert extra_ops.to_one_hot(y, 4, dtype="int8").eval({y: yv}).dtype == np.int8
    with pytest.raises(TypeError, match="integer vector"):
        extra_ops.to_one_hot(T.dvector(), 3)


def test_max_and_argmax() -> None:
    x = T.dmatrix("x")
    xv = RNG.random((3, 4))
    mx, am = T.max_and_argmax(x, axis=1)
    f = theon.function([x], [mx, am])
    m_v, a_v = f(xv)
    np.testing.assert_array_equal(m_v, xv.max(axis=1))
    np.testing.assert_array_equal(a_v, xv.argmax(axis=1))
    m_all, a_all = T.max_and_argmax(x)
    assert int(a_all.eval({x: xv})) == int(xv.argmax())
    vgrad(lambda t: T.max_and_argmax(t, axis=0)[0], [xv])


def test_matvec_vecmat_vecdot() -> None:
    A, B = T.dtensor3("A"), T.dmatrix("B")
    v, w = T.dvector("v"), T.dmatrix("w")
    av, bv = RNG.random((2, 3, 4)), RNG.random((4, 3))
    vv, wv = RNG.random(4), RNG.random((2, 3))

    def np_matvec(a, b):
        return np.einsum("...ij,...j->...i", a, b)

    def np_vecmat(a, b):
        return np.einsum("...i,...ij->...j", np.conj(a), b)

    np.testing.assert_allclose(T.matvec(A, v).eval({A: av, v: vv}), np_matvec(av, vv))
    np.testing.assert_allclose(T.vecmat(w, A).eval({w: wv, A: av}), np_vecmat(wv, av))
    np.testing.assert_allclose(T.vecdot(B, v).eval({B: bv.T, v: vv}),
                               np.sum(bv.T * vv, axis=-1))
    np.testing.assert_allclose(T.vecdot(w, w, axis=0).eval({w: wv}), np.sum(wv * wv, axis=0))
    z = T.zvector("z")
    zv = RNG.random(3) + 1j * RNG.random(3)
    np.testing.assert_allclose(T.vecdot(z, z).eval({z: zv}), np.sum(np.conj(zv) * zv))
    vgrad(T.matvec, [av, vv])
    vgrad(T.vecmat, [wv, av])
    vgrad(T.vecdot, [wv, wv])


def test_median() -> None:
    x = T.dmatrix("x")
    for shape in [(3, 5), (4, 4), (1, 6)]:
        xv = RNG.random(shape)
        np.testing.assert_allclose(T.median(x).eval({x: xv}), np.median(xv))
        for ax in (0, 1, -1, (0, 1)):
            np.testing.assert_allclose(T.median(x, axis=ax).eval({x: xv}), np.median(xv, ax))
    i = T.ivector("i")
    assert T.median(i).eval({i: np.array([1, 4], "int32")}) == 2.5
    vgrad(lambda t: T.median(t, axis=1), [RNG.random((3, 4))])
    vgrad(lambda t: T.median(t, axis=0), [RNG.random((5, 2))])


def test_choose() -> None:
    a = T.imatrix("a")
    av = RNG.integers(0, 3, (2, 4)).astype("int32")
    cv = RNG.random((3, 2, 4))
    c = T.dtensor3("c")
    np.testing.assert_array_equal(T.choose(a, c).eval({a: av, c: cv}), np.choose(av, cv))
    lst = [T.dvector(n) for n in "pqr"]
    lv = [RNG.random(4) for _ in range(3)]  # broadcast against a
    out = T.choose(a, lst).eval({a: av, **dict(zip(lst, lv))})
    np.testing.assert_array_equal(out, np.choose(av, lv))
    big = av + 4
    np.testing.assert_array_equal(T.choose(a, c, mode="wrap").eval({a: big, c: cv}),
                                  np.choose(big, cv, mode="wrap"))
    np.testing.assert_array_equal(T.choose(a, c, mode="clip").eval({a: big, c: cv}),
                                  np.choose(big, cv, mode="clip"))
    vgrad(lambda t: T.choose(av, t), [cv])


def test_nan_to_num() -> None:
    x = T.dvector("x")
    xv = np.array([np.nan, np.inf, -np.inf, 1.5])
    np.testing.assert_array_equal(T.nan_to_num(x).eval({x: xv}), np.nan_to_num(xv))
    np.testing.assert_array_equal(
        T.nan_to_num(x, nan=-1.0, posinf=7.0, neginf=-7.0).eval({x: xv}),
        np.nan_to_num(xv, nan=-1.0, posinf=7.0, neginf=-7.0),
    )
    f = T.fvector("f")
    fv = xv.astype("float32")
    np.testing.assert_array_equal(T.nan_to_num(f).eval({f: fv}), np.nan_to_num(fv))
    g = theon.grad(T.nan_to_num(x).sum(), x)
    np.testing.assert_array_equal(g.eval({x: xv}), [0.0, 0.0, 0.0, 1.0])
    vgrad(T.nan_to_num, [np.array([0.5, -2.0])])


def test_diag_and_diagonal() -> None:
    m, v = T.dmatrix("m"), T.dvector("v")
    mv, vv = RNG.random((3, 4)), RNG.random(3)
    for k in (-4, -1, 0, 2, 5):
        np.testing.assert_array_equal(T.diagonal(m, k).eval({m: mv}), np.diagonal(mv, k))
        np.testing.assert_array_equal(T.diag(m, k).eval({m: mv}), np.diag(mv, k))
        np.testing.assert_array_equal(T.diag(v, k).eval({v: vv}), np.diag(vv, k))
    t = T.dtensor3("t")
    tv = RNG.random((2, 3, 4))
    np.testing.assert_array_equal(T.diagonal(t, 1, axis1=2, axis2=0).eval({t: tv}),
                                  np.diagonal(tv, 1, axis1=2, axis2=0))
    vgrad(lambda a: T.diagonal(a, 1), [mv])
    vgrad(lambda a: T.diag(a, -1), [vv])


def test_take_modes() -> None:
    a = T.dmatrix("a")
    av = RNG.random((3, 4))
    idx = np.array([5, -1, 2, -7])
    for mode in ("wrap", "clip"):
        np.testing.assert_array_equal(T.take(a, idx, axis=1, mode=mode).eval({a: av}),
                                      np.take(av, idx, axis=1, mode=mode))
        np.testing.assert_array_equal(a.take(idx, mode=mode).eval({a: av}),
                                      np.take(av, idx, mode=mode))
    np.testing.assert_array_equal(T.take(a, [1, -1], axis=0, mode="raise").eval({a: av}),
                                  np.take(av, [1, -1], axis=0))
    with pytest.raises(ValueError, match="mode"):
        T.take(a, [0], mode="nope")
    vgrad(lambda t: T.take(t, idx, axis=1, mode="wrap"), [av])


def test_var_and_std_corrected() -> None:
    x = T.dmatrix("x")
    xv = 1e8 + RNG.random((4, 5))  # a large mean: the corrected algorithm keeps precision
    for ax in (None, 0, 1):
        for ddof in (0, 1):
            np.testing.assert_allclose(
                T.var(x, axis=ax, ddof=ddof, corrected=True).eval({x: xv}),
                np.var(xv, axis=ax, ddof=ddof), rtol=1e-6)
            np.testing.assert_allclose(
                x.std(axis=ax, ddof=ddof, corrected=True).eval({x: xv}),
                np.std(xv, axis=ax, ddof=ddof), rtol=1e-6)
    vgrad(lambda t: T.var(t, axis=1, corrected=True), [RNG.random((3, 4))])


def test_nonzero_return_matrix() -> None:
    x = T.dmatrix("x")
    xv = np.array([[0.0, 1.0], [2.0, 0.0], [3.0, 4.0]])
    nz = T.nonzero(x, return_matrix=True)
    np.testing.assert_array_equal(nz.eval({x: xv}), np.array(np.nonzero(xv)))
    np.testing.assert_array_equal(x.nonzero(return_matrix=True).eval({x: xv}),
                                  np.array(np.nonzero(xv)))
    rows, cols = T.nonzero(x)
    np.testing.assert_array_equal(cols.eval({x: xv}), np.nonzero(xv)[1])


def test_boolean_and_iteration_errors_name_apis_that_exist() -> None:
    """Item 6: the errors suggest calls that work, spelled as they are suggested."""
    v = T.dvector("v")
    with pytest.raises(TypeError) as err:
        list(v)
    assert "theon.scan(fn, sequences=x)" in str(err.value)
    out, _ = theon.scan(lambda e: e * 2, sequences=v)  # the suggestion, as written
    np.testing.assert_array_equal(out.eval({v: [1.0, 2.0]}), [2.0, 4.0])
    cond = v.sum() > 0
    with pytest.raises(TypeError) as err:
        if cond:
            pass
    msg = str(err.value)
    assert "theon.ifelse.ifelse(cond, a, b)" in msg and "theon.tensor.switch(cond, a, b)" in msg
    chosen = theon.ifelse.ifelse(cond, v, -v)
    np.testing.assert_array_equal(chosen.eval({v: [-1.0, -2.0]}), [1.0, 2.0])
    np.testing.assert_array_equal(T.switch(v > 0, v, 0.0).eval({v: [1.0, -2.0]}), [1.0, 0.0])
    np.testing.assert_array_equal(T.where(v > 0, v, 0.0).eval({v: [1.0, -2.0]}), [1.0, 0.0])


def test_pytensor_module_paths_of_the_new_functions() -> None:
    from theon.tensor.basic import choose, diag, diagonal
    from theon.tensor.math import matvec, max_and_argmax, median, nan_to_num, vecdot, vecmat

    assert (choose, diag, diagonal) == (T.choose, T.diag, T.diagonal)
    assert (matvec, vecmat, vecdot) == (T.matvec, T.vecmat, T.vecdot)
    assert (max_and_argmax, median, nan_to_num) == (T.max_and_argmax, T.median, T.nan_to_num)


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # log of negatives: nan
def test_reference_vm_agrees_with_the_default_linker() -> None:
    from theon.compile.mode import Mode

    x, v = T.dmatrix("x"), T.dvector("v")
    a = T.imatrix("a")
    row = T.drow("row")
    outs = [
        T.median(x, axis=1), T.diag(v, 1), T.diagonal(x, -1), T.nan_to_num(T.log(x - 0.5)),
        T.choose(a, [x, 2 * x]), T.take(x, [7, -9], axis=1, mode="wrap"),
        T.var(x, axis=0, corrected=True), T.matvec(x, v), T.vecmat(v, x.T), T.vecdot(x, v),
        T.max_and_argmax(x, axis=0)[1], T.unbroadcast(row, 0) * 2.0,
        T.patternbroadcast(x[:1], (True, False)), T.stack(v, v, v),
        x[[slice(None), slice(1, 3)]], extra_ops.to_one_hot(a[0], 3),
    ]
    ins = [x, v, a, row]
    vals = [RNG.random((3, 3)), RNG.random(3), RNG.integers(0, 2, (3, 3)).astype("int32"),
            RNG.random((1, 3))]
    ref = theon.function(ins, outs, mode=Mode(linker="vm", optimizer=None),
                         on_unused_input="ignore")(*vals)
    got = theon.function(ins, outs, on_unused_input="ignore")(*vals)
    for r, g in zip(ref, got, strict=True):
        np.testing.assert_allclose(g, r, rtol=1e-12)
