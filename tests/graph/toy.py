"""Toy Types and Ops for graph tests (no tensors)."""

from __future__ import annotations

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.op import Op
from theon.graph.type import Type


class FloatT(Type):
    """A Python float."""

    def filter(self, x, strict=False, allow_downcast=None):
        if isinstance(x, float):
            return x
        if strict:
            raise TypeError(f"expected a float, got {type(x).__name__}")
        if isinstance(x, (int, float)) and (allow_downcast or float(x) == x):
            return float(x)
        raise TypeError(f"cannot convert {x!r} to a float exactly")

    def __str__(self):
        return "FloatT"


class IntT(Type):
    """A Python int."""

    def filter(self, x, strict=False, allow_downcast=None):
        if isinstance(x, int) and not isinstance(x, bool):
            return x
        if strict:
            raise TypeError(f"expected an int, got {type(x).__name__}")
        if isinstance(x, float) and (allow_downcast or x.is_integer()):
            return int(x)
        raise TypeError(f"cannot convert {x!r} to an int exactly")


ft = FloatT()
it = IntT()


def as_var(x, t=ft):
    return x if isinstance(x, Variable) else Constant(t, x)


class Binary(Op):
    __props__ = ("name",)

    def __init__(self, name, fn):
        self.name = name
        self.fn = fn

    def make_node(self, a, b):
        a, b = as_var(a), as_var(b)
        return Apply(self, [a, b], [ft()])

    def perform(self, node, inputs, out):
        out[0][0] = self.fn(*inputs)

    def __str__(self):
        return self.name


class Unary(Op):
    __props__ = ("name",)

    def __init__(self, name, fn):
        self.name = name
        self.fn = fn

    def make_node(self, a):
        return Apply(self, [as_var(a)], [ft()])

    def perform(self, node, inputs, out):
        out[0][0] = self.fn(inputs[0])

    def __str__(self):
        return self.name


class DivMod(Op):
    """Two outputs: quotient and remainder."""

    __props__ = ()

    def make_node(self, a, b):
        return Apply(self, [as_var(a), as_var(b)], [ft(), ft()])

    def perform(self, node, inputs, out):
        q, r = divmod(*inputs)
        out[0][0] = float(q)
        out[1][0] = float(r)


add = Binary("add", lambda a, b: a + b)
mul = Binary("mul", lambda a, b: a * b)
sub = Binary("sub", lambda a, b: a - b)
neg = Unary("neg", lambda a: -a)
divmod_ = DivMod()
