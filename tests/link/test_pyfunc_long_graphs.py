"""Long graphs through the py linker: generated code nests no deeper than a fixed bound.

Python's compiler recurses on the nesting of an expression, so a sum of thousands
of operands written as one expression (``a + b + c + ...`` nests left) used to
raise RecursionError when the generated function was compiled (issue 11, item 7).
"""

import ast
import functools
import operator

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.link.pyfunc.dispatch import MAX_EXPR_ARGS

N = 3500  # more operands than compile() can nest (about 3000 with the default limit)
DEPTH_BOUND = 60  # what a generated function may nest, whatever the graph


def ast_depth(source: str) -> int:
    """The deepest nesting of AST nodes in ``source`` (walked without recursion)."""
    deepest = 0
    stack = [(ast.parse(source), 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return deepest


def values(kind, n, seed):
    rng = np.random.default_rng(seed)
    if kind == "scalar":
        return [np.float64(v) for v in rng.uniform(-1, 1, n)]
    return [rng.uniform(-1, 1, 4) for _ in range(n)]


def left_fold(op, vals):
    """``((v0 op v1) op v2) ...`` in NumPy float64, the order theon's Add and Mul use."""
    return functools.reduce(op, [np.asarray(v, dtype=np.float64) for v in vals])


@pytest.mark.parametrize("kind", ["scalar", "vector"])
@pytest.mark.parametrize("spelling", ["add", "loop"])
def test_sum_of_thousands_of_inputs(kind, spelling):
    make = tt.dscalar if kind == "scalar" else tt.dvector
    xs = [make(f"x{i}") for i in range(N)]
    if spelling == "add":
        total = tt.add(*xs)
    else:
        total = xs[0]
        for x in xs[1:]:
            total = total + x
    f = theon.function(xs, total)
    vals = values(kind, N, 1)
    np.testing.assert_allclose(f(*vals), left_fold(operator.add, vals), rtol=1e-12)
    assert ast_depth(f._runner.source) <= DEPTH_BOUND


def test_product_of_thousands_of_scalars():
    xs = [tt.dscalar(f"x{i}") for i in range(N)]
    f = theon.function(xs, tt.mul(*xs))
    vals = [np.float64(v) for v in np.random.default_rng(2).uniform(0.999, 1.001, N)]
    np.testing.assert_allclose(f(*vals), left_fold(operator.mul, vals), rtol=1e-12)
    assert ast_depth(f._runner.source) <= DEPTH_BOUND


def test_long_sum_keeps_numpy_semantics_at_singular_points():
    # 1/0 raises on Python floats: the call is redone at the NumPy level (also flat)
    xs = [tt.dscalar(f"x{i}") for i in range(N)]
    d = tt.dscalar("d")
    f = theon.function([*xs, d], tt.add(*xs) / d)
    vals = [np.float64(1.0)] * N
    with np.errstate(divide="ignore"):
        assert f(*vals, 0.0) == np.inf
        assert f(*vals, 2.0) == N / 2


@pytest.mark.parametrize("kind", ["scalar", "vector"])
def test_chain_of_thousands_of_unary_ops(kind):
    x = tt.dscalar("x") if kind == "scalar" else tt.dvector("x")
    xv = np.float64(0.3) if kind == "scalar" else np.linspace(-2, 2, 7)
    y, ref = x, np.asarray(xv)
    for _ in range(2500):  # 5000 nested ops: sin(sin(...) + 1) + 1
        y = tt.sin(y) + 1
        ref = np.sin(ref) + 1
    f = theon.function([x], y)
    np.testing.assert_allclose(f(xv), ref, rtol=1e-12)
    assert ast_depth(f._runner.source) <= DEPTH_BOUND


def test_fused_node_with_a_long_inner_sum():
    # a 0-d fused node whose inner add has more operands than one expression may take
    x = tt.dscalar("x")
    n = 4 * MAX_EXPR_ARGS + 3
    terms = [tt.sin(x * (k + 1)) for k in range(n)]
    f = theon.function([x], tt.add(*terms))
    ref = left_fold(operator.add, [np.sin(0.7 * (k + 1)) for k in range(n)])
    np.testing.assert_allclose(f(0.7), ref, rtol=1e-12)
    assert ast_depth(f._runner.source) <= DEPTH_BOUND


def test_ast_depth_helper():
    assert ast_depth("a = 1") < ast_depth("a = ((1 + 2) + 3) + 4")


def test_composite_inside_a_composite_with_a_long_sum():
    from theon import scalar as ts
    from theon.scalar.composite import Composite
    from theon.tensor.elemwise import Elemwise

    a = ts.float64("a")
    n = 2 * MAX_EXPR_ARGS + 5
    inner = Composite([a], [ts.add(*[ts.mul(a, float(k + 1)) for k in range(n)])])
    b = ts.float64("b")
    outer = Composite([b], [ts.sin(inner(b))])
    x = tt.dscalar("x")
    f = theon.function([x], Elemwise(outer)(x))
    ref = np.sin(left_fold(operator.add, [0.3 * (k + 1) for k in range(n)]))
    np.testing.assert_allclose(f(0.3), ref, rtol=1e-12)
    assert ast_depth(f._runner.source) <= DEPTH_BOUND
