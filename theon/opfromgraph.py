"""``OpFromGraph``: an Op defined by a graph.

``OpFromGraph(inputs, outputs)`` packs the graph from ``inputs`` to ``outputs``
into one Op.  Applying it to new variables makes one Apply node whose output
types are those of the inner outputs; computing it runs the inner graph,
compiled once per mode by :func:`theon.function` and cached on the Op: with the
``mode`` given to the Op, else with the mode of the function that compiles the
node (through :meth:`OpFromGraph.prepare_node`), else ``config.mode``.

The Op knows its derivatives from its inner graph: ``L_op`` (reverse mode)
differentiates the inner graph and wraps the result in another ``OpFromGraph``;
``R_op`` (forward mode) does the same with :func:`theon.Rop`; ``infer_shape``
takes the inner graph's shape graph onto the outer inputs.  ``lop_overrides``
and ``rop_overrides`` replace the derived ones.

Shared variables used by the inner graph become implicit inputs: the Op is
applied to the explicit inputs, and the shared variables are appended to each
node's inputs (so the compiled function reads their current values).  A shared
variable or a constant, or a computed variable, may also be listed among the inputs, as in
PyTensor: it is then an explicit input like the others (a placeholder of its type in
the inner graph, which starts there), given a value at each application (PyMC passes
its random generators and its component distributions so).

With ``inline=True`` the rewrite :func:`inline_ofg_expansion` replaces each
node by a copy of the inner graph on the node's inputs, so the outer rewrites
see through it.

An Op's identity: each ``OpFromGraph`` is equal only to itself, so two nodes of
the same instance on the same inputs merge, and two instances built from equal
graphs are different Ops.

>>> import numpy as np, theon, theon.tensor as tt
>>> x, y = tt.dvector("x"), tt.dvector("y")
>>> op = OpFromGraph([x, y], [x * y + 1.0], name="fma1")
>>> a = tt.dvector("a")
>>> f = theon.function([a], op(a, a))
>>> f(np.array([1.0, 2.0]))
array([2., 5.])
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from theon.compile.compiled import Function
from theon.compile.inner import InnerCompiler, InnerFunctionGraph
from theon.compile.mode import Mode
from theon.compile.pickling import dump_graph, load_graph
from theon.compile.pipeline import function
from theon.compile.sharedvalue import SharedVariable
from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import FunctionGraph, describe
from theon.graph.null_type import DisconnectedType, NullType, disconnected_type
from theon.graph.op import HasInnerGraph, Op
from theon.graph.replace import clone_get_equiv, clone_replace
from theon.graph.traversal import ancestors, graph_inputs, io_toposort
from theon.link.registry import register_linker_backend as _register_linker_backend
from theon.rewriting import node_rewriter
from theon.rewriting.db import rewrite_db

__all__ = ["OpFromGraph", "inline_ofg_expansion"]

Override = Callable[..., Any] | Sequence[Any] | None
#: the inner graph's shape graph: its inputs, the output shapes, and the entries of the
#: input shapes (``Shape_i(input)``) by (input index, axis)
_ShapeGraph = tuple[list[Variable], list[Any], dict[Variable, tuple[int, int]]]
#: a derivative Op: the OpFromGraph (None when every entry is a marker), which of the
#: candidate inputs it takes, and per result a marker or None (read from the Op)
_Derived = tuple["OpFromGraph | None", list[int], list[Any]]


def _wrap(candidates: list[Variable], results: list[Variable], inline: bool, name: str,
          kwargs: dict[str, Any]) -> tuple[OpFromGraph, list[int]]:
    """An OpFromGraph computing ``results`` from the ``candidates`` they use."""
    needed = set(ancestors(results, blockers=candidates))
    used = [k for k, v in enumerate(candidates) if v in needed]
    op = OpFromGraph([candidates[k] for k in used], results, inline=inline, name=name,
                     **kwargs)
    return op, used


def _is_marker(v: Any) -> bool:
    """Whether ``v`` is a NullType/DisconnectedType variable or type (a gradient marker)."""
    t = v if isinstance(v, (NullType, DisconnectedType)) else getattr(v, "type", None)
    return isinstance(t, (NullType, DisconnectedType))


def _as_marker(v: Any) -> Variable:
    """A marker variable from a marker type or variable."""
    if isinstance(v, (NullType, DisconnectedType)):
        return v()
    assert isinstance(v, Variable)
    return v


class OpFromGraph(Op, HasInnerGraph):
    """An Op whose computation is the graph from ``inputs`` to ``outputs``.

    Parameters
    ----------
    inputs
        The graph's inputs: any Variables, computed ones, shared variables and
        constants included (each becomes an input of the Op, the graph being cut there:
        what computes a computed one is not part of it; the shared variables the graph
        uses that are not listed become implicit inputs).
    outputs
        A Variable or a list of them, computed from ``inputs``.
    inline
        When True, the rewrite ``inline_ofg_expansion`` replaces each node of this
        Op by the inner graph, cloned onto the node's inputs.
    lop_overrides
        The gradient instead of the derived one: a callable
        ``(inputs, outputs, output_grads) -> list`` with one entry per input, or a
        list with one entry per input, each a callable of the same signature
        returning that input's gradient, ``None`` (the derived gradient), or a
        ``NullType``/``DisconnectedType`` (type or variable).  The callables see the
        inner graph's variables.
    grad_overrides
        Deprecated: a callable ``(inputs, output_grads) -> list``, or a list as
        for ``lop_overrides``.
    rop_overrides
        The R_op instead of the derived one: a callable
        ``(inputs, eval_points) -> list`` with one entry per output, or a list with
        one entry per output (callable, ``None`` for the derived one, or a marker).
    connection_pattern
        ``[input][output]`` booleans, instead of those read from the graph.
    strict
        Raise if the inner graph uses shared variables (instead of making them
        implicit inputs).
    name
        The Op's name in printed graphs and errors.
    **kwargs
        Passed to :func:`theon.function` when the inner graph is compiled
        (``mode=...``).

    Examples
    --------
    >>> import numpy as np, theon, theon.tensor as tt
    >>> x = tt.dscalar("x")
    >>> square = OpFromGraph([x], [x * x], name="square")
    >>> z = tt.dscalar("z")
    >>> g = theon.grad(square(z), z)
    >>> float(g.eval({z: 3.0}))
    6.0
    """

    __props__ = None  # each instance is its own Op

    def __init__(
        self,
        inputs: Sequence[Variable],
        outputs: Variable | Sequence[Variable],
        inline: bool = False,
        lop_overrides: Override = None,
        grad_overrides: Override = None,
        rop_overrides: Override = None,
        connection_pattern: Sequence[Sequence[bool]] | None = None,
        strict: bool = False,
        name: str | None = None,
        **kwargs: Any,
    ) -> None:
        outs = [outputs] if isinstance(outputs, Variable) else list(outputs)
        ins = list(inputs)
        self.name = name
        label = self._label()
        for k, v in enumerate(ins):
            if not isinstance(v, Variable):
                raise TypeError(f"{label}: inputs[{k}] must be a Variable, got {v!r}")
        for k, v in enumerate(outs):
            if not isinstance(v, Variable):
                raise TypeError(f"{label}: outputs[{k}] must be a Variable, got {v!r}")
        if len(set(ins)) != len(ins):
            raise ValueError(f"{label}: an input is listed twice in {ins}")
        given = set(ins)
        shared: list[Variable] = []
        for v in graph_inputs(outs, blockers=given):
            if v in given or isinstance(v, Constant):
                continue
            if isinstance(v, SharedVariable):
                if strict:
                    raise ValueError(
                        f"{label}: the graph uses the shared variable {describe(v)} and "
                        "strict=True; pass it as an input, or use strict=False to make it "
                        "an implicit input")
                shared.append(v)
                continue
            raise ValueError(
                f"{label}: the outputs depend on {describe(v)}, which is neither an input "
                "nor a constant nor a shared variable; add it to the inputs")
        if grad_overrides is not None:
            warnings.warn("OpFromGraph: grad_overrides is deprecated; use lop_overrides",
                          DeprecationWarning, stacklevel=2)
            if lop_overrides is not None:
                raise ValueError(f"{label}: give lop_overrides or grad_overrides, not both")
            lop_overrides = _grad_to_lop(grad_overrides)
        # the inner graph: a private copy, shared variables replaced by plain inputs
        memo: dict[Any, Any] = {v: v.type(v.name) for v in [*ins, *shared]}
        equiv = clone_get_equiv([*ins, *shared], outs, copy_inputs=False, copy_orphans=False,
                                memo=memo)
        self._inner_inputs: list[Variable] = [memo[v] for v in [*ins, *shared]]
        self._inner_outputs: list[Variable] = [equiv.get(o, o) for o in outs]
        self.shared_inputs: list[Variable] = shared
        self.n_explicit = len(ins)
        self.inline = bool(inline)
        self.lop_overrides = lop_overrides
        self.rop_overrides = rop_overrides
        self.strict = strict
        self.kwargs = kwargs
        n_in = len(self.inner_inputs)
        if connection_pattern is not None:
            cp = [list(map(bool, row)) for row in connection_pattern]
            if len(cp) == self.n_explicit and shared:
                cp += self._graph_pattern()[self.n_explicit:]
            if len(cp) != n_in or any(len(r) != len(outs) for r in cp):
                raise ValueError(f"{label}: connection_pattern must be {n_in} rows of "
                                 f"{len(outs)} booleans, got {connection_pattern!r}")
            self._connection_pattern: list[list[bool]] | None = cp
        else:
            self._connection_pattern = None
        self._init_caches()

    def _init_caches(self) -> None:
        # the compiled inner graph per mode, and per node the one prepare_node chose
        self._inner: InnerCompiler[Function] = InnerCompiler(self._compile,
                                                             self.kwargs.get("mode"))
        self._lop_ops: dict[tuple[bool, ...], _Derived] = {}
        self._rop_ops: dict[tuple[bool, ...], _Derived] = {}
        self._shape_graph: _ShapeGraph | None = None
        self._fgraph: InnerFunctionGraph | None = None

    # the inner graph (PyTensor's attributes) ------------------------------------------
    @property
    def inner_inputs(self) -> list[Variable]:
        """The inner graph's input placeholders: the explicit inputs, then the implicit
        shared variables."""
        return self._inner_inputs

    @property
    def inner_outputs(self) -> list[Variable]:
        """The inner graph's outputs."""
        return self._inner_outputs

    @property
    def fgraph(self) -> InnerFunctionGraph:
        """The inner graph as a FunctionGraph over :attr:`inner_inputs` and
        :attr:`inner_outputs` themselves; its copies keep the input placeholders."""
        if self._fgraph is None:
            self._fgraph = InnerFunctionGraph(self._inner_inputs, self._inner_outputs)
        return self._fgraph

    @property
    def input_types(self) -> list[Any]:
        """The type of each input of a node (PyTensor's ``input_types``)."""
        return [v.type for v in self._inner_inputs]

    @property
    def output_types(self) -> list[Any]:
        """The type of each output of a node (PyTensor's ``output_types``)."""
        return [v.type for v in self._inner_outputs]

    @property
    def is_inline(self) -> bool:
        """PyTensor's name of :attr:`inline`."""
        return self.inline

    def clone(self) -> OpFromGraph:
        """A copy of this Op whose inner graph's nodes are copies (over the same input
        placeholders, as PyTensor's); a different Op, with the same settings.

        >>> import theon.tensor as tt
        >>> x = tt.dscalar("x")
        >>> op = OpFromGraph([x], [x + 1])
        >>> c = op.clone()
        >>> c == op, c.inner_inputs[0] is op.inner_inputs[0]
        (False, True)
        >>> c.inner_outputs[0] is op.inner_outputs[0]
        False
        """
        new = copy.copy(self)
        fg = self.fgraph.clone()
        new._inner_outputs = list(fg.outputs)
        new._inner_inputs = list(self._inner_inputs)
        new._init_caches()
        return new

    def _label(self) -> str:
        return f"OpFromGraph {self.name!r}" if self.name else "OpFromGraph"

    def __str__(self) -> str:
        return self.name if self.name else f"OpFromGraph{{inline={self.inline}}}"

    # pickling: the inner graph is stored flat, the compiled function and caches are not
    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        for k in ("_inner", "_lop_ops", "_rop_ops", "_shape_graph", "_fgraph"):
            state.pop(k, None)
        order = io_toposort(self._inner_inputs, self._inner_outputs)
        state["_inner_inputs"] = None
        state["_inner_outputs"] = dump_graph(self._inner_inputs, self._inner_outputs, order)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        # (pickles of older versions name the inner graph without the underscore)
        graph = state.pop("_inner_outputs", None) or state.pop("inner_outputs")
        state.pop("inner_inputs", None)
        self.__dict__.update(state)
        self._inner_inputs, self._inner_outputs, _ = load_graph(graph)
        self._init_caches()

    # building ----------------------------------------------------------------------
    def make_node(self, *inputs: Any) -> Apply:
        """Apply the Op: ``inputs`` are the explicit inputs (the implicit shared
        ones are appended), or all of them."""
        n_all, n_exp = len(self.inner_inputs), self.n_explicit
        if len(inputs) == n_exp:
            inputs = (*inputs, *self.shared_inputs)
        elif len(inputs) != n_all:
            names = ", ".join(str(v) for v in self.inner_inputs[:n_exp])
            raise TypeError(f"{self._label()} takes {n_exp} inputs ({names}), got {len(inputs)}")
        new: list[Variable] = []
        for k, (v, inner) in enumerate(zip(inputs, self.inner_inputs)):
            try:
                new.append(inner.type.filter_variable(v))
            except TypeError:
                got = describe(v) if isinstance(v, Variable) else repr(v)
                raise TypeError(
                    f"{self._label()}: input {k} ({inner}) must be of type {inner.type}, "
                    f"got {got}") from None
        return Apply(self, new, [o.type() for o in self.inner_outputs])

    # computing ---------------------------------------------------------------------
    @property
    def fn(self) -> Function:
        """The compiled inner graph (compiled on first use, then cached): with the
        ``mode`` given to the Op, else ``config.mode``."""
        return self._inner.default()

    def _compile(self, mode: Mode) -> Function:
        """The inner graph compiled by :func:`theon.function` with ``mode`` (and the
        Op's other keyword arguments): its arguments broadcast at run time as an
        outer function's, and its results never alias them."""
        kw = {"on_unused_input": "ignore", "name": self.name or "OpFromGraph",
              **self.kwargs, "mode": mode}
        return function(self.inner_inputs, self.inner_outputs, trust_input=True, **kw)

    def prepare_node(self, node: Apply, mode: Mode) -> None:
        """Compile the inner graph for ``node`` with ``mode``, the outer function's
        mode (a ``mode`` given to the Op wins); ``perform`` on ``node`` runs it."""
        self._inner.prepare(node, mode)

    def compiled_fn(self, node: Apply | None = None) -> Function:
        """The compiled inner graph ``perform`` runs for ``node`` (see :meth:`prepare_node`)."""
        return self._inner.get(node)

    def perform(self, node: Apply, inputs: Sequence[Any],
                output_storage: list[list[Any]]) -> None:
        outs = self._inner.get(node)(*inputs)
        if len(self.inner_outputs) == 1 and not isinstance(outs, list):
            outs = [outs]
        for cell, value in zip(output_storage, outs):
            cell[0] = value

    # structure ---------------------------------------------------------------------
    def _graph_pattern(self) -> list[list[bool]]:
        deps = [set(ancestors([o], blockers=self.inner_inputs)) for o in self.inner_outputs]
        pattern = [[i in d for d in deps] for i in self.inner_inputs]
        over = self.lop_overrides
        if isinstance(over, (list, tuple)):  # inputs overridden as disconnected
            for k, e in enumerate(over):
                t = e if isinstance(e, DisconnectedType) else getattr(e, "type", None)
                if isinstance(t, DisconnectedType):
                    pattern[k] = [False] * len(deps)
        return pattern

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        """``[input][output]``: whether the output depends on the input in the inner graph."""
        if self._connection_pattern is None:
            self._connection_pattern = self._graph_pattern()
        return [list(r) for r in self._connection_pattern]

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        """The inner graph's output shapes, written on the outer inputs and their shapes."""
        if self._shape_graph is None:
            self._shape_graph = self._build_shape_graph()
        fg_inputs, out_shapes, leaf_at = self._shape_graph
        repl: dict[Variable, Variable] = dict(zip(fg_inputs, node.inputs))
        for entry, (k, i) in leaf_at.items():
            repl[entry] = input_shapes[k][i]
        flat = [s for shp in out_shapes if shp is not None for s in shp]
        if not flat:
            return [shp for shp in out_shapes]
        new = iter(clone_replace(flat, repl))
        return [None if shp is None else tuple(next(new) for _ in shp) for shp in out_shapes]

    def _build_shape_graph(self) -> _ShapeGraph:
        from theon.tensor.rewriting.shape import shape_feature
        from theon.tensor.type import TensorType

        fg = FunctionGraph(self.inner_inputs, self.inner_outputs, clone=True)
        sf = shape_feature(fg)
        leaf_at: dict[Variable, tuple[int, int]] = {}
        for k, v in enumerate(fg.inputs):
            if isinstance(v.type, TensorType):
                for i, s in enumerate(sf.shape_of(v)):
                    if s.owner is not None:
                        leaf_at[s] = (k, i)
        shapes = [sf.shape_of(o) if isinstance(o.type, TensorType) else None
                  for o in fg.outputs]
        return list(fg.inputs), shapes, leaf_at

    # derivatives -------------------------------------------------------------------
    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        """Gradients of the inputs: an OpFromGraph of the inner graph's gradient
        (or of ``lop_overrides``) applied to (inputs, outputs, output_grads)."""
        live = tuple(not _is_marker(g) for g in output_grads)
        got = self._lop_ops.get(live)
        if got is None:
            got = self._lop_ops[live] = self._make_lop(live)
        op, used, entries = got
        if op is None:
            return [_as_marker(e) for e in entries]
        live_grads = [g for g, flag in zip(output_grads, live) if flag]
        cands = [*inputs, *outputs, *live_grads]
        res = op(*[cands[k] for k in used], return_list=True)
        it = iter(res)
        return [next(it) if e is None else _as_marker(e) for e in entries]

    def _make_lop(self, live: tuple[bool, ...]) -> _Derived:
        from theon.gradient import grad

        ins, outs = self.inner_inputs, self.inner_outputs
        n = len(ins)
        out_vars = [o.type(o.name) for o in outs]
        gvars = [o.type(f"g_{o.name}" if o.name else "g") for o, flag in zip(outs, live) if flag]
        full_g = iter(gvars)
        grads_in: list[Any] = [next(full_g) if flag else disconnected_type() for flag in live]
        per: list[Any] = [None] * n
        over = self.lop_overrides
        if callable(over):
            res = list(over(list(ins), list(outs), grads_in))
            if len(res) == self.n_explicit and n > self.n_explicit:
                res += [None] * (n - self.n_explicit)
            if len(res) != n:
                raise ValueError(f"{self._label()}: lop_overrides returned {len(res)} "
                                 f"gradients for {n} inputs")
            per = [disconnected_type() if r is None else r for r in res]
        elif over is not None:
            entries = list(over)
            if len(entries) == self.n_explicit:
                entries += [None] * (n - self.n_explicit)
            if len(entries) != n:
                raise ValueError(f"{self._label()}: lop_overrides has {len(entries)} "
                                 f"entries for {n} inputs")
            for k, e in enumerate(entries):
                if callable(e) and not isinstance(e, (NullType, DisconnectedType)):
                    per[k] = e(list(ins), list(outs), grads_in)
                elif e is not None:
                    if not _is_marker(e):
                        raise TypeError(f"{self._label()}: lop_overrides[{k}] must be a "
                                        f"callable, None or a NullType/DisconnectedType, "
                                        f"got {e!r}")
                    per[k] = e
        # the derived gradient for the entries still None
        todo = [k for k in range(n) if per[k] is None]
        if callable(over):
            todo = []
        if todo:
            known = {o: g for o, g, flag in zip(outs, grads_in, live) if flag}
            if known:
                derived = grad(None, [ins[k] for k in todo], known_grads=known,
                               disconnected_inputs="ignore", return_disconnected="Disconnected",
                               null_gradients="return")
            else:
                derived = [disconnected_type() for _ in todo]
            for k, g in zip(todo, derived):
                per[k] = g
        entries_out: list[Any] = []
        real: list[Variable] = []
        for k, g in enumerate(per):
            if _is_marker(g):
                entries_out.append(g)
            elif isinstance(g, Variable):
                entries_out.append(None)
                real.append(g)
            else:
                raise TypeError(f"{self._label()}: the gradient of input {k} is {g!r}, "
                                "not a Variable")
        if not real:
            return None, [], entries_out
        # read the forward outputs from the node's outputs instead of recomputing them
        repl = {o: v for o, v in zip(outs, out_vars) if o.owner is not None}
        real = clone_replace(real, repl) if repl else real
        op, used = _wrap([*ins, *out_vars, *gvars], real, self.inline,
                         f"{self.name or 'OpFromGraph'}.grad", self.kwargs)
        return op, used, entries_out

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        """Jacobian-vector products: an OpFromGraph of the inner graph's R_op (or of
        ``rop_overrides``) applied to the inputs and the eval points."""
        live = tuple(e is not None for e in eval_points)
        got = self._rop_ops.get(live)
        if got is None:
            got = self._rop_ops[live] = self._make_rop(live)
        op, used, entries = got
        if op is None:
            return [None if e is None else _as_marker(e) for e in entries]
        cands = [*inputs, *[e for e in eval_points if e is not None]]
        res = op(*[cands[k] for k in used], return_list=True)
        it = iter(res)
        return [next(it) if e is None else _as_marker(e) for e in entries]

    def _make_rop(self, live: tuple[bool, ...]) -> _Derived:
        from theon.gradient import Rop
        from theon.tensor import zeros_like

        ins, outs = self.inner_inputs, self.inner_outputs
        evars = [i.type(f"d{i.name or ''}") for i, flag in zip(ins, live) if flag]
        it = iter(evars)
        evs: list[Any] = [next(it) if flag else None for flag in live]
        n_out = len(outs)
        per: list[Any] = [None] * n_out
        over = self.rop_overrides
        if callable(over):
            filled = [e if e is not None else zeros_like(i) for e, i in zip(evs, ins)]
            per = list(over(list(ins), filled))
            if len(per) != n_out:
                raise ValueError(f"{self._label()}: rop_overrides returned {len(per)} "
                                 f"results for {n_out} outputs")
            per = [disconnected_type() if p is None else p for p in per]
        elif over is not None:
            entries = list(over)
            if len(entries) != n_out:
                raise ValueError(f"{self._label()}: rop_overrides has {len(entries)} "
                                 f"entries for {n_out} outputs")
            filled = [e if e is not None else zeros_like(i) for e, i in zip(evs, ins)]
            for j, e in enumerate(entries):
                if callable(e) and not isinstance(e, (NullType, DisconnectedType)):
                    per[j] = e(list(ins), filled)
                elif e is not None:
                    per[j] = e
        todo = [j for j in range(n_out) if per[j] is None]
        wrt = [i for i, flag in zip(ins, live) if flag]
        if todo and wrt:
            derived = Rop([outs[j] for j in todo], wrt, evars, disconnected_outputs="ignore",
                          return_disconnected="None")
            for j, r in zip(todo, derived):
                per[j] = disconnected_type() if r is None else r
        entries_out: list[Any] = []
        real: list[Variable] = []
        for r in per:
            if r is None or _is_marker(r):
                entries_out.append(disconnected_type() if r is None else r)
            else:
                entries_out.append(None)
                real.append(r)
        if not real:
            return None, [], entries_out
        op, used = _wrap([*ins, *evars], real, self.inline,
                         f"{self.name or 'OpFromGraph'}.rop", self.kwargs)
        return op, used, entries_out


def _grad_to_lop(over: Any) -> Any:
    """A ``grad_overrides`` entry ``(inputs, output_grads)`` as a ``lop_overrides`` one."""
    if callable(over) and not isinstance(over, (NullType, DisconnectedType)):
        return lambda ins, outs, gs: over(ins, gs)
    if isinstance(over, (list, tuple)):
        return [_grad_to_lop(e) if e is not None and not _is_marker(e) else e for e in over]
    return over


@node_rewriter([OpFromGraph])
def inline_ofg_expansion(fgraph: FunctionGraph, node: Apply) -> list[Variable] | None:
    """OpFromGraph(f, inline=True)(x_1, ..., x_n) -> f(x_1, ..., x_n)

    The node of an inlined OpFromGraph is replaced by a copy of its inner graph
    whose inputs are the node's inputs: the same function of the same values, with
    the inner computation now visible to the other rewrites.
    """
    op = node.op
    if not isinstance(op, OpFromGraph) or not op.inline:
        return None
    res = clone_replace(op.inner_outputs, dict(zip(op.inner_inputs, node.inputs)))
    return list(res)


# first in canonicalize, so that the other rewrites see the inlined graph (PyTensor runs
# it just before its first merge); without the phase's name as a tag, as PyTensor's is
# outside its canonicalize database: a query of "canonicalize" alone (PyMC's, on its
# logprob graphs) keeps the Ops, a mode's "fast_run" or "fast_compile" inlines them
rewrite_db.register("inline_ofg_expansion", inline_ofg_expansion, "fast_run", "fast_compile",
                    phase="canonicalize", position=-10, phase_tag=False)


# the JAX rules of these Ops (mode="JAX"), imported by the JAX linker before its first link
_register_linker_backend("jax", "theon.backends.jax.control")
