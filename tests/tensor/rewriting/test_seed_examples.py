"""The rewrite examples of seed 002: ``x*y/y -> x``, merging identical subgraphs, ``a + a**10``."""

from __future__ import annotations

import numpy as np

import theon
import theon.tensor as tt
from tests.tensor.rewriting.helpers import NOFUSE, op_names, rewrite


def test_xy_over_y_is_x() -> None:
    x, y = tt.dvector("x"), tt.dvector("y")
    f = theon.function([x, y], (x * y) / y)
    assert len(f.maker.fgraph.apply_nodes) == 1  # the result's copy of x
    (out,) = f.maker.fgraph.outputs
    assert type(out.owner.op).__name__ == "DeepCopyOp"
    assert out.owner.inputs[0] is f.maker.fgraph.inputs[0]
    xv = np.array([1.0, -2.0, 3.5])
    out = f(xv, np.array([4.0, 5.0, 6.0]))
    np.testing.assert_array_equal(out, xv)
    out[0] = 99.0  # the result is a copy, not the caller's array
    assert xv[0] == 1.0


def test_identical_subgraphs_are_computed_once() -> None:
    x, y = tt.dvector("x"), tt.dvector("y")
    a = tt.exp(x * y) + 2.0
    b = tt.exp(x * y) + 2.0  # built separately: a different graph, the same computation
    f = theon.function([x, y], [a, b, a * b], mode=NOFUSE)
    fg = f.maker.fgraph
    assert fg.outputs[0] is fg.outputs[1]
    names = op_names(fg)
    assert names["exp"] == 1 and names["add"] == 1, names
    xv, yv = np.array([0.5, 1.0]), np.array([2.0, -1.0])
    r = f(xv, yv)
    np.testing.assert_allclose(r[0], np.exp(xv * yv) + 2)
    np.testing.assert_allclose(r[2], (np.exp(xv * yv) + 2) ** 2)
    # equal constants merge too
    fg = rewrite([x], [x * np.float64(3.5) + tt.exp(x) * np.float64(3.5)])
    consts = {id(i) for n in fg.apply_nodes for i in n.inputs if isinstance(i, tt.Constant)}
    assert len(consts) == 1


def test_a_plus_a_pow_10() -> None:
    a = tt.vector("a")
    b = a + a**10
    f = theon.function([a], b)
    assert f([0, 1, 2]).tolist() == [0.0, 2.0, 1026.0]
    # the rewritten graph is more compact: no pow, a few multiplications instead
    fg = rewrite([a], [b])
    assert "pow" not in op_names(fg)
    assert sum(op_names(fg).values()) <= 6
