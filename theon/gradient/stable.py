"""Differentiate the stable form: :func:`grad` first rewrites the cost with the stabilize phase.

A stabilization (``log(1 + exp(x)) -> softplus(x)``, ``log(softmax(x)) ->
log_softmax(x)``, ...) replaces an expression by an equal one that does not
overflow or cancel.  Rewriting only the forward graph at compile time is not
enough: the gradient graph was built from the unstable form (``exp(x) / (1 +
exp(x))`` is ``inf / inf`` at x = 1000) and no longer contains the pattern.  So
the backward walk differentiates the stabilized form instead; the derivative
rules of the stable ops (``softplus' = sigmoid``) are stable themselves.

The rewrite runs on a private copy of the graph between the *cut* variables
(the ``wrt`` and ``consider_constant`` variables, which must stay in the graph
as themselves) and the seeds.  When no stabilization applies, the user's own
graph is differentiated, untouched.

>>> import theon, theon.tensor as tt
>>> x = tt.dscalar("x")
>>> g = theon.grad(tt.log(1 + tt.exp(x)), x)
>>> float(g.eval({x: 1000.0}))
1.0
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import Any

from theon.graph.basic import Constant, Variable
from theon.graph.fg import FunctionGraph, Output
from theon.graph.replace import clone_get_equiv
from theon.graph.traversal import io_toposort
from theon.rewriting.db import RewriteQuery, resolve_rewriter
from theon.tensor.random.type import RandomGeneratorType

from ._typeutil import add_terms

__all__ = ["GRAD_STABILIZE_QUERY", "stable_seeds"]

#: The rewrites run on the cost before differentiating it: the stabilize phase
#: (with merge, which lets a pattern spelled with two equal nodes be found:
#: ``exp(x) / sum(exp(x))``), without constant folding.
GRAD_STABILIZE_QUERY = RewriteQuery(include=("stabilize",), exclude=("constant_folding",))
#: Fires of these rewrites alone do not make the copy worth differentiating.
_NEUTRAL = frozenset({"merge"})

def _get_stabilizer() -> Any:
    """The stabilize-phase rewriter.  The rewrite database caches it, and drops its
    cache when a module registers more rewrites (``theon.tensor.linalg``, imported
    after a first ``grad``, adds its stabilizations), so it is not kept here."""
    return resolve_rewriter(GRAD_STABILIZE_QUERY)


def stable_seeds(
    seeds: dict[Variable, Variable], cuts: Iterable[Variable]
) -> dict[Variable, Variable]:
    """``seeds`` (variable -> its gradient) with each variable replaced by its stable form.

    ``cuts`` are kept as they are (the copy reads them, it never looks past
    them).  Returns ``seeds`` itself when no stabilization applies.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> cost = tt.log(tt.special.softmax(x))[0]
    >>> (new,) = stable_seeds({cost: tt.constant(1.0)}, [x])
    >>> new is cost, str(new.owner.inputs[0].owner.op)
    (False, 'LogSoftmax{axis=0}')
    """
    keys = list(seeds)
    cut_set = set(cuts)
    stabilizer = _get_stabilizer()
    # Cuts that are graph inputs stop the walk where it stops anyway, so the stable form
    # of one cost is the same for every such ``wrt``: PyMC's ``gradient`` calls ``grad``
    # once per variable of one cost, and rewriting the whole cost each time made that
    # quadratic. Kept per cost, with the rewriter that made it (a module that registers
    # more rewrites makes a new one).
    cacheable = (len(keys) == 1 and keys[0].owner is not None
                 and all(v.owner is None for v in cut_set))
    if cacheable:
        hit = _CACHE.get(keys[0])
        if hit is not None and hit[0] is stabilizer:
            return _with_seeds(seeds, keys, hit[1]) if hit[1] else seeds
    new_keys = _stable_keys(keys, cut_set, stabilizer)
    if cacheable:
        _CACHE[keys[0]] = (stabilizer, new_keys)
    return _with_seeds(seeds, keys, new_keys) if new_keys else seeds


#: the stable form of a cost (None: none applies) and the rewriter that found it
_CACHE: weakref.WeakKeyDictionary[Variable, tuple[Any, list[Variable] | None]] = (
    weakref.WeakKeyDictionary())


def _with_seeds(seeds: dict[Variable, Variable], keys: list[Variable],
                new_keys: list[Variable]) -> dict[Variable, Variable]:
    """The seeds' gradients on the stable forms ``new_keys`` of ``keys`` (summed where
    two keys have one stable form)."""
    out: dict[Variable, Variable] = {}
    for k, new in zip(keys, new_keys):
        g = seeds[k]
        out[new] = add_terms([out[new], g]) if new in out else g
    return out


def _stable_keys(keys: list[Variable], cut_set: set[Variable], stabilizer: Any
                 ) -> list[Variable] | None:
    """The stable forms of ``keys`` (a private rewritten copy of their graph above
    ``cut_set``), or None when no stabilization applies."""
    nodes = io_toposort(cut_set, keys)
    if not nodes:
        return None
    # a random draw is not copied (a copy would be a second draw): the copy reads it
    draws = [o for n in nodes if any(isinstance(i.type, RandomGeneratorType)
                                     for i in n.inputs) for o in n.outputs]
    if draws:
        cut_set.update(draws)
        nodes = io_toposort(cut_set, keys)
    # cut variables computed by the graph become placeholder inputs of the copy
    memo: dict[Any, Any] = {}
    back: dict[Variable, Variable] = {}
    leaves: dict[Variable, None] = {}
    for node in nodes:
        for v in node.inputs:
            if v in memo or v in leaves or isinstance(v, Constant):
                continue
            if v in cut_set and v.owner is not None:
                ph = v.type()
                ph.name = v.name
                memo[v] = ph
                back[ph] = v
            elif v.owner is None:
                leaves[v] = None
    for k in keys:
        if k.owner is None and not isinstance(k, Constant):
            leaves[k] = None  # a seed on a graph input (a state a loop passes through)
        elif k in cut_set and k.owner is not None and k not in memo:
            ph = k.type()
            ph.name = k.name
            memo[k] = ph
            back[ph] = k
    equiv = clone_get_equiv(
        list(cut_set), keys, copy_inputs=False, copy_orphans=False, memo=memo
    )
    fg = FunctionGraph([*leaves, *back], [equiv.get(k, k) for k in keys], clone=False)
    fires = stabilizer(fg).fires
    if not any(n for name, n in fires.items() if name not in _NEUTRAL):
        return None
    # the copy's nodes are private: point their placeholder inputs at the real variables
    for ph, v in back.items():
        for node, i in list(fg.clients.get(ph, ())):
            node.inputs[i] = v
            if isinstance(node.op, Output):
                fg.outputs[node.op.idx] = v
    return list(fg.outputs)
