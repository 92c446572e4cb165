"""``pytensor.graph.rewriting.basic`` spelled ``theon.graph.rewriting.basic``.

>>> import numpy as np, theon, theon.tensor as pt
>>> from theon.graph.rewriting.basic import node_rewriter, in2out
>>> @node_rewriter([pt.exp])
... def exp_of_log(fgraph, node):
...     (x,) = node.inputs
...     if x.owner is not None and x.owner.op == pt.log:
...         return [x.owner.inputs[0]]
...     return None
>>> exp_of_log.name
'exp_of_log'
"""

from __future__ import annotations

from collections.abc import Sequence

from theon.graph.basic import Variable
from theon.rewriting.basic import (
    FromFunctionGraphRewriter,
    FromFunctionNodeRewriter,
    GraphRewriter,
    NodeRewriter,
    RewriteError,
    RewriteStats,
    SequentialGraphRewriter,
    SequentialNodeRewriter,
    SubstitutionNodeRewriter,
    graph_rewriter,
    node_rewriter,
)
from theon.rewriting.merge import (
    ConstantFolding,
    MergeFeature,
    MergeRewriter,
    constant_folding,
    merge_rewriter,
    unconditional_constant_folding,
)
from theon.rewriting.pattern import PatternNodeRewriter
from theon.rewriting.walkers import (
    EquilibriumGraphRewriter,
    WalkingGraphRewriter,
    dfs_rewriter,
    in2out,
    out2in,
)

__all__ = [
    "ConstantFolding",
    "EquilibriumGraphRewriter",
    "FromFunctionGraphRewriter",
    "FromFunctionNodeRewriter",
    "GraphRewriter",
    "MergeFeature",
    "MergeOptimizer",
    "NodeRewriter",
    "PatternNodeRewriter",
    "RewriteError",
    "RewriteStats",
    "SequentialGraphRewriter",
    "SequentialNodeRewriter",
    "SubstitutionNodeRewriter",
    "WalkingGraphRewriter",
    "constant_folding",
    "copy_stack_trace",
    "dfs_rewriter",
    "graph_rewriter",
    "in2out",
    "merge_optimizer",
    "node_rewriter",
    "out2in",
    "unconditional_constant_folding",
]

#: PyTensor's (and Theano's) name of the merge rewriter class, and of its instance
MergeOptimizer = MergeRewriter
merge_optimizer = merge_rewriter


def copy_stack_trace(
    from_var: Variable | Sequence[Variable], to_var: Variable | Sequence[Variable]
) -> None:
    """Give ``to_var`` the place in the user's code where ``from_var`` was built, so that
    errors about a rewritten variable still point there (the first source found wins).

    >>> import theon.tensor as pt
    >>> x = pt.dvector("x")
    >>> y = pt.exp(x)
    >>> z = pt.log(x)
    >>> copy_stack_trace(y, z)
    >>> z.tag.trace == y.tag.trace
    True
    """
    sources = [from_var] if isinstance(from_var, Variable) else list(from_var)
    targets = [to_var] if isinstance(to_var, Variable) else list(to_var)
    trace = next(
        (t for t in (getattr(s.tag, "trace", None) for s in sources) if t is not None), None
    )
    if trace is None:
        return
    for t in targets:
        t.tag.trace = trace
