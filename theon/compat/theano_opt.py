"""Theano's ``theano.gof.opt``: its optimizer names for theon's rewriters.

Theano's local optimizers look at one node: ``transform(node)`` and functions
``f(node)`` decorated with ``@local_optimizer([...])``; theon's (and PyTensor's)
also get the FunctionGraph, ``(fgraph, node)``.  Both forms are accepted: the
form is read once from the signature, when the function is decorated or the
class is defined.

>>> import theon, theon.tensor as T
>>> from theon.gof import opt
>>> @opt.local_optimizer([T.neg])
... def neg_neg(node):
...     (x,) = node.inputs
...     if x.owner is not None and x.owner.op == T.neg:
...         return [x.owner.inputs[0]]
...     return False
>>> from theon.gof.fg import FunctionGraph
>>> v = T.dvector("v")
>>> fg = FunctionGraph([v], [-(-v)], clone=False)
>>> _ = opt.TopoOptimizer(neg_neg).optimize(fg)
>>> fg.outputs[0] is v
True
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from theon.graph.basic import Apply
from theon.graph.fg import FunctionGraph
from theon.graph.rewriting.basic import copy_stack_trace
from theon.rewriting.basic import (
    FromFunctionNodeRewriter,
    GraphRewriter,
    NodeRewriter,
    SequentialGraphRewriter,
    node_rewriter,
)
from theon.rewriting.merge import MergeRewriter
from theon.rewriting.pattern import PatternNodeRewriter
from theon.rewriting.walkers import EquilibriumGraphRewriter, WalkingGraphRewriter, in2out, out2in

__all__ = [
    "EquilibriumOptimizer",
    "GlobalOptimizer",
    "LocalOptimizer",
    "MergeOptimizer",
    "Optimizer",
    "PatternSub",
    "SeqOptimizer",
    "TopoOptimizer",
    "copy_stack_trace",
    "in2out",
    "local_optimizer",
    "out2in",
]


def _takes_node_only(fn: Callable[..., Any], bound: bool) -> bool:
    """Whether ``fn`` has Theano's one-argument form ``(node)`` (``(self, node)`` if bound)."""
    params = [
        p for p in inspect.signature(fn).parameters.values()
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
    ]
    return len(params) == (2 if bound else 1)


class Optimizer(GraphRewriter):
    """Theano's global optimizer: define ``apply(fgraph)``; ``optimize(fgraph)`` runs it."""

    def optimize(self, fgraph: FunctionGraph) -> Any:
        """Attach the requirements and apply (Theano's spelling of ``rewrite``)."""
        return self.rewrite(fgraph)


GlobalOptimizer = Optimizer


class LocalOptimizer(NodeRewriter):
    """Theano's local optimizer: define ``transform(node)`` (or ``transform(fgraph, node)``)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        t = cls.__dict__.get("transform")
        if t is not None and _takes_node_only(t, bound=True):

            @functools.wraps(t)
            def transform(self: Any, fgraph: FunctionGraph, node: Apply) -> Any:
                return t(self, node)

            cls.transform = transform  # type: ignore[method-assign]


def local_optimizer(
    tracks: Sequence[Any] | None, inplace: bool = False, requirements: Sequence[Any] = ()
) -> Callable[[Callable[..., Any]], FromFunctionNodeRewriter]:
    """Theano's decorator of a local optimizer function ``f(node)`` or ``f(fgraph, node)``."""

    def deco(fn: Callable[..., Any]) -> FromFunctionNodeRewriter:
        if _takes_node_only(fn, bound=False):

            @functools.wraps(fn)
            def with_fgraph(fgraph: FunctionGraph, node: Apply) -> Any:
                return fn(node)

            return node_rewriter(tracks, inplace=inplace, requirements=requirements)(with_fgraph)
        return node_rewriter(tracks, inplace=inplace, requirements=requirements)(fn)

    return deco


class TopoOptimizer(WalkingGraphRewriter, Optimizer):
    """Theano's ``TopoOptimizer(local_opt, order='in_to_out')``: walk the graph once."""

    def __init__(
        self, local_opt: NodeRewriter, order: str = "in_to_out", ignore_newtrees: bool = False,
        failure_callback: Any = None, name: str | None = None,
    ) -> None:
        super().__init__([local_opt], order, ignore_newtrees, name=name)


class EquilibriumOptimizer(EquilibriumGraphRewriter, Optimizer):
    """Theano's ``EquilibriumOptimizer(optimizers, max_use_ratio)``: rewrite to a fixed point."""

    def __init__(
        self, optimizers: Iterable[Any], max_use_ratio: float | None = None, **kwargs: Any
    ) -> None:
        kw: dict[str, Any] = {} if max_use_ratio is None else {"max_use_ratio": max_use_ratio}
        if "name" in kwargs:
            kw["name"] = kwargs["name"]
        super().__init__(list(optimizers), **kw)


class SeqOptimizer(SequentialGraphRewriter, Optimizer):
    """Theano's ``SeqOptimizer(opt1, opt2, ...)``: the optimizers one after the other."""

    def __init__(self, *opts: Any, **kwargs: Any) -> None:
        if len(opts) == 1 and isinstance(opts[0], (list, tuple)):
            opts = tuple(opts[0])
        super().__init__(list(opts), name=kwargs.get("name"))


class MergeOptimizer(MergeRewriter, Optimizer):
    """Theano's ``MergeOptimizer``: merge equal computations."""


#: Theano's name of the pattern rewriter: ``PatternSub((T.neg, (T.neg, 'x')), 'x')``
PatternSub = PatternNodeRewriter
