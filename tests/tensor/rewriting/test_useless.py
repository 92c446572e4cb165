"""Useless-node removal: each rewrite fires, keeps the output type, and keeps the values."""

from __future__ import annotations

import numpy as np
import pytest

import theon.tensor as tt
from tests.tensor.rewriting.helpers import check_same, op_names, rewrite
from theon.scalar.basic import Cast
from theon.tensor.elemwise import DimShuffle, Elemwise
from theon.tensor.reduction import Max, Sum
from theon.tensor.shape import SpecifyShape, reshape, specify_shape

rng = np.random.default_rng(0)
X = tt.dvector("x")
M = tt.dmatrix("m")
XV = rng.normal(size=4)
MV = rng.normal(size=(3, 4))


@pytest.mark.parametrize(
    "build",
    [
        lambda x: x * 1,
        lambda x: 1 * x,
        lambda x: x + 0,
        lambda x: 0.0 + x,
        lambda x: x - 0,
        lambda x: x / 1,
        lambda x: x**1,
        lambda x: tt.neg(tt.neg(x)),
        lambda x: tt.tensor_copy(x),
        lambda x: tt.maximum(x, x),
        lambda x: tt.minimum(x, x),
        lambda x: tt.switch(tt.gt(x, 0), x, x),
        lambda x: tt.switch(1, x, tt.exp(x)),
        lambda x: tt.switch(0, tt.exp(x), x),
        lambda x: Elemwise(Cast("float64"))(x),  # type: ignore[arg-type]
        lambda x: DimShuffle(1, (0,))(x),
        lambda x: x.dimshuffle("x", 0).dimshuffle(1),
        lambda x: reshape(x, x.shape),
        lambda x: reshape(x, (-1,)),
        lambda x: tt.second(x, x),
        lambda x: Sum(axis=())(x),
        lambda x: Max(axis=())(x),
    ],
)
def test_useless_vector(build) -> None:
    y = build(X)
    fg = rewrite([X], [y])
    assert fg.outputs[0].type == y.type
    assert len(fg.apply_nodes) == 0, op_names(fg)
    check_same([X], [y], [XV])


def test_double_transpose_and_identity_reshape_on_matrices() -> None:
    for y in (M.T.T, reshape(M, M.shape), reshape(M, (M.shape[0], -1)),
              M.dimshuffle(1, "x", 0).dimshuffle(2, 0)):
        fg = rewrite([M], [y])
        assert len(fg.apply_nodes) == 0, op_names(fg)
        check_same([M], [y], [MV])


def test_dimshuffle_of_dimshuffle_becomes_one() -> None:
    y = M.dimshuffle("x", 1, 0).dimshuffle(2, 0, 1)
    fg = rewrite([M], [y])
    assert op_names(fg) == {"DimShuffle": 1}
    check_same([M], [y], [MV])


def test_neutral_constant_that_widens_the_dtype_becomes_a_cast() -> None:
    i = tt.ivector("i")
    for y in (i * 1.0, i + 0.0, i / 1, i**1.0):
        fg = rewrite([i], [y])
        assert fg.outputs[0].type == y.type
        assert sum(op_names(fg).values()) == 1, op_names(fg)
        check_same([i], [y], [np.array([1, -2, 3], dtype="int32")])


def test_neutral_constant_that_broadcasts_is_kept_as_a_fill() -> None:
    ones = tt.constant(np.ones((2, 1)))
    y = X * ones  # (2, n): the 1 makes the result bigger
    fg = rewrite([X], [y])
    assert fg.outputs[0].type == y.type
    assert "mul" not in op_names(fg)
    check_same([X], [y], [XV])


def test_int_div_by_one_only_for_integers() -> None:
    i = tt.lvector("i")
    assert len(rewrite([i], [i // 1]).apply_nodes) == 0
    fg = rewrite([X], [X // 1])  # floor(x / 1) is not x
    assert "int_div" in op_names(fg)
    check_same([X], [X // 1], [XV])


def test_pow_zero_is_ones() -> None:
    y = X**0
    fg = rewrite([X], [y])
    assert "pow" not in op_names(fg)
    check_same([X], [y], [np.array([0.0, np.inf, np.nan, -2.0])])


def test_specify_shape_already_known() -> None:
    x3 = tt.TensorType("float64", shape=(3,))("x3")
    y = SpecifyShape([True])(x3, 3)
    assert len(rewrite([x3], [y]).apply_nodes) == 0
    # not known statically: kept (it checks at run time)
    y2 = specify_shape(X, (3,))
    assert "SpecifyShape" in op_names(rewrite([X], [y2]))


def test_reshape_of_reshape() -> None:
    y = reshape(reshape(M, (-1,)), (4, 3))
    fg = rewrite([M], [y])
    assert op_names(fg)["Reshape"] == 1
    check_same([M], [y], [MV])


def test_reduce_over_broadcastable_axes_is_a_dimshuffle() -> None:
    r = tt.TensorType("float64", shape=(1, None))("r")
    y = tt.sum(r, axis=0)
    fg = rewrite([r], [y])
    assert "Sum" not in op_names(fg)
    check_same([r], [y], [rng.normal(size=(1, 5))])
    b = tt.TensorType("int32", shape=(1, None))("b")
    y = tt.sum(b, axis=0)  # int32 -> int64: a cast remains
    fg = rewrite([b], [y])
    assert "Sum" not in op_names(fg)
    check_same([b], [y], [np.arange(5, dtype="int32").reshape(1, 5)])


def test_alloc_to_own_shape() -> None:
    from theon.tensor.creation import alloc

    y = alloc(M, M.shape[0], M.shape[1])
    fg = rewrite([M], [y])
    assert "Alloc" not in op_names(fg)
    check_same([M], [y], [MV])
