"""The Op contract of seed 004.

An Op defines a computation: ``make_node`` builds the Apply for given inputs
and ``perform`` computes its outputs into one-element storage cells.  An Op's
identity is its ``__props__``: equality and hash follow from them.

>>> from theon.graph.type import Generic
>>> from theon.graph.basic import Apply
>>> class Twice(Op):
...     __props__ = ()
...     def make_node(self, x):
...         return Apply(self, [x], [Generic()()])
...     def perform(self, node, inputs, output_storage):
...         output_storage[0][0] = 2 * inputs[0]
>>> Twice() == Twice()
True
"""

from __future__ import annotations

import contextlib
import functools
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from theon.graph.basic import Apply, Constant, Variable, user_trace

__all__ = [
    "GRADIENT_OF",
    "GRAD_KEY",
    "HasInnerGraph",
    "LazyBranches",
    "NODE_MEMO",
    "Op",
    "OpContractError",
    "TestValueError",
    "compute_test_value",
    "get_test_value",
    "lazy_branches",
    "making_nodes_once",
    "memoized",
]

#: While ``theon.grad`` builds the gradient of a node, ``GRADIENT_OF[0]`` is that forward
#: node; every node an Op call makes meanwhile records it in its ``tag`` under
#: ``GRAD_KEY`` (read by :mod:`theon.rewriting.provenance`).  ``None`` otherwise.
GRADIENT_OF: list[Any] = [None]
GRAD_KEY = "_grad_of"

#: While ``theon.grad`` walks a graph backwards, ``NODE_MEMO.memo`` (per thread) holds
#: the nodes the walk made, by ``(op, *inputs)`` (a constant input by its type and
#: value): an Op call that makes a node equal to one of them returns that node's outputs
#: instead.  The gradients of a model's terms repeat the same formulas (``y - 1`` and
#: ``y == 0`` of every ``x ** y`` with the same constant ``y``, ...), and merging them
#: afterwards costs each compile of the gradient.  Unset otherwise (see
#: :func:`making_nodes_once` and :func:`memoized`).
NODE_MEMO = threading.local()


@contextlib.contextmanager
def making_nodes_once(memo: dict[tuple[Any, ...], Apply]) -> Iterator[None]:
    """Op calls in this thread, for the block, share the nodes recorded in ``memo``
    (see :data:`NODE_MEMO`); the previous memo, if any, is restored after."""
    outer = getattr(NODE_MEMO, "memo", None)
    NODE_MEMO.memo = memo
    try:
        yield
    finally:
        NODE_MEMO.memo = outer


def memoized(memo: dict[tuple[Any, ...], Apply], node: Apply) -> Apply:
    """The node of ``memo`` equal to ``node`` (same op, same inputs, equal constants,
    same output types), else ``node``, recorded.  Nodes that destroy an input are kept
    apart, as merging does.

    >>> from theon.scalar import float64, add
    >>> x = float64("x")
    >>> memo = {}
    >>> a = memoized(memo, add(x, 1.0).owner)
    >>> memoized(memo, add(x, 1.0).owner) is a, memoized(memo, add(x, 2.0).owner) is a
    (True, False)
    """
    op = node.op
    if op.destroy_map:
        return node
    try:
        key = (op, *[
            (v.type, v.signature()) if isinstance(v, Constant) else v for v in node.inputs
        ])
        hit = memo.setdefault(key, node)
    except TypeError:  # an unhashable prop or constant: never shared
        return node
    if hit is node:
        return node
    if len(hit.outputs) != len(node.outputs) or any(
        a.type != b.type for a, b in zip(hit.outputs, node.outputs)
    ):
        return node
    return hit


class OpContractError(NotImplementedError):
    """An Op was asked for a method it does not define.

    >>> from theon.graph.type import Generic
    >>> try:
    ...     Op().grad([Generic()("x")], [Generic()("g")])
    ... except OpContractError as e:
    ...     print(isinstance(e, NotImplementedError))
    True
    """


class Op:
    """Base class of operations.

    Subclasses set ``__props__`` to the names of the attributes that define
    them; ``__eq__``, ``__hash__`` and ``__str__`` follow.  Without
    ``__props__`` an Op is equal only to itself (the seed's bare ``Op()``).

    Attributes
    ----------
    default_output
        Index of the output ``__call__`` returns when there are several.
    destroy_map
        ``{output index: [input indices]}``: inputs overwritten by the output.
    view_map
        ``{output index: [input indices]}``: inputs the output is a view of.
    lazy_conditional
        Whether the nodes of this Op are lazy conditionals (``ifelse``), which
        linkers run lazily; see :func:`lazy_branches` for the contract.

    >>> from theon.graph.basic import Apply
    >>> from theon.graph.type import Generic
    >>> class Pair(Op):
    ...     __props__ = ("k",)
    ...     def __init__(self, k):
    ...         self.k = k
    ...     def make_node(self, x):
    ...         return Apply(self, [x], [Generic()()])
    >>> Pair(1) == Pair(1), Pair(1) == Pair(2)
    (True, False)
    """

    __props__: tuple[str, ...] | None = None
    default_output: int | None = None
    destroy_map: dict[int, list[int]] = {}
    view_map: dict[int, list[int]] = {}
    lazy_conditional: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """Adapt the methods a subclass writes with PyTensor's signatures, once, here.

        ``infer_shape(self, fgraph, node, shapes)`` and ``do_constant_folding(self,
        fgraph, node)`` (PyTensor's, with the FunctionGraph first) become the seed's
        ``infer_shape(node, shapes)`` and ``do_constant_folding(node)`` (called with
        ``fgraph=None``); PyTensor 3's ``pullback(inputs, outputs, output_grads)``
        serves as ``L_op`` and ``pushforward(inputs, outputs, eval_points)`` as
        ``R_op`` (a ``DisconnectedType`` tangent where ``R_op`` has ``None``) unless
        the class defines those too.  The form is read from the signature when the
        class is created; calls pay nothing.
        """
        super().__init_subclass__(**kwargs)
        own = cls.__dict__
        for name, seed_arity in (("infer_shape", 2), ("do_constant_folding", 1)):
            fn = own.get(name)
            if callable(fn) and _arity(fn) == seed_arity + 1:
                setattr(cls, name, _drop_fgraph(fn))
        for name, pytensor_name, adapter in (
            ("L_op", "pullback", _L_op_from_pullback),
            ("R_op", "pushforward", _R_op_from_pushforward),
        ):
            if callable(own.get(pytensor_name)) and name not in own:
                setattr(cls, name, adapter)

    # identity ----------------------------------------------------------------
    def _props(self) -> tuple[Any, ...]:
        return tuple(getattr(self, p) for p in self.__props__ or ())

    def _props_dict(self) -> dict[str, Any]:
        return {p: getattr(self, p) for p in self.__props__ or ()}

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if self.__props__ is None:
            return False
        return type(self) is type(other) and self._props() == other._props()

    def __hash__(self) -> int:
        h: int | None = self.__dict__.get("_cached_hash")
        if h is not None:
            return h
        if self.__props__ is None:
            return id(self)
        h = hash((type(self), self._props()))
        self.__dict__["_cached_hash"] = h
        return h

    def __getstate__(self) -> dict[str, Any]:
        # the cached hash is not pickled: string hashes differ between processes
        state = self.__dict__.copy()
        state.pop("_cached_hash", None)
        return state

    def __str__(self) -> str:
        name = self.__dict__.get("name")
        if isinstance(name, str):
            return name
        props = self.__props__
        if props:
            return f"{type(self).__name__}{{{', '.join(f'{p}={getattr(self, p)}' for p in props)}}}"
        return type(self).__name__

    def __repr__(self) -> str:
        return str(self)

    # building ----------------------------------------------------------------
    def make_node(self, *inputs: Any) -> Apply:
        """Build the Apply node of this op on ``inputs`` (wrapping constants)."""
        raise OpContractError(f"Op {self} ({type(self).__name__}) does not define make_node")

    def __call__(
        self, *inputs: Any, return_list: bool = False, name: str | None = None, **kwargs: Any
    ) -> Any:
        """Build a node and return its output(s).

        Returns ``outputs[default_output]`` when set, the only output when there is
        one, and the list of outputs otherwise (or always, with ``return_list=True``).
        """
        node = self.make_node(*inputs, **kwargs) if kwargs else self.make_node(*inputs)
        if not isinstance(node, Apply):
            raise TypeError(f"make_node of {self} returned {node!r}, not an Apply")
        memo = getattr(NODE_MEMO, "memo", None)
        hit = node if memo is None or name is not None else memoized(memo, node)
        if hit is not node:  # an equal node the gradient made: it keeps its trace and origin
            node = hit
        else:
            trace = user_trace()
            for out in node.outputs:
                out.tag.trace = trace
            grad_of = GRADIENT_OF[0]
            if grad_of is not None:
                node.tag.__dict__[GRAD_KEY] = grad_of
        outputs = node.outputs
        if name is not None and len(outputs) == 1:
            outputs[0].name = name
        if return_list:
            return list(outputs)
        if self.default_output is not None:
            return outputs[self.default_output]
        if len(outputs) == 1:
            return outputs[0]
        return list(outputs)

    # computing ---------------------------------------------------------------
    def perform(
        self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]
    ) -> None:
        """Compute the outputs of ``node`` from ``inputs`` into ``output_storage`` cells."""
        raise OpContractError(f"Op {self} ({type(self).__name__}) does not define perform")

    def do_constant_folding(self, node: Apply) -> bool:
        """Whether a node with only constant inputs may be computed at compile time."""
        return True

    # derivatives -------------------------------------------------------------
    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        """Gradients of a cost with respect to ``inputs``, given those of the outputs."""
        raise OpContractError(f"Op {self} ({type(self).__name__}) does not define grad")

    def L_op(
        self,
        inputs: Sequence[Variable],
        outputs: Sequence[Variable],
        output_grads: Sequence[Variable],
    ) -> list[Any]:
        """Like :meth:`grad`, with the node's outputs at hand (e.g. for ``exp``)."""
        return self.grad(inputs, output_grads)

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        """Jacobian-vector products: one per output, for the given ``eval_points``."""
        raise OpContractError(f"Op {self} ({type(self).__name__}) does not define R_op")

    def infer_shape(
        self, node: Apply, input_shapes: Sequence[Sequence[Variable]]
    ) -> list[tuple[Variable, ...]]:
        """Symbolic output shapes from the input shapes, without computing outputs."""
        raise OpContractError(f"Op {self} ({type(self).__name__}) does not define infer_shape")

    def prepare_node(self, node: Apply, mode: Any) -> None:
        """Optional hook: get ``node`` ready to run in a function compiled with ``mode``.

        :func:`theon.function` calls it on every node of the rewritten graph whose
        Op overrides it, after the rewrites and before linking; ``mode`` is the
        function's :class:`~theon.compile.mode.Mode`.  An Op with an inner graph
        uses it to compile that graph with the same rewrites and linker as the
        outer one, and ``perform(node, ...)`` then runs that compiled graph.  Ops
        must still work when it was never called (a linker running a bare
        FunctionGraph does not call it).  The base Op does nothing.
        """
        return None

    def has_method(self, name: str) -> bool:
        """Whether ``name`` is overridden by this op (instance or subclass)."""
        if name in self.__dict__:
            return True
        return getattr(type(self), name, None) is not getattr(Op, name, None)


def _arity(fn: Any) -> int | None:
    """The number of positional parameters after ``self``; None with ``*args`` or for
    a callable that is not a plain function (read from the code object: no ``inspect``
    on the import path of every Op module)."""
    code = getattr(fn, "__code__", None)
    if code is None or code.co_flags & 0x04:  # CO_VARARGS
        return None
    return int(code.co_argcount) - 1


def _drop_fgraph(fn: Any) -> Any:
    """``fn(self, fgraph, *rest)`` as the seed's ``method(self, *rest)`` (no FunctionGraph)."""

    @functools.wraps(fn)
    def method(self: Any, *rest: Any) -> Any:
        return fn(self, None, *rest)

    method.__dict__["pytensor_signature"] = True
    return method


def _L_op_from_pullback(
    self: Any,
    inputs: Sequence[Variable],
    outputs: Sequence[Variable],
    output_grads: Sequence[Variable],
) -> list[Any]:
    """``L_op`` of an Op that defines PyTensor 3's ``pullback`` (the same contract)."""
    return list(self.pullback(inputs, outputs, output_grads))


def _R_op_from_pushforward(
    self: Any, inputs: Sequence[Variable], eval_points: Sequence[Any]
) -> list[Any]:
    """``R_op`` of an Op that defines PyTensor 3's ``pushforward(inputs, outputs,
    eval_points)``: the outputs are rebuilt, absent tangents are disconnected."""
    from theon.graph.null_type import DisconnectedType, disconnected_type

    outputs = self.make_node(*inputs).outputs
    points = [disconnected_type() if e is None else e for e in eval_points]
    res = self.pushforward(list(inputs), list(outputs), points)
    return [
        None if r is None or isinstance(getattr(r, "type", None), DisconnectedType) else r
        for r in res
    ]


class LazyBranches(NamedTuple):
    """The parts of a lazy conditional node (see :func:`lazy_branches`)."""

    condition: Variable
    then_values: list[Variable]
    else_values: list[Variable]


def lazy_branches(node: Apply) -> LazyBranches | None:
    """The condition and the two value lists of a lazy conditional node, else ``None``.

    The contract of an Op with ``lazy_conditional = True`` and ``n`` outputs: input 0
    is a 0-d condition, inputs ``1 .. n`` are the values when it is true and inputs
    ``n + 1 .. 2n`` those when it is false; output ``j`` is input ``1 + j`` when
    ``bool(condition)`` holds, input ``1 + n + j`` otherwise (the same object: the
    Op lists both in its ``view_map``).  A linker that knows the contract evaluates
    the condition first and then only the values of the branch taken, with what
    only they need; ``perform`` (given all the inputs) must agree with it.

    >>> from theon.graph.type import Generic
    >>> class Pick(Op):
    ...     lazy_conditional = True
    ...     def make_node(self, c, a, b):
    ...         return Apply(self, [c, a, b], [Generic()()])
    >>> c, a, b = (Generic()(n) for n in "cab")
    >>> lazy_branches(Pick()(c, a, b).owner)
    LazyBranches(condition=c, then_values=[a], else_values=[b])
    """
    if not node.op.lazy_conditional:
        return None
    n = len(node.outputs)
    ins = node.inputs
    if len(ins) != 2 * n + 1:
        raise ValueError(
            f"{node.op} is a lazy conditional with {n} outputs, so it needs 2 * {n} + 1 "
            f"inputs, not {len(ins)}"
        )
    return LazyBranches(ins[0], list(ins[1 : n + 1]), list(ins[n + 1 :]))


class HasInnerGraph(ABC):
    """What an Op with an inner graph offers (PyTensor's mixin of that name):
    ``inner_inputs`` and ``inner_outputs``, the inner graph's boundary.

    theon's Ops with inner graphs (``Scan``, ``OpFromGraph``) follow this protocol
    without naming the class, so ``isinstance(op, HasInnerGraph)`` is true for any
    object whose class defines both attributes (checked by ``__subclasshook__``); a
    class may also subclass it.

    >>> class Inner:
    ...     inner_inputs = []
    ...     inner_outputs = []
    >>> isinstance(Inner(), HasInnerGraph), isinstance(Op(), HasInnerGraph)
    (True, False)
    """

    __slots__ = ()

    @property
    @abstractmethod
    def inner_inputs(self) -> list[Variable]:
        """The inner graph's inputs."""

    @property
    @abstractmethod
    def inner_outputs(self) -> list[Variable]:
        """The inner graph's outputs."""

    @classmethod
    def __subclasshook__(cls, other: type) -> Any:
        """True for a class defining both attributes, else NotImplemented (the ABC's own
        check: subclasses and registered classes)."""
        if cls is HasInnerGraph:
            names = set().union(*(vars(k) for k in other.__mro__))
            if "inner_inputs" in names and "inner_outputs" in names:
                return True
        return NotImplemented


class TestValueError(ValueError):
    """A variable has no test value (see :func:`get_test_value`)."""

    __test__ = False  # (not a test class, for pytest)


def get_test_value(v: Any) -> Any:
    """The test value of ``v``: a constant's data, a shared variable's value, or the
    ``v.tag.test_value`` set by hand; a value that is not a Variable is returned as is.

    theon never computes test values while a graph is built (``config.compute_test_value``
    is only read by programs written for PyTensor); :func:`compute_test_value` computes
    them on request.

    >>> from theon.scalar import float64
    >>> x = float64("x")
    >>> x.tag.test_value = 2.0
    >>> get_test_value(x)
    2.0
    """
    if not isinstance(v, Variable):
        return v
    if isinstance(v, Constant):
        return v.data
    get_value = getattr(v, "get_value", None)  # a shared variable (theon.compile's)
    if v.owner is None and callable(get_value):
        return get_value(borrow=True)
    try:
        return v.tag.test_value
    except AttributeError:
        raise TestValueError(
            f"{v} has no test value: set {v}.tag.test_value, or call compute_test_value "
            "on its owner once its inputs have theirs"
        ) from None


def compute_test_value(node: Apply | Variable) -> None:
    """Set ``tag.test_value`` on the outputs of ``node`` (or of a variable's owner) by
    running the Op's ``perform`` on its inputs' test values.

    Raises :class:`TestValueError` naming the input that has none.

    >>> from theon.scalar import add, float64
    >>> x, y = float64("x"), float64("y")
    >>> x.tag.test_value, y.tag.test_value = 1.5, 2.0
    >>> z = add(x, y)
    >>> compute_test_value(z.owner)
    >>> float(z.tag.test_value)
    3.5
    """
    if isinstance(node, Variable):
        if node.owner is None:
            return
        node = node.owner
    values = []
    for i, inp in enumerate(node.inputs):
        try:
            values.append(get_test_value(inp))
        except TestValueError as e:
            raise TestValueError(f"input {i} of {node.op}: {e}") from None
    storage: list[list[Any]] = [[None] for _ in node.outputs]
    node.op.perform(node, values, storage)
    for out, cell in zip(node.outputs, storage):
        out.tag.test_value = cell[0]
