"""Seed 003 (the Theano glossary): its code examples, with ``theano`` read as ``theon``.

The glossary predates the later names, which win where the seeds disagree (seed
README): ``Result`` is ``Variable``, ``Tensor`` (the type) is ``TensorType`` and
``Env`` is ``FunctionGraph``.  ``tensor.value`` has no later counterpart and is kept.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import theon
from theon import tensor
from theon.graph.fg import FunctionGraph, MissingInputError
from theon.graph.type import Generic


def test_result_code_example() -> None:
    a = tensor.constant(1.5)  # declare a symbolic constant
    b = tensor.fscalar()  # declare a symbolic floating-point scalar
    c = a + b  # create a simple expression
    f = theon.function([b], [c])  # works: a has a value associated with it already
    assert 4.0 == f(2.5)[0]  # bind 2.5 to an internal copy of b and evaluate c
    assert isinstance(a, theon.Constant) and not isinstance(b, theon.Constant)
    # compilation error: a is a constant (and b, which c needs, is not given)
    with pytest.raises((TypeError, MissingInputError)):
        theon.function([a], [c])
    # compilation error because a is constant, it can't be an input
    with pytest.raises(TypeError, match="constant"):
        theon.function([a, b], [c])


def test_undefined_input_is_named() -> None:
    # the glossary's first error on its own: b (required by c) is undefined
    a = tensor.constant(1.5)
    b = tensor.fscalar("b")
    with pytest.raises(MissingInputError, match="'b'"):
        theon.function([], [a + b])


def test_value_is_a_default_carrying_input() -> None:
    b = tensor.fscalar()
    d = tensor.value(1.5)  # create a value similar to the constant 'a'
    e = d + b
    f = theon.function([d, b], [e])  # this works. d's default value of 1.5 is ignored.
    assert f(2.0, 2.5)[0] == 4.5
    assert f(1.5, 2.5)[0] == 4.0
    assert not isinstance(d, theon.Constant) and d.owner is None
    assert float(d.data) == 1.5 and not d.data.flags.writeable
    assert d.type == tensor.dscalar  # a Python float gives floatX (float64 by default)
    # a Value holds data but may not be the result of a computation
    v = tensor.value([[1, 2, 3]], name="v")
    assert v.type == tensor.TensorType("int64", shape=(1, None)) and v.name == "v"
    clone = v.clone()
    assert clone is not v and clone.data is v.data and clone.type == v.type


def test_graph_short_example_with_star_import() -> None:
    ns: dict = {}
    exec(
        "from theon.tensor import *\n"
        "x = matrix('x')\n"
        "y = matrix('y')\n"
        "z = matrix('z')\n"
        "e = x + y * z\n",
        ns,
    )
    x, y, z, e = ns["x"], ns["y"], ns["z"], ns["e"]
    assert e.owner.inputs[0] is x and e.owner.inputs[1].owner.inputs == [y, z]
    # PyTensor's order (its last input's inputs first: checked against PyTensor 2.38 and
    # 3.0.7, which give [z, y, x]) and, under Theano's path, Theano's (first input first)
    assert theon.graph.traversal.graph_inputs([e]) == [z, y, x]
    gof_graph = importlib.import_module("theon.gof.graph")
    assert gof_graph.inputs([e]) == [x, y, z]


# The glossary's "long example" is seed 000's, with ``Result`` for ``Variable`` and
# ``Tensor`` for ``TensorType``: test_seed_examples.py::test_long_example runs it.


@pytest.mark.parametrize("t, dtype", [("f", "float32"), ("d", "float64"), ("b", "int8"),
                                      ("i", "int32"), ("l", "int64")])
def test_tensor_shortcuts(t: str, dtype: str) -> None:
    # <t>scalar, <t>vector, <t>matrix, <t>row, <t>col for t in "fdbil"
    expected = {"scalar": (), "vector": (False,), "matrix": (False, False),
                "row": (True, False), "col": (False, True)}
    for kind, bcast in expected.items():
        ttype = getattr(tensor, t + kind)
        v = ttype()
        assert v.type.dtype == dtype and v.type.broadcastable == bcast, (t + kind, v.type)


def test_tti_is_shared_between_variables() -> None:
    b = tensor.fvector()  # declare a symbolic floating-point vector using __call__
    c = tensor.fvector()  # create a second variable with the same type instance
    assert b.type is c.type is tensor.fvector and b is not c
    assert isinstance(tensor.fvector, tensor.TensorType) and isinstance(tensor.fvector, theon.Type)
    with pytest.raises(TypeError):  # the type's filter refuses values of the wrong rank
        tensor.fvector.filter(np.zeros((2, 2), dtype="float32"))


def test_generic_type_holds_any_python_object() -> None:
    g = Generic()
    x = g("x")
    obj = {"any": ["python", "object"]}
    assert g.filter(obj) is obj
    assert theon.function([x], x)(obj) == obj  # (an output that is an input is copied)


def test_compilation_pipeline_env_is_function_graph() -> None:
    # Compilation: copy the subgraph into an Env (FunctionGraph), transform it, toposort it
    x, y = tensor.dmatrices("x", "y")
    z = x + y * 2.0
    fg = FunctionGraph([x, y], [z])
    assert fg.inputs[0] is not x  # cloned: the user's graph is never changed
    order = fg.toposort()
    assert [str(n.op) for n in order][-1] == "Elemwise{add,no_inplace}"
    f = theon.function([x, y], z)
    assert f.maker.fgraph is not fg
    xv = np.ones((2, 2))
    np.testing.assert_allclose(f(xv, xv), 3 * xv)


def test_glossary_long_example_with_oldest_spellings():
    """Seed 003's long example as written there: ``Tensor`` and ``Result`` from ``tensor.*``."""
    ns: dict = {}
    exec("from theon.tensor import *", ns)
    Tensor, Result, Apply, mul, add = (ns[k] for k in ("Tensor", "Result", "Apply", "mul", "add"))
    float64_matrix = Tensor(dtype="float64", broadcastable=(False, False))
    x = Result(type=float64_matrix, name="x")
    y = Result(type=float64_matrix, name="y")
    z = Result(type=float64_matrix, name="z")
    mul_result = Result(type=float64_matrix)
    assert mul_result.owner is None
    node_mul = Apply(op=mul, inputs=[y, z], outputs=[mul_result])
    assert mul_result.owner is node_mul and mul_result.index == 0
    add_result = Result(type=float64_matrix)
    node_add = Apply(op=add, inputs=[x, mul_result], outputs=[add_result])
    assert add_result.owner is node_add and add_result.index == 0
    e = add_result
    assert e.owner.inputs[0] is x
    assert e.owner.inputs[1] is mul_result
    assert e.owner.inputs[1].owner.inputs[0] is y
    assert e.owner.inputs[1].owner.inputs[1] is z
    import numpy as np

    import theon

    f = theon.function([x, y, z], e)
    one = np.ones((2, 2))
    np.testing.assert_allclose(f(one, 2 * one, 3 * one), 7 * one)
