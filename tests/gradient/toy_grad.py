"""Toy scalar Types and differentiable Ops for gradient tests (no tensors)."""

from __future__ import annotations

import math

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.null_type import disconnected_type, grad_not_implemented, grad_undefined
from theon.graph.op import Op
from theon.graph.type import Type


class RealVar(Variable):
    """A toy float variable with arithmetic operators."""

    __slots__ = ()

    def __add__(self, other):
        return add(self, other)

    def __radd__(self, other):
        return add(other, self)

    def __mul__(self, other):
        return mul(self, other)

    def __rmul__(self, other):
        return mul(other, self)

    def __neg__(self):
        return neg(self)

    def __sub__(self, other):
        return add(self, neg(other))


class RealConst(Constant, RealVar):
    __slots__ = ()


class Real(Type):
    """A Python float (dtype float64, ndim 0)."""

    variable_type = RealVar
    constant_type = RealConst
    dtype = "float64"
    ndim = 0

    def filter(self, x, strict=False, allow_downcast=None):
        if isinstance(x, float):
            return x
        if strict:
            raise TypeError(f"expected a float, got {type(x).__name__}")
        return float(x)

    def __str__(self):
        return "Real"


class Int(Type):
    """A Python int (dtype int64)."""

    dtype = "int64"
    ndim = 0

    def filter(self, x, strict=False, allow_downcast=None):
        if isinstance(x, int):
            return x
        if strict:
            raise TypeError("expected an int")
        return int(x)

    def __str__(self):
        return "Int"


class Vec(Type):
    """A toy 'vector' type (ndim 1) used to check the scalar-cost error."""

    dtype = "float64"
    ndim = 1
    shape = (3,)

    def filter(self, x, strict=False, allow_downcast=None):
        return list(x)


real = Real()
int_t = Int()


def as_real(x):
    return x if isinstance(x, Variable) else Constant(real, float(x))


class Add(Op):
    __props__ = ()

    def make_node(self, a, b):
        return Apply(self, [as_real(a), as_real(b)], [real()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] + inputs[1]

    def grad(self, inputs, output_grads):
        return [output_grads[0], output_grads[0]]

    def R_op(self, inputs, eval_points):
        a, b = eval_points
        if a is None:
            return [b]
        if b is None:
            return [a]
        return [a + b]


class Mul(Op):
    __props__ = ()

    def make_node(self, a, b):
        return Apply(self, [as_real(a), as_real(b)], [real()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] * inputs[1]

    def grad(self, inputs, output_grads):
        a, b = inputs
        (g,) = output_grads
        return [g * b, g * a]

    def R_op(self, inputs, eval_points):
        a, b = inputs
        ea, eb = eval_points
        terms = []
        if ea is not None:
            terms.append(ea * b)
        if eb is not None:
            terms.append(a * eb)
        return [terms[0] if len(terms) == 1 else terms[0] + terms[1]]


class Unary(Op):
    __props__ = ("name",)
    fn = None

    def __init__(self, name):
        self.name = name

    def make_node(self, a):
        return Apply(self, [as_real(a)], [real()])

    def perform(self, node, inputs, out):
        out[0][0] = float(getattr(math, self.name)(inputs[0]))

    def __str__(self):
        return self.name

    def deriv(self, x, out):
        raise NotImplementedError

    def L_op(self, inputs, outputs, output_grads):
        return [output_grads[0] * self.deriv(inputs[0], outputs[0])]

    def R_op(self, inputs, eval_points):
        (e,) = eval_points
        return [e * self.deriv(inputs[0], self(inputs[0]))]


class Sin(Unary):
    def __init__(self):
        super().__init__("sin")

    def deriv(self, x, out):
        return cos(x)


class Cos(Unary):
    def __init__(self):
        super().__init__("cos")

    def deriv(self, x, out):
        return neg(sin(x))


class Exp(Unary):
    """Uses its output in the gradient (the L_op contract)."""

    def __init__(self):
        super().__init__("exp")

    def deriv(self, x, out):
        return out


class Neg(Op):
    __props__ = ()

    def make_node(self, a):
        return Apply(self, [as_real(a)], [real()])

    def perform(self, node, inputs, out):
        out[0][0] = -inputs[0]

    def grad(self, inputs, output_grads):
        return [neg(output_grads[0])]

    def R_op(self, inputs, eval_points):
        return [neg(eval_points[0])]


class SinCos(Op):
    """Two outputs; its grad follows seed 004's contract (grad only, no R_op)."""

    __props__ = ()

    def make_node(self, a):
        return Apply(self, [as_real(a)], [real(), real()])

    def perform(self, node, inputs, out):
        out[0][0] = math.sin(inputs[0])
        out[1][0] = math.cos(inputs[0])

    def grad(self, inputs, output_grads):
        (x,) = inputs
        gs, gc = output_grads
        return [gs * cos(x) + gc * neg(sin(x))]


class NoGrad(Op):
    """An op without grad (x -> x**2)."""

    __props__ = ()

    def make_node(self, a):
        return Apply(self, [as_real(a)], [real()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] ** 2


class Undef(Op):
    """f(x, y) = x * floor(y): the gradient wrt y is undefined, wrt x not implemented."""

    __props__ = ("which",)

    def __init__(self, which="undefined"):
        self.which = which

    def make_node(self, a, b):
        return Apply(self, [as_real(a), as_real(b)], [real()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] * math.floor(inputs[1])

    def grad(self, inputs, output_grads):
        x, y = inputs
        if self.which == "undefined":
            return [output_grads[0] * floor(y), grad_undefined(self, 1, y, "floor is a step")]
        return [grad_not_implemented(self, 0, x), disconnected_type()]


class Floor(Op):
    __props__ = ()

    def make_node(self, a):
        return Apply(self, [as_real(a)], [real()])

    def perform(self, node, inputs, out):
        out[0][0] = float(math.floor(inputs[0]))

    def grad(self, inputs, output_grads):
        return [None]


class ToInt(Op):
    """float -> int; its grad wrongly returns a float gradient (must be ignored)."""

    __props__ = ()

    def make_node(self, a):
        return Apply(self, [as_real(a)], [int_t()])

    def perform(self, node, inputs, out):
        out[0][0] = int(inputs[0])

    def grad(self, inputs, output_grads):
        raise AssertionError("grad of ToInt must not be called: its output is an integer")


class Scale(Op):
    """f(x, k) = x * k with k an integer: k's gradient must be disconnected."""

    __props__ = ()

    def make_node(self, a, k):
        k = k if isinstance(k, Variable) else Constant(int_t, int(k))
        return Apply(self, [as_real(a), k], [real()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0] * inputs[1]

    def grad(self, inputs, output_grads):
        x, k = inputs
        # a sloppy op author returns a float for the int input: theon.grad drops it
        return [output_grads[0] * float_of(k), output_grads[0] * x]


class FloatOf(Op):
    __props__ = ()

    def make_node(self, k):
        return Apply(self, [k], [real()])

    def perform(self, node, inputs, out):
        out[0][0] = float(inputs[0])

    def grad(self, inputs, output_grads):
        return [disconnected_type()]


class SelectFirst(Op):
    """f(x, y) = x; says through connection_pattern that y is not connected."""

    __props__ = ()

    def make_node(self, a, b):
        return Apply(self, [as_real(a), as_real(b)], [real()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0]

    def connection_pattern(self, node):
        return [[True], [False]]

    def grad(self, inputs, output_grads):
        return [output_grads[0], disconnected_type()]


add, mul, neg = Add(), Mul(), Neg()
sin, cos, exp = Sin(), Cos(), Exp()
sincos = SinCos()
no_grad = NoGrad()
floor = Floor()
to_int = ToInt()
scale = Scale()
float_of = FloatOf()
select_first = SelectFirst()
