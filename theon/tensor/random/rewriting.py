"""Rewrites of random draws.

Registered in theon's pipeline (tag ``"random"``):

``random_make_inplace`` (inplace phase)
    ``RandomVariable(inplace=False)`` -> ``inplace=True`` when the DestroyHandler
    lets the node advance its input generator instead of a copy of it: the input
    is an intermediate generator (the ``next_rng`` of an earlier draw that nothing
    else reads).  A generator that is an input of the function is never advanced in
    place, even one declared ``mutable`` (the caller's generator keeps its state),
    and a shared variable's generator never is (updates are stored after the call):
    the first draw from it copies it.  The numbers are the same as without it.
``remove_unused_draw`` (canonicalize)
    A draw whose value nobody reads and whose ``next_rng`` is only stored back
    into the generator it was drawn from (an update) is removed: the update then
    stores the generator unchanged.  A ``next_rng`` read by anything else keeps the
    draw, and so does a draw from an intermediate generator.
``local_cast_of_draw`` (canonicalize)
    ``cast(draw{int}, float) -> draw{float}`` for theon's distributions whose numbers
    do not depend on the dtype.

Not registered, as in PyTensor (PyMC's logprob database uses them): the *lifts*,
which move an operation on a draw into its parameters.  The lifted draw has the same
distribution; it reads the same generator, so its numbers are those NumPy draws with
the lifted parameters (:func:`local_rv_size_lift` keeps the numbers themselves).

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

from typing import Any, cast

import numpy as np

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.destroyhandler import can_destroy, ensure_destroy_handler
from theon.graph.fg import FunctionGraph
from theon.rewriting.basic import GraphRewriter, Replacement, apply_replacements, node_rewriter
from theon.rewriting.db import register_canonicalize, rewrite_db
from theon.scalar.basic import Cast
from theon.tensor.advanced_subtensor import AdvancedSubtensor
from theon.tensor.basic import as_tensor_variable, constant
from theon.tensor.elemwise import DimShuffle, Elemwise
from theon.tensor.random.op import RandomVariable
from theon.tensor.random.shapes import is_none_size
from theon.tensor.shape import Shape, Shape_i, make_vector, shape_scalars
from theon.tensor.subtensor import FULL, SYM, Subtensor, slice_parts
from theon.tensor.type import tensor_type

__all__ = [
    "RandomMakeInplace",
    "local_cast_of_draw",
    "local_dimshuffle_rv_lift",
    "local_rv_size_lift",
    "local_subtensor_rv_lift",
    "remove_unused_draw",
]


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
            new_node = op.clone(inplace=True).make_node(*node.inputs)
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
    for c, j in clients:
        out = _output_index(fgraph, c, j)
        if out is None:
            return None
        # only an update of the generator the draw reads: rng := next_rng
        k = fgraph.update_mapping.get(out)
        if k is None or in_pos.get(id(rng)) != k:
            return None
    return {next_rng: rng}


def _output_index(fgraph: FunctionGraph, client: Any, j: int) -> int | None:
    """The output index of a client that marks a graph output (an output node outside
    ``apply_nodes``, or the older ``("output", j)`` form); None for a node reading it."""
    if isinstance(client, Apply):
        if client in fgraph.apply_nodes:
            return None
        idx = getattr(client.op, "idx", None)
        return idx if isinstance(idx, int) else None
    return j


def _dtype_free(op: RandomVariable) -> bool:
    """Whether the draw's numbers do not depend on its dtype: theon's own distributions
    (drawn in NumPy's dtype and cast), except ``integers``."""
    from theon.tensor.random.basic import IntegersRV

    cls = type(op)
    return cls.__module__ == "theon.tensor.random.basic" and cls is not IntegersRV


@node_rewriter([Elemwise])
def local_cast_of_draw(fgraph: FunctionGraph, node: Apply) -> Replacement:
    """``cast(draw{int}(rng, ...), float) -> draw{float}(rng, ...)``.

    A distribution of theon draws with NumPy and casts the result to its dtype, so an
    integer draw that is only cast to a float type equals the same draw made with that
    float dtype (not for ``integers``, whose numbers depend on the dtype): the one
    conversion moves into the draw (a dropout mask ``binomial(...) * 2.0`` is then
    drawn as floats, with no separate pass).
    """
    if not isinstance(cast(Elemwise, node.op).scalar_op, Cast):
        return None
    x = node.inputs[0]
    owner = x.owner
    if owner is None or not isinstance(owner.op, RandomVariable) or x is not owner.outputs[1]:
        return None
    target = tensor_type(node.outputs[0]).dtype
    op = owner.op
    if (str(op.dtype)[:1] not in "iu" or target[:1] != "f" or len(fgraph.clients[x]) != 1
            or not _dtype_free(op)):
        return None
    new = op.clone(dtype=target).make_node(*owner.inputs)
    if new.outputs[1].type != node.outputs[0].type:
        return None
    return {node.outputs[0]: new.outputs[1], owner.outputs[0]: new.outputs[0]}


register_canonicalize(remove_unused_draw, "random")
register_canonicalize(local_cast_of_draw, "random")
rewrite_db.register("random_make_inplace", RandomMakeInplace(), "fast_run", "inplace",
                    "random", phase="inplace")


# -- the lifts (not registered) ---------------------------------------------------------
def _used_elsewhere(rv: Variable, node: Apply, fgraph: FunctionGraph) -> bool:
    """Whether a node other than ``node`` reads the draw's values (its shape doesn't)."""
    return any(c is not node and not (isinstance(c, Apply) and isinstance(c.op, (Shape,
                                                                                Shape_i)))
               for c, _ in fgraph.clients.get(rv, ()))


def _fits(old: Variable, new: Variable) -> bool:
    return bool(old.type == new.type or old.type.is_super(new.type))


@node_rewriter(None)
def local_rv_size_lift(fgraph: FunctionGraph, node: Apply) -> Replacement:
    """``rv(*params, size=s) -> rv(*broadcast_to(params, s + core shapes), size=None)``.

    The same numbers: NumPy draws the broadcast shape's elements in the same order
    whether it comes from ``size`` or from the parameters.
    """
    op = node.op
    if not isinstance(op, RandomVariable):
        return None
    rng, size, *params = node.inputs
    if is_none_size(size):
        return None
    from theon.tensor.creation import broadcast_to

    lengths = list(shape_scalars(size))
    new_params = []
    for p, nd in zip(params, op.ndims_params):
        tp = as_tensor_variable(p)
        core = list(shape_scalars(tp.shape))[tp.type.ndim - nd:] if nd else []
        new_params.append(broadcast_to(tp, lengths + core))
    new = op.make_node(rng, None, *new_params)
    if not _fits(node.outputs[1], new.outputs[1]):
        return None
    return list(new.outputs)


@node_rewriter([DimShuffle])
def local_dimshuffle_rv_lift(fgraph: FunctionGraph, node: Apply) -> Replacement:
    """``rv(*params).dimshuffle(order) -> rv(*[p.dimshuffle(order + core) ...])`` when the
    order keeps the support dimensions last and drops nothing (e.g. ``normal(mu, s).T ==
    normal(mu.T, s.T)`` in distribution); a given ``size`` is reordered the same way."""
    ds = cast(DimShuffle, node.op)
    rv = node.inputs[0]
    rv_node = rv.owner
    if ds.drop or rv_node is None or not isinstance(rv_node.op, RandomVariable):
        return None
    op = rv_node.op
    if rv is not rv_node.outputs[1] or _used_elsewhere(rv, node, fgraph):
        return None
    rng, size, *params = rv_node.inputs
    nb = op.batch_ndim(rv_node)
    order = list(ds.new_order)
    supp = list(range(nb, nb + op.ndim_supp))
    if op.ndim_supp and order[len(order) - op.ndim_supp:] != supp:
        return None
    batch_order = order[: len(order) - op.ndim_supp]
    if any(o != "x" and int(o) >= nb for o in batch_order):
        return None
    tparams = [as_tensor_variable(p) for p in params]
    if any(p.type.ndim - nd != nb for p, nd in zip(tparams, op.ndims_params)):
        return None  # a node not built by make_node (parameters without all batch axes)
    new_size: Any = size
    if not is_none_size(size):
        lengths = list(shape_scalars(size))
        new_size = make_vector(*[constant(np.int64(1)) if o == "x" else lengths[int(o)]
                                 for o in batch_order])
    new_params = [p.dimshuffle(*batch_order, *range(nb, nb + nd))
                  for p, nd in zip(tparams, op.ndims_params)]
    new = op.make_node(rng, new_size, *new_params)
    if not _fits(node.outputs[0], new.outputs[1]):
        return None
    if rv.name:
        new.outputs[1].name = f"{rv.name}_lifted"
    return {node.outputs[0]: new.outputs[1], rv_node.outputs[0]: new.outputs[0]}


def _entries(node: Apply) -> list[Any] | None:
    """The index of a (basic or advanced) subtensor node as Python parts: ints, scalar
    Variables, slices (of ints, None and Variables), index Variables and ``None``."""
    idx_list = cast(Any, node.op).idx_list
    it = iter(node.inputs[1:])
    out: list[Any] = []
    for e in idx_list:
        if isinstance(e, slice):
            out.append(slice(*(next(it) if p == SYM else p for p in slice_parts(e))))
        elif e == SYM:
            out.append(next(it))
        else:
            out.append(e)
    return out


def _is_array_index(e: Any) -> bool:
    return isinstance(e, Variable) and tensor_type(e).ndim >= 1


@node_rewriter([Subtensor, AdvancedSubtensor])
def local_subtensor_rv_lift(fgraph: FunctionGraph, node: Apply) -> Replacement:
    """``rv(*params)[idx] -> rv(*[p[idx'] ...])`` when ``idx`` indexes only batch
    dimensions (ints, slices and boolean masks; no integer arrays, which could repeat a
    draw, nor new axes): e.g. ``normal(mu, s)[0] == normal(mu[0], s[0])`` in
    distribution.  A parameter broadcast along a dimension is indexed there by ``0`` (or
    kept whole, for a slice); a given ``size`` becomes the indexed draw's batch shape."""
    rv = node.inputs[0]
    rv_node = rv.owner
    if rv_node is None or not isinstance(rv_node.op, RandomVariable):
        return None
    op = rv_node.op
    if rv is not rv_node.outputs[1] or _used_elsewhere(rv, node, fgraph):
        return None
    entries = _entries(node)
    if entries is None or any(e is None for e in entries):
        return None
    if any(_is_array_index(e) and tensor_type(e).dtype != "bool" for e in entries):
        return None
    nb = op.batch_ndim(rv_node)
    width = [tensor_type(e).ndim if _is_array_index(e) else 1 for e in entries]
    while sum(width) > nb and entries and isinstance(entries[-1], slice) and (
            slice_parts(entries[-1]) == slice_parts(FULL)):
        entries, width = entries[:-1], width[:-1]
    if sum(width) > nb:
        return None  # indexes a support dimension
    rng, size, *params = rv_node.inputs
    tparams = [as_tensor_variable(p) for p in params]
    if any(p.type.ndim - nd != nb for p, nd in zip(tparams, op.ndims_params)):
        return None
    rv_t = tensor_type(rv)
    new_size: Any = size
    if not is_none_size(size):
        in_shapes = [list(op._infer_shape(size, params))] + [
            list(shape_scalars(as_tensor_variable(i).shape)) for i in node.inputs[1:]]
        (out_shape,) = cast(Any, node.op).infer_shape(node, in_shapes)
        out_shape = list(out_shape)
        new_size = make_vector(*out_shape[: len(out_shape) - op.ndim_supp])
    new_params = []
    for p in tparams:
        bcast = {d for d in range(nb) if p.type.shape[d] == 1 and rv_t.shape[d] != 1}
        idx: list[Any] = []
        d = 0
        for e, w in zip(entries, width):
            dims = set(range(d, d + w))
            if _is_array_index(e) and dims & bcast:
                parts = list(as_tensor_variable(e).nonzero())
                idx.extend(0 if (d + k) in bcast else part for k, part in enumerate(parts))
            elif dims & bcast:
                idx.append(slice(None) if isinstance(e, slice) else 0)
            else:
                idx.append(e)
            d += w
        new_params.append(p[tuple(idx)] if idx else p)
    new = op.make_node(rng, new_size, *new_params)
    if not _fits(node.outputs[0], new.outputs[1]):
        return None
    return {node.outputs[0]: new.outputs[1], rv_node.outputs[0]: new.outputs[0]}

