"""Issue 2's `function` contract on toy types: errors name the variable."""

import pytest

import theon
from theon.compile.pipeline import UnusedInputError
from theon.graph.basic import Constant
from theon.graph.fg import MissingInputError
from theon.graph.traversal import ancestors
from theon.graph.type import Generic

from ..graph.toy import add, divmod_, ft, mul, neg


def test_generic_type_end_to_end():
    g = Generic()
    a, b = g("a"), g("b")

    from theon.graph.basic import Apply
    from theon.graph.op import Op

    class Concat(Op):
        __props__ = ()

        def make_node(self, x, y):
            return Apply(self, [x, y], [g()])

        def perform(self, node, inputs, out):
            out[0][0] = list(inputs[0]) + list(inputs[1])

    f = theon.function([a, b], Concat()(a, b))
    assert f([1], ("x",)) == [1, "x"]


@pytest.mark.parametrize("mode", ["REFERENCE", "FAST_RUN", "FAST_COMPILE", "NO_REWRITES"])
def test_toy_scalar_graph(mode):
    x, y = ft("x"), ft("y")
    q, r = divmod_(x, y)
    f = theon.function([x, y], [add(q, r), mul(neg(x), 2.0)], mode=mode)
    assert f(7.0, 2.0) == [4.0, -14.0]
    assert f(y=2.0, x=7) == [4.0, -14.0]


def test_outputs_value_or_list():
    x = ft("x")
    assert theon.function([x], neg(x))(1.0) == -1.0
    assert theon.function([x], [neg(x)])(1.0) == [-1.0]
    assert theon.function([x], (neg(x), x))(1.0) == [-1.0, 1.0]


def test_function_leaves_user_graph_untouched():
    x, y = ft("x"), ft("y")
    z = mul(add(x, y), add(x, y))
    before = [(v, v.owner, list(v.owner.inputs) if v.owner else None) for v in ancestors([z])]
    f = theon.function([x, y], z)
    assert f(1.0, 2.0) == 9.0
    after = [(v, v.owner, list(v.owner.inputs) if v.owner else None) for v in ancestors([z])]
    assert before == after
    assert f.maker.fgraph.outputs[0] is not z


def test_constant_as_input():
    c = Constant(ft, 1.0, name="one")
    x = ft("x")
    with pytest.raises(TypeError, match="'one'.*constant|constant.*'one'"):
        theon.function([c, x], add(c, x))


def test_missing_input_names_variable_and_place():
    x, y = ft("x"), ft("y")
    z = add(x, y)
    with pytest.raises(MissingInputError, match="'y'") as e:
        theon.function([x], z)
    assert "test_function_core.py" not in str(e.value) or "built at" in str(e.value)


def test_same_input_twice():
    x = ft("x")
    with pytest.raises(ValueError, match="'x'.*twice"):
        theon.function([x, x], neg(x))


def test_wrong_number_of_arguments():
    x, y = ft("x"), ft("y")
    f = theon.function([x, y], add(x, y))
    with pytest.raises(TypeError, match="missing argument 'y'"):
        f(1.0)
    with pytest.raises(TypeError, match="takes 2 arguments \\(x, y\\), 3 given"):
        f(1.0, 2.0, 3.0)
    with pytest.raises(TypeError, match="no input named 'z'"):
        f(1.0, z=2.0)
    with pytest.raises(TypeError, match="both by position and by keyword"):
        f(1.0, 2.0, x=3.0) if False else f(1.0, x=3.0)


def test_unused_input_policy():
    x, y = ft("x"), ft("y")
    with pytest.raises(UnusedInputError, match="'y'"):
        theon.function([x, y], neg(x))
    with pytest.warns(UserWarning, match="'y'"):
        theon.function([x, y], neg(x), on_unused_input="warn")
    f = theon.function([x, y], neg(x), on_unused_input="ignore")
    assert f(1.0, 5.0) == -1.0
    with theon.config.change_flags(on_unused_input="ignore"):
        theon.function([x, y], neg(x))


def test_bad_argument_names_variable():
    x = ft("x")
    f = theon.function([x], neg(x))
    with pytest.raises(TypeError, match="argument 0 \\(x\\)"):
        f("a")


def test_output_that_is_an_input_is_copied():
    import numpy as np

    g = Generic()
    x = g("x")
    f = theon.function([x], [x, x])
    arr = np.zeros(3)
    r1, r2 = f(arr)
    assert r1 is not arr and r2 is not arr and r1 is not r2
    r1[0] = 5
    assert arr[0] == 0 and r2[0] == 0
