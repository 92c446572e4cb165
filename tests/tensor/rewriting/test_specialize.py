"""Specializations: constant powers, sum(x*y) -> dot, and the seed's a + a**10 example."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from tests.tensor.rewriting.helpers import check_same, op_names, rewrite
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
