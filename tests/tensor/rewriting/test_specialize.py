"""Specializations: constant powers, sum(x*y) -> dot, and the seed's a + a**10 example."""

from __future__ import annotations

import numpy as np
import pytest

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
