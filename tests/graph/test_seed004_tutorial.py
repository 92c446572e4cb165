"""Seed 004's tutorial, as written: the `double` Type and arithmetic Ops on it.

``theano`` reads as ``theon``; the seed's ``gof.Op``/``gof.Apply``/``gof.Constant`` are
``theon.graph``'s (the later name wins where the seeds disagree, see the seeds' README).
"""

import pytest

import theon
from theon.graph.basic import Apply, Constant
from theon.graph.op import Op
from theon.graph.type import Type


class Double(Type):
    def filter(self, x, strict=False, allow_downcast=None):
        if strict:
            if isinstance(x, float):
                return x
            raise TypeError("Expected a float!")
        if allow_downcast:
            return float(x)
        x_float = float(x)
        if x_float == x:
            return x_float
        raise TypeError(
            f"The double type cannot accurately represent value {x} (of type {type(x)}): "
            "you must explicitly allow downcasting if you want to do this."
        )

    def values_eq_approx(self, x, y, tolerance=1e-4):
        return abs(x - y) / (abs(x) + abs(y)) < tolerance

    def __str__(self):
        return "double"


double = Double()


def make_bare_mul():
    mul = Op()

    def make_node(x, y):
        if x.type != double or y.type != double:
            raise TypeError("mul only works on doubles")
        return Apply(mul, [x, y], [double()])

    def perform(node, inputs, output_storage):
        x, y = inputs[0], inputs[1]
        z = output_storage[0]
        z[0] = x * y

    mul.make_node = make_node
    mul.perform = perform
    return mul


def test_double_type_filter():
    assert double.filter(3) == 3.0 and isinstance(double.filter(3), float)
    with pytest.raises(TypeError, match="accurately represent"):
        double.filter(2**53 + 1)
    with pytest.raises(TypeError, match="Expected a float"):
        double.filter(3, strict=True)
    assert Double() == double  # equality by class and props


def test_bare_op_mul():
    mul = make_bare_mul()
    x, y = double("x"), double("y")
    z = mul(x, y)
    f = theon.function([x, y], z)
    assert f(5, 6) == 30.0
    assert f(5.6, 6.7) == pytest.approx(37.519999999999996)


def test_mul_with_int_raises_attribute_error():
    mul = make_bare_mul()
    x = double("x")
    with pytest.raises(AttributeError, match="'int' object has no attribute 'type'"):
        mul(x, 2)


def test_automatic_constant_wrapping():
    mul = make_bare_mul()

    def make_node(x, y):
        if isinstance(x, (int, float)):
            x = Constant(double, x)
        if isinstance(y, (int, float)):
            y = Constant(double, y)
        if x.type != double or y.type != double:
            raise TypeError("mul only works on doubles")
        return Apply(mul, [x, y], [double()])

    mul.make_node = make_node
    x = double("x")
    z = mul(x, 2)
    f = theon.function([x], z)
    assert f(10) == 20.0
    assert f(3.4) == pytest.approx(6.8)


class BinaryDoubleOp(Op):
    def __init__(self, name, fn):
        self.name = name
        self.fn = fn

    def __eq__(self, other):
        # Seed text as written (hence the noqa).
        return type(self) == type(other) and (self.name == other.name) and (self.fn == other.fn)  # noqa: E721

    def __hash__(self):
        return hash(type(self)) ^ hash(self.name) ^ hash(self.fn)

    def make_node(self, x, y):
        if isinstance(x, (int, float)):
            x = Constant(double, x)
        if isinstance(y, (int, float)):
            y = Constant(double, y)
        if x.type != double or y.type != double:
            raise TypeError("%s only works on doubles" % self.name)  # noqa: UP031
        return Apply(self, [x, y], [double()])

    def perform(self, node, inp, out):
        x, y = inp
        (z,) = out
        z[0] = self.fn(x, y)

    def __str__(self):
        return self.name


add = BinaryDoubleOp(name="add", fn=lambda x, y: x + y)
sub = BinaryDoubleOp(name="sub", fn=lambda x, y: x - y)
mul = BinaryDoubleOp(name="mul", fn=lambda x, y: x * y)
div = BinaryDoubleOp(name="div", fn=lambda x, y: x / y)


@pytest.mark.parametrize("mode", ["REFERENCE", None])
def test_binary_double_ops(mode):
    x, y, z = double("x"), double("y"), double("z")
    e = div(sub(add(x, mul(y, z)), 1), 2.0)
    f = theon.function([x, y, z], e, mode=mode)
    assert f(1, 2, 3) == (1 + 2 * 3 - 1) / 2.0
    assert str(e.owner.op) == "div"


def test_lossy_argument_refused():
    x = double("x")
    f = theon.function([x], add(x, 1))
    with pytest.raises(TypeError, match="argument 0 \\(x\\)"):
        f(2**53 + 1)


def test_type_error_from_make_node():
    class Other(Type):
        def filter(self, x, strict=False, allow_downcast=None):
            return x

    with pytest.raises(TypeError, match="add only works on doubles"):
        add(Other()("o"), double("x"))


def test_seed_code_runs_literally_with_gof():
    """Seed 004's own spelling: ``from theano import gof`` with ``gof.Op()`` etc."""
    from theon import gof

    mul = gof.Op()

    def make_node(x, y):
        if isinstance(x, (int, float)):
            x = gof.Constant(double, x)
        if isinstance(y, (int, float)):
            y = gof.Constant(double, y)
        if x.type != double or y.type != double:
            raise TypeError("mul only works on doubles")
        return gof.Apply(mul, [x, y], [double()])

    def perform(node, inputs, output_storage):
        x, y = inputs[0], inputs[1]
        z = output_storage[0]
        z[0] = x * y

    mul.make_node = make_node
    mul.perform = perform
    x = double("x")
    f = theon.function([x], mul(x, 2))
    assert f(10) == 20.0
    assert gof.Op is Op and gof.Apply is Apply and gof.Constant is Constant
