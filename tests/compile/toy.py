"""Picklable toy Types and Ops for the function-API tests (no tensors)."""

from __future__ import annotations

import operator

import numpy as np

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.op import Op
from theon.graph.type import Generic, Type


class IntT(Type):
    """A Python int (refuses lossy casts)."""

    def filter(self, x, strict=False, allow_downcast=None):
        if isinstance(x, int) and not isinstance(x, bool):
            return x
        if strict:
            raise TypeError(f"expected an int, got {type(x).__name__}")
        if isinstance(x, float) and (allow_downcast or x.is_integer()):
            return int(x)
        raise TypeError(f"cannot convert {x!r} to an int exactly")

    def __str__(self):
        return "IntT"


class VecT(Type):
    """A 1-d float64 ndarray (filter refuses other ndims, naming them)."""

    def filter(self, x, strict=False, allow_downcast=None):
        if isinstance(x, np.ndarray) and x.dtype == np.float64 and x.ndim == 1:
            return x
        if strict:
            raise TypeError("expected a float64 vector")
        a = np.asarray(x)
        if a.ndim != 1:
            raise TypeError(f"expected 1 dimension, got ndim {a.ndim}")
        if a.dtype.kind not in "biuf":
            raise TypeError(f"expected numbers, got dtype {a.dtype}")
        return a.astype(np.float64)

    def __str__(self):
        return "VecT"


it = IntT()
vt = VecT()
gt = Generic()


def _var(x, t):
    return x if isinstance(x, Variable) else Constant(t, x)


class Bin(Op):
    """A binary op applying a (picklable) Python function."""

    __props__ = ("fn", "out_type")

    def __init__(self, fn, out_type):
        self.fn = fn
        self.out_type = out_type

    def make_node(self, a, b):
        return Apply(self, [_var(a, self.out_type), _var(b, self.out_type)], [self.out_type()])

    def perform(self, node, inputs, out):
        out[0][0] = self.fn(*inputs)

    def __str__(self):
        return f"{self.fn.__name__}[{self.out_type}]"


class Un(Op):
    """A unary op applying a (picklable) Python function."""

    __props__ = ("fn", "out_type")

    def __init__(self, fn, out_type):
        self.fn = fn
        self.out_type = out_type

    def make_node(self, a):
        return Apply(self, [_var(a, self.out_type)], [self.out_type()])

    def perform(self, node, inputs, out):
        out[0][0] = self.fn(inputs[0])

    def __str__(self):
        return f"{self.fn.__name__}[{self.out_type}]"


class Reverse(Op):
    """A view: ``x[::-1]`` (declares view_map, so results may alias the input)."""

    __props__ = ()
    view_map = {0: [0]}

    def make_node(self, x):
        return Apply(self, [x], [x.type()])

    def perform(self, node, inputs, out):
        out[0][0] = inputs[0][::-1]


class AddInplace(Op):
    """``x += y`` on arrays (declares destroy_map)."""

    __props__ = ()
    destroy_map = {0: [0]}

    def make_node(self, x, y):
        return Apply(self, [x, y], [x.type()])

    def perform(self, node, inputs, out):
        x, y = inputs
        x += y
        out[0][0] = x


iadd = Bin(operator.add, it)
isub = Bin(operator.sub, it)
imul = Bin(operator.mul, it)
ineg = Un(operator.neg, it)
vadd = Bin(np.add, vt)
vmul = Bin(np.multiply, vt)
vneg = Un(np.negative, vt)
reverse = Reverse()
add_inplace = AddInplace()
