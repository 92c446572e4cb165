"""AdvancedSubtensor1 / AdvancedIncSubtensor1 (PyTensor's Ops for ``x[i]`` with an integer
vector on the first axis): values against NumPy, gradients, and the specialize rewrite
that gives compiled graphs these classes as PyTensor's do."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theon
import theon.tensor as tt
from theon.tensor.subtensor import (
    AdvancedIncSubtensor,
    AdvancedIncSubtensor1,
    AdvancedSubtensor,
    AdvancedSubtensor1,
)

rng = np.random.default_rng(11)


def _ops(f) -> list[str]:
    return [type(n.op).__name__ for n in f.maker.fgraph.toposort()]


def test_values_against_numpy() -> None:
    x, i = tt.tensor("float64", shape=(None, 3), name="x"), tt.lvector("i")
    xv, iv = rng.normal(size=(4, 3)), np.array([3, -1, 0, 0])
    y = AdvancedSubtensor1()(x, i)
    assert isinstance(y.owner.op, AdvancedSubtensor) and y.type.shape == (None, 3)
    np.testing.assert_array_equal(theon.function([x, i], y)(xv, iv), xv[iv])
    inc = AdvancedIncSubtensor1()(x, np.ones(3), i)
    expected = xv.copy()
    np.add.at(expected, iv, 1.0)
    np.testing.assert_allclose(theon.function([x, i], inc)(xv, iv), expected)
    st = AdvancedIncSubtensor1(set_instead_of_inc=True)(x, 2.0, i)
    expected = xv.copy()
    expected[iv] = 2.0
    np.testing.assert_array_equal(theon.function([x, i], st)(xv, iv), expected)


def test_props_and_text() -> None:
    assert AdvancedSubtensor1() == AdvancedSubtensor1() and AdvancedSubtensor1.__props__ == ()
    assert AdvancedIncSubtensor1.__props__ == ("inplace", "set_instead_of_inc")
    assert AdvancedIncSubtensor1() != AdvancedIncSubtensor1(set_instead_of_inc=True)
    assert str(AdvancedIncSubtensor1(set_instead_of_inc=True)) == (
        "AdvancedSetSubtensor1{no_inplace}")


def test_make_node_errors() -> None:
    x = tt.dmatrix("x")
    with pytest.raises(TypeError, match="integer vector"):
        AdvancedSubtensor1()(x, tt.lmatrix("i"))
    with pytest.raises(TypeError, match="integer vector"):
        AdvancedSubtensor1()(x, tt.dvector("f"))
    with pytest.raises(TypeError, match="cannot index the 0-d"):
        AdvancedSubtensor1()(tt.dscalar("s"), tt.lvector("i"))
    with pytest.raises(TypeError, match="one index vector"):
        AdvancedIncSubtensor1()(x, 1.0, tt.lvector("i"), tt.lvector("j"))


def test_gradients() -> None:
    iv = np.array([2, 0, 2])
    theon.verify_grad(lambda x: AdvancedSubtensor1()(x, iv) ** 2, [rng.normal(size=(3, 2))])
    theon.verify_grad(lambda x, y: AdvancedIncSubtensor1()(x, y, iv) ** 2,
                      [rng.normal(size=(3, 2)), rng.normal(size=(3, 2))])
    theon.verify_grad(
        lambda x, y: AdvancedIncSubtensor1(set_instead_of_inc=True)(x, y, np.array([1, 0])) * 3,
        [rng.normal(size=(3, 2)), rng.normal(size=(2, 2))])
    x = tt.dmatrix("x")
    g = theon.grad(AdvancedSubtensor1()(x, iv).sum(), x)
    assert isinstance(g.owner.op, AdvancedIncSubtensor1)


def test_compiled_graphs_name_them_as_pytensor_does() -> None:
    """Built as AdvancedSubtensor (PyTensor 2.38 does too), specialized to the ``1`` Ops."""
    x, i, v = tt.dmatrix("x"), tt.lvector("i"), tt.dvector("v")
    y = x[i]
    assert type(y.owner.op) is AdvancedSubtensor
    xv, iv, vv = rng.normal(size=(3, 2)), np.array([2, 0, 2]), np.zeros(3)
    cases = [
        (y, "AdvancedSubtensor1", xv[iv]),
        (tt.inc_subtensor(v[i], 2.0), "AdvancedIncSubtensor1", np.array([2.0, 0.0, 4.0])),
        (x[:, np.array([1, 0])], "AdvancedSubtensor", xv[:, [1, 0]]),  # not the first axis
    ]
    for out, name, expected in cases:
        f = theon.function([x, i, v], out, on_unused_input="ignore")
        assert name in _ops(f), _ops(f)
        np.testing.assert_allclose(f(xv, iv, vv), expected)
    masked = theon.function([v], v[v > 0])
    assert "AdvancedSubtensor1" not in _ops(masked)
    dedup = tt.inc_subtensor(v[i], 1.0, ignore_duplicates=True)
    assert "AdvancedIncSubtensor1" not in _ops(theon.function([v, i], dedup))


def test_inplace_phase_writes_into_a_dead_buffer() -> None:
    i, v = tt.lvector("i"), tt.dvector("v")
    out = tt.inc_subtensor((v * 2)[i], 1.0)
    f = theon.function([v, i], out)
    (node,) = [n for n in f.maker.fgraph.apply_nodes if isinstance(n.op, AdvancedIncSubtensor)]
    assert isinstance(node.op, AdvancedIncSubtensor1) and node.op.inplace
    np.testing.assert_array_equal(f(np.arange(3.0), np.array([0, 0])), [2.0, 2.0, 4.0])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-4, 3), min_size=0, max_size=6),
       st.sampled_from(["get", "inc", "set"]))
def test_specialized_graph_agrees_with_the_unrewritten_one(idx, kind) -> None:
    """Differential: FAST_RUN (with the ``1`` Ops) against no rewrites, repeated and
    negative indices included."""
    x, i = tt.dmatrix("x"), tt.lvector("i")
    if kind == "get":
        out = x[i] * 1.0
    else:
        out = (tt.set_subtensor if kind == "set" else tt.inc_subtensor)(x[i], 1e300)
    xv, iv = np.arange(8.0).reshape(4, 2), np.array(idx, dtype=np.int64)
    fast = theon.function([x, i], out)(xv, iv)
    plain = theon.function([x, i], out, mode=theon.Mode(optimizer=None))(xv, iv)
    np.testing.assert_array_equal(fast, plain)
