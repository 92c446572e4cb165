"""Toy Types and Ops for rewriting tests (no tensors).

``FloatT`` holds Python floats; ``ArrT`` holds 1-d float64 NumPy arrays, so
destructive ops really overwrite memory and ordering mistakes show up as
wrong values.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.op import Op
from theon.graph.type import Type


class FloatT(Type):
    """A Python float."""

    def filter(self, x: Any, strict: bool = False, allow_downcast: bool | None = None) -> float:
        if isinstance(x, float):
            return x
        if strict:
            raise TypeError(f"expected a float, got {type(x).__name__}")
        if isinstance(x, (int, float, np.floating, np.integer)):
            return float(x)
        raise TypeError(f"cannot convert {x!r} to a float")

    def values_eq_approx(self, a: Any, b: Any) -> bool:
        return bool(a == b or (math.isnan(a) and math.isnan(b)) or math.isclose(a, b,
                                                                                 rel_tol=1e-9))

    def __str__(self) -> str:
        return "FloatT"


class IntT(Type):
    """A Python int (a second type, for type-mismatch tests)."""

    def filter(self, x: Any, strict: bool = False, allow_downcast: bool | None = None) -> int:
        if isinstance(x, int):
            return x
        raise TypeError(f"expected an int, got {x!r}")

    def __str__(self) -> str:
        return "IntT"


class ArrT(Type):
    """A 1-d float64 NumPy array."""

    def filter(self, x: Any, strict: bool = False, allow_downcast: bool | None = None) -> Any:
        if isinstance(x, np.ndarray) and x.dtype == np.float64 and x.ndim == 1:
            return x
        if strict:
            raise TypeError("expected a 1-d float64 array")
        return np.asarray(x, dtype=np.float64).reshape(-1)

    def constant_signature(self, data: Any) -> Any:
        return ("arr", data.tobytes())

    def __str__(self) -> str:
        return "ArrT"


ft = FloatT()
it = IntT()
at = ArrT()


def as_var(x: Any, t: Type = ft) -> Variable:
    return x if isinstance(x, Variable) else Constant(t, x)


class Binary(Op):
    __props__ = ("name",)

    def __init__(self, name: str, fn: Any) -> None:
        self.name = name
        self.fn = fn

    def make_node(self, a: Any, b: Any) -> Apply:
        a, b = as_var(a), as_var(b)
        return Apply(self, [a, b], [a.type()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        out[0][0] = self.fn(*inputs)


class Unary(Op):
    __props__ = ("name",)

    def __init__(self, name: str, fn: Any) -> None:
        self.name = name
        self.fn = fn

    def make_node(self, a: Any) -> Apply:
        a = as_var(a)
        return Apply(self, [a], [a.type()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        out[0][0] = self.fn(inputs[0])


class NoFold(Op):
    """Identity that refuses constant folding."""

    __props__ = ()

    def make_node(self, a: Any) -> Apply:
        a = as_var(a)
        return Apply(self, [a], [a.type()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        out[0][0] = inputs[0]

    def do_constant_folding(self, node: Apply) -> bool:
        return False


class SplitOp(Op):
    """Two outputs: x + 1 and x - 1."""

    __props__ = ()

    def make_node(self, a: Any) -> Apply:
        a = as_var(a)
        return Apply(self, [a], [a.type(), a.type()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        out[0][0] = inputs[0] + 1
        out[1][0] = inputs[0] - 1


class ToInt(Op):
    """float -> int (changes the type)."""

    __props__ = ()

    def make_node(self, a: Any) -> Apply:
        return Apply(self, [as_var(a)], [it()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        out[0][0] = int(inputs[0])


add = Binary("add", lambda a, b: a + b)
sub = Binary("sub", lambda a, b: a - b)
mul = Binary("mul", lambda a, b: a * b)
true_div = Binary("true_div", lambda a, b: a / b)
neg = Unary("neg", lambda a: -a)
exp = Unary("exp", math.exp)
ident = Unary("ident", lambda a: a)
nofold = NoFold()
split = SplitOp()
to_int = ToInt()


# ---- array ops with views and destruction -------------------------------------------


class AShift(Op):
    """out = x + c, optionally overwriting x (destroy_map {0: [0]})."""

    __props__ = ("c", "inplace")

    def __init__(self, c: float, inplace: bool = False) -> None:
        self.c = c
        self.inplace = inplace
        self.destroy_map = {0: [0]} if inplace else {}

    def make_node(self, x: Any) -> Apply:
        x = as_var(x, at)
        return Apply(self, [x], [at()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        x = inputs[0]
        if self.inplace:
            x += self.c
            out[0][0] = x
        else:
            out[0][0] = x + self.c


class AAdd(Op):
    """out = x + y, optionally overwriting x."""

    __props__ = ("inplace",)

    def __init__(self, inplace: bool = False) -> None:
        self.inplace = inplace
        self.destroy_map = {0: [0]} if inplace else {}

    def make_node(self, x: Any, y: Any) -> Apply:
        x, y = as_var(x, at), as_var(y, at)
        return Apply(self, [x, y], [at()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        x, y = inputs
        if self.inplace:
            x += y
            out[0][0] = x
        else:
            out[0][0] = x + y


class AView(Op):
    """A view of x's first ``n`` elements (view_map {0: [0]})."""

    __props__ = ("n",)
    view_map = {0: [0]}

    def __init__(self, n: int) -> None:
        self.n = n

    def make_node(self, x: Any) -> Apply:
        return Apply(self, [as_var(x, at)], [at()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        out[0][0] = inputs[0][: self.n]


class ASum(Op):
    """sum(x) as a float."""

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        return Apply(self, [as_var(x, at)], [ft()])

    def perform(self, node: Apply, inputs: Any, out: Any) -> None:
        out[0][0] = float(np.sum(inputs[0]))


ashift = AShift
aadd = AAdd()
aadd_inplace = AAdd(inplace=True)
asum = ASum()
