"""``Blockwise``: an Op applied over leading batch dimensions, by its gufunc signature.

A *core* Op works on arrays of fixed rank, described by a NumPy gufunc signature
such as ``"(m,m),(m)->(m)"`` (a matrix and a vector give a vector).
``Blockwise(core_op, signature)`` applies it to inputs with any number of extra
leading *batch* dimensions; the batch dimensions broadcast against each other
as in NumPy, and each output has the broadcast batch shape followed by its core
dimensions.  Shapes, gradients and forward derivatives come from the core Op's
(``infer_shape``, ``L_op``, ``R_op``), the derivative graphs batched with
:func:`theon.graph.replace.vectorize_graph`.  ``perform`` runs the core Op once
per batch index; Ops with a batching rule of their own never need it.

:func:`vectorize` is the ``np.vectorize(..., signature=...)`` of graphs: it
batches a Python function building a graph for one example.

>>> import numpy as np, theon.tensor as tt
>>> from theon.tensor.blockwise import Blockwise
>>> x = tt.dtensor3("x")
>>> y = Blockwise(tt.sort(tt.dvector()).owner.op, "(n)->(n)")(x)
>>> y.eval({x: np.array([[[3.0, 1.0, 2.0]], [[0.0, -1.0, 5.0]]])})
array([[[ 1.,  2.,  3.]],
<BLANKLINE>
       [[-1.,  0.,  5.]]])
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.fg import describe
from theon.graph.null_type import NullType
from theon.graph.op import Op
from theon.graph.traversal import ancestors
from theon.graph.type import Type
from theon.graph.vectorize import vectorize_graph, vectorize_graph_levels
from theon.link.registry import register_linker_backend as _register_linker_backend
from theon.tensor.basic import as_tensor_variable, constant
from theon.tensor.type import TensorType, tensor_type

__all__ = ["Blockwise", "parse_signature", "vectorize"]

Sig = tuple[tuple[str, ...], ...]

_DIM = r"\w+"
_CORE = rf"\((?:{_DIM}(?:,{_DIM})*)?\)"
_ARGS = rf"(?:{_CORE}(?:,{_CORE})*)?"
_SIGNATURE = re.compile(rf"^{_ARGS}->{_ARGS}$")


def parse_signature(signature: str) -> tuple[Sig, Sig]:
    """The core dimension names of each input and output of a gufunc signature.

    >>> parse_signature("(m,n),(n)->(m)")
    ((('m', 'n'), ('n',)), (('m',),))
    """
    sig = signature.replace(" ", "")
    if not _SIGNATURE.match(sig):
        raise ValueError(f"not a gufunc signature: {signature!r} (e.g. '(m,n),(n)->(m)')")
    ins, outs = sig.split("->")

    def args(text: str) -> Sig:
        return tuple(
            tuple(d for d in core.split(",") if d) for core in re.findall(r"\(([^)]*)\)", text)
        )

    return args(ins), args(outs)


def _is_tensor(v: Variable) -> bool:
    return isinstance(v.type, TensorType)


def _batch_shape(types: Sequence[tuple[int | None, ...]], nb: int, op: Any) -> tuple[
    int | None, ...
]:
    """The static broadcast of batch shapes (right-aligned); None where unknown."""
    out: list[int | None] = []
    for p in range(nb):
        dims = [t[p - (nb - len(t))] for t in types if p >= nb - len(t)]
        known = {d for d in dims if d is not None and d != 1}
        if len(known) > 1:
            raise ValueError(
                f"{op}: the batch dimensions of the inputs do not broadcast: "
                f"static batch shapes {[tuple(t) for t in types]}"
            )
        if known:
            out.append(known.pop())
        elif any(d is None for d in dims):
            out.append(None)
        else:
            out.append(1)
    return tuple(out)


class Blockwise(Op):
    """``core_op`` applied over the leading batch dimensions of its inputs.

    Parameters
    ----------
    core_op
        The Op computing one block (its inputs have the core ranks of ``signature``).
    signature
        A NumPy gufunc signature, ``"(m,m),(m)->(m)"``; by default the core Op's
        ``gufunc_signature``.

    A core Op whose NumPy routine takes stacks of blocks may define
    ``perform_batched(core_node, inputs, batch_shape)``: the inputs broadcast to the
    batch shape, returning the list of outputs (or ``None`` to be run block by block).

    Examples
    --------
    >>> import numpy as np, theon.tensor as tt
    >>> core = tt.dot(tt.dmatrix(), tt.dvector()).owner.op
    >>> A, b = tt.dtensor3("A"), tt.dvector("b")
    >>> y = Blockwise(core, "(m,n),(n)->(m)")(A, b)
    >>> y.type.shape
    (None, None)
    >>> y.eval({A: np.ones((2, 3, 4)), b: np.arange(4.0)})
    array([[6., 6., 6.],
           [6., 6., 6.]])
    """

    __props__ = ("core_op", "signature")

    def __init__(self, core_op: Op, signature: str | None = None) -> None:
        if signature is None:
            signature = getattr(core_op, "gufunc_signature", None)
        if signature is None:
            raise ValueError(
                f"Blockwise({core_op}): give a signature; the Op has no gufunc_signature"
            )
        self.core_op = core_op
        self.signature = signature.replace(" ", "")
        self.inputs_sig, self.outputs_sig = parse_signature(self.signature)
        self._core_nodes: dict[tuple[Any, ...], Apply] = {}

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        state["_core_nodes"] = {}
        return state

    def __str__(self) -> str:
        return f"Blockwise{{{self.core_op}, {self.signature}}}"

    # building -------------------------------------------------------------------
    def _as_input(self, x: Any, core: tuple[str, ...]) -> Variable:
        if isinstance(x, Variable) and not _is_tensor(x):
            if core:
                raise TypeError(
                    f"{self}: input {describe(x)} is not a tensor, so it cannot have the core "
                    f"dimensions {core}"
                )
            return x
        return as_tensor_variable(x)

    def _inputs(self, inputs: Sequence[Any]) -> list[Variable]:
        if len(inputs) != len(self.inputs_sig):
            raise TypeError(
                f"{self} takes {len(self.inputs_sig)} inputs ({self.signature}), "
                f"got {len(inputs)}"
            )
        ins = [self._as_input(x, c) for x, c in zip(inputs, self.inputs_sig)]
        for v, c in zip(ins, self.inputs_sig):
            if isinstance(v.type, TensorType) and v.type.ndim < len(c):
                raise TypeError(
                    f"{self}: input {describe(v)} has {v.type.ndim} dimensions, fewer than "
                    f"its {len(c)} core dimensions ({','.join(c)})"
                )
        return ins

    def batch_ndims(self, inputs: Sequence[Variable]) -> list[int]:
        """The number of batch dimensions of each input."""
        return [
            v.type.ndim - len(c) if isinstance(v.type, TensorType) else 0
            for v, c in zip(inputs, self.inputs_sig)
        ]

    def core_types(self, inputs: Sequence[Variable]) -> list[Type]:
        """The type of one block of each input."""
        out: list[Type] = []
        for v, b in zip(inputs, self.batch_ndims(inputs)):
            t = v.type
            out.append(TensorType(t.dtype, shape=t.shape[b:]) if isinstance(t, TensorType) else t)
        return out

    def core_node(self, node: Apply) -> Apply:
        """The core Op's node on inputs of the core types of ``node``'s (cached)."""
        types = tuple(self.core_types(node.inputs))
        found = self._core_nodes.get(types)
        if found is None:
            found = self.core_op.make_node(*[t() for t in types])
            self._core_nodes[types] = found
        return found

    def __call__(self, *inputs: Any, **kwargs: Any) -> Any:
        ins = self._inputs(inputs)
        if not any(self.batch_ndims(ins)):
            return self.core_op(*ins, **kwargs)
        return super().__call__(*ins, **kwargs)

    def make_node(self, *inputs: Any) -> Apply:
        ins = self._inputs(inputs)
        bs = self.batch_ndims(ins)
        nb = max(bs, default=0)
        core = self.core_node(Apply(self, ins, []))
        if len(core.outputs) != len(self.outputs_sig):
            raise TypeError(
                f"{self}: the core Op gives {len(core.outputs)} outputs, the signature "
                f"{len(self.outputs_sig)}"
            )
        core_outs: list[TensorType] = []
        for o, c in zip(core.outputs, self.outputs_sig):
            if not isinstance(o.type, TensorType) or o.type.ndim != len(c):
                raise TypeError(
                    f"{self}: the core output {o} ({o.type}) does not have the core "
                    f"dimensions ({','.join(c)})"
                )
            core_outs.append(o.type)
        batch = _batch_shape(
            [v.type.shape[:b] for v, b in zip(ins, bs) if isinstance(v.type, TensorType)],
            nb,
            self,
        )
        outs = [TensorType(t.dtype, shape=batch + t.shape)() for t in core_outs]
        return Apply(self, ins, outs)

    # computing --------------------------------------------------------------------
    def _empty_core_shapes(self, node: Apply, inputs: Sequence[Any]) -> list[tuple[int, ...]]:
        """Core output shapes for an empty batch: static, else from the signature's names."""
        sizes: dict[str, int] = {}
        for x, c in zip(inputs, self.inputs_sig):
            shp = np.shape(x)
            for name, n in zip(c, shp[len(shp) - len(c):]):
                sizes.setdefault(name, n)
        res = []
        for o, c in zip(self.core_node(node).outputs, self.outputs_sig):
            res.append(tuple(
                s if s is not None else sizes.get(name, 0)
                for s, name in zip(tensor_type(o).shape, c)
            ))
        return res

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        core = self.core_node(node)
        bs = self.batch_ndims(node.inputs)
        try:
            batch = np.broadcast_shapes(*(np.shape(x)[:b] for x, b in zip(inputs, bs) if b))
        except ValueError as exc:
            exc.add_note(f"in {self}: the batch dimensions of the inputs do not broadcast")
            raise
        arrs = [
            np.broadcast_to(x, batch + np.shape(x)[b:]) if b else x for x, b in zip(inputs, bs)
        ]
        whole = getattr(self.core_op, "perform_batched", None)
        if whole is not None and batch:
            # a core Op whose NumPy routine takes stacks (np.linalg.solve, ...) runs the
            # whole batch in one call; None: it cannot here, loop
            full = [a if b else np.broadcast_to(a, batch + np.shape(a)) for a, b in zip(arrs, bs)]
            res = whole(core, full, batch)
            if res is not None:
                for cell, out, o in zip(output_storage, res, node.outputs):
                    cell[0] = np.asarray(out, dtype=tensor_type(o).dtype)
                return
        outs: list[Any] = [None] * len(output_storage)
        for idx in np.ndindex(*batch):
            args = [a[idx + (Ellipsis,)] if b else a for a, b in zip(arrs, bs)]
            cells: list[list[Any]] = [[None] for _ in output_storage]
            try:
                self.core_op.perform(core, args, cells)
            except Exception as exc:
                exc.add_note(f"in {self}, at batch index {idx}")
                raise
            for j, c in enumerate(cells):
                r = np.asarray(c[0])
                if outs[j] is None:
                    outs[j] = np.empty(batch + r.shape, dtype=tensor_type(node.outputs[j]).dtype)
                outs[j][idx] = r
        if outs and outs[0] is None:  # an empty batch
            outs = [
                np.empty(batch + s, dtype=tensor_type(o).dtype)
                for s, o in zip(self._empty_core_shapes(node, inputs), node.outputs)
            ]
        for cell, out in zip(output_storage, outs):
            cell[0] = out

    def infer_shape(
        self, node: Apply, input_shapes: Sequence[Sequence[Variable]]
    ) -> list[tuple[Variable, ...]]:
        bs = self.batch_ndims(node.inputs)
        out_type = tensor_type(node.outputs[0])
        nb = out_type.ndim - len(self.outputs_sig[0])
        batch: list[Any] = []
        for p, st in enumerate(out_type.shape[:nb]):
            if st is not None:
                batch.append(constant(st, dtype="int64"))
                continue
            pick = None
            for v, b, shp in zip(node.inputs, bs, input_shapes):
                q = p - (nb - b)
                if q >= 0 and tensor_type(v).shape[q] != 1:
                    pick = shp[q]
                    break
            if pick is None:
                raise NotImplementedError(f"{self}: no input gives batch dimension {p}")
            batch.append(pick)
        core_shapes = [tuple(shp[b:]) for shp, b in zip(input_shapes, bs)]
        core = self.core_node(node)
        core_out: list[Sequence[Any]] | None
        try:
            core_out = list(self.core_op.infer_shape(core, core_shapes))
            placeholders = set(core.inputs)
            flat = [s for shp in core_out for s in shp if isinstance(s, Variable)]
            if any(a in placeholders for a in ancestors(flat)):
                core_out = None
        except (NotImplementedError, AttributeError, TypeError, ValueError):
            core_out = None
        if core_out is None:  # the signature's names
            sizes: dict[str, Any] = {}
            for shp, c in zip(core_shapes, self.inputs_sig):
                for name, n in zip(c, shp):
                    sizes.setdefault(name, n)
            core_out = []
            for o, c in zip(core.outputs, self.outputs_sig):
                entry = []
                for s, name in zip(tensor_type(o).shape, c):
                    if s is not None:
                        entry.append(constant(s, dtype="int64"))
                    elif name in sizes:
                        entry.append(sizes[name])
                    else:
                        raise NotImplementedError(f"{self}: the length of {name} is unknown")
                core_out.append(tuple(entry))
        return [(*batch, *shp) for shp in core_out]

    # derivatives -------------------------------------------------------------------
    def L_op(
        self,
        inputs: Sequence[Variable],
        outputs: Sequence[Variable],
        output_grads: Sequence[Variable],
    ) -> list[Any]:
        from theon.tensor.broadcast_grad import broadcast_grad
        from theon.tensor.creation import broadcast_to

        ci = [t() for t in self.core_types(inputs)]
        core = self.core_op.make_node(*ci)
        replace: dict[Variable, Variable] = dict(zip(ci, inputs))
        cg: list[Variable] = []
        for o, out, g in zip(core.outputs, outputs, output_grads):
            replace[o] = out
            if _is_tensor(g):
                ph = o.type()
                replace[ph] = g
                cg.append(ph)
            else:
                cg.append(g)
        core_grads = self.core_op.L_op(ci, core.outputs, cg)
        real = [
            k for k, g in enumerate(core_grads)
            if isinstance(g, Variable) and _is_tensor(g) and not isinstance(g.type, NullType)
        ]
        new, depth = vectorize_graph_levels([core_grads[k] for k in real], replace)
        res = list(core_grads)
        bs = self.batch_ndims(inputs)
        for k, g, d in zip(real, new, depth):
            x = inputs[k]
            if d < bs[k]:  # (x has batch dimensions: a tensor)
                g = broadcast_to(g, as_tensor_variable(x).shape)
            res[k] = broadcast_grad(g, x)
        return res

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        from theon.tensor.creation import broadcast_to

        ci = [t() for t in self.core_types(inputs)]
        replace: dict[Variable, Variable] = dict(zip(ci, inputs))
        ce: list[Any] = []
        for c, ep in zip(ci, eval_points):
            if ep is None:
                ce.append(None)
            else:
                ph = c.type()
                replace[ph] = ep
                ce.append(ph)
        core_r = self.core_op.R_op(ci, ce)
        outs = self(*inputs, return_list=True)
        res: list[Any] = []
        for r, out in zip(core_r, outs):
            if r is None or not isinstance(r, Variable):
                res.append(r)
                continue
            [new], [d] = vectorize_graph_levels([r], replace)
            nb = out.type.ndim - tensor_type(r).ndim
            res.append(broadcast_to(new, out.shape) if d < nb else new)
        return res


def vectorize(fn: Callable[..., Any], signature: str) -> Callable[..., Any]:
    """Batch ``fn``, a function building a graph for one example, like ``np.vectorize``.

    ``fn`` is called once, on placeholders with the core dimensions of
    ``signature``; the returned function rebuilds that graph for inputs with any
    leading batch dimensions (broadcast as in NumPy) with
    :func:`theon.graph.replace.vectorize_graph`.

    Parameters
    ----------
    fn
        Takes and returns tensor Variables (one output, or a tuple/list of them).
    signature
        A gufunc signature such as ``"(m,n),(n)->(m)"``.

    Returns
    -------
    callable
        Taking batched inputs and returning batched outputs.

    Examples
    --------
    >>> import numpy as np, theon.tensor as tt
    >>> def normalize(v):
    ...     return v / v.sum()
    >>> batched = vectorize(normalize, "(n)->(n)")
    >>> X = tt.dmatrix("X")
    >>> batched(X).eval({X: np.array([[1.0, 3.0], [2.0, 2.0]])})
    array([[0.25, 0.75],
           [0.5 , 0.5 ]])
    """
    ins_sig, outs_sig = parse_signature(signature)

    @functools.wraps(fn)
    def batched(*inputs: Any) -> Any:
        if len(inputs) != len(ins_sig):
            raise TypeError(
                f"vectorize({getattr(fn, '__name__', fn)}, {signature!r}) takes "
                f"{len(ins_sig)} inputs, got {len(inputs)}"
            )
        ins = [as_tensor_variable(x) for x in inputs]
        core = []
        for x, c in zip(ins, ins_sig):
            t: TensorType = x.type
            if t.ndim < len(c):
                raise TypeError(
                    f"vectorize: input {describe(x)} has fewer dimensions than its core "
                    f"dimensions ({','.join(c)})"
                )
            core.append(TensorType(t.dtype, shape=t.shape[t.ndim - len(c):])(x.name))
        res = fn(*core)
        single = isinstance(res, Variable)
        outs = [res] if single else list(res)
        outs = [as_tensor_variable(o) for o in outs]
        if len(outs) != len(outs_sig):
            raise TypeError(
                f"vectorize: {getattr(fn, '__name__', fn)} returned {len(outs)} outputs, the "
                f"signature {signature!r} has {len(outs_sig)}"
            )
        for o, c in zip(outs, outs_sig):
            if o.ndim != len(c):
                raise TypeError(
                    f"vectorize: output {describe(o)} of {getattr(fn, '__name__', fn)} has "
                    f"{o.ndim} dimensions, the signature says {len(c)}"
                )
        new = vectorize_graph(outs, dict(zip(core, ins)))
        return new[0] if single else type(res)(new) if isinstance(res, tuple) else new

    return batched


# the JAX rules of these Ops (mode="JAX"), imported by the JAX linker before its first link
_register_linker_backend("jax", "theon.backends.jax.blockwise")
