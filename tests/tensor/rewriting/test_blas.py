"""Gemm/Gemv ops (scipy BLAS) and the rewrite ``z + a*dot(x, y) -> gemm``."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from tests.tensor.rewriting.helpers import check_same, op_names, rewrite
from theon.tensor.rewriting.blas import Gemm, Gemv, gemm, gemv

rng = np.random.default_rng(4)


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_gemm_op_against_numpy(dtype) -> None:
    z, x, y = (tt.matrix(n, dtype=dtype) for n in "zxy")
    a, b = tt.scalar("a", dtype=dtype), tt.scalar("b", dtype=dtype)
    f = theon.function([z, a, x, y, b], gemm(z, a, x, y, b), mode="REFERENCE")
    zv, xv, yv = (rng.normal(size=s).astype(dtype) for s in ((3, 5), (3, 4), (4, 5)))
    for av, bv in ((2.0, 1.0), (0.0, 1.0), (1.5, 0.0), (-1.0, -1.0)):
        got = f(zv, np.asarray(av, dtype), xv, yv, np.asarray(bv, dtype))
        ref = bv * zv + av * (xv @ yv)
        tol = 1e-5 if dtype == "float32" else 1e-12
        np.testing.assert_allclose(got, ref, rtol=tol, atol=tol)
        assert got.dtype == np.dtype(dtype)
    # Fortran-ordered and strided inputs, and the input is not overwritten
    zf = np.asfortranarray(zv)
    got = f(zf, np.asarray(1, dtype), xv[:, :], yv[:, ::1], np.asarray(1, dtype))
    np.testing.assert_allclose(got, zv + xv @ yv, rtol=1e-5)
    np.testing.assert_array_equal(zf, zv)


def test_gemv_op_against_numpy() -> None:
    z, y = tt.dvector("z"), tt.dvector("y")
    x = tt.dmatrix("x")
    f = theon.function([z, x, y], gemv(z, 2.0, x, y, 1.0), mode="REFERENCE")
    zv, xv, yv = rng.normal(size=3), rng.normal(size=(3, 4)), rng.normal(size=4)
    np.testing.assert_allclose(f(zv, xv, yv), zv + 2 * xv @ yv, rtol=1e-12)
    np.testing.assert_allclose(f(zv, xv.T.copy().T, yv), zv + 2 * xv @ yv, rtol=1e-12)


def test_type_checks() -> None:
    with pytest.raises(TypeError):
        Gemm()(tt.dvector("z"), 1.0, tt.dmatrix("x"), tt.dmatrix("y"), 1.0)
    with pytest.raises(TypeError):
        Gemm()(tt.imatrix("z"), 1, tt.imatrix("x"), tt.imatrix("y"), 1)
    with pytest.raises(TypeError):
        Gemv()(tt.dvector("z"), 1.0, tt.dmatrix("x"), tt.fvector("y"), 1.0)


@pytest.mark.parametrize(
    "build, op",
    [
        (lambda z, x, y, s: z + tt.dot(x, y), "Gemm"),
        (lambda z, x, y, s: z + 2.0 * tt.dot(x, y), "Gemm"),
        (lambda z, x, y, s: tt.dot(x, y) * s + z, "Gemm"),
        (lambda z, x, y, s: z - tt.dot(x, y) * 3.0, "Gemm"),
        (lambda z, x, y, s: tt.dot(x, y) - z, "Gemm"),
        (lambda z, x, y, s: z + tt.dot(x, y) + z * 2, "Gemm"),
    ],
)
def test_gemm_rewrite(build, op) -> None:
    z, x, y = tt.dmatrix("z"), tt.dmatrix("x"), tt.dmatrix("y")
    s = tt.dscalar("s")
    out = build(z, x, y, s)
    fg = rewrite([z, x, y, s], [out])
    assert op_names(fg)[op] == 1 and "Dot" not in op_names(fg), op_names(fg)
    vals = [rng.normal(size=(3, 5)), rng.normal(size=(3, 4)), rng.normal(size=(4, 5)),
            np.asarray(0.7)]
    check_same([z, x, y, s], [out], vals, rtol=1e-12)
    check_same([z, x, y, s], [out], vals, mode="FAST_RUN", rtol=1e-12)


def test_gemv_rewrite() -> None:
    z, y = tt.dvector("z"), tt.dvector("y")
    x = tt.dmatrix("x")
    out = z - 0.5 * tt.dot(x, y)
    fg = rewrite([z, x, y], [out])
    assert op_names(fg) == {"Gemv": 1}
    check_same([z, x, y], [out], [rng.normal(size=3), rng.normal(size=(3, 4)),
                                  rng.normal(size=4)], rtol=1e-12)


def test_no_gemm_when_it_would_not_fit() -> None:
    x, y = tt.dmatrix("x"), tt.dmatrix("y")
    row = tt.TensorType("float64", shape=(1, None))("row")
    out = row + tt.dot(x, y)  # row broadcasts
    assert "Gemm" not in op_names(rewrite([row, x, y], [out]))
    p = tt.dot(x, y)
    outs = [tt.dmatrix("z") + p, p]  # the product is needed anyway
    z = outs[0].owner.inputs[0]
    assert "Gemm" not in op_names(rewrite([z, x, y], outs))
    fx, fy = tt.fmatrix("fx"), tt.fmatrix("fy")
    out = tt.dmatrix("z") + tt.dot(fx, fy)  # mixed dtypes
    assert "Gemm" not in op_names(rewrite([out.owner.inputs[0], fx, fy], [out]))


def test_gemv_on_c_and_fortran_ordered_matrices():
    import numpy as np

    import theon
    import theon.tensor as tt
    from theon.tensor.rewriting.blas import gemv

    x, v, z = tt.dmatrix("x"), tt.dvector("v"), tt.dvector("z")
    f = theon.function([z, x, v], gemv(z, 2.0, x, v, 0.5), mode="REFERENCE")
    rng = np.random.default_rng(0)
    xc = rng.normal(size=(4, 3))
    vv, zv = rng.normal(size=3), rng.normal(size=4)
    for xm in (xc, np.asfortranarray(xc), rng.normal(size=(3, 4)).T):
        np.testing.assert_allclose(f(zv, xm, vv), 0.5 * zv + 2.0 * xm @ vv)


@pytest.mark.parametrize("signs", ["+++++", "+-+-+"])
def test_sum_of_many_products_becomes_one_gemm_chain(signs) -> None:
    # all the products of a sum join one chain in one rewrite (one rewrite per
    # product rebuilt the whole sum each time: quadratic in the number of products)
    z, w = tt.dmatrix("z"), tt.dmatrix("w")
    s = tt.dscalar("s")
    xs = [tt.dmatrix(f"x{k}") for k in range(5)]
    ys = [tt.dmatrix(f"y{k}") for k in range(5)]
    scales = [2.0, 1.0, s, 3.0, 1.0]
    out = z + w
    for k, sign in enumerate(signs):
        term = tt.dot(xs[k], ys[k]) * scales[k]
        out = out + term if sign == "+" else out - term
    ins = [z, w, s, *xs, *ys]
    names = op_names(rewrite(ins, [out]))
    if signs == "+++++":
        assert names.get("Gemm") == 5 and "Dot" not in names, names
    zv, wv = rng.normal(size=(3, 5)), rng.normal(size=(3, 5))
    xv = [rng.normal(size=(3, 4)) for _ in xs]
    yv = [rng.normal(size=(4, 5)) for _ in ys]
    ref = zv + wv
    for k, sign in enumerate(signs):
        term = (xv[k] @ yv[k]) * (0.7 if k == 2 else scales[k])
        ref = ref + term if sign == "+" else ref - term
    f = theon.function(ins, out)
    np.testing.assert_allclose(f(zv, wv, 0.7, *xv, *yv), ref, rtol=1e-12, atol=1e-12)


def test_gemm_rewrite_of_a_long_sum_is_linear() -> None:
    # one product per rewrite rebuilt the rest of the sum each time: O(n**2) work
    import theon.tensor.rewriting.canonicalize as canonicalize
    import theon.tensor.rewriting.utils as utils

    def built(n):
        ins = [tt.dmatrix("z")]
        out = ins[0]
        for k in range(n):
            ins += [tt.dmatrix(f"x{k}"), tt.dmatrix(f"y{k}")]
            out = out + tt.dot(ins[-2], ins[-1])
        count = [0]
        materialize = utils.materialize

        def counting(spec):
            count[0] += 1  # (a spec's parts are built by recursive calls: all counted)
            return materialize(spec)

        utils.materialize = canonicalize.materialize = counting
        try:
            fg = rewrite(ins, [out])
        finally:
            utils.materialize = canonicalize.materialize = materialize
        assert op_names(fg).get("Gemm") == n and "Dot" not in op_names(fg)
        return count[0]

    small, large = built(40), built(80)
    assert large <= 2.3 * small, (small, large)


# -- sums of outer products -> one matrix product ---------------------------------------
def _outers(u, v, w, z, m):
    """(name, graph, NumPy of (u, v, w, z, m)) with sums of outer products."""
    return [
        ("two", u[:, None] * v[None, :] + w[:, None] * z[None, :],
         lambda a, b, c, d, e: np.outer(a, b) + np.outer(c, d)),
        ("neg_swapped", -(u[:, None] * v[None, :] + z[None, :] * w[:, None]),
         lambda a, b, c, d, e: -(np.outer(a, b) + np.outer(c, d))),
        ("minus_and_rest", u[:, None] * v[None, :] - w[:, None] * z[None, :] + m * 2.0 + 1.0,
         lambda a, b, c, d, e: np.outer(a, b) - np.outer(c, d) + 2 * e + 1),
        ("three", u[:, None] * v[None, :] + w[:, None] * z[None, :] + u[:, None] * z[None, :],
         lambda a, b, c, d, e: np.outer(a, b) + np.outer(c, d) + np.outer(a, d)),
    ]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_sum_of_outer_products_becomes_one_product(dtype) -> None:
    u, v, w, z = (tt.vector(n, dtype=dtype) for n in "uvwz")
    m = tt.matrix("m", dtype=dtype)
    vals = [rng.normal(size=s).astype(dtype) for s in (4, 3, 4, 3, (4, 3))]
    tol = 1e-5 if dtype == "float32" else 1e-12
    for name, out, ref in _outers(u, v, w, z, m):
        names = op_names(rewrite([u, v, w, z, m], [out]))
        assert names["Dot"] + names["Gemm"] == 1 and names["mul"] <= 1, (name, names)
        f = theon.function([u, v, w, z, m], out, on_unused_input="ignore")
        got = f(*vals)
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_allclose(got, ref(*vals), rtol=tol, atol=tol, err_msg=name)
        check_same([u, v, w, z, m], [out], vals, rtol=tol, atol=tol)


def test_outer_products_left_as_they_are() -> None:
    """One product, a product read elsewhere too, one that broadcasts into the result,
    a dtype change, integers, and mode="JAX" (tag native_blas)."""
    from theon.tensor.rewriting.blas import local_outer_products_to_dot

    u, v, w, z = (tt.dvector(n) for n in "uvwz")
    row = tt.tensor("float64", shape=(1, None), name="row")
    fu = tt.fvector("fu")
    iu = tt.lvector("iu")
    shared = u[:, None] * v[None, :]
    outs = [
        shared + 1.0,
        shared + w[:, None] * z[None, :] + shared.sum(),
        u[:, None] * row + w[:, None] * z[None, :],  # (n, 1) * (1, m) with a static 1
        fu[:, None] * v[None, :] + w[:, None] * z[None, :],  # a float32 factor
        iu[:, None] * iu[None, :] + iu[:, None] * iu[None, :],
    ]
    ins = [u, v, w, z, row, fu, iu]
    for out in outs:
        names = op_names(rewrite(ins, [out]))
        assert names["Dot"] + names["Gemm"] == 0, names
    vals = [rng.normal(size=3), rng.normal(size=3), rng.normal(size=3), rng.normal(size=3),
            rng.normal(size=(1, 3)), rng.normal(size=3).astype("float32"), np.arange(3)]
    check_same(ins, outs, vals)
    from theon.rewriting.db import rewrite_db

    assert "native_blas" in rewrite_db[local_outer_products_to_dot.name].tags
    jax = pytest.importorskip("jax", reason="mode='JAX' needs jax")
    assert jax
    f = theon.function([u, v, w, z], u[:, None] * v[None, :] + w[:, None] * z[None, :],
                       mode="JAX")
    assert not any(type(n.op).__name__ == "Join" for n in f.maker.fgraph.apply_nodes)


@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(n=st.integers(1, 5), k=st.integers(1, 5), which=st.integers(0, 3),
       vals=st.lists(st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False),
                     min_size=45, max_size=45))
def test_outer_products_differential(n, k, which, vals) -> None:
    """Rewritten against the unrewritten graph (REFERENCE) and NumPy."""
    a = np.array(vals)
    args = [a[:n], a[5:5 + k], a[10:10 + n], a[15:15 + k], a[20:20 + n * k].reshape(n, k)]
    u, v, w, z = (tt.dvector(s) for s in "uvwz")
    m = tt.dmatrix("m")
    name, out, ref = _outers(u, v, w, z, m)[which]
    fast = theon.function([u, v, w, z, m], out, on_unused_input="ignore")(*args)
    slow = theon.function([u, v, w, z, m], out, mode="REFERENCE",
                          on_unused_input="ignore")(*args)
    scale = max(1.0, float(np.abs(slow).max()))
    np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-12 * scale)
    np.testing.assert_allclose(fast, ref(*args), rtol=1e-12, atol=1e-12 * scale)
