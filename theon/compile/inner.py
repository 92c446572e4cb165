"""Compiling the inner graph of an Op (``Scan``'s body, ``OpFromGraph``'s graph).

An Op holding an inner graph compiles it with the same rewrites and linker as an
outer graph, once per mode, and runs the compiled form from ``perform``.  Which
mode: the Op's own ``mode`` when it was given one; else the mode of the
:func:`theon.function` compiling the node, which calls the
:meth:`~theon.graph.op.Op.prepare_node` hook on each node after the rewrites; else
(a graph linked without :func:`theon.function`) ``config.mode``.  Two parts:

- :class:`InnerCompiler`, kept by the Op: that choice of mode, the compiled forms
  cached per :func:`~theon.compile.pipeline.mode_cache_key` (thread-safe), and the
  form each prepared node runs.  What a "compiled form" is belongs to the Op: a
  ``Scan`` keeps a linked runner and its step loops, an ``OpFromGraph`` a
  :func:`theon.function` (its arguments broadcast at run time and its results
  never alias them).
- :func:`rewrite_inner_graph` and :func:`link_inner_graph`: :func:`theon.function`'s
  own steps (a private copy of the graph, no input overwritten, the mode's
  rewrites, ``prepare_node`` on the nested Ops, the mode's linker) for an Op that
  calls the runner itself, and for the JAX rules, which trace the rewritten graph.
- :class:`InnerFunctionGraph`: the inner graph as PyTensor's ``op.fgraph`` attribute, a
  FunctionGraph over the Op's own variables whose copies keep the Op's input
  placeholders (PyTensor's inner inputs are "nominal" variables that copying keeps).

>>> import numpy as np, theon.tensor as tt
>>> from theon.compile.mode import Mode
>>> x = tt.dvector("x")
>>> inner = InnerCompiler(lambda mode: link_inner_graph([x], [2 * x], mode))
>>> inner.for_mode(Mode(linker="vm")).runner(np.array([1.0, 2.0]))
[array([2., 4.])]
>>> inner.for_mode(Mode(linker="vm")) is inner.for_mode(Mode(linker="vm")), len(inner)
(True, 1)
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from theon.compile.compiled import plan_copies
from theon.compile.mode import Mode, get_mode
from theon.compile.pipeline import mode_cache_key, prepare_nodes
from theon.graph.basic import Apply, Variable
from theon.graph.collector import gc_paused
from theon.graph.fg import FunctionGraph
from theon.graph.replace import clone_get_equiv
from theon.link.basic import Runner
from theon.link.tier1 import inner_kinds, link_compilers
from theon.progress import task as progress_task

__all__ = ["InnerCompiler", "InnerFunctionGraph", "LinkedInner", "link_inner_graph",
           "rewrite_inner_graph"]

T = TypeVar("T")


class InnerCompiler(Generic[T]):
    """The compiled forms of one inner graph, one per mode, made by ``build(mode)``.

    Parameters
    ----------
    build
        Compiles the inner graph for a :class:`~theon.compile.mode.Mode`.
    mode
        The Op's own mode (a Mode or a mode name), which wins over the outer
        function's; ``None``: the outer function's, else ``config.mode``.
    """

    def __init__(self, build: Callable[[Mode], T], mode: str | Mode | None = None) -> None:
        self._build = build
        self._own = mode
        self._by_mode: dict[Hashable, T] = {}
        self._by_node: weakref.WeakKeyDictionary[Apply, T] = weakref.WeakKeyDictionary()
        self._default: T | None = None
        self._lock = threading.Lock()

    def __len__(self) -> int:
        """How many modes the graph has been compiled for."""
        return len(self._by_mode)

    def for_mode(self, mode: Mode) -> T:
        """The graph compiled with ``mode`` (compiled once per mode, thread-safe)."""
        key = mode_cache_key(mode)
        got = self._by_mode.get(key)
        if got is None:
            with self._lock:
                got = self._by_mode.get(key)
                if got is None:
                    got = self._by_mode[key] = self._build(mode)
        return got

    def default(self) -> T:
        """The graph compiled with the Op's own mode, else ``config.mode`` (on first use)."""
        got = self._default
        if got is None:
            got = self._default = self.for_mode(get_mode(self._own))
        return got

    @property
    def compiled_default(self) -> T | None:
        """:meth:`default` if it was compiled already, else ``None`` (compiles nothing)."""
        return self._default

    def prepare(self, node: Apply, mode: Mode) -> None:
        """``prepare_node``: ``node`` will run the graph compiled with ``mode``, the
        outer function's mode (the Op's own mode wins when it was given)."""
        self._by_node[node] = self.default() if self._own is not None else self.for_mode(mode)

    def get(self, node: Apply | None = None) -> T:
        """The compiled graph ``perform`` runs for ``node``: the one :meth:`prepare`
        chose for it, else :meth:`default`."""
        got = self._by_node.get(node) if node is not None else None
        return self.default() if got is None else got


def rewrite_inner_graph(
    inputs: Sequence[Variable], outputs: Sequence[Variable], mode: Mode, prepare: bool = True
) -> FunctionGraph:
    """A rewritten private copy of the graph from ``inputs`` to ``outputs``.

    No input may be overwritten (the caller owns them); the mode's rewrites run on
    it, and with ``prepare`` each nested Op's ``prepare_node`` hook gets ``mode``, as
    :func:`theon.function` does (a linker that traces the nested inner graphs
    itself, as JAX's, passes ``prepare=False``).
    """
    with gc_paused(), progress_task("inner graph"):
        fg = FunctionGraph(list(inputs), list(outputs), clone=True)
        fg.mutable_inputs = set()
        fg.protected_inputs = set(fg.inputs)
        rewriter = mode.get_rewriter()
        if rewriter is not None:
            rewriter(fg)
        if prepare:
            prepare_nodes(fg, mode)
    return fg


@dataclass(eq=False)
class LinkedInner:
    """An inner graph rewritten and linked for ``mode``: ``runner(*values)`` is the
    list of its outputs, ``fgraph`` the rewritten graph the runner runs."""

    fgraph: FunctionGraph
    runner: Runner
    mode: Mode

    def viewing_outputs(self) -> tuple[int, ...]:
        """The outputs that may be views of an input (or of a constant or an earlier
        output): a caller that overwrites what they view must copy them first."""
        n = len(self.fgraph.outputs)
        may_alias = plan_copies(self.fgraph, n, [False] * n)[0]
        return tuple(k for k, a in enumerate(may_alias) if a)


def link_inner_graph(
    inputs: Sequence[Variable], outputs: Sequence[Variable], mode: Mode
) -> LinkedInner:
    """:func:`rewrite_inner_graph`, then the mode's linker: the runner of the graph."""
    with gc_paused():
        fg = rewrite_inner_graph(inputs, outputs, mode)
        with link_compilers(inner_kinds()):  # (no whole-graph tier of its own)
            return LinkedInner(fg, mode.linker.make_function(fg), mode)


class InnerFunctionGraph(FunctionGraph):
    """An Op's inner graph as a FunctionGraph over the Op's own variables (not a copy):
    PyTensor's ``op.fgraph``.

    Its copies (:meth:`clone`, :meth:`clone_get_equiv`) copy the nodes but keep the
    inputs, the Op's placeholders, as PyTensor's copies keep its inner graphs' "nominal"
    inputs: a graph built on ``op.inner_inputs`` can be grafted onto a copy, and
    ``copy.replace_all(zip(op.inner_inputs, values))`` substitutes values in it.

    >>> import theon.tensor as tt
    >>> x = tt.dscalar("x")
    >>> fg = InnerFunctionGraph([x], [x * 2])
    >>> c = fg.clone()
    >>> c.inputs[0] is x, c.outputs[0] is fg.outputs[0]
    (True, False)
    """

    def __init__(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
                 update_mapping: dict[int, int] | None = None) -> None:
        super().__init__(list(inputs), list(outputs), clone=False, update_mapping=update_mapping)

    def clone_get_equiv(
        self, check_integrity: bool = True, attach_feature: bool = True
    ) -> tuple[FunctionGraph, dict[Any, Any]]:
        """A copy of the nodes over the same inputs, and the map from this graph's
        variables and nodes to the copy's."""
        equiv = clone_get_equiv(self.inputs, self.outputs, copy_inputs=False)
        fg = InnerFunctionGraph(self.inputs, [equiv[o] for o in self.outputs],
                                update_mapping=self.update_mapping)
        if check_integrity:
            fg.check_integrity()
        if attach_feature:
            for f in self._features:
                try:
                    fg.attach_feature(f.clone())
                except (TypeError, NotImplementedError):
                    continue
        return fg, equiv
