"""The seeds' tensor examples (000, 001 and 002), as tests.

Seed code is read with ``theano``/``aesara`` as ``theon`` (and ``at``/``T`` as
``theon.tensor``).  The seed 002 rewrite examples are in
tests/tensor/rewriting/test_seed_examples.py; seed 003 in test_seed003_glossary.py;
seed 004 in tests/graph/test_seed004_tutorial.py.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

import numpy as np
import pytest

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


def test_x_plus_y_diagram() -> None:
    # seed 000/002: x = dmatrix('x'); y = dmatrix('y'); z = x + y
    from theon.tensor import dmatrix

    x = dmatrix("x")
    y = dmatrix("y")
    z = x + y
    assert x.owner is None and y.owner is None
    assert z.owner.outputs == [z] and z.owner.inputs == [x, y]
    assert z.owner.op == T.add and x.type == T.dmatrix == y.type == z.type


def test_import_theon_alone_reaches_tensor() -> None:
    # seeds 000/001/002 write `import theano` then `theano.tensor.ivector()`; run it in a
    # fresh interpreter, where nothing has imported theon.tensor yet
    code = (
        "import theon\n"
        "x = theon.tensor.ivector()\n"
        "y = -x\n"
        "assert isinstance(x, theon.Variable) and isinstance(y, theon.Variable)\n"
        "assert x.type == theon.tensor.ivector == y.type and y.owner.inputs == [x]\n"
        "a = theon.tensor.vector('a')\n"
        "b = a + a ** 10\n"
        "f = theon.function([a], b)\n"
        "print(f([0, 1, 2]))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    # seed 002 prints `[    0.     2.  1026.]` (NumPy 1.x spacing); the values must match
    assert res.stdout.strip() == str(np.array([0.0, 2.0, 1026.0]))


def test_constant_cannot_be_a_function_input() -> None:
    # seed 000: a constant need not be among a function's inputs; giving it raises
    c = T.constant(2.0)
    x = T.dscalar("x")
    assert float(theon.function([x], x + c)(1.0)) == 3.0
    with pytest.raises(TypeError, match="constant"):
        theon.function([x, c], x + c)


def test_dprint_prints_to_stdout(capsys: pytest.CaptureFixture[str]) -> None:
    # seed 002: `aesara.dprint(y)` prints the tree
    x = T.dmatrix("x")
    y = x * 2.0
    theon.dprint(y)
    assert capsys.readouterr().out == theon.dprint(y, file="str")


def test_traversal_types_as_the_seed_prints_them() -> None:
    # seed 002: type(y.owner), type(y.owner.inputs[1]), y.owner.inputs[1].owner.inputs
    x = theon.tensor.dmatrix("x")
    y = x * 2.0
    assert type(y.owner) is theon.graph.basic.Apply
    ds = y.owner.inputs[1]
    assert type(ds).__name__ == "TensorVariable" and type(ds.owner) is theon.Apply
    assert repr(ds.owner.inputs) == "[TensorConstant{2.0}]"
    assert repr(y.owner.inputs[0]) == "x"


def test_pydotprint_as_in_seed_002(tmp_path) -> None:
    # seed 002 calls pydotprint(b, outfile=..., var_with_name_simple=True) (+SKIP there)
    a = theon.tensor.vector("a")
    b = a + a**10
    out = str(tmp_path / "symbolic_graph.png")
    if shutil.which("dot") is None:  # pydotprint draws with Graphviz's dot program
        with pytest.raises(ImportError, match="apt-get install graphviz"):
            theon.printing.pydotprint(b, outfile=out, var_with_name_simple=True)
    else:  # Theano's pydotprint returns None and prints where the file is
        assert theon.printing.pydotprint(b, outfile=out, var_with_name_simple=True) is None
        with open(out, "rb") as fh:
            assert fh.read(8) == b"\x89PNG\r\n\x1a\n"
