"""Rewrites of random draws: draw in place, and drop a draw nobody uses.

Draws are never merged with each other (two draws from two generators are two
draws; two nodes reading the same generator would give the same numbers anyway)
and never constant-folded (``RandomVariable.do_constant_folding`` is False).  The
draw's shape is known without a rewrite: ``RandomVariable.infer_shape`` broadcasts
the parameters when ``size`` is None.

``random_make_inplace`` (inplace phase)
    ``RandomVariable(inplace=False)`` -> ``inplace=True`` when the DestroyHandler
    lets the node advance its input generator instead of a copy of it: the input
    is an intermediate generator (the ``next_rng`` of an earlier draw that nothing
    else reads).  A generator that is an input of the function is never advanced in
    place, even one declared ``mutable`` (the caller's generator keeps its state,
    the contract of ``tests/tensor/random/test_api.py``), and a shared variable's
    generator never is (updates are stored after the call): the first draw from
    it copies it.  The numbers are the same as without the rewrite.
``remove_unused_draw`` (canonicalize phase)
    A draw whose value nobody reads and whose ``next_rng`` is only stored back
    into the generator it was drawn from (an update) is removed: the update then
    stores the generator unchanged, i.e. the generator is not advanced.  This is
    what happens to a Theano stream's unused draw (it is not in the graph at all).
    A ``next_rng`` read by anything else (a later draw, an output) keeps the draw,
    and so does a draw from an intermediate generator (the last, unused draw of a
    chain still advances the generator, as NumPy would).  Without rewrites
    (``optimizer=None``) the unused draw runs and the generator does advance.

>>> import numpy as np
>>> import theon
>>> import theon.tensor.random as tr
>>> rng = theon.shared(np.random.default_rng(3))
>>> r1, x = tr.normal(0.0, 1.0, size=(2,), rng=rng, return_next_rng=True)
>>> r2, y = tr.normal(0.0, 1.0, size=(2,), rng=r1, return_next_rng=True)
>>> f = theon.function([], x + y, updates={rng: r2})
>>> sorted(str(n.op) for n in f.maker.fgraph.toposort() if "normal" in str(n.op))
['normal_rv{float64, inplace}', 'normal_rv{float64}']
"""

from __future__ import annotations

from theon.graph.basic import Apply, Constant
from theon.graph.destroyhandler import can_destroy, ensure_destroy_handler
from theon.graph.fg import FunctionGraph, Output
from theon.rewriting.basic import GraphRewriter, Replacement, apply_replacements, node_rewriter
from theon.rewriting.db import register_canonicalize, rewrite_db
from theon.scalar.basic import Cast
from theon.tensor.elemwise import Elemwise
from theon.tensor.random.op import DTYPE_DRAWS, RandomVariable
from theon.tensor.type import tensor_type

__all__ = ["RandomMakeInplace", "remove_unused_draw"]


class RandomMakeInplace(GraphRewriter):
    """``RandomVariable(inplace=False)`` -> ``inplace=True`` where the rng may be destroyed."""

    name = "random_make_inplace"

    def add_requirements(self, fgraph: FunctionGraph) -> None:
        ensure_destroy_handler(fgraph, fgraph.mutable_inputs)

    def apply(self, fgraph: FunctionGraph) -> None:
        for node in fgraph.toposort():
            if node not in fgraph.apply_nodes:
                continue
            op = node.op
            if not isinstance(op, RandomVariable) or op.inplace:
                continue
            rng = node.inputs[0]
            if rng.owner is None or isinstance(rng, Constant):
                continue  # a function input: the caller's (or shared) generator
            if not can_destroy(fgraph, node, 0):
                continue
            new_node = op.clone_with(inplace=True).make_node(*node.inputs)
            apply_replacements(fgraph, list(zip(node.outputs, new_node.outputs)), self, node)


@node_rewriter([RandomVariable])
def remove_unused_draw(fgraph: FunctionGraph, node: Apply) -> Replacement:
    """``(next_rng, x) = draw(rng)`` with x unused, next_rng only updating rng -> rng."""
    rng, next_rng, draw = node.inputs[0], node.outputs[0], node.outputs[1]
    if fgraph.clients.get(draw):
        return None
    clients = fgraph.clients.get(next_rng, ())
    if not clients:
        return None
    in_pos = {id(v): k for k, v in enumerate(fgraph.inputs)}
    for c, _ in clients:
        if not isinstance(c.op, Output):
            return None
        # only an update of the generator the draw reads: rng := next_rng
        k = fgraph.update_mapping.get(c.op.idx)
        if k is None or in_pos.get(id(rng)) != k:
            return None
    return {next_rng: rng}


@node_rewriter([Elemwise])
def local_cast_of_draw(fgraph: FunctionGraph, node: Apply) -> Replacement:
    """``cast(draw{int}(rng, ...), float) -> draw{float}(rng, ...)``.

    A random variable draws with NumPy and casts the result to its dtype, so an
    integer draw that is only cast to a float type equals the same draw made with
    that float dtype (not for ``integers``, whose numbers depend on the dtype): the
    one conversion moves into the draw (a dropout mask ``binomial(...) * 2.0`` is
    then drawn as floats, with no separate pass).
    """
    if not isinstance(node.op.scalar_op, Cast):
        return None
    x = node.inputs[0]
    owner = x.owner
    if owner is None or not isinstance(owner.op, RandomVariable) or x is not owner.outputs[1]:
        return None
    target = tensor_type(node.outputs[0]).dtype
    if (owner.op.dtype[:1] not in "iu" or target[:1] != "f" or len(fgraph.clients[x]) != 1
            or owner.op.method in DTYPE_DRAWS):
        return None
    new = owner.op.clone_with(dtype=target).make_node(*owner.inputs)
    if new.outputs[1].type != node.outputs[0].type:
        return None
    return {node.outputs[0]: new.outputs[1], owner.outputs[0]: new.outputs[0]}


register_canonicalize(remove_unused_draw, "random")
register_canonicalize(local_cast_of_draw, "random")
rewrite_db.register("random_make_inplace", RandomMakeInplace(), "fast_run", "inplace",
                    "random", phase="inplace")
