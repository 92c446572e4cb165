"""``MonitorMode``: call a function of yours before and after each node runs.

A function compiled with ``mode=MonitorMode(pre_func=..., post_func=...)`` is
rewritten as the default mode rewrites it, then runs node by node (each Op's
``perform``, as the reference VM does).  Before node ``i`` of the run order it
calls ``pre_func(fgraph, i, node, fn)``, after it ``post_func(fgraph, i, node, fn)``:
``fn.inputs`` and ``fn.outputs`` are the node's storage cells (one-element lists:
``fn.inputs[0][0]`` is the first input's value), and ``fn()`` would run the node.
Theano's three-argument callbacks ``(i, node, fn)`` are accepted too: the form is
read once, from the function's signature.  Finding the first node that makes a NaN
is the classic use (PyTensor's documentation's example):

>>> import numpy as np, theon, theon.tensor as tt
>>> def detect_nan(fgraph, i, node, fn):
...     for out in fn.outputs:
...         if np.isnan(out[0]).any():
...             print("*** NaN detected ***", node)
...             break
>>> x = tt.dscalar("x")
>>> f = theon.function([x], [tt.log(x) * x], mode=MonitorMode(post_func=detect_nan))
>>> _ = f(0)  # log(0) * 0 is nan  # doctest: +ELLIPSIS
*** NaN detected *** ...
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from theon.compile.debugmode import Evaluator
from theon.compile.mode import Mode
from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import FunctionGraph
from theon.link.basic import Linker, Runner, add_node_context
from theon.link.lazy import has_lazy_nodes

__all__ = ["MonitorLinker", "MonitorMode", "NodeThunk"]

Callback = Callable[..., Any]


class NodeThunk:
    """One node about to run, as the callbacks see it: ``inputs`` and ``outputs`` are
    its storage cells (one-element lists), ``fn()`` runs the node on them."""

    lazy = False

    def __init__(self, node: Apply, inputs: list[Any]) -> None:
        if len(inputs) != len(node.inputs):
            raise ValueError(f"NodeThunk: {node} has {len(node.inputs)} inputs, "
                             f"got {len(inputs)} values")
        self.node = node
        self.inputs: list[list[Any]] = [[x] for x in inputs]
        self.outputs: list[list[Any]] = [[None] for _ in node.outputs]

    def __call__(self) -> None:
        node = self.node
        try:
            node.op.perform(node, [c[0] for c in self.inputs], self.outputs)
        except Exception as e:
            add_node_context(e, node)
            raise

    def __repr__(self) -> str:
        return f"NodeThunk({self.node})"


def _with_fgraph(func: Callback | None) -> Callback | None:
    """``func`` called as ``func(fgraph, i, node, fn)``: PyTensor's form as given, Theano's
    ``func(i, node, fn)`` adapted (read from the signature, once)."""
    if func is None:
        return None
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):  # (a builtin without a signature: PyTensor's form)
        return func
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return func
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) == 3:
        def theano_form(fgraph: FunctionGraph, i: int, node: Apply, fn: NodeThunk) -> Any:
            return func(i, node, fn)

        return theano_form
    return func


def _step(pre: Callback | None, post: Callback | None, fgraph: FunctionGraph, i: int,
          node: Apply, fn: NodeThunk) -> None:
    """``pre``, the node, ``post``: one node of a monitored run."""
    if pre is not None:
        pre(fgraph, i, node, fn)
    fn()
    if post is not None:
        post(fgraph, i, node, fn)


class MonitorLinker(Linker):
    """The linker of :class:`MonitorMode`: ``perform`` node by node, with the callbacks
    around each node."""

    name = "monitor"

    def __init__(self, pre_func: Callback | None = None,
                 post_func: Callback | None = None) -> None:
        self.pre_func = pre_func
        self.post_func = post_func

    def make_function(self, fgraph: FunctionGraph, profile: Any = None) -> Runner:
        return Runner(_MonitoredRun(fgraph, self), fgraph.toposort())


class _MonitoredRun:
    def __init__(self, fgraph: FunctionGraph, linker: MonitorLinker) -> None:
        self.fgraph = fgraph
        self.pre = _with_fgraph(linker.pre_func)
        self.post = _with_fgraph(linker.post_func)
        order = fgraph.toposort()
        self.index = {node: i for i, node in enumerate(order)}
        # without lazy conditionals every node runs, in this order
        self.plan = None if has_lazy_nodes(order) else order

    def _run(self, node: Apply, ins: list[Any]) -> list[Any]:
        fn = NodeThunk(node, ins)
        _step(self.pre, self.post, self.fgraph, self.index[node], node, fn)
        return [c[0] for c in fn.outputs]

    def __call__(self, *args: Any) -> list[Any]:
        fg = self.fgraph
        if len(args) != len(fg.inputs):
            raise TypeError(f"expected {len(fg.inputs)} inputs, got {len(args)}")
        if self.plan is None:
            return Evaluator(dict(zip(fg.inputs, args)), self._run).evaluate(fg.outputs)
        values: dict[Variable, Any] = dict(zip(fg.inputs, args))
        for node in self.plan:
            outs = self._run(node, [v.data if isinstance(v, Constant) else values[v]
                                    for v in node.inputs])
            values.update(zip(node.outputs, outs))
        return [v.data if isinstance(v, Constant) else values[v] for v in fg.outputs]


class MonitorMode(Mode):
    """The default mode's rewrites, run node by node with ``pre_func`` and ``post_func``
    called around each node (see the module docstring).

    Parameters
    ----------
    pre_func, post_func
        ``f(fgraph, i, node, fn)`` (PyTensor's form) or ``f(i, node, fn)`` (Theano's),
        called before and after node ``i`` runs; ``None`` for none.
    optimizer
        The rewrites (``"default"``: those of ``"fast_run"``; ``"fast_compile"``, a
        query, ``None``).
    linker
        Accepted for PyTensor's signature and ignored: this mode runs its own linker.
    db
        Accepted for PyTensor's signature and ignored.

    >>> import numpy as np, theon, theon.tensor as tt
    >>> seen = []
    >>> x = tt.dvector("x")
    >>> f = theon.function([x], tt.exp(x) + 1, mode=MonitorMode(
    ...     post_func=lambda i, node, fn: seen.append((i, fn.outputs[0][0].tolist()))))
    >>> f(np.zeros(2)).tolist(), seen
    ([2.0, 2.0], [(0, [2.0, 2.0])])
    """

    def __init__(self, pre_func: Callback | None = None, post_func: Callback | None = None,
                 optimizer: Any = "default", linker: Any = None, db: Any = None) -> None:
        if optimizer == "default":
            optimizer = "fast_run"
        self.pre_func = pre_func
        self.post_func = post_func
        super().__init__(MonitorLinker(pre_func, post_func), optimizer, name="MonitorMode")

    def __repr__(self) -> str:
        return f"MonitorMode(pre_func={self.pre_func!r}, post_func={self.post_func!r})"

    def eval(self, fgraph: FunctionGraph, i: int, node: Apply, fn: NodeThunk) -> None:
        """Run node ``i`` through ``fn`` between the two callbacks (PyTensor's method)."""
        _step(_with_fgraph(self.pre_func), _with_fgraph(self.post_func), fgraph, i, node, fn)

    def _with_query(self, how: str, tags: tuple[str, ...]) -> Mode:
        return self.clone(optimizer=super()._with_query(how, tags).optimizer)

    def clone(self, link_kwargs: dict[str, Any] | None = None, **kw: Any) -> Mode:
        new = MonitorMode(kw.get("pre_func", self.pre_func), kw.get("post_func", self.post_func),
                          kw.get("optimizer", self.optimizer))
        new.extra_rewriters = self.extra_rewriters
        return new
