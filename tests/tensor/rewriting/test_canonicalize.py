"""Canonicalization: flat products and sums, cancellation, constants, lifted dimshuffles."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from tests.tensor.rewriting.helpers import check_same, op_names, rewrite
from theon.tensor.elemwise import DimShuffle
from theon.tensor.rewriting.utils import additive_terms, multiplicative_terms

rng = np.random.default_rng(1)
x, y, z = tt.dvector("x"), tt.dvector("y"), tt.dvector("z")
XV, YV, ZV = (rng.normal(size=5) for _ in range(3))


def test_xy_over_y_compiles_to_at_most_a_copy() -> None:
    # seed 002: x*y/y -> x; the issue: function([x, y], (x*y)/y) is at most a copy
    f = theon.function([x, y], (x * y) / y)
    nodes = f.maker.fgraph.apply_nodes
    assert len(nodes) <= 1
    assert not any(str(getattr(n.op, "scalar_op", "")) in ("mul", "true_div") for n in nodes)
    np.testing.assert_allclose(f(XV, YV), XV)
    out = f(XV, YV)
    assert out is not XV  # the copy the function makes of an input it returns


@pytest.mark.parametrize(
    "build, expect",
    [
        (lambda: x * y / y, "x"),
        (lambda: y * x / y, "x"),
        (lambda: x / y * y, "x"),
        (lambda: (x * y * z) / (z * y), "x"),
        (lambda: x * (y / x), "y"),
        (lambda: -(-x * y) / y, "x"),
        (lambda: x + y - y, "x"),
        (lambda: (x - y) + y, "x"),
        (lambda: -(y - x) + y - 0, "x"),
        (lambda: x - (y - y), "x"),
    ],
)
def test_cancellation_to_a_variable(build, expect) -> None:
    out = build()
    fg = rewrite([x, y, z], [out])
    assert len(fg.apply_nodes) == 0, op_names(fg)
    assert fg.outputs[0].name == expect
    check_same([x, y, z], [out], [XV, YV, ZV])


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int8"])
def test_x_minus_x_is_zeros_of_same_shape_and_dtype(dtype) -> None:
    m = tt.matrix("m", dtype=dtype)
    out = m - m
    fg = rewrite([m], [out])
    assert fg.outputs[0].type == out.type
    assert "sub" not in op_names(fg)
    mv = (rng.normal(size=(2, 3)) * 10).astype(dtype)
    (got,) = check_same([m], [out], [mv])
    assert got.shape == (2, 3) and not got.any()


def test_x_over_x_is_ones() -> None:
    m = tt.fmatrix("m")
    out = m / m
    fg = rewrite([m], [out])
    assert fg.outputs[0].type == out.type
    assert "true_div" not in op_names(fg)
    got = theon.function([m], out)(np.full((2, 3), 3.0, dtype="float32"))
    assert got.dtype == np.float32 and got.shape == (2, 3) and (got == 1).all()


def test_cancellation_keeps_broadcast_shape() -> None:
    r = tt.TensorType("float64", shape=(1, None))("r")
    m = tt.dmatrix("m")
    out = r * m / m  # (n, k): r alone would be (1, k)
    fg = rewrite([r, m], [out])
    assert fg.outputs[0].type == out.type
    assert "true_div" not in op_names(fg)
    got = check_same([r, m], [out], [rng.normal(size=(1, 3)), rng.normal(size=(4, 3))])
    assert got[0].shape == (4, 3)


def test_constants_combine() -> None:
    # exact combinations only: powers of two join the one other constant
    out = 2 * x * 3
    fg = rewrite([x], [out])
    assert op_names(fg) == {"mul": 1}
    check_same([x], [out], [XV])
    out = x * 2 / 4
    fg = rewrite([x], [out])
    assert op_names(fg) == {"mul": 1}
    check_same([x], [out], [XV])
    out = x / 3 * 2  # stays a division: x / 1.5
    fg = rewrite([x], [out])
    assert op_names(fg) == {"true_div": 1}
    check_same([x], [out], [XV])
    # equal constants on both sides cancel, like x - x and x / x
    out = (x + 1) + y - 1
    fg = rewrite([x, y], [out])
    assert op_names(fg) == {"add": 1}
    check_same([x, y], [out], [XV, YV])


XS = np.concatenate([np.arange(-300.0, 3000.0), rng.normal(size=2000) * 1e3])


def _exact(inputs, out, values, ref) -> None:
    """FAST_RUN gives NumPy's result bit for bit."""
    got = theon.function(inputs, out)(*values)
    assert got.dtype == ref.dtype
    np.testing.assert_array_equal(got, ref)


_DIVISORS = [49.0, 3.0, 7.0, 10.0, 0.1, 1 / 3, -49.0, 1e-30, 3e30]


@pytest.mark.parametrize(
    ("dtype", "c"),
    [("float64", c) for c in [*_DIVISORS, 1e-300, 3e300]] + [("float32", c) for c in _DIVISORS],
)
def test_division_by_a_constant_is_numpys_division(dtype, c) -> None:
    """``x / c`` is not ``x * (1/c)``: that differs from NumPy in about a third of the results."""
    v = tt.vector("v", dtype=dtype)
    xs = XS.astype(dtype)
    cc = np.asarray(c, dtype=dtype)
    _exact([v], v / cc, [xs], xs / cc)
    _exact([v], tt.floor(v / cc), [xs], np.floor(xs / cc))


def test_floor_of_x_over_49() -> None:
    """The issue's example: ``floor(x / 49)`` at ``x = 49`` is 1."""
    assert theon.function([x], tt.floor(x / 49.0))(np.array([49.0]))[0] == 1.0


@pytest.mark.parametrize(
    "build, ref",
    [
        (lambda v: 3 * v * 5, lambda a: 3 * a * 5),
        (lambda v: v * 3 / 7, lambda a: a * 3 / 7),
        (lambda v: v / 3 / 7, lambda a: a / 3 / 7),
        (lambda v: v / 3 * 5, lambda a: a / 3 * 5),
        (lambda v: -(v / 49), lambda a: -(a / 49)),
        (lambda v: (v + 1) + 2, lambda a: (a + 1) + 2),
        (lambda v: (v - 0.1) + 0.7, lambda a: (a - 0.1) + 0.7),
        (lambda v: v * 0.5 / 3, lambda a: a * 0.5 / 3),
    ],
)
def test_constants_are_not_reassociated_inexactly(build, ref) -> None:
    _exact([x], build(x), [XS], ref(XS))


@pytest.mark.parametrize(
    "build",
    [lambda a, b: (a / 3) * b, lambda a, b: (a * 3) * b / 7, lambda a, b: (a + 1) + b,
     lambda a, b: (a - 0.1) - b, lambda a, b: (a / 49) / b],
)
def test_a_constant_stays_in_place_among_variables(build) -> None:
    """``(x/3)*y -> (x*y)/3`` would change a third of the results: nothing cancels, so
    the constant stays where the graph has it."""
    ys = np.abs(XS[::-1]) + 1
    _exact([x, y], build(x, y), [XS, ys], build(XS, ys))


_POOL = [2.0, 0.5, -4.0, 0.25, 3.0, 7.0, 10.0, 0.1, 49.0, 1.7, -3.3, 1 / 3]
_STEPS = {  # (theon, NumPy) of (value so far, constant, second variable)
    "mul": (lambda v, c, w: v * c, lambda a, c, b: a * c),
    "div": (lambda v, c, w: v / c, lambda a, c, b: a / c),
    "add": (lambda v, c, w: v + c, lambda a, c, b: a + c),
    "sub": (lambda v, c, w: v - c, lambda a, c, b: a - c),
    "rsub": (lambda v, c, w: c - v, lambda a, c, b: c - a),
    "neg": (lambda v, c, w: -v, lambda a, c, b: -a),
    "muly": (lambda v, c, w: v * w, lambda a, c, b: a * b),
    "addy": (lambda v, c, w: v + w, lambda a, c, b: a + b),
}


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    st.lists(st.sampled_from(sorted(_STEPS)), min_size=1, max_size=5),
    st.permutations(_POOL),
    st.sampled_from(["float64", "float32"]),
)
def test_constant_chains_match_numpy_bit_for_bit(steps, consts, dtype) -> None:
    """Random chains of arithmetic with distinct constants and other variables
    (nothing cancels: each ``y`` step reads a variable of its own) that keep ``x`` a
    numerator: every rewrite left is exact, so FAST_RUN gives NumPy's results bit
    for bit.  (``c / (d / x) -> (c/d) * x`` moves ``x`` out of a denominator, the
    reassociation ``1 / (1 / x) -> x`` also makes.)"""
    v = tt.vector("v", dtype=dtype)
    ws = [tt.vector(f"w{k}", dtype=dtype) for k in range(len(steps))]
    xs = XS[::7].astype(dtype)
    yss = [(np.abs(np.roll(xs[::-1], k)) + 1 + k).astype(dtype) for k in range(len(steps))]
    out, ref = v, xs
    with np.errstate(all="ignore"):
        for k, (step, c) in enumerate(zip(steps, consts)):
            cc = np.asarray(c, dtype=dtype)
            build, np_op = _STEPS[step]
            out, ref = build(out, cc, ws[k]), np_op(ref, cc, yss[k])
    got = theon.function([v, *ws], out, on_unused_input="ignore")(xs, *yss)
    assert got.dtype == ref.dtype
    np.testing.assert_array_equal(got, ref)


def test_neg_is_absorbed() -> None:
    out = (-x) * (-y)
    assert op_names(rewrite([x, y], [out])) == {"mul": 1}
    out = x + (-y)
    assert op_names(rewrite([x, y], [out])) == {"sub": 1}
    out = x * -1
    assert op_names(rewrite([x], [out])) == {"neg": 1}
    check_same([x, y], [(-x) * (-y), x + (-y), x * -1], [XV, YV])


def test_division_goes_to_the_top() -> None:
    out = (x / y) * (z / x)
    fg = rewrite([x, y, z], [out])
    assert op_names(fg) == {"true_div": 1}
    check_same([x, y, z], [out], [XV, YV, ZV])


def test_int_sums_are_exact() -> None:
    a, b = tt.bvector("a"), tt.bvector("b")  # int8: sums wrap
    out = a + b - b
    fg = rewrite([a, b], [out])
    assert len(fg.apply_nodes) == 0
    check_same([a, b], [out], [np.array([100, -100, 5], dtype="int8"),
                               np.array([100, -100, 127], dtype="int8")])
    c = tt.lvector("c")
    out = (a + c) - c  # int8 + int64 -> int64: the int8 term is cast
    fg = rewrite([a, c], [out])
    assert fg.outputs[0].type == out.type
    check_same([a, c], [out], [np.array([100, -100], dtype="int8"), np.array([3, 4])])


def test_shared_subexpressions_are_not_duplicated() -> None:
    p = x * y
    out1 = p * z
    out2 = p + 1
    fg = rewrite([x, y, z], [out1, out2])
    assert op_names(fg)["mul"] == 2  # p is kept (two clients), not recomputed inside out1
    check_same([x, y, z], [out1, out2], [XV, YV, ZV])


def test_cancellation_through_a_shared_product_or_sum() -> None:
    """``p = x*y`` also returned: ``p/y -> x``; ``s = x+y`` also returned: ``s - y -> x``."""
    p, s = x * y, x + y
    fg = rewrite([x, y], [p, p / y, s, s - y])
    assert fg.outputs[1] is fg.inputs[0] and fg.outputs[3] is fg.inputs[0]
    assert op_names(fg) == {"mul": 1, "add": 1}
    check_same([x, y], [p, p / y, s, s - y], [XV, YV])


def test_cancellation_through_a_shared_product_adds_no_work() -> None:
    """``q = x*y*z`` shared: ``q/z -> x*y`` (one operation for one); a result that takes
    more operations than the node it would replace is not built."""
    q = x * y * z
    fg = rewrite([x, y, z], [q, q / z])
    assert op_names(fg)["true_div"] == 0
    check_same([x, y, z], [q, q / z], [XV, YV, ZV])
    w = tt.dvector("w")
    r = x * y * z * w
    out = r / w  # cancelling w would need x*y*z: two operations for one division
    fg = rewrite([x, y, z, w], [r, out])
    assert op_names(fg)["true_div"] == 1
    check_same([x, y, z, w], [r, out], [XV, YV, ZV, XV + 1])


def test_mixed_float_dtypes() -> None:
    f32 = tt.fvector("f")
    out = (f32 * x) / x  # float64 result, cast of f
    fg = rewrite([f32, x], [out])
    assert fg.outputs[0].type == out.type
    check_same([f32, x], [out], [XV.astype("float32"), XV])


def test_dimshuffle_lift_and_merge() -> None:
    m = tt.dmatrix("m")
    out = (tt.exp(m) + m).T
    fg = rewrite([m], [out])
    # the transpose moved to the input, where both uses merged into one
    assert op_names(fg)["DimShuffle"] == 1
    (ds,) = [n for n in fg.apply_nodes if isinstance(n.op, DimShuffle)]
    assert ds.inputs[0] is fg.inputs[0]
    check_same([m], [out], [rng.normal(size=(2, 3))])


def test_sum_of_sum() -> None:
    t3 = tt.dtensor3("t")
    out = tt.sum(tt.sum(t3, axis=1), axis=0)
    fg = rewrite([t3], [out])
    sums = [n for n in fg.apply_nodes if type(n.op).__name__ == "Sum"]
    assert len(sums) == 1 and sums[0].op.axis == (0, 1)
    check_same([t3], [out], [rng.normal(size=(2, 3, 4))])
    out = tt.max(tt.max(t3, axis=2), axis=(0, 1))
    fg = rewrite([t3], [out])
    assert op_names(fg) == {"Max": 1}
    check_same([t3], [out], [rng.normal(size=(2, 3, 4))])


def test_terms_helpers() -> None:
    t = multiplicative_terms(None, 2.0 * x / (y * 4.0))
    assert t is not None and t.pos == [x] and t.neg == [y] and len(t.consts) == 2
    t = additive_terms(None, x - (y - 1.0))
    assert t is not None and t.pos == [x] and t.neg == [y] and len(t.consts) == 1


def test_user_graph_is_untouched() -> None:
    out = (x * y) / y + (x - x)
    before = theon.graph.traversal.io_toposort([x, y], [out])
    snapshot = [(n.op, list(n.inputs), list(n.outputs)) for n in before]
    theon.function([x, y], out)
    after = theon.graph.traversal.io_toposort([x, y], [out])
    assert [(n.op, list(n.inputs), list(n.outputs)) for n in after] == snapshot


def test_terms_are_not_regrouped_when_nothing_cancels() -> None:
    """``(-(v + w)) + a + b`` is not rebuilt as ``(a + b) - (v + w)``, nor ``(x/y)*z`` as
    ``(x*z)/y``: a different grouping rounds differently (found by hypothesis)."""
    v, w, a, b = (tt.dvector(n) for n in "vwab")
    vals = [XS[::7] * k + 0.1 * k for k in (1.0, -2.0, 3.0, 0.5)]
    va, wa, aa, ba = vals
    _exact([v, w, a, b], (-(v + w) + a) + b, vals, (-(va + wa) + aa) + ba)
    _exact([v, w, a], (v / w) * a, vals[:3], (va / wa) * aa)
    _exact([v, w, a], v / (w / a), vals[:3], va / (wa / aa))
    _exact([v, w, a, b], (v - (w - a)) - b, vals, (va - (wa - aa)) - ba)
    # a chain grouped as the canonical form would group it is still flattened
    fg = rewrite([v, w, a], [(v + w) + a])
    assert op_names(fg) == {"add": 1}
    # and terms that cancel still do (the documented identity x - x -> 0)
    fg = rewrite([v, w, a], [(v + w) + a - w])
    assert op_names(fg) == {"add": 1}
