"""Hand-written random Ops: ``choice``, ``permutation`` and ``shuffle``.

Like :class:`~theon.tensor.random.op.RandomVariable`, a node takes the generator
first and returns ``(next_rng, draw)``, copies the generator before drawing and is
never constant-folded; the draw equals ``numpy.random.Generator``'s method.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type, grad_undefined
from theon.tensor.basic import as_tensor_variable
from theon.tensor.basic import cast as tcast
from theon.tensor.random.op import RNGConsumerOp
from theon.tensor.random.shapes import normalize_size_param, static_size
from theon.tensor.random.type import RandomType, copy_generator
from theon.tensor.type import TensorType
from theon.tensor.variable import TensorVariable

__all__ = ["ChoiceRV", "PermutationRV", "RowChoiceRV", "choice", "permutation", "row_choice",
           "shuffle"]


def _rng_variable(rng: Any, what: str) -> Variable:
    """The generator variable of a draw: ``rng``, or a new OS-seeded shared generator
    (which nothing updates) for ``None``."""
    if rng is None:
        from theon.tensor.random.variable import shared_rng

        return shared_rng(None)
    if isinstance(rng, np.random.Generator):
        raise TypeError(f"{what}: argument 'rng' must be a symbolic generator; wrap the "
                        "Generator with theon.shared(rng) or shared_rng(rng)")
    if not isinstance(rng, Variable) or not isinstance(rng.type, RandomType):
        raise TypeError(f"{what}: argument 'rng' must be a random generator variable, got "
                        f"{rng!r}")
    return rng


def _draw(op: RNGConsumerOp, rng: Any, what: str, inputs: list[Any],
          return_next_rng: bool) -> Any:
    """Apply ``op`` to ``(rng, *inputs)``: the draw, or ``(next_rng, draw)``."""
    next_rng, draw = op(_rng_variable(rng, what), *inputs, return_list=True)
    return (next_rng, draw) if return_next_rng else draw


def _size_shape(size: Variable) -> tuple[int | None, ...]:
    """The draw shape a normalized ``size`` gives, as far as known (``()`` for None)."""
    return static_size(size) or ()


class _RandomOp(RNGConsumerOp):
    default_output = 1

    def update(self, node: Apply) -> dict[Variable, Variable]:
        return {node.inputs[0]: node.outputs[0]}

    def do_constant_folding(self, node: Apply) -> bool:
        return False

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [disconnected_type()] + [
            grad_undefined(self, k, x, "a random draw has no gradient")
            for k, x in enumerate(inputs[1:], start=1)
        ]


class ChoiceRV(_RandomOp):
    """``Generator.choice(a, size, replace, p)``; inputs ``(rng, size, a[, p])``.

    ``a`` is an integer scalar (draw from ``arange(a)``) or a vector (draw its entries).
    """

    __props__ = ("replace", "has_p")

    def __init__(self, replace: bool = True, has_p: bool = False) -> None:
        self.replace = bool(replace)
        self.has_p = bool(has_p)

    def make_node(self, rng: Variable, size: Variable, a: Any, *p: Any) -> Apply:
        av = as_tensor_variable(a)
        if av.type.ndim > 1 or (av.type.ndim == 0 and av.type.dtype[:1] not in "iu"):
            raise TypeError(f"choice: argument 'a' must be an integer scalar or a vector, got "
                            f"{describe(av)}")
        inputs: list[Variable] = [rng, size, av]
        if self.has_p:
            pv = as_tensor_variable(p[0])
            if pv.type.ndim != 1:
                raise TypeError(f"choice: argument 'p' must be a vector, got {describe(pv)}")
            if (av.type.ndim == 1 and None not in (av.type.shape[0], pv.type.shape[0])
                    and av.type.shape[0] != pv.type.shape[0]):
                raise ValueError(f"choice: 'a' and 'p' have different lengths: "
                                 f"{describe(av)}, {describe(pv)}")
            inputs.append(pv)
        dtype = "int64" if av.type.ndim == 0 else av.type.dtype
        shape = _size_shape(size)
        return Apply(self, inputs, [rng.type(), TensorType(dtype, shape=shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        rng, size, a, *p = inputs
        rng = copy_generator(rng)
        size_t = None if size is None else tuple(int(s) for s in size)
        a = int(a) if np.ndim(a) == 0 else a
        out = rng.choice(a, size=size_t, replace=self.replace, p=p[0] if p else None)
        output_storage[0][0] = rng
        output_storage[1][0] = np.asarray(out, dtype=cast(TensorVariable,
                                                          node.outputs[1]).type.dtype)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        from theon.tensor.shape import shape_scalars

        size = node.inputs[1]
        if static_size(size) is None:
            return [None, ()]
        return [None, tuple(shape_scalars(size))]


class RowChoiceRV(_RandomOp):
    """Per row ``i`` of the matrix ``p``, ``Generator.choice(p.shape[1], n, replace, p[i])``,
    rows in order; inputs ``(rng, n, p)``, output ``(p.shape[0], n)`` category indices."""

    __props__ = ("replace",)

    def __init__(self, replace: bool = False) -> None:
        self.replace = bool(replace)

    def make_node(self, rng: Variable, n: Any, p: Any) -> Apply:
        nv, pv = as_tensor_variable(n), as_tensor_variable(p)
        if nv.type.ndim != 0 or nv.type.dtype[:1] not in "iu":
            raise TypeError(f"choice: argument 'size' (the draws per row) must be an integer "
                            f"scalar, got {describe(nv)}")
        if pv.type.ndim != 2 or pv.type.dtype[:1] != "f":
            raise TypeError(f"choice: argument 'p' must be a float matrix (one row of "
                            f"probabilities per draw), got {describe(pv)}")
        n_static = int(nv.data) if isinstance(nv, Constant) else None
        out = TensorType("int64", shape=(pv.type.shape[0], n_static))()
        return Apply(self, [rng, nv, pv], [rng.type(), out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        rng, n, p = inputs
        rng = copy_generator(rng)
        k = p.shape[1]
        out = np.empty((p.shape[0], int(n)), dtype=np.int64)
        for i in range(p.shape[0]):
            out[i] = rng.choice(k, size=int(n), replace=self.replace, p=p[i])
        output_storage[0][0] = rng
        output_storage[1][0] = out

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        return [None, (input_shapes[2][0], tcast(node.inputs[1], "int64"))]


def row_choice(n: Any, p: Any, replace: bool = False, rng: Any = None,
               return_next_rng: bool = False) -> Any:
    """``n`` category indices drawn from each row of the probability matrix ``p``.

    Row ``i`` of the result is ``Generator.choice(p.shape[1], n, replace, p=p[i])``;
    without replacement an index appears at most once per row (Theano's
    ``multinomial_wo_replacement``).

    >>> import numpy as np, theon.tensor.random as tr
    >>> x = row_choice(2, np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]]), rng=tr.shared_rng(0))
    >>> [sorted(r) for r in x.eval().tolist()]
    [[0, 1], [1, 2]]
    """
    return _draw(RowChoiceRV(replace), rng, "choice", [n, p], return_next_rng)


class PermutationRV(_RandomOp):
    """``Generator.permutation(x)`` (``name="permutation"``) or a shuffled copy of ``x``
    by ``Generator.shuffle`` (``name="shuffle"``); inputs ``(rng, x)``."""

    __props__ = ("name",)

    def __init__(self, name: str = "permutation") -> None:
        self.name = name

    def make_node(self, rng: Variable, x: Any) -> Apply:
        xv = as_tensor_variable(x)
        if xv.type.ndim == 0:
            if self.name == "shuffle" or xv.type.dtype[:1] not in "iu":
                raise TypeError(f"{self.name}: argument 'x' must be an array"
                                f"{' or an integer' if self.name == 'permutation' else ''}, "
                                f"got {describe(xv)}")
            out = TensorType("int64", shape=(None,))()
        else:
            out = xv.type()
        return Apply(self, [rng, xv], [rng.type(), out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        rng, x = inputs
        rng = copy_generator(rng)
        if self.name == "shuffle":
            out = np.array(x, copy=True)
            rng.shuffle(out)
        else:
            out = rng.permutation(int(x) if np.ndim(x) == 0 else x)
        output_storage[0][0] = rng
        output_storage[1][0] = np.asarray(out, dtype=cast(TensorVariable,
                                                          node.outputs[1]).type.dtype)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        x = cast(TensorVariable, node.inputs[1])
        if x.type.ndim == 0:
            return [None, (tcast(x, "int64"),)]
        return [None, tuple(input_shapes[1])]


def choice(a: Any, size: Any = None, replace: bool = True, p: Any = None, rng: Any = None,
           return_next_rng: bool = False) -> Any:
    """Draws of ``Generator.choice(a, size, replace, p)``.

    ``a`` is an integer (draw from ``arange(a)``) or a vector; ``p`` the probabilities.

    >>> import theon.tensor.random as tr
    >>> x = choice(5, size=(3,), replace=False, rng=tr.shared_rng(0))
    >>> sorted(set(x.eval().tolist())) == sorted(x.eval().tolist())
    True
    """
    op = ChoiceRV(replace, p is not None)
    inputs = [normalize_size_param(size, "choice"), a] + ([] if p is None else [p])
    return _draw(op, rng, "choice", inputs, return_next_rng)


def permutation(x: Any, rng: Any = None, return_next_rng: bool = False) -> Any:
    """``Generator.permutation(x)``: a permuted ``arange(x)`` or a copy of ``x`` permuted
    along its first axis.

    >>> import theon.tensor.random as tr
    >>> sorted(permutation(4, rng=tr.shared_rng(0)).eval().tolist())
    [0, 1, 2, 3]
    """
    return _draw(PermutationRV("permutation"), rng, "permutation", [x], return_next_rng)


def shuffle(x: Any, rng: Any = None, return_next_rng: bool = False) -> Any:
    """A copy of the array ``x`` shuffled along its first axis by ``Generator.shuffle``.

    >>> import numpy as np, theon.tensor.random as tr
    >>> sorted(shuffle(np.arange(4.0), rng=tr.shared_rng(0)).eval().tolist())
    [0.0, 1.0, 2.0, 3.0]
    """
    return _draw(PermutationRV("shuffle"), rng, "shuffle", [x], return_next_rng)
