"""The seeds' tensor examples (000 and 002), as tests."""

from __future__ import annotations

import numpy as np

import theon
import theon.tensor as T
from theon.graph.basic import Constant


def test_short_example() -> None:
    # seed 000: e = x + y * z builds two Apply nodes
    x = T.matrix("x")
    y = T.matrix("y")
    z = T.matrix("z")
    e = x + y * z
    assert e.owner.op == T.add
    mul_var = e.owner.inputs[1]
    assert e.owner.inputs[0] is x
    assert mul_var.owner.op == T.mul
    assert mul_var.owner.inputs == [y, z]
    assert x.owner is None and y.owner is None and z.owner is None
    f = theon.function([x, y, z], e)
    a, b, c = (np.arange(4.0).reshape(2, 2) + k for k in range(3))
    np.testing.assert_allclose(f(a, b, c), a + b * c)


def test_long_example() -> None:
    from theon.tensor import Apply, TensorType, Variable, add, mul

    float64_matrix = TensorType(dtype="float64", broadcastable=(False, False))
    x = Variable(type=float64_matrix, name="x")
    y = Variable(type=float64_matrix, name="y")
    z = Variable(type=float64_matrix, name="z")

    mul_variable = Variable(type=float64_matrix)
    assert mul_variable.owner is None
    node_mul = Apply(op=mul, inputs=[y, z], outputs=[mul_variable])
    assert mul_variable.owner is node_mul
    assert mul_variable.index == 0

    add_variable = Variable(type=float64_matrix)
    assert add_variable.owner is None
    node_add = Apply(op=add, inputs=[x, mul_variable], outputs=[add_variable])
    assert add_variable.owner is node_add
    assert add_variable.index == 0

    e = add_variable
    assert e.owner.inputs[0] is x
    assert e.owner.inputs[1] is mul_variable
    assert e.owner.inputs[1].owner.inputs[0] is y
    assert e.owner.inputs[1].owner.inputs[1] is z

    # the explicit graph computes the same as the short one
    f = theon.function([x, y, z], e)
    a = np.array([[1.0, 2.0]])
    np.testing.assert_allclose(f(a, a, a), a + a * a)


def test_automatic_wrapping() -> None:
    # seed 000: e = dscalar('x') + 1 wraps 1 in a Constant of an integer type
    e = T.dscalar("x") + 1
    node = e.owner
    assert node.op == T.add
    x, one = node.inputs
    assert x.type == T.dscalar and x.name == "x"
    assert isinstance(one, Constant)
    assert one.type == T.lscalar and one.data == 1
    assert e.type == T.dscalar
    assert node.outputs[0] is e


def test_negation_of_ivector() -> None:
    # seed 000/002: y = -x; both are Variables of type ivector
    x = T.ivector()
    y = -x
    assert isinstance(x, theon.Variable) and isinstance(y, theon.Variable)
    assert x.type == T.ivector and y.type == T.ivector
    assert y.owner is not None and y.owner.inputs == [x]
    assert x.owner is None
    f = theon.function([x], y)
    out = f(np.array([1, -2, 3], dtype="int32"))
    assert out.dtype == np.int32 and out.tolist() == [-1, 2, -3]


def test_irow_and_dmatrix_types() -> None:
    # seed 002: irow() prints its type, dtype and static shape
    assert str(T.irow()) == "<TensorType(int32, shape=(1, None))>"
    assert T.irow.dtype == "int32" and T.irow.shape == (1, None)
    assert T.dmatrix.dtype == "float64" and T.dmatrix.shape == (None, None)
    assert T.irow != T.dmatrix


def test_traversal_of_x_times_two() -> None:
    # seed 002: y = x * 2. is Elemwise{mul} of x and DimShuffle{x,x}(TensorConstant{2.0})
    x = T.dmatrix("x")
    y = x * 2.0
    assert type(y.owner) is theon.Apply
    assert y.owner.op.name == "Elemwise{mul,no_inplace}"
    assert len(y.owner.inputs) == 2
    assert y.owner.inputs[0] is x
    ds = y.owner.inputs[1]
    assert str(ds) == "DimShuffle{x,x}.0"
    assert type(ds) is T.TensorVariable
    assert type(ds.owner) is theon.Apply
    assert isinstance(ds.owner.op, T.DimShuffle)
    assert [str(i) for i in ds.owner.inputs] == ["TensorConstant{2.0}"]
    text = theon.dprint(y, file="str")
    assert text == (
        "Elemwise{mul,no_inplace} [id A] ''\n"
        " |x [id B]\n"
        " |DimShuffle{x,x} [id C] ''\n"
        "   |TensorConstant{2.0} [id D]\n"
    )


def test_a_plus_a_pow_10() -> None:
    # seed 002: b = a + a ** 10; f([0, 1, 2]) == [0, 2, 1026]
    a = T.vector("a")
    b = a + a**10
    f = theon.function([a], b)
    out = f([0, 1, 2])
    np.testing.assert_array_equal(out, [0.0, 2.0, 1026.0])
    assert out.dtype == np.float64


def test_grad_of_seed_example() -> None:
    # seed 002's automatic differentiation on the same expression
    a = T.dvector("a")
    g = theon.grad((a + a**10).sum(), a)
    f = theon.function([a], g)
    np.testing.assert_allclose(f([0.0, 1.0, 2.0]), 1 + 10 * np.array([0.0, 1.0, 2.0]) ** 9)
