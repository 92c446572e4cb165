"""The compile pipeline behind ``theon.function``: graph in, compiled Function out.

The graph is copied into a FunctionGraph (the user's graph is never
modified), ``givens`` are substituted, the shared variables it uses become
implicit inputs and ``updates`` extra outputs; then it is rewritten according
to the mode and linked.  The :class:`Function` class (the callable) lives in
:mod:`theon.compile.compiled`.

>>> from theon.graph.type import Generic
>>> from theon.graph.op import Op
>>> from theon.graph.basic import Apply
>>> class Add(Op):
...     __props__ = ()
...     def make_node(self, a, b):
...         return Apply(self, [a, b], [Generic()()])
...     def perform(self, node, inputs, out):
...         out[0][0] = inputs[0] + inputs[1]
>>> a, b = Generic()("a"), Generic()("b")
>>> f = function([a, b], Add()(a, b))
>>> f(1, 2), f(b=5, a=1)
(3, 6)
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any

from theon.compile.compiled import (
    Function,
    FunctionMaker,
    UnusedInputError,
    copy_value,
    outputs_needing_copy,
)
from theon.compile.io import In, Out
from theon.compile.mode import Mode, get_mode
from theon.compile.ops import deep_copy_op
from theon.compile.profiling import ProfileStats
from theon.compile.rebuild import rebuild
from theon.compile.sharedvalue import Container, SharedVariable
from theon.graph.basic import Constant, Variable, register_evaluator
from theon.graph.collector import gc_paused
from theon.graph.destroyhandler import DestroyHandler
from theon.graph.fg import FunctionGraph, MissingInputError, describe
from theon.graph.op import Op
from theon.graph.replace import clone_replace
from theon.graph.traversal import ancestors
from theon.progress import phase as progress_phase
from theon.progress import task as progress_task

__all__ = [
    "Function",
    "FunctionMaker",
    "UnusedInputError",
    "copy_value",
    "function",
    "mode_cache_key",
    "outputs_needing_copy",
    "prepare_nodes",
    "register_graph_check",
]


def _as_in(x: Any) -> In:
    if isinstance(x, In):
        return x
    if isinstance(x, Variable):
        return In(x)
    raise TypeError(f"function inputs must be Variables or In instances, got {x!r}")


def _as_out(x: Any) -> Out:
    if isinstance(x, Out):
        return x
    if isinstance(x, Variable):
        return Out(x)
    raise TypeError(
        f"function outputs must be Variables or Out instances, got {type(x).__name__} {x!r}"
    )


def _check_explicit(ins: list[In]) -> None:
    """Constants, shared variables and repeats are not valid inputs.

    A computed variable is: it stands for its value, and what computes it is cut
    off (as in Theano), so its own inputs are not needed.
    """
    seen: dict[Variable, int] = {}
    for k, i in enumerate(ins):
        v = i.variable
        if isinstance(v, Constant):
            raise TypeError(
                f"input {k} of function is constant {describe(v)}; a constant's value is "
                "fixed, so it cannot be an input (use a symbolic variable instead)"
            )
        if isinstance(v, SharedVariable):
            raise TypeError(
                f"input {k} of function is shared variable {describe(v)}; shared variables "
                "are implicit inputs and cannot be arguments (use givens= to replace it by "
                "a symbolic variable)"
            )
        if v in seen:
            raise ValueError(
                f"input {describe(v)} is given twice to function (positions {seen[v]} and {k})"
            )
        seen[v] = k


def _check_unused(ins: list[In], needed: set[Variable], on_unused_input: str) -> None:
    if on_unused_input not in ("raise", "warn", "ignore"):
        raise ValueError(
            f"on_unused_input must be 'raise', 'warn' or 'ignore', got {on_unused_input!r}"
        )
    for k, i in enumerate(ins):
        if i.variable in needed or i.implicit:
            continue
        msg = (
            f"input {k} of function, {describe(i.variable)}, is not used to compute any "
            "output; pass on_unused_input='ignore' (or 'warn') if this is intended"
        )
        if on_unused_input == "raise":
            raise UnusedInputError(msg)
        if on_unused_input == "warn":
            warnings.warn(msg, stacklevel=4)


def _check_missing(graph_vars: list[Variable], provided: set[Variable],
                   outputs: list[Variable]) -> None:
    for v in graph_vars:
        if v.owner is None and not isinstance(v, Constant) and v not in provided:
            users = [o for o in outputs if v in set(ancestors([o]))]
            what = f" (needed by {users[0]})" if users and users[0] is not v else ""
            raise MissingInputError(
                f"the graph needs {describe(v)}{what}, which is not one of the function's "
                "inputs; add it to the inputs, or give it a value with givens="
            )


def _make_profile(profile: Any, name: str | None) -> ProfileStats | None:
    if isinstance(profile, ProfileStats):
        return profile
    if profile is None:
        from theon.config import config

        profile = config.profile
    if profile is True:
        return ProfileStats(name)
    if profile in (False, None):
        return None
    if isinstance(profile, str):
        return ProfileStats(profile)
    raise TypeError(f"profile must be a bool, a name or a ProfileStats, got {profile!r}")


def _check_inplace(fgraph: FunctionGraph, accept_inplace: bool) -> None:
    """Refuse user graphs that already overwrite their inputs, unless accepted."""
    for node in fgraph.apply_nodes:
        if node.op.destroy_map:
            if not accept_inplace:
                raise TypeError(
                    f"the graph contains {node.op}, which overwrites its input "
                    f"{node.inputs[next(iter(node.op.destroy_map.values()))[0]]} in place; "
                    "build the graph with the non-inplace op (theon's rewrites insert inplace "
                    "ops where safe) or pass accept_inplace=True"
                )
            fgraph.attach_feature(DestroyHandler())
            return


def function(
    inputs: Sequence[Any],
    outputs: Any = None,
    mode: str | Mode | None = None,
    updates: Any = None,
    givens: Any = None,
    no_default_updates: bool | Sequence[Variable] = False,
    accept_inplace: bool = False,
    name: str | None = None,
    rebuild_strict: bool = True,
    allow_input_downcast: bool | None = None,
    profile: Any = None,
    on_unused_input: str | None = None,
    trust_input: bool = False,
    sharding: Any = None,
) -> Function:
    """Compile a callable computing ``outputs`` from ``inputs``.

    Parameters
    ----------
    inputs
        Variables (or ``In``) given as arguments, positionally or by name.  Shared
        variables are not listed: they are implicit inputs of every function that
        uses them.
    outputs
        A Variable or ``Out`` (the call returns a value) or a list (the call returns
        a list).  Results belong to the caller: they never alias each other, the
        arguments or internal storage, unless marked ``Out(v, borrow=True)``.
    mode
        A Mode or a mode name; ``None`` takes ``config.mode``.
    updates
        ``{shared_variable: new_value}`` or a list of pairs.  All new values are
        computed first, then stored together after the outputs, so every output
        sees the old values.  A new value must have the shared variable's type.
        A call with updates is atomic, also between threads (see ``Function``).
    givens
        ``{variable: replacement}`` or pairs: substituted in the graph before
        compiling (replacements must have the same type).
    no_default_updates
        ``True`` to ignore the shared variables' ``default_update``, or a list of
        shared variables whose default update is ignored.
    accept_inplace
        Accept user graphs that already contain inplace ops.
    name
        A name used in error messages and profiles.
    rebuild_strict
        Kept for compatibility; replacements must keep the types (only ``True``).
    allow_input_downcast
        Default ``allow_downcast`` of the inputs: accept lossy argument casts.
    profile
        ``True`` (or a name, or a :class:`ProfileStats`) to collect time per Op and
        node; then see ``f.profile.summary()``.  ``None`` follows ``config.profile``.
    on_unused_input
        ``'raise'``, ``'warn'`` or ``'ignore'`` for inputs no output needs.
    trust_input
        Skip checking and converting arguments, for the lowest call overhead.  The
        risk: an argument of the wrong dtype, number of dimensions or kind is not
        caught and gives wrong results, a crash deep in an Op, or (with inplace
        ops) corrupted memory.  Only use it with arguments known to be exactly of
        the input types.
    sharding
        ``mode="JAX"`` only: ``{input variable: jax.sharding.PartitionSpec}`` (or a
        ``jax.sharding.Sharding``) to run data-parallel over the devices; inputs not
        named are replicated.  See :func:`theon.link.jax.sharding.shard` and
        ``docs/jax.md``.

    Examples
    --------
    >>> from theon.graph.type import Generic
    >>> x = Generic()("x")
    >>> function([x], x)(5)
    5
    """
    if not rebuild_strict:
        raise NotImplementedError("rebuild_strict=False is not supported: givens keep types")
    with gc_paused(), progress_task(f"compiling {name or 'a function'}"):
        progress_phase("graph")
        return _function(
            inputs, outputs, mode, updates, givens, no_default_updates, accept_inplace, name,
            allow_input_downcast, profile, on_unused_input, trust_input, sharding,
        )


def _function(
    inputs: Sequence[Any],
    outputs: Any,
    mode: str | Mode | None,
    updates: Any,
    givens: Any,
    no_default_updates: bool | Sequence[Variable],
    accept_inplace: bool,
    name: str | None,
    allow_input_downcast: bool | None,
    profile: Any,
    on_unused_input: str | None,
    trust_input: bool,
    sharding: Any = None,
) -> Function:
    """The body of :func:`function` (arguments checked, collector paused)."""
    from theon.config import config

    if on_unused_input is None:
        on_unused_input = config.on_unused_input
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"function inputs must be a list of Variables, got {inputs!r}")
    unpack = not isinstance(outputs, (list, tuple))
    out_list = [] if outputs is None else ([outputs] if unpack else list(outputs))
    ins = [_as_in(i) for i in inputs]
    if allow_input_downcast is not None:
        ins = [_with_downcast(i, allow_input_downcast) for i in ins]
    outs = [_as_out(o) for o in out_list]
    _check_explicit(ins)
    # explicit arguments first, then implicit (stateful) inputs
    ins = [i for i in ins if not i.implicit] + [i for i in ins if i.implicit]

    rb = rebuild(
        [o.variable for o in outs],
        updates=updates,
        givens=givens,
        no_default_updates=no_default_updates,
        extra=[i.update for i in ins],
        explicit_inputs=[i.variable for i in ins],
    )
    upd_vars = list(rb.updates.values())
    all_roots = rb.outputs + upd_vars + [e for e in rb.extra if e is not None]
    # an input computed by the user's graph cuts off what computes it
    cuts = {i.variable for i in ins if i.variable.owner is not None}
    graph_vars = ancestors(all_roots, blockers=cuts, in_root_order=True)
    needed = set(graph_vars)
    _check_unused(ins, needed, on_unused_input)
    explicit_vars = [i.variable for i in ins]
    _check_missing(graph_vars, set(explicit_vars) | set(rb.shared_inputs), rb.outputs)

    # the compiled graph: outputs, then stateful-input updates, then shared updates
    fg_inputs = explicit_vars + list(rb.shared_inputs)
    fg_outputs = list(rb.outputs)
    update_mapping: dict[int, int] = {}
    state_update: dict[int, Variable] = {}
    for k, e in enumerate(rb.extra):
        if e is not None:
            update_mapping[len(fg_outputs)] = k
            state_update[k] = e
            fg_outputs.append(e)
    n_explicit = len(ins)
    for k, sv in enumerate(rb.shared_inputs):
        if sv in rb.updates:
            update_mapping[len(fg_outputs)] = n_explicit + k
            fg_outputs.append(rb.updates[sv])

    maker_inputs = list(ins)
    storage: list[Container] = []
    for i in ins:
        value = None
        if i.has_default:
            try:
                value = i.variable.type.filter(i.value, i.strict, i.allow_downcast)
            except (TypeError, ValueError) as e:
                raise TypeError(
                    f"default value of input {describe(i.variable)} does not fit its type: {e}"
                ) from None
        storage.append(Container(i.variable.type, value, i.name, i.strict, i.allow_downcast))
    for sv in rb.shared_inputs:
        upd = rb.updates.get(sv)
        # not mutable: an update is computed into new memory and stored when the
        # call has finished, so a call that fails changes no shared variable and
        # other threads never see a half-written value
        maker_inputs.append(
            In(sv, name=sv.name, update=upd, borrow=True, implicit=True, shared=True)
        )
        storage.append(sv.container)

    job = _LinkJob(fg_inputs, fg_outputs, update_mapping, maker_inputs, storage, state_update,
                   outs, mode, profile, name, accept_inplace, trust_input,
                   unpack and bool(out_list))
    if sharding:
        job = job.with_sharding(sharding)
    return job.link()


def _copy_outputs_that_are_inputs(fgraph: FunctionGraph, update_mapping: dict[int, int]
                                  ) -> None:
    """An output that is an input or a constant becomes ``DeepCopyOp`` of it (a result
    never aliases an argument; PyTensor's graphs show the copy as a node, and PyMC
    counts on it)."""
    for k, out in enumerate(list(fgraph.outputs)):
        if k in update_mapping or out.owner is not None:
            continue
        node, j = fgraph.get_output_client(k)
        fgraph.change_node_input(node, j, deep_copy_op(out), reason="output is an input")


class _LinkJob:
    """Everything needed to compile a function's graph (after ``givens`` and updates are
    collected), kept by the function so that it can compile a variant of the same graph
    whose inputs have more static lengths: :meth:`specialize`."""

    def __init__(self, fg_inputs: list[Variable], fg_outputs: list[Variable],
                 update_mapping: dict[int, int], maker_inputs: list[In],
                 storage: list[Container], state_update: dict[int, Variable],
                 outs: list[Out], mode: Any, profile: Any, name: str | None,
                 accept_inplace: bool, trust_input: bool, unpack: bool,
                 run_checks: bool = True, sharding: dict[int, Any] | None = None) -> None:
        self.fg_inputs = fg_inputs
        self.fg_outputs = fg_outputs
        self.update_mapping = update_mapping
        self.maker_inputs = maker_inputs
        self.storage = storage
        self.state_update = state_update
        self.outs = outs
        self.mode = mode
        self.profile = profile
        self.name = name
        self.accept_inplace = accept_inplace
        self.trust_input = trust_input
        self.unpack = unpack
        self.run_checks = run_checks
        #: {input position: PartitionSpec or Sharding} for a data-parallel JAX function
        self.sharding = sharding

    def with_sharding(self, sharding: Any) -> _LinkJob:
        """This job placing its inputs with ``sharding`` (``{variable: spec}``)."""
        import copy

        pos: dict[int, Any] = {}
        ids = {id(v): k for k, v in enumerate(self.fg_inputs)}
        for var, spec in dict(sharding).items():
            k = ids.get(id(var))
            if k is None:
                raise ValueError(
                    f"sharding: {describe(var)} is not an input of the function (only "
                    "inputs, and shared variables the function reads, are placed on devices)"
                )
            pos[k] = spec
        job = copy.copy(self)
        job.sharding = pos
        return job

    def link(self) -> Function:
        """Rewrite and link the graph into a Function (the tail of :func:`function`)."""
        t0 = time.perf_counter()
        fgraph = FunctionGraph(self.fg_inputs, self.fg_outputs, clone=True,
                               update_mapping=self.update_mapping)
        maker_inputs = list(self.maker_inputs)
        # Inputs the inplace machinery must not overwrite: all but declared-mutable
        # arguments (shared variables never are).
        mutable = {fgraph.inputs[k] for k, i in enumerate(maker_inputs) if i.mutable}
        fgraph.mutable_inputs = mutable
        fgraph.protected_inputs = {v for v in fgraph.inputs if v not in mutable}
        _check_inplace(fgraph, self.accept_inplace)
        if self.run_checks:
            for check in _graph_checks:
                check(fgraph)

        m = get_mode(self.mode)
        prof = _make_profile(self.profile, self.name)
        rewriter = m.get_rewriter()
        t1 = time.perf_counter()
        if rewriter is not None:
            rewriter(fgraph)
        _copy_outputs_that_are_inputs(fgraph, self.update_mapping)
        t2 = time.perf_counter()
        progress_phase("inner graphs")
        prepare_nodes(fgraph, m)
        linking = progress_phase("link", len(fgraph.apply_nodes))
        linker = m.linker
        if self.sharding:
            if not getattr(linker, "accepts_sharding", False):
                raise ValueError(
                    f"sharding= needs mode='JAX': the {linker.name!r} linker of mode "
                    f"{m.name or m} runs on one device"
                )
            linker = linker.with_input_sharding(self.sharding)
        runner = linker.make_function(fgraph, profile=prof)
        if linking is not None:
            linking.advance(len(fgraph.apply_nodes))
        t3 = time.perf_counter()
        if prof is not None:
            prof.rewrite_time += t2 - t1
            prof.link_time += t3 - t2
            prof.n_nodes = len(fgraph.apply_nodes)
        for k, upd_var in self.state_update.items():
            maker_inputs[k] = _with_update(maker_inputs[k], upd_var)
        maker = FunctionMaker(fgraph, maker_inputs, self.outs, m, unpack_single=self.unpack)
        maker.compile_time = t3 - t0
        return Function(maker, runner, name=self.name, trust_input=self.trust_input,
                        input_storage=self.storage, profile=prof, link_job=self)

    def specialize(self, ones: dict[int, tuple[int, ...]], storage: list[Container]
                   ) -> Function:
        """The function on inputs whose lengths listed in ``ones`` (input position ->
        dimensions) are declared 1, sharing ``storage``: the graph is rebuilt on those
        types, so broadcasting (and its gradient) is decided statically."""
        repl: dict[Variable, Variable] = {}
        fg_inputs = list(self.fg_inputs)
        maker_inputs = list(self.maker_inputs)
        for k, dims in ones.items():
            v = fg_inputs[k]
            t: Any = v.type
            shape = tuple(1 if d in dims else s for d, s in enumerate(t.shape))
            nv = t.clone(shape=shape)(v.name)
            trace = v.tag.__dict__.get("trace")
            if trace is not None:  # where the user built it, for error messages
                nv.tag.trace = trace
            repl[v] = fg_inputs[k] = nv
            maker_inputs[k] = _copy_in(maker_inputs[k])
            maker_inputs[k].variable = nv
        for v in fg_inputs:  # computed inputs stay cuts of the copy
            if v.owner is not None:
                repl.setdefault(v, v)
        fg_outputs = list(clone_replace(self.fg_outputs, repl))
        state_update = {k: fg_outputs[j] for j, k in self.update_mapping.items()
                        if k in self.state_update}
        job = _LinkJob(fg_inputs, fg_outputs, self.update_mapping, maker_inputs, storage,
                       state_update, self.outs, self.mode, None, self.name,
                       self.accept_inplace, self.trust_input, self.unpack, run_checks=False,
                       sharding=self.sharding)
        return job.link()


def _with_downcast(i: In, allow: bool) -> In:
    """``i``, or a copy of it with ``allow_downcast`` set when it was unset."""
    if i.allow_downcast is not None:
        return i
    new = _copy_in(i)
    new.allow_downcast = allow
    return new


def _with_update(i: In, update: Variable) -> In:
    """A copy of ``i`` whose ``update`` is the compiled expression (givens applied)."""
    new = _copy_in(i)
    new.update = update
    return new


def _copy_in(i: In) -> In:
    new = In.__new__(In)
    new.__dict__.update(i.__dict__)
    return new


_graph_checks: list[Callable[[FunctionGraph], None]] = []


def register_graph_check(check: Callable[[FunctionGraph], None]) -> None:
    """Have ``check(fgraph)`` called on each graph :func:`function` compiles.

    It runs on the user's graph (cloned, givens applied, updates among the outputs
    as ``fgraph.update_mapping`` says) before any rewrite, and may warn or raise.
    A package above ``compile`` (e.g. ``theon.tensor.random``) registers its checks
    on import; registering the same callable twice is a no-op.
    """
    if check not in _graph_checks:
        _graph_checks.append(check)


def prepare_nodes(fgraph: FunctionGraph, mode: Mode) -> None:
    """Call ``op.prepare_node(node, mode)`` on each node whose Op overrides it.

    :func:`function` does this after the rewrites and before linking, so that an
    Op with an inner graph compiles it with ``mode`` (see
    :meth:`theon.graph.op.Op.prepare_node`).  A compiler of inner graphs calls it
    on its own rewritten graph too, so nested inner graphs follow the same mode.
    """
    base = Op.prepare_node
    for node in fgraph.toposort():
        if type(node.op).prepare_node is not base:
            node.op.prepare_node(node, mode)


def mode_cache_key(mode: Mode) -> tuple[Any, ...]:
    """A hashable key of what a Mode compiles to: its linker's class and settings, and
    its rewrites.  Two Modes with equal keys compile a graph the same way, so an Op
    may cache an inner graph compiled for one and reuse it for the other."""
    linker = mode.linker
    settings: tuple[Any, ...]
    try:
        settings = tuple(sorted(vars(linker).items()))
        hash(settings)
    except TypeError:
        settings = (id(linker),)
    opt = mode.optimizer
    try:
        hash(opt)
    except TypeError:
        opt = id(opt)
    return (type(linker), linker.name, settings, opt)


register_evaluator(function)
