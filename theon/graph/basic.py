"""The seed's graph structures: Variable, Constant and Apply.

A graph is bipartite and acyclic: a Variable points to the Apply that made it
through ``owner``; an Apply points to its ``inputs`` and ``outputs``.  Both
compare by identity; structural sameness is :func:`theon.graph.replace.equal_computations`.

>>> from theon.graph.type import Generic
>>> g = Generic()
>>> v = g("v")
>>> v.owner is None, v.name
(True, 'v')
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Sequence
from types import FrameType
from typing import TYPE_CHECKING, Any

import numpy as np

_CLASS = type  # (``type`` is the name of Variable's argument)

if TYPE_CHECKING:
    from theon.graph.op import Op
    from theon.graph.type import Type

__all__ = [
    "Apply", "Constant", "Node", "Scratchpad", "Variable", "user_stacklevel", "user_trace",
]

_THEON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# theon's own frames: its source files and the code it generates ("<theon-call-1>", ...)
_THEON_CODE = (_THEON_DIR, "<theon-")


class Scratchpad:
    """A free-form namespace for annotations (``var.tag``, ``node.tag``).

    >>> tag = Scratchpad()
    >>> tag.note = "hello"
    >>> tag
    Scratchpad({'note': 'hello'})
    """

    if TYPE_CHECKING:  # free-form for the type checker; no runtime hook

        def __getattr__(self, name: str) -> Any: ...
        def __setattr__(self, name: str, value: Any) -> None: ...

    def __repr__(self) -> str:
        return f"Scratchpad({self.__dict__})"

    def copy(self) -> Scratchpad:
        """A shallow copy, without the entries of :data:`OWN_TAG_KEYS`.

        >>> tag = Scratchpad(); tag.note = 1; tag._grad_walk = "a cache of its variable"
        >>> tag.copy()
        Scratchpad({'note': 1})
        """
        new = Scratchpad()
        d = new.__dict__
        d.update(self.__dict__)
        for k in OWN_TAG_KEYS:
            d.pop(k, None)
        return new


#: ``tag`` entries that belong to their variable alone (``theon.grad``'s walk kept for a
#: cost, which reads that cost): a copy of the variable does not take them, and so
#: does not keep them alive.
OWN_TAG_KEYS: tuple[str, ...] = ("_grad_walk", "_grad_asked")


def user_trace(limit: int = 1) -> tuple[tuple[str, int, str], ...]:
    """The innermost ``limit`` stack frames outside theon, as (file, line, function).

    >>> file, line, function = user_trace()[0]  # the frame that called it
    >>> function
    '<module>'
    """
    f: FrameType | None = sys._getframe(1)
    if limit == 1:  # the common case (Op.__call__), without the list
        while f is not None:
            code = f.f_code
            if not code.co_filename.startswith(_THEON_CODE):
                return ((code.co_filename, f.f_lineno, code.co_name),)
            f = f.f_back
        return ()
    out: list[tuple[str, int, str]] = []
    while f is not None and len(out) < limit:
        fn = f.f_code.co_filename
        if not fn.startswith(_THEON_CODE):
            out.append((fn, f.f_lineno, f.f_code.co_name))
        f = f.f_back
    return tuple(out)


def user_stacklevel() -> int:
    """The ``stacklevel`` of ``warnings.warn``, called by the function that warns, that
    points at the first frame outside theon: the user's line, however deep in theon
    the warning is raised.

    >>> import warnings
    >>> def check():
    ...     warnings.warn("careful", stacklevel=user_stacklevel())
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     check()
    >>> w[0].lineno == check.__code__.co_firstlineno + 1
    True
    """
    f: FrameType | None = sys._getframe(1)
    level = 1
    while f is not None and f.f_code.co_filename.startswith(_THEON_CODE):
        f = f.f_back
        level += 1
    return level


def caller_trace(depth: int = 3) -> tuple[tuple[str, int, str], ...] | None:
    """The user's frame, if among the ``depth`` frames above the caller's caller.

    The cheap check behind the source line of a new input variable
    (``dvector("x")``): called from theon's own code (a rewrite or an Op's
    ``make_node`` making an output), it looks at a few frames and gives ``None``.

    >>> def make():
    ...     return caller_trace()
    >>> make()[0][2]  # the frame that called make
    '<module>'
    """
    f: FrameType | None = sys._getframe(2)
    for _ in range(depth):
        if f is None:
            return None
        code = f.f_code
        if not code.co_filename.startswith(_THEON_CODE):
            return ((code.co_filename, f.f_lineno, code.co_name),)
        f = f.f_back
    return None


def format_trace(trace: Sequence[tuple[str, int, str]] | None) -> str:
    """``'file.py:12 in fn'`` for the innermost recorded user frame, or ``''``.

    >>> format_trace([("model.py", 12, "build")])
    'model.py:12 in build'
    """
    if not trace:
        return ""
    fn, line, name = trace[0]
    return f"{fn}:{line} in {name}"


class Node:
    """Common base of Variable and Apply (identity equality).

    >>> from theon.graph.type import Generic
    >>> isinstance(Generic()("v"), Node)
    True
    """

    __slots__ = ()


class Variable(Node):
    """A datum in a graph: ``type``, ``owner``, ``index``, ``name`` and ``tag``.

    Parameters
    ----------
    type
        The Type constraining this variable's values.
    owner
        The Apply that computes it, or ``None`` for a graph input.
    index
        Its position in ``owner.outputs``.
    name
        A name for printing and debugging.

    >>> from theon.graph.type import Generic
    >>> x = Variable(Generic(), name="x")
    >>> str(x)
    'x'

    Other attributes may be set on a variable, as on PyTensor's (PyMC gives random
    variables a ``str_repr`` method); the five above are slots.

    >>> x.note = "mine"
    >>> x.note
    'mine'
    """

    # (``__dict__``: the dictionary exists only once something else is set)
    __slots__ = ("type", "owner", "index", "name", "tag", "__weakref__", "__dict__")

    def __init__(
        self,
        type: Type,
        owner: Apply | None = None,
        index: int | None = None,
        name: str | None = None,
    ) -> None:
        if isinstance(type, _CLASS) or type is None:
            # a class for its instance (``Variable(TensorType)``) is the usual slip; any
            # other object is an opaque type, as Theano allowed (Lasagne's tests make
            # ``theano.Variable("myvariable")`` as a token): using it fails where a theon
            # Type is needed
            raise TypeError(f"Variable's type must be a theon Type instance, got {type!r}")
        self.type = type
        self.owner = owner
        self.index = index
        self.name = name
        self.tag = Scratchpad()

    @property
    def auto_name(self) -> str:
        """A name unique to this variable, for printing."""
        return f"auto_{id(self)}"

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        if self.owner is not None:
            return f"{self.owner.op}.{self.index}"
        return f"<{self.type}>"

    def __repr__(self) -> str:
        return str(self)

    def clone(self, **kwargs: Any) -> Variable:
        """A new Variable of the same type and name, with no owner."""
        cp = self.__class__(self.type, None, None, kwargs.get("name", self.name))
        cp.tag = self.tag.copy()
        return cp

    def get_parents(self) -> list[Apply]:
        """The owner, as a list (empty for inputs)."""
        return [self.owner] if self.owner is not None else []

    def eval(self, inputs_to_values: dict[Variable, Any] | None = None, **kwargs: Any) -> Any:
        """Compile and evaluate this variable.

        ``inputs_to_values`` maps variables (graph inputs, or computed variables, whose
        computation the value then replaces) or their names to values.  A name is
        looked up among the graph's inputs, then among the other variables.  Compiled
        functions are cached per set of inputs on the variable's tag.

        >>> from theon.graph.type import Generic
        >>> Constant(Generic(), 3).eval()
        3
        """
        function = _evaluator()
        inputs_to_values = dict(inputs_to_values or {})
        for k in list(inputs_to_values):
            if isinstance(k, str):
                matches = [v for v in _named_inputs(self) if v.name == k]
                if not matches:  # a computed variable of that name (PyTensor's rule)
                    from theon.graph.traversal import ancestors

                    matches = [v for v in ancestors([self]) if v.name == k]
                if len(matches) != 1:
                    raise ValueError(f"eval: no unique input named {k!r} in the graph of {self}")
                inputs_to_values[matches[0]] = inputs_to_values.pop(k)
        inputs = list(inputs_to_values)
        key = (tuple(id(i) for i in inputs), tuple(sorted(kwargs.items())))
        cache = self.tag.__dict__.setdefault("_eval_cache", {})
        if key not in cache:
            # an intermediate variable given a value replaces its computation (givens)
            stand_ins = {i: i.type() for i in inputs if i.owner is not None}
            if stand_ins:
                givens = {**dict(kwargs.pop("givens", None) or {}), **stand_ins}
                ins = [stand_ins.get(i, i) for i in inputs]
                cache[key] = function(
                    ins, self, givens=givens, on_unused_input="ignore", **kwargs
                )
            else:
                cache[key] = function(inputs, self, on_unused_input="ignore", **kwargs)
        return cache[key](*[inputs_to_values[i] for i in inputs])


#: The compiler ``Variable.eval`` calls: ``theon.function``, registered by
#: ``theon.compile.pipeline`` when it is imported (the graph layer never imports compile).
_EVALUATORS: list[Callable[..., Any]] = []


def register_evaluator(compile_function: Callable[..., Any]) -> None:
    """Make ``compile_function`` (``function(inputs, outputs, **kwargs)``) the compiler of
    :meth:`Variable.eval`; the latest registration wins."""
    _EVALUATORS.append(compile_function)


def _evaluator() -> Callable[..., Any]:
    if not _EVALUATORS:
        raise RuntimeError(
            "Variable.eval needs a compiler: import theon (or theon.compile) first"
        )
    return _EVALUATORS[-1]


def _named_inputs(v: Variable) -> list[Variable]:
    from theon.graph.traversal import graph_inputs

    return [i for i in graph_inputs([v]) if not isinstance(i, Constant)]


class Constant(Variable):
    """A Variable whose value is known: ``data`` is filtered by the type and set once.

    NumPy data is stored read-only, so no Op can change it.

    >>> from theon.graph.type import Generic
    >>> c = Constant(Generic(), 2.5)
    >>> c.data
    2.5
    """

    __slots__ = ("_data", "_signature")

    def __init__(self, type: Type, data: Any, name: str | None = None) -> None:
        super().__init__(type, None, None, name)
        self._data = _NOT_SET
        self._signature: Any = None
        self.data = data

    @property
    def data(self) -> Any:
        return self._data

    @data.setter
    def data(self, value: Any) -> None:
        if self._data is not _NOT_SET:
            raise AttributeError(f"the data of constant {self} can be set only once")
        value = self.type.filter(value)
        if isinstance(value, np.ndarray) and value.flags.writeable:
            # never freeze the caller's array: keep a private read-only copy
            value = value.copy()
            value.setflags(write=False)
        self._data = value

    @property
    def value(self) -> Any:
        """Alias kept for PyTensor users: the constant's data."""
        return self._data

    @property
    def owner(self) -> None:
        """Always ``None``: a constant is computed by nothing."""
        return None

    @owner.setter
    def owner(self, value: Any) -> None:
        if value is not None:
            raise ValueError(f"constant {self} cannot have an owner")

    def signature(self) -> Any:
        """A hashable key such that equal constants have equal signatures."""
        if self._signature is None:
            self._signature = self.type.constant_signature(self._data)
        return self._signature

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        data = self._data
        text = str(data)
        if len(text) > 20:
            text = text[:10] + "..." + text[-5:]
        return f"{type(self).__name__}{{{text}}}"

    def clone(self, **kwargs: Any) -> Constant:
        """A constant with the same type, data and name (data is shared: it is read-only)."""
        cp = self.__class__.__new__(self.__class__)
        Variable.__init__(cp, self.type, None, None, kwargs.get("name", self.name))
        cp._data = self._data
        cp._signature = self._signature
        cp.tag = self.tag.copy()
        return cp

    def get_parents(self) -> list[Apply]:
        return []


_NOT_SET: Any = object()


class Apply(Node):
    """The application of ``op`` to ``inputs``, producing ``outputs``.

    Apply sets ``owner`` and ``index`` on each output.

    >>> from theon.graph.type import Generic
    >>> from theon.graph.op import Op
    >>> g = Generic()
    >>> a, out = g("a"), g()
    >>> node = Apply(Op(), [a], [out])
    >>> out.owner is node, out.index
    (True, 0)
    """

    # (``_tag``: the Scratchpad behind ``tag``, made on first use)
    __slots__ = ("op", "inputs", "outputs", "_tag", "__weakref__")

    def __init__(self, op: Op, inputs: Iterable[Variable], outputs: Iterable[Variable]) -> None:
        self.op = op
        self._tag: Scratchpad | None = None
        ins = list(inputs)
        for inp in ins:
            if not isinstance(inp, Variable):
                i = next(k for k, v in enumerate(ins) if v is inp)
                raise TypeError(
                    f"input {i} of {op} must be a Variable, got {type(inp).__name__} {inp!r}; "
                    "wrap values in a Constant or let the Op's make_node do it"
                )
        self.inputs: list[Variable] = ins
        outs = list(outputs)
        i = 0
        for out in outs:
            if not isinstance(out, Variable):
                raise TypeError(f"output {i} of {op} must be a Variable, got {out!r}")
            if out.owner is None:
                out.owner = self
                out.index = i
            elif out.owner is not self or out.index != i:
                raise TypeError(
                    f"output {i} of {op} ({out}) is already the output of another Apply "
                    f"({out.owner.op}); create a new Variable for each output"
                )
            i += 1
        self.outputs: list[Variable] = outs

    @property
    def tag(self) -> Scratchpad:
        """The node's annotations (a :class:`Scratchpad`).

        Made on first use: most nodes never get one, and a graph holds one node per
        operation (a heap the garbage collector walks).
        """
        t = self._tag
        if t is None:
            t = self._tag = Scratchpad()
        return t

    @tag.setter
    def tag(self, value: Scratchpad) -> None:
        self._tag = value

    def __str__(self) -> str:
        return f"{self.op}({', '.join(str(i) for i in self.inputs)})"

    def __repr__(self) -> str:
        return str(self)

    def default_output(self) -> Variable:
        """The output ``op.__call__`` returns: ``outputs[op.default_output]`` or the only one."""
        do = getattr(self.op, "default_output", None)
        if do is None:
            if len(self.outputs) == 1:
                return self.outputs[0]
            raise ValueError(f"{self.op} has several outputs and no default_output")
        out: Variable = self.outputs[do]
        return out

    @property
    def out(self) -> Variable:
        """Alias of :meth:`default_output`."""
        return self.default_output()

    @property
    def nin(self) -> int:
        return len(self.inputs)

    @property
    def nout(self) -> int:
        return len(self.outputs)

    def get_parents(self) -> list[Variable]:
        return list(self.inputs)

    def clone(self, clone_inner_graph: bool = False) -> Apply:
        """A new Apply with the same op and inputs, and fresh outputs."""
        cp = Apply.__new__(Apply)
        cp.op = self.op
        cp.inputs = list(self.inputs)
        t = self._tag
        cp._tag = None if t is None else t.copy()
        cp.outputs = []
        for i, o in enumerate(self.outputs):
            no = o.clone()
            no.owner = cp
            no.index = i
            cp.outputs.append(no)
        return cp

    def clone_with_new_inputs(self, inputs: Sequence[Variable], strict: bool = True) -> Apply:
        """An Apply of the same op on ``inputs``.

        With ``strict``, each new input must have the old input's type (after
        ``filter_variable``), and the outputs keep their types.  Otherwise the op's
        ``make_node`` is called and may give other output types.
        """
        if len(inputs) != len(self.inputs):
            raise ValueError(
                f"{self.op} takes {len(self.inputs)} inputs, {len(inputs)} were given"
            )
        remake = False
        new_inputs = list(inputs)
        for i, (old, new) in enumerate(zip(self.inputs, new_inputs)):
            if old.type != new.type:
                if strict:
                    new_inputs[i] = old.type.filter_variable(new)
                else:
                    remake = True
        if remake:
            node = self.op.make_node(*new_inputs)
            node.tag = self.tag.copy()
            for new_out, old_out in zip(node.outputs, self.outputs):
                trace = getattr(old_out.tag, "trace", None)
                if trace is not None:  # errors still name where the user built it
                    new_out.tag.trace = trace
            return node
        cp = self.clone()
        cp.inputs = new_inputs
        return cp

    @property
    def params_type(self) -> Any:
        return None


# PyTensor's ``pytensor.graph.basic`` also holds the graph functions; they live in
# theon.graph.traversal and theon.graph.replace (which import this module), so they are
# looked up on first use.
_ELSEWHERE = {
    **dict.fromkeys(
        ("clone", "clone_get_equiv", "clone_replace", "equal_computations", "graph_replace"),
        "replace",
    ),
    **dict.fromkeys(
        (
            "ancestors", "applys_between", "graph_inputs", "io_toposort", "orphans_between",
            "toposort", "variables", "vars_between", "walk",
        ),
        "traversal",
    ),
}


def __getattr__(name: str) -> Any:
    """``theon.graph.basic.clone`` and the other graph functions PyTensor keeps here."""
    module = _ELSEWHERE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"theon.graph.{module}"), name)
