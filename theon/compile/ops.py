"""Ops that the compile step and user programs put around values: identities that only
change what the graph says (``TypeCastingOp``, ``ViewOp``), an explicit copy
(``DeepCopyOp``), and a Python function wrapped as an Op (``as_op``/``wrap_py``).

These are PyTensor's ``pytensor.compile.ops``.  theon's compiled functions copy an
output that aliases an input or another output themselves, so no ``DeepCopyOp`` is
put in a compiled graph; the Op exists for programs that build or look for one.

>>> import numpy as np, theon, theon.tensor as tt
>>> @as_op(itypes=[tt.dvector], otypes=[tt.dvector])
... def reverse(v):
...     return v[::-1].copy()
>>> x = tt.dvector("x")
>>> theon.function([x], reverse(x) * 2)(np.array([1.0, 2.0, 3.0]))
array([6., 4., 2.])
"""

from __future__ import annotations

import copy
import importlib
import pickle
from collections.abc import Callable, Sequence
from typing import Any

from theon.graph.basic import Apply, Variable
from theon.graph.op import Op
from theon.graph.type import Type
from theon.link.registry import register_linker_backend

__all__ = [
    "DeepCopyOp",
    "FromFunctionOp",
    "TypeCastingOp",
    "ViewOp",
    "as_op",
    "deep_copy_op",
    "view_op",
    "wrap_py",
]


class TypeCastingOp(Op):
    """The identity at run time: the output is the input itself (a view), under the
    type the subclass's ``make_node`` gives it.

    Subclasses (PyMC's ``InitialPoint``) define ``make_node``; the output's value is
    the input's, so its shape is too.
    """

    __props__: tuple[str, ...] = ()
    view_map = {0: [0]}

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        output_storage[0][0] = inputs[0]

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[Any]:
        return [input_shapes[0]]

    def __str__(self) -> str:
        return type(self).__name__


class ViewOp(TypeCastingOp):
    """``x`` itself, as a new variable of the same type (a node a program can find and
    name, e.g. PyMC's deterministics).  Its gradient is the output's.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> y = view_op(x, name="y")
    >>> y.type == x.type, y.name, y.eval({x: [1.0, 2.0]})
    (True, 'y', array([1., 2.]))
    """

    def make_node(self, x: Any) -> Apply:
        if not isinstance(x, Variable):
            raise TypeError(f"ViewOp needs a symbolic variable, got {type(x).__name__} {x!r}")
        return Apply(self, [x], [x.type()])

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return list(output_grads)

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        return list(eval_points)


view_op = ViewOp()


class DeepCopyOp(Op):
    """A copy of ``x``: ``x.copy()`` for arrays, ``copy.deepcopy`` for other values.

    >>> import numpy as np, theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> deep_copy_op(x).eval({x: np.array([1.0, 2.0])})
    array([1., 2.])
    """

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        if not isinstance(x, Variable):
            raise TypeError(f"DeepCopyOp needs a symbolic variable, got {type(x).__name__} {x!r}")
        return Apply(self, [x], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (x,) = inputs
        # an ndarray's copy (a 0-d one included) keeps it an ndarray; other values with a
        # copy method (generators, sparse matrices) copy themselves
        output_storage[0][0] = x.copy() if hasattr(x, "copy") else copy.deepcopy(x)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[Any]:
        return [input_shapes[0]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return list(output_grads)


deep_copy_op = DeepCopyOp()


class FromFunctionOp(Op):
    """An Op computing ``fn(*input_values)`` in Python (made by :func:`as_op`).

    Props: ``fn`` (the function), ``itypes`` and ``otypes`` (the Types of its inputs
    and outputs), ``infer_shape_fn`` (``None``, or the function giving the output
    shapes).  It has no gradient.  The values ``fn`` returns are checked against the
    output types (``Type.filter``), so a wrong dtype or rank is an error naming ``fn``.
    """

    __props__ = ("fn", "itypes", "otypes", "infer_shape_fn")

    def __init__(
        self,
        fn: Callable[..., Any],
        itypes: Sequence[Type],
        otypes: Sequence[Type],
        infer_shape: Callable[..., Any] | None,
    ) -> None:
        self.fn = fn
        self.itypes = tuple(itypes)
        self.otypes = tuple(otypes)
        self.infer_shape_fn = infer_shape
        if infer_shape is not None:
            # only an Op given the function infers shapes (``has_method`` sees it)
            self.__dict__["infer_shape"] = self._infer_shape

    def __str__(self) -> str:
        return f"FromFunctionOp{{{getattr(self.fn, '__name__', self.fn)}}}"

    def make_node(self, *inputs: Any) -> Apply:
        if len(inputs) != len(self.itypes):
            raise TypeError(
                f"{self} takes {len(self.itypes)} inputs ({', '.join(map(str, self.itypes))}), "
                f"got {len(inputs)}"
            )
        ins = [t.filter_variable(v) for t, v in zip(self.itypes, inputs)]
        return Apply(self, ins, [t() for t in self.otypes])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        outs = self.fn(*inputs)
        if not isinstance(outs, (list, tuple)):
            outs = (outs,)
        if len(outs) != len(output_storage):
            raise ValueError(
                f"{self}: the function returned {len(outs)} values for {len(output_storage)} "
                "output types"
            )
        for cell, value, var in zip(output_storage, outs, node.outputs):
            try:
                cell[0] = var.type.filter(value)
            except TypeError as e:
                raise TypeError(f"{self}: the value returned for output {var.type}: {e}") from e

    def _infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[Any]:
        fn = self.infer_shape_fn
        assert fn is not None
        if _positional_arity(fn) == 2:  # theon's form: infer_shape(node, input_shapes)
            return list(fn(node, input_shapes))
        return list(fn(None, node, input_shapes))  # PyTensor's: (fgraph, node, shapes)

    def __reduce__(self) -> Any:
        # ``@as_op`` replaces the function's module attribute with this Op: pickle it by
        # that name (the function itself cannot be found by name any more)
        module = getattr(self.fn, "__module__", None)
        name = getattr(self.fn, "__qualname__", None)
        if module is not None and name is not None:
            try:
                found = _load_back(module, name)
            except (ImportError, AttributeError):
                found = None
            if found is self:
                return (_load_back, (module, name))
            if found is not self.fn:
                raise pickle.PicklingError(
                    f"cannot pickle {self}: neither it nor its function is {module}.{name}"
                )
        return super().__reduce__()


def _load_back(module: str, qualname: str) -> Any:
    """The object named ``qualname`` in ``module`` (how an ``as_op`` Op is unpickled)."""
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def _positional_arity(fn: Callable[..., Any]) -> int | None:
    """The number of positional parameters of a plain function (None for others)."""
    code = getattr(fn, "__code__", None)
    if code is None or code.co_flags & 0x04:  # *args
        return None
    n = int(code.co_argcount)
    return n - 1 if hasattr(fn, "__self__") else n


def wrap_py(
    itypes: Type | Sequence[Type],
    otypes: Type | Sequence[Type],
    infer_shape: Callable[..., Any] | None = None,
) -> Callable[[Callable[..., Any]], FromFunctionOp]:
    """A decorator making a Python function an Op of the given input and output Types.

    ``infer_shape``, if given, computes the output shapes from the input shapes without
    running the function: ``infer_shape(fgraph, node, input_shapes)`` (PyTensor's form;
    ``fgraph`` is ``None``) or ``infer_shape(node, input_shapes)``, returning one tuple of
    symbolic lengths per output.

    >>> import numpy as np, theon, theon.tensor as tt
    >>> def shapes(fgraph, node, input_shapes):
    ...     return [input_shapes[0]]
    >>> @wrap_py(itypes=[tt.dmatrix], otypes=[tt.dmatrix], infer_shape=shapes)
    ... def double(m):
    ...     return 2 * m
    >>> x = tt.dmatrix("x")
    >>> f = theon.function([x], double(x).shape)
    >>> f(np.zeros((2, 5)))
    array([2, 5])
    """
    its, ots = _types("itypes", itypes), _types("otypes", otypes)
    if infer_shape is not None and not callable(infer_shape):
        raise TypeError(f"as_op: infer_shape must be callable, got {infer_shape!r}")

    def make_op(fn: Callable[..., Any]) -> FromFunctionOp:
        return FromFunctionOp(fn, its, ots, infer_shape)

    return make_op


def _types(what: str, types: Any) -> list[Type]:
    """One Type or a list of them, as a list (anything else is an error)."""
    items = list(types) if isinstance(types, (list, tuple)) else [types]
    out: list[Type] = []
    for t in items:
        if not isinstance(t, Type):
            raise TypeError(
                f"as_op: {what} must be theon Types (e.g. theon.tensor.dvector), got {t!r}"
            )
        out.append(t)
    return out


#: PyTensor's older name (PyTensor 2.38 deprecates it for ``wrap_py``; theon keeps both)
as_op = wrap_py

register_linker_backend("jax", "theon.backends.jax.basic")
