"""theon.compile.ops: as_op/wrap_py, ViewOp, DeepCopyOp, TypeCastingOp, written the way
PyTensor's documentation uses them, with values checked against NumPy."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import theon
import theon.tensor as tt
from theon.compile import (
    DeepCopyOp,
    TypeCastingOp,
    ViewOp,
    as_op,
    deep_copy_op,
    view_op,
    wrap_py,
)
from theon.graph.basic import Apply

rng = np.random.default_rng(7)


def _infer_dot_shape(fgraph, node, input_shapes):
    ashp, bshp = input_shapes
    return [ashp[:-1] + bshp[-1:]]


# PyTensor's documented example: a NumPy function as an Op, with its output shape
@as_op(itypes=[tt.dmatrix, tt.dmatrix], otypes=[tt.dmatrix], infer_shape=_infer_dot_shape)
def numpy_dot(a, b):
    return np.dot(a, b)


@wrap_py(itypes=[tt.dvector], otypes=[tt.dvector, tt.lscalar])
def sort_and_count(v):
    return np.sort(v), np.int64(v.size)


def test_as_op_computes_the_function() -> None:
    x, y = tt.dmatrix("x"), tt.dmatrix("y")
    f = theon.function([x, y], numpy_dot(x, y) + 1)
    a, b = rng.normal(size=(3, 4)), rng.normal(size=(4, 2))
    np.testing.assert_allclose(f(a, b), a @ b + 1, rtol=1e-12)
    assert str(numpy_dot) == "FromFunctionOp{numpy_dot}"


def test_as_op_with_several_outputs() -> None:
    v = tt.dvector("v")
    s, n = sort_and_count(v)
    vals = rng.normal(size=5)
    out_s, out_n = theon.function([v], [s, n])(vals)
    np.testing.assert_array_equal(out_s, np.sort(vals))
    assert out_n == 5 and out_n.dtype == np.int64


def test_infer_shape_computes_no_product() -> None:
    x, y = tt.dmatrix("x"), tt.dmatrix("y")
    f = theon.function([x, y], numpy_dot(x, y).shape)
    ops = {type(n.op).__name__ for n in f.maker.fgraph.apply_nodes}
    assert "FromFunctionOp" not in ops
    np.testing.assert_array_equal(f(np.zeros((3, 4)), np.zeros((4, 7))), [3, 7])


def test_infer_shape_in_theons_form_too() -> None:
    op = as_op([tt.dvector], [tt.dvector], infer_shape=lambda node, shapes: [shapes[0]])(
        np.cumsum
    )
    v = tt.dvector("v")
    f = theon.function([v], op(v).shape)
    assert all(not isinstance(n.op, type(op)) for n in f.maker.fgraph.apply_nodes)
    np.testing.assert_array_equal(f(np.ones(4)), [4])


def test_without_infer_shape_the_shape_comes_from_the_value() -> None:
    v = tt.dvector("v")
    s, _ = sort_and_count(v)
    assert not s.owner.op.has_method("infer_shape")
    np.testing.assert_array_equal(theon.function([v], s.shape)(np.ones(6)), [6])


def test_as_op_errors_name_the_problem() -> None:
    with pytest.raises(TypeError, match="itypes must be theon Types"):
        as_op(itypes=["float64"], otypes=[tt.dvector])
    with pytest.raises(TypeError, match="infer_shape must be callable"):
        as_op(itypes=[tt.dvector], otypes=[tt.dvector], infer_shape=3)
    with pytest.raises(TypeError, match="takes 2 inputs"):
        numpy_dot(tt.dmatrix())
    wrong = as_op(itypes=[tt.dvector], otypes=[tt.dmatrix])(lambda v: v)
    v = tt.dvector("v")
    with pytest.raises(TypeError, match="FromFunctionOp.*output"):
        theon.function([v], wrong(v))(np.ones(2))


def test_as_op_pickles_by_name() -> None:
    assert pickle.loads(pickle.dumps(numpy_dot)) is numpy_dot
    x, y = tt.dmatrix("x"), tt.dmatrix("y")
    f = pickle.loads(pickle.dumps(theon.function([x, y], numpy_dot(x, y))))
    a, b = rng.normal(size=(2, 2)), rng.normal(size=(2, 3))
    np.testing.assert_allclose(f(a, b), a @ b, rtol=1e-12)


def test_view_op_is_the_identity_with_its_own_name_and_gradient() -> None:
    x = tt.dvector("x")
    y = view_op(x, name="det")
    assert isinstance(y.owner.op, ViewOp) and y.name == "det" and y.type == x.type
    vals = rng.normal(size=4)
    f = theon.function([x], [y, (y ** 2).sum()])
    out, total = f(vals)
    np.testing.assert_array_equal(out, vals)
    assert out is not vals  # a compiled function never returns its argument's array
    np.testing.assert_allclose(total, (vals ** 2).sum())
    theon.verify_grad(lambda t: view_op(t) ** 3, [vals])
    np.testing.assert_array_equal(theon.function([x], y.shape)(vals), [4])


def test_deep_copy_op_copies() -> None:
    x = tt.dmatrix("x")
    y = deep_copy_op(x)
    assert isinstance(y.owner.op, DeepCopyOp)
    vals = rng.normal(size=(2, 3))
    op = y.owner.op
    cell: list[list[object]] = [[None]]
    op.perform(y.owner, [vals], cell)
    np.testing.assert_array_equal(cell[0][0], vals)
    assert cell[0][0] is not vals and not np.shares_memory(cell[0][0], vals)
    np.testing.assert_array_equal(theon.function([x], y * 2)(vals), vals * 2)
    np.testing.assert_array_equal(theon.function([x], y.shape)(vals), [2, 3])


class InitialPoint(TypeCastingOp):
    """PyMC's subclass: only make_node."""

    def make_node(self, var):
        return Apply(self, [var], [var.type()])


def test_type_casting_op_subclass_passes_its_input_through() -> None:
    x = tt.dvector("x")
    y = InitialPoint()(x)
    vals = rng.normal(size=3)
    np.testing.assert_array_equal(theon.function([x], y + 1)(vals), vals + 1)
    assert str(y.owner.op) == "InitialPoint" and y.owner.op.view_map == {0: [0]}
    np.testing.assert_array_equal(theon.function([x], y.shape)(vals), [3])


def test_names_are_exported_from_theon_compile() -> None:
    import theon.compile as tc
    import theon.compile.ops as ops

    for name in ("DeepCopyOp", "ViewOp", "view_op", "TypeCastingOp", "as_op", "wrap_py"):
        assert getattr(tc, name) is getattr(ops, name)
