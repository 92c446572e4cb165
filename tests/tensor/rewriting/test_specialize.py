"""Specializations: constant powers, sum(x*y) -> dot, and the seed's a + a**10 example."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from tests.tensor.rewriting.helpers import check_same, op_names, rewrite
from theon.rewriting import RewriteQuery
from theon.tensor.rewriting.specialize import power_chain

rng = np.random.default_rng(3)
v = tt.dvector("v")
VV = rng.uniform(0.5, 2.0, size=7)


def test_seed_a_plus_a_pow_10() -> None:
    # seed 002: f([0, 1, 2]) == [0, 2, 1026]
    a = tt.vector("a")
    f = theon.function([a], a + a**10)
    assert f([0, 1, 2]).tolist() == [0.0, 2.0, 1026.0]
    fg = rewrite([a], [a + a**10])
    assert "pow" not in op_names(fg)


@pytest.mark.parametrize(
    "exponent, expect",
    [(2, {"sqr": 1}), (0.5, {"sqrt": 1}), (-1, {"reciprocal": 1}),
     (-0.5, {"pow": 1}), (3, {"sqr": 1, "mul": 1}),
     (4, {"sqr": 2}), (10, {"sqr": 3, "mul": 1}), (-2, {"sqr": 1, "reciprocal": 1}),
     (2.0, {"sqr": 1})],
)
def test_constant_powers(exponent, expect) -> None:
    out = v**exponent
    fg = rewrite([v], [out])
    assert fg.outputs[0].type == out.type
    assert dict(op_names(fg)) == expect
    check_same([v], [out], [VV], rtol=1e-14)
    # special values as NumPy's own ``x ** c`` gives them (signed zeros included)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -2.0, 0.5])
    got = theon.function([v], out)(special)
    with np.errstate(all="ignore"):
        want = special ** np.float64(exponent)
    np.testing.assert_allclose(got, want, rtol=1e-14)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_large_and_fractional_powers_stay() -> None:
    for e in (100, 2.5, 1 / 3):
        assert "pow" in op_names(rewrite([v], [v**e]))


def test_integer_powers() -> None:
    i = tt.bvector("i")  # int8 ** 3 wraps like NumPy's
    out = i**3
    fg = rewrite([i], [out])
    assert "pow" not in op_names(fg)
    check_same([i], [out], [np.array([1, -2, 5, 7, 100], dtype="int8")])
    out = i**-1  # NumPy refuses: left as is
    assert "pow" in op_names(rewrite([i], [out]))
    j = tt.ivector("j")
    out = j**2.0  # float result: the base is cast first
    fg = rewrite([j], [out])
    assert fg.outputs[0].type == out.type and "pow" not in op_names(fg)
    check_same([j], [out], [np.array([3, -4], dtype="int32")])


def test_float32_base_with_float64_exponent() -> None:
    f = tt.fvector("f")
    out = f ** tt.constant(np.float64(2.0))
    fg = rewrite([f], [out])
    assert fg.outputs[0].type.dtype == "float64" and "pow" not in op_names(fg)
    check_same([f], [out], [np.array([1.5, 3.0], dtype="float32")])


def test_power_chain_values() -> None:
    for n in range(1, 20):
        y = power_chain(v, n)
        np.testing.assert_allclose(y.eval({v: VV}), VV**n, rtol=1e-13)
    with pytest.raises(ValueError):
        power_chain(v, 0)


def test_sum_of_product_is_dot() -> None:
    w = tt.dvector("w")
    out = tt.sum(v * w)
    fg = rewrite([v, w], [out])
    assert op_names(fg) == {"Dot": 1}
    check_same([v, w], [out], [VV, VV[::-1].copy()], rtol=1e-14)
    # a matrix product is not a dot
    m = tt.dmatrix("m")
    assert "Dot" not in op_names(rewrite([m], [tt.sum(m * m)]))


# -- the small terms of a broadcast sum or product combine first ------------------------
def _elemwise_inputs(fg, name):
    from theon.tensor.elemwise import Elemwise

    return [
        [tuple(v.type.broadcastable) for v in n.inputs]
        for n in fg.apply_nodes
        if isinstance(n.op, Elemwise) and str(n.op.scalar_op) == name
    ]


@pytest.mark.parametrize("op", ["mul", "add"])
def test_small_terms_combine_first(op) -> None:
    a, b, c = tt.dcol("a"), tt.dcol("b"), tt.dmatrix("c")
    fn = getattr(tt, op)
    y = fn(a, c, b)
    fg = rewrite([a, b, c], [y])
    # two nodes: the columns first (at column shape), then one pass over the matrix
    assert sorted(map(len, _elemwise_inputs(fg, op))) == [2, 2]
    assert [(False, True), (False, True)] in _elemwise_inputs(fg, op)
    rng = np.random.default_rng(0)
    vals = [rng.normal(size=(4, 1)), rng.normal(size=(4, 1)), rng.normal(size=(4, 5))]
    got = check_same([a, b, c], [y], vals)[0]
    expect = vals[0] * vals[2] * vals[1] if op == "mul" else vals[0] + vals[2] + vals[1]
    np.testing.assert_allclose(got, expect, rtol=1e-14)


def test_small_terms_left_alone() -> None:
    """Not regrouped: one small term, terms of other dtypes, integer results."""
    a, c, d = tt.dcol("a"), tt.dmatrix("c"), tt.dmatrix("d")
    assert _elemwise_inputs(rewrite([a, c, d], [tt.mul(a, c, d)]), "mul") == [
        [(False, True), (False, False), (False, False)]
    ]
    i, j, m = tt.lcol("i"), tt.lcol("j"), tt.lmatrix("m")
    assert len(_elemwise_inputs(rewrite([i, j, m], [tt.mul(i, m, j)]), "mul")) == 1
    f, g = tt.fcol("f"), tt.fcol("g")
    assert len(_elemwise_inputs(rewrite([f, g, c], [tt.mul(f, c, g)]), "mul")) == 1
    # a row and a column broadcast together to the full shape: nothing to gain
    r = tt.drow("r")
    assert len(_elemwise_inputs(rewrite([a, r, c], [tt.mul(a, r, c)]), "mul")) == 1


@settings(max_examples=40, deadline=None)
@given(
    shapes=st.lists(st.sampled_from([(3, 1), (1, 4), (3, 4), (1, 1), (4,), ()]), min_size=3,
                    max_size=5),
    op=st.sampled_from(["mul", "add"]),
    seed=st.integers(0, 2**16),
)
def test_small_terms_differential(shapes, op, seed) -> None:
    """Random mixes of broadcast shapes: the rewritten graph equals NumPy's result."""
    rng = np.random.default_rng(seed)
    xs = [tt.tensor("float64", shape=tuple(1 if d == 1 else None for d in s), name=f"x{k}")
          for k, s in enumerate(shapes)]
    vals = [rng.normal(size=s) for s in shapes]
    fn = getattr(tt, op)
    y = fn(*xs)
    got = theon.function(xs, y)(*vals)
    expect = vals[0]
    for v in vals[1:]:
        expect = expect * v if op == "mul" else expect + v
    np.testing.assert_allclose(got, expect, rtol=1e-13, atol=1e-13)
    got_vm = check_same(xs, [y], vals, rtol=1e-13, atol=1e-13)[0]
    np.testing.assert_allclose(got_vm, expect, rtol=1e-13, atol=1e-13)


# -- a column against a constant matrix runs on the transposed constant -----------------
@pytest.mark.parametrize("op", ["mul", "sub", "true_div", "add"])
@pytest.mark.parametrize("const_first", [False, True])
def test_column_op_constant_matrix(op, const_first) -> None:
    rng = np.random.default_rng(5)
    cval = rng.normal(size=(30, 20)) + 3.0
    c = tt.constant(cval)
    col = tt.dcol("col")
    fn = getattr(tt, op)
    y = fn(c, col) if const_first else fn(col, c)
    f = theon.function([col], y)
    consts = [v for n in f.maker.fgraph.apply_nodes for v in n.inputs
              if isinstance(v, theon.graph.basic.Constant) and np.ndim(v.data) == 2]
    # the transposed constant is what the fused node reads
    assert any(v.data.shape == (20, 30) and v.data.flags.c_contiguous for v in consts)
    cv = rng.normal(size=(30, 1))
    npf = {"mul": np.multiply, "sub": np.subtract, "true_div": np.true_divide, "add": np.add}[op]
    expect = npf(cval, cv) if const_first else npf(cv, cval)
    got = f(cv)
    np.testing.assert_array_equal(got, expect)
    np.testing.assert_array_equal(check_same([col], [y], [cv])[0], expect)


def test_column_op_constant_matrix_left_alone() -> None:
    """Rows, small constants and full matrices keep their layout."""
    rng = np.random.default_rng(6)
    big = tt.constant(rng.normal(size=(30, 20)))
    small = tt.constant(rng.normal(size=(4, 5)))
    row, m, col = tt.drow("row"), tt.dmatrix("m"), tt.dcol("col")
    for y, inputs in (((row * big), [row]), ((col * small), [col]), ((m * big), [m])):
        fg = rewrite(inputs, [y])
        assert not any(isinstance(v, theon.graph.basic.Constant) and np.ndim(v.data) == 2
                       and v.data.shape == (20, 30) for n in fg.apply_nodes for v in n.inputs)


# -- elementwise ops on expanded inputs run at the inputs' own rank ---------------------
def _elemwise_ndims(fg):
    from theon.tensor.elemwise import Elemwise

    return sorted(n.outputs[0].type.ndim for n in fg.apply_nodes if isinstance(n.op, Elemwise))


def test_sink_expand_dims_fires() -> None:
    a, b = tt.dvector("a"), tt.dvector("b")
    y = tt.mul(a[:, None], 1.0 - tt.sqr(b[:, None]))
    # canonicalize lifts the column DimShuffles to the inputs; specialize sinks them back
    assert _elemwise_ndims(rewrite([a, b], [y])) == [1, 1, 1]
    off = RewriteQuery.named("fast_run").excluding(
        "fusion", "inplace", "local_elemwise_sink_expand_dims")
    assert _elemwise_ndims(rewrite([a, b], [y], off)) == [2, 2, 2]
    special = np.array([0.0, -0.0, 1e308, -1e308, np.inf, -np.inf, np.nan, 5e-324])
    bv = special[::-1].copy()
    got = theon.function([a, b], y)(special, bv)
    with np.errstate(all="ignore"):
        expect = special[:, None] * (1.0 - np.square(bv[:, None]))
    assert got.shape == (8, 1)
    np.testing.assert_array_equal(got, expect)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(expect))
    with np.errstate(all="ignore"):  # the reference VM squares 1e308 too
        check_same([a, b], [y], [special, bv])


def test_sink_expand_dims_left_alone() -> None:
    """Nothing to gain without an expanding DimShuffle among the inputs."""
    a, c = tt.dcol("a"), tt.dcol("c")
    assert _elemwise_ndims(rewrite([a, c], [tt.exp(a) * c])) == [2, 2]


@settings(max_examples=40, deadline=None)
@given(
    layout=st.lists(st.sampled_from(["col", "row", "scalar", "vec_row", "vec_col", "const"]),
                    min_size=1, max_size=4),
    op=st.sampled_from(["mul", "add", "sub", "maximum", "exp_add"]),
    seed=st.integers(0, 2**16),
)
def test_sink_expand_dims_differential(layout, op, seed) -> None:
    """Random mixes of expanded vectors, columns, rows and constants: the rewritten
    graph equals the unrewritten one (reference VM) and NumPy."""
    rng = np.random.default_rng(seed)
    xs, vals, terms, nps = [], [], [], []
    for k, kind in enumerate(layout):
        if kind == "const":
            cv = rng.normal(size=(1, 1))
            terms.append(tt.constant(cv))
            nps.append(cv)
            continue
        if kind == "col":
            x, v = tt.dcol(f"x{k}"), rng.normal(size=(3, 1))
            t = x
        elif kind == "row":
            x, v = tt.drow(f"x{k}"), rng.normal(size=(1, 3))
            t = x
        elif kind == "scalar":
            x, v = tt.dscalar(f"x{k}"), np.float64(rng.normal())
            t = x.dimshuffle("x", "x")
        else:
            x, v = tt.dvector(f"x{k}"), rng.normal(size=3)
            t = x[:, None] if kind == "vec_col" else x[None, :]
        xs.append(x)
        vals.append(v)
        terms.append(t)
        nps.append(np.asarray(v).reshape((1, 1)) if kind == "scalar" else
                   (v[:, None] if kind == "vec_col" else v[None, :] if kind == "vec_row" else v))
    if not xs:
        return
    if op == "exp_add":
        y, expect = tt.exp(terms[0]), np.exp(nps[0])
        for t, n in zip(terms[1:], nps[1:]):
            y, expect = y + t, expect + n
    else:
        fn = getattr(tt, op)
        npf = {"mul": np.multiply, "add": np.add, "sub": np.subtract, "maximum": np.maximum}[op]
        y, expect = terms[0], nps[0]
        for t, n in zip(terms[1:], nps[1:]):
            y, expect = fn(y, t), npf(expect, n)
    got = theon.function(xs, y)(*vals)
    np.testing.assert_allclose(got, expect, rtol=1e-13, atol=1e-13)
    check_same(xs, [y], vals, rtol=1e-13, atol=1e-13)


# -- softplus and sigmoid of z and -z share exp(-|z|) ------------------------------------
LOGISTIC_POINTS = np.array([0.0, -0.0, 5e-324, -5e-324, 1e-300, 0.5, -0.5, 30.0, -30.0, 37.5,
                            -37.5, 700.0, -700.0, 740.0, -740.0, 1e308, -1e308, np.inf,
                            -np.inf, np.nan])


def _logistic_ref(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """softplus and sigmoid in long double, rounded to float64."""
    zl = z.astype(np.longdouble)
    with np.errstate(all="ignore"):
        sp = np.where(zl > 0, zl + np.log1p(np.exp(-zl)), np.log1p(np.exp(zl)))
        sg = 1 / (1 + np.exp(-zl))
    return sp.astype(np.float64), sg.astype(np.float64)


def _logistic_graph(z):
    return [tt.softplus(z), tt.softplus(-z), tt.sigmoid(z), tt.sigmoid(-z)]


def test_share_logistic_fires_and_values() -> None:
    z = tt.dvector("z")
    outs = _logistic_graph(z)
    names = op_names(rewrite([z], outs))
    assert names["softplus"] == names["sigmoid"] == 0, names
    assert names["exp"] == 1 and names["log1p"] == 1, names
    off = RewriteQuery.named("fast_run").excluding("fusion", "inplace", "local_share_logistic")
    names_off = op_names(rewrite([z], outs, off))
    assert names_off["softplus"] == 2 and names_off["sigmoid"] == 2, names_off
    got = theon.function([z], outs)(LOGISTIC_POINTS)
    sp, sg = _logistic_ref(LOGISTIC_POINTS)
    spn, sgn = _logistic_ref(-LOGISTIC_POINTS)
    for g, r in zip(got, (sp, spn, sg, sgn)):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(r))
        ok = ~np.isnan(r)
        np.testing.assert_array_max_ulp(g[ok], r[ok], maxulp=2)
    # softplus is the very formula Softplus evaluates: equal bit for bit
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(
            got[0], np.maximum(LOGISTIC_POINTS, 0) + np.log1p(np.exp(-np.abs(LOGISTIC_POINTS))))
    with np.errstate(all="ignore"):
        check_same([z], outs, [LOGISTIC_POINTS], rtol=5e-16, atol=1e-300)


def test_share_logistic_left_alone() -> None:
    """One softplus or one sigmoid alone, and 0-d values, keep their own op."""
    z = tt.dvector("z")
    assert op_names(rewrite([z], [tt.softplus(z)]))["softplus"] == 1
    assert op_names(rewrite([z], [tt.sigmoid(-z) * 2]))["sigmoid"] == 1
    s = tt.dscalar("s")
    names = op_names(rewrite([s], _logistic_graph(s)))
    assert names["softplus"] == 2 and names["sigmoid"] == 2


def test_share_logistic_float32() -> None:
    z = tt.fvector("z")
    outs = _logistic_graph(z)
    assert op_names(rewrite([z], outs))["softplus"] == 0
    with np.errstate(over="ignore"):
        zv = LOGISTIC_POINTS.astype(np.float32)
    got = theon.function([z], outs)(zv)
    assert all(g.dtype == np.float32 for g in got)
    with np.errstate(all="ignore"):
        check_same([z], outs, [zv], rtol=1e-6, atol=1e-40)


def test_share_logistic_logreg_gradient() -> None:
    """The logistic loss and its gradient, at separable (extreme) margins, against NumPy."""
    X, t, w = tt.dmatrix("X"), tt.dvector("t"), tt.dvector("w")
    p = tt.sigmoid(tt.dot(X, w))
    loss = -tt.mean(t * tt.log(p) + (1 - t) * tt.log(1 - p))
    gw = theon.grad(loss, w)
    f = theon.function([X, t, w], [loss, gw])
    assert "sigmoid" not in op_names(f.maker.fgraph) and "softplus" not in str(
        theon.printing.debugprint(f, file="str"))
    rng = np.random.default_rng(7)
    Xv = rng.normal(size=(50, 3))
    for scale in (1e-3, 1.0, 40.0, 800.0):
        wv = scale * np.array([1.0, -2.0, 0.5])
        z = Xv @ wv
        tv = (z > 0).astype(float)
        tv[:5] = 1 - tv[:5]  # a few on the wrong side
        zl = z.astype(np.longdouble)
        with np.errstate(all="ignore"):
            sp = np.logaddexp(np.longdouble(0), zl)
            ref_loss = float(np.mean(tv * (sp - zl) + (1 - tv) * sp))
            sig = 1 / (1 + np.exp(-zl))
        ref_g = (Xv.T.astype(np.longdouble) @ (sig - tv) / len(tv)).astype(float)
        got_loss, got_g = f(Xv, tv, wv)
        np.testing.assert_allclose(got_loss, ref_loss, rtol=1e-13)
        np.testing.assert_allclose(got_g, ref_g, rtol=1e-12, atol=1e-300)


@settings(max_examples=40, deadline=None)
@given(
    vals=st.lists(st.floats(allow_nan=True, allow_infinity=True, width=64), min_size=1,
                  max_size=6),
    pick=st.lists(st.integers(0, 3), min_size=2, max_size=4, unique=True),
    scale=st.sampled_from([1.0, -2.0]),
)
def test_share_logistic_differential(vals, pick, scale) -> None:
    """Any two or more of softplus(z), softplus(-z), sigmoid(z), sigmoid(-z) (z itself an
    expression) against the unrewritten graph on the reference VM."""
    x = tt.dvector("x")
    z = x * scale
    outs = [_logistic_graph(z)[k] for k in pick]
    xv = np.array(vals, dtype=np.float64)
    with np.errstate(all="ignore"):
        check_same([x], outs, [xv], rtol=5e-16, atol=1e-300)
        got = theon.function([x], outs)(xv)
        zv = xv * scale
    sp, sg = _logistic_ref(zv)
    spn, sgn = _logistic_ref(-zv)
    ref = [(sp, spn, sg, sgn)[k] for k in pick]
    for g, r in zip(got, ref):
        np.testing.assert_array_equal(np.isnan(g), np.isnan(r))
        ok = ~np.isnan(r)
        np.testing.assert_array_max_ulp(g[ok], r[ok], maxulp=2)
