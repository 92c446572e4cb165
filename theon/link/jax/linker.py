"""``JAXLinker``: a whole graph as one ``jax.jit`` function (``mode="JAX"``).

The linker asks :func:`~theon.link.jax.dispatch.jax_funcify` for a function per
node, composes them in topological order into one Python function of JAX values
(:meth:`JAXLinker.funcify_fgraph`) and ``jax.jit``\\ s it.  jax is imported when a
graph is linked, never when this module is imported.

Shapes
    jax.jit traces once per shape signature of the arguments.  The graph's static
    shapes are known at trace time (they are the arrays' shapes there), and shape
    arithmetic (``Shape``, ``Shape_i`` and the integer Ops computing on them) is
    evaluated with NumPy while tracing, so it stays concrete: a ``reshape`` or an
    ``alloc`` whose shape the graph computes from its inputs' shapes traces.  A
    graph whose input shapes are not all fixed by its types keeps at most
    ``max_traces`` traced versions (one per shape signature, least recently used
    dropped first, with their compiled code): the cache is bounded.

dtypes
    theon's graphs use float64 and int64 as NumPy does.  jax truncates them to
    32 bits unless ``jax_enable_x64`` is on, and that flag is process-wide.  The
    linker does not change it: it traces and calls under the scoped context
    manager ``jax.enable_x64(True)``, so theon's functions get 64-bit types and
    the user's own jax code keeps whatever the user configured.  (Cost: under a
    microsecond per call.)

Values
    Arguments go to the jitted function as NumPy arrays (jax places them on the
    default device); a Type may register :func:`jax_typify` to convert its values
    first (a random generator becomes a key).  Results come back as NumPy arrays of
    exactly the output type's dtype (:func:`jax_untypify`): ``np.asarray`` of a
    jax CPU array shares its buffer (read-only), it does not copy.

>>> import theon, theon.tensor as tt
>>> x = tt.dvector("x")
>>> f = theon.function([x], tt.exp(x).sum(), mode="JAX")  # doctest: +SKIP
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import FunctionGraph
from theon.link.basic import Linker, Runner, add_node_context
from theon.link.jax.dispatch import (
    MissingJAXRule,
    jax_funcify,
    jax_typify,
    jax_untypify,
    typify_is_default,
    untypify_is_default,
)
from theon.link.jax.lazy import run_branch
from theon.link.jax.packing import PackPlan
from theon.link.lazy import Branch, lazy_schedule
from theon.link.registry import load_linker_backends
from theon.progress import phase as progress_phase
from theon.progress import task as progress_task
from theon.rewriting.provenance import error_context

__all__ = ["JAXLinkError", "JAXLinker", "JAXRunner", "import_jax"]

#: a traced graph kept per shape signature: at most this many by default
DEFAULT_MAX_TRACES = 32


def import_jax() -> Any:
    """The ``jax`` module, or an ImportError that says how to install it."""
    try:
        import jax
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError(
            "mode='JAX' needs jax: pip install 'theon[jax]' (or pip install jax)"
        ) from e
    return jax


@dataclass(eq=False)
class JAXRunner(Runner):
    """The JAX linker's Runner; it also keeps the input packing plan (None when the
    inputs are passed one by one) and the jitted call (tests read its trace cache)."""

    pack_plan: PackPlan | None = None
    jax_call: Any = None
    #: a sharded function's input shardings (None on one device), and ``jax.jit`` of its
    #: traced function with them, for :func:`theon.link.jax.sharding.sharding_report`
    shardings: list[Any] | None = None
    lowerable: Any = None


class JAXLinkError(NotImplementedError):
    """Some Ops of a graph have no JAX rule; ``nodes`` lists them all."""

    def __init__(self, nodes: Sequence[Apply]) -> None:
        self.nodes = list(nodes)
        by_op: dict[str, list[Apply]] = {}
        for n in self.nodes:
            by_op.setdefault(type(n.op).__name__, []).append(n)
        lines = [
            f"mode='JAX': {len(by_op)} Op type(s) of this graph have no JAX rule "
            f"({', '.join(sorted(by_op))}); register one with "
            "@theon.link.jax.jax_funcify.register(OpClass):"
        ]
        for name in sorted(by_op):
            for n in by_op[name]:
                where = error_context(n) or "(no source line recorded)"
                ins = ", ".join(f"{v} ({v.type})" for v in n.inputs)
                lines.append(f"- {n.op} on [{ins}]\n  " + where.replace("\n", "\n  "))
        super().__init__("\n".join(lines))


_SHAPE_DTYPES = frozenset("int8 int16 int32 int64 uint8 uint16 uint32 uint64 bool".split())


def _is_concrete(v: Any) -> bool:
    return isinstance(v, (np.ndarray, np.generic, int, float, bool))


def _shape_like(node: Apply) -> bool:
    """Whether ``node`` may be evaluated with ``perform`` while tracing when its inputs are
    concrete: small integer outputs (shape arithmetic), which must stay concrete for the
    Ops that take a shape."""
    for o in node.outputs:
        t = o.type
        if getattr(t, "dtype", None) not in _SHAPE_DTYPES or getattr(t, "ndim", 9) > 1:
            return False
    return not getattr(node.op, "destroy_map", None)


def _const_value(v: Constant) -> Any:
    data = v.data
    if typify_is_default(v.type):
        return data
    return jax_typify(v.type, data)


def _perform(node: Apply, values: list[Any]) -> list[Any]:
    storage: list[list[Any]] = [[None] for _ in node.outputs]
    node.op.perform(node, [np.asarray(x) if isinstance(x, np.generic) else x for x in values],
                    storage)
    return [c[0] for c in storage]


def _static_input_shapes(fgraph: FunctionGraph) -> bool:
    for v in fgraph.inputs:
        shape = getattr(v.type, "shape", None)
        if shape is None:
            if hasattr(v.type, "ndim"):
                return False
            continue
        if any(s is None for s in shape):
            return False
    return True


class JAXLinker(Linker):
    """Links a graph into one ``jax.jit`` function; the linker of ``mode="JAX"``.

    Parameters
    ----------
    max_traces
        For a graph whose input shapes are not all static: how many traced and
        compiled versions (one per shape signature of the arguments) to keep; the
        least recently used is dropped first.
    input_sharding
        ``{input position: PartitionSpec}``: run data-parallel over ``mesh``
        (see :mod:`theon.link.jax.sharding`); ``None`` for one device.
    mesh
        The ``jax.sharding.Mesh`` for ``input_sharding`` (``None``: all devices on one
        axis named after the spec's first axis name).
    pack_scalars
        Pass many 0-d inputs (and return many 0-d outputs) of one dtype as one vector
        across the jit boundary (:mod:`theon.link.jax.packing`); not with sharding.

    Examples
    --------
    >>> JAXLinker().name
    'jax'
    """

    name = "jax"

    def __init__(self, max_traces: int = DEFAULT_MAX_TRACES,
                 input_sharding: dict[int, Any] | None = None, mesh: Any = None,
                 pack_scalars: bool = True) -> None:
        if max_traces < 1:
            raise ValueError(f"max_traces must be at least 1, got {max_traces}")
        self.max_traces = max_traces
        self.input_sharding = dict(input_sharding) if input_sharding else None
        self.mesh = mesh
        self.pack_scalars = pack_scalars

    def __repr__(self) -> str:
        return f"JAXLinker(max_traces={self.max_traces})"

    accepts_sharding = True

    def with_input_sharding(self, specs: dict[int, Any], mesh: Any = None) -> JAXLinker:
        """A copy of this linker placing input ``k`` with ``specs[k]`` (a PartitionSpec)."""
        return JAXLinker(self.max_traces, specs, mesh if mesh is not None else self.mesh,
                         self.pack_scalars)

    # the graph as a function of JAX values ----------------------------------------
    def funcify_fgraph(self, fgraph: FunctionGraph, report: bool = False
                       ) -> Callable[..., list[Any]]:
        """A Python function of JAX values computing ``fgraph``: ``fn(*inputs)`` returns
        the list of outputs.  Not jitted: rules of Ops with inner graphs call it and
        trace the result inside their own ``lax`` construct.  With ``report``, a trace
        reports its nodes to the progress display (:mod:`theon.progress`).

        Raises
        ------
        JAXLinkError
            Listing every node whose Op has no rule, and where each was built.
        """
        load_linker_backends("jax")
        order = fgraph.toposort()
        # (node, rule, shape-like, the variables the rule reads) of every node
        steps: dict[Apply, tuple[Callable[..., Any], bool, list[Variable]]] = {}
        missing: list[Apply] = []
        for node in order:
            try:
                fn = jax_funcify(node.op, node, linker=self)
            except MissingJAXRule:
                missing.append(node)
                continue
            except Exception as e:
                add_node_context(e, node)
                raise
            # a rule may read other variables than the node's inputs (``fn.jax_inputs``):
            # the source of a transposed operand, say, to contract it without a copy
            steps[node] = (fn, _shape_like(node),
                           list(getattr(fn, "jax_inputs", None) or node.inputs))
        if missing:
            raise JAXLinkError(missing)
        inputs = list(fgraph.inputs)
        outputs = list(fgraph.outputs)
        consts: dict[Variable, Any] = {}
        for _, _, reads in steps.values():
            for v in reads:
                if isinstance(v, Constant) and v not in consts:
                    consts[v] = _const_value(v)
        for v in outputs:
            if isinstance(v, Constant) and v not in consts:
                consts[v] = _const_value(v)
        n_in = len(inputs)
        # a lazy conditional's branch work runs inside its lax.cond (theon.link.jax.lazy)
        schedule = lazy_schedule(fgraph)
        items: Sequence[Any] = order if schedule is None else schedule.steps

        progress: list[Any] = [None]  # the progress task while this graph is traced

        def run_node(node: Apply, env: dict[Variable, Any]) -> None:
            fn, shape_like, reads = steps[node]
            if progress[0] is not None:
                progress[0].advance()
            ins = [env[v] for v in reads]
            try:
                if shape_like and all(_is_concrete(x) for x in ins):
                    outs = _perform(node, ins)
                else:
                    res = fn(*ins)
                    outs = [res] if len(node.outputs) == 1 else list(res)
            except Exception as e:
                add_node_context(e, node)
                raise
            env.update(zip(node.outputs, outs))

        def run_items(todo: Sequence[Any], env: dict[Variable, Any]) -> None:
            for item in todo:
                if isinstance(item, Branch):
                    run_branch(item, env, run_items)
                else:
                    run_node(item, env)

        def graph_fn(*args: Any) -> list[Any]:
            if len(args) != n_in:
                raise TypeError(f"expected {n_in} inputs, got {len(args)}")
            env: dict[Variable, Any] = dict(consts)
            env.update(zip(inputs, args))
            if report:
                progress[0] = progress_phase("jax trace", len(order))
            run_items(items, env)
            if report:
                progress[0] = None
                progress_phase("XLA compile")
            return [env[v] for v in outputs]

        return graph_fn

    # the runner --------------------------------------------------------------------
    def make_function(self, fgraph: FunctionGraph, profile: Any = None) -> Runner:
        jax = import_jax()
        with jax.enable_x64(True):
            graph_fn = self.funcify_fgraph(fgraph, report=True)
        typify = [(k, v.type) for k, v in enumerate(fgraph.inputs)
                  if not typify_is_default(v.type)]
        untyp: list[Callable[[Any], Any]] = []
        for v in fgraph.outputs:
            if untypify_is_default(v.type):
                untyp.append(np.asarray if hasattr(v.type, "dtype") else _plain)
            else:
                untyp.append(_bind_untypify(v.type))
        jit_kw: dict[str, Any] = {}
        shardings = None
        if self.input_sharding:
            from theon.link.jax.sharding import input_shardings

            # (jit places NumPy arguments by these shardings itself)
            shardings = input_shardings(fgraph, self.input_sharding, self.mesh)
            jit_kw["in_shardings"] = tuple(shardings)

        # many 0-d inputs/outputs cross the jit boundary as one vector per dtype
        plan = PackPlan.build(fgraph.inputs, fgraph.outputs,
                              enabled=self.pack_scalars and not self.input_sharding)
        if plan is not None:
            traced = plan.wrap(graph_fn)
        else:
            def traced(*args: Any) -> tuple[Any, ...]:
                return tuple(graph_fn(*args))

        call = _jit_caller(jax, traced, jit_kw, _static_input_shapes(fgraph), self.max_traces)
        if profile is not None and not self.input_sharding:
            from theon.link.jax.profiled import profiled_runner

            return profiled_runner(jax, fgraph, call, typify, untyp, plan, profile)
        x64 = jax.enable_x64

        if shardings is not None:
            sharded = self._sharded_runner(jax, fgraph, call, shardings, typify, untyp,
                                           jax.jit(traced, **jit_kw))
            if profile is not None:
                from theon.link.jax.profiled import profile_whole_calls

                profile_whole_calls(sharded, call, profile)
            return sharded
        if plan is not None:
            pack, unpack = plan.pack, plan.unpack

            def run(*args: Any) -> list[Any]:
                if typify:
                    vals = list(args)
                    for k, t in typify:
                        vals[k] = jax_typify(t, vals[k])
                    jargs = pack(vals)
                else:
                    jargs = pack(args)
                with x64(True):
                    outs = call(jargs)
                return unpack(outs, untyp)
        elif not typify and all(u is np.asarray for u in untyp):
            # the common case, with nothing to convert per argument
            asarray = np.asarray
            # (waiting for all the outputs at once, then reading each, is faster than
            # letting np.asarray wait for each in turn)
            ready = jax.block_until_ready
            if isinstance(call, _StaticCall):
                static = call
                jitted: Callable[..., Any] = static.jitted

                def first(*args: Any) -> Any:
                    nonlocal jitted
                    outs = static(args)  # (it traces and compiles: see _first_call)
                    jitted = static.jitted
                    return outs

                jitted = first

                def run(*args: Any) -> list[Any]:
                    with x64(True):
                        outs = jitted(*args)
                    return [asarray(o) for o in ready(outs)]
            else:
                def run(*args: Any) -> list[Any]:
                    with x64(True):
                        outs = call(args)
                    return [asarray(o) for o in ready(outs)]
        else:
            def run(*args: Any) -> list[Any]:
                vals = list(args)
                for k, t in typify:
                    vals[k] = jax_typify(t, vals[k])
                with x64(True):
                    outs = call(vals)
                return [u(o) for u, o in zip(untyp, outs)]

        float_inputs = plan.float64_inputs if plan is not None else frozenset()
        return JAXRunner(run, fgraph.toposort(), float_inputs=float_inputs, reentrant=True,
                         pack_plan=plan, jax_call=call)

    def _sharded_runner(self, jax: Any, fgraph: FunctionGraph, call: Any, shardings: list[Any],
                        typify: list[tuple[int, Any]], untyp: list[Callable[[Any], Any]],
                        lowerable: Any) -> JAXRunner:
        """The runner of a sharded graph: in one process, NumPy arguments placed by jit;
        in one process of several (``jax.distributed``), process-local arguments made
        into global arrays (:mod:`theon.link.jax.distributed`).  An argument the mesh
        cannot split evenly gets an error naming the input."""
        from theon.link.jax.distributed import indivisible, multiprocess_runner

        inputs = list(fgraph.inputs)

        def typed(args: Sequence[Any]) -> list[Any]:
            vals = list(args)
            for k, t in typify:
                vals[k] = jax_typify(t, vals[k])
            return vals

        x64 = jax.enable_x64
        run: Callable[..., list[Any]]
        if jax.process_count() > 1:
            run = multiprocess_runner(jax, call, inputs, shardings, typed, untyp)
        else:
            def run(*args: Any) -> list[Any]:
                vals = typed(args) if typify else args
                try:
                    with x64(True):
                        outs = jax.block_until_ready(call(vals))
                except Exception as e:
                    for v, a, s in zip(inputs, vals, shardings):
                        err = indivisible(v, np.shape(a), s)
                        if err is not None:
                            raise err from e
                    raise
                return [u(o) for u, o in zip(untyp, outs)]

        return JAXRunner(run, fgraph.toposort(), reentrant=True, jax_call=call,
                         shardings=shardings, lowerable=lowerable)


def _plain(value: Any) -> Any:
    return jax_untypify(None, value)


def _bind_untypify(t: Any) -> Callable[[Any], Any]:
    return lambda value: jax_untypify(t, value)


class TraceCache:
    """The jitted versions of one graph, one per shape signature of the arguments, at most
    ``size`` of them (least recently used dropped first).

    Each version is a ``jax.jit`` of its own wrapper function, so dropping it from
    the cache frees its trace and compiled code too.
    """

    def __init__(self, jax: Any, fn: Callable[..., Any], jit_kw: dict[str, Any],
                 size: int) -> None:
        self._jax = jax
        self._fn = fn
        self._kw = jit_kw
        self.size = size
        self.versions: OrderedDict[tuple[Any, ...], Any] = OrderedDict()
        self._lock = threading.Lock()
        #: how many times a new shape signature was traced
        self.n_traces = 0
        #: (key, jitted) of the last call: the same signature again skips the LRU update
        self._last: tuple[tuple[Any, ...], Any] | None = None

    def _new(self) -> Any:
        fn = self._fn

        def wrapper(*args: Any) -> Any:  # a fresh function object: a cache entry of its own
            return fn(*args)

        return self._jax.jit(wrapper, **self._kw)

    def last_shapes(self, inputs: Sequence[Variable]) -> list[Any] | None:
        """The argument shapes of the last call (None before the first)."""
        return None if self._last is None else list(self._last[0])

    def __call__(self, args: Sequence[Any]) -> Any:
        try:
            key = tuple([a.shape for a in args])
        except AttributeError:  # a Python number among the arguments
            key = tuple([getattr(a, "shape", None) for a in args])
        last = self._last
        if last is not None and last[0] == key:  # the shape signature of the last call
            return last[1](*args)
        versions = self.versions
        jitted = versions.get(key)
        fresh = False
        if jitted is None:
            with self._lock:
                jitted = versions.get(key)
                if jitted is None:
                    jitted = versions[key] = self._new()
                    fresh = True
                    self.n_traces += 1
                    while len(versions) > self.size:
                        versions.popitem(last=False)
        else:
            try:
                versions.move_to_end(key)
            except KeyError:  # dropped meanwhile by another thread
                pass
        self._last = (key, jitted)
        if fresh:
            return _first_call(jitted, args)
        return jitted(*args)


class _StaticCall:
    """The one jitted version of a graph whose input shapes are all static."""

    def __init__(self, jax: Any, fn: Callable[..., Any], jit_kw: dict[str, Any]) -> None:
        self.jitted = jax.jit(fn, **jit_kw)
        self.versions = {(): self.jitted}
        self.size = 1
        #: 1 once the jitted function was traced and compiled (by its first call)
        self.n_traces = 0

    def last_shapes(self, inputs: Sequence[Variable]) -> list[Any] | None:
        """The arguments' shapes: those of the inputs' types (all static)."""
        return [getattr(v.type, "shape", None) for v in inputs]

    def __call__(self, args: Sequence[Any]) -> Any:
        if self.n_traces:
            return self.jitted(*args)
        outs = _first_call(self.jitted, args)
        self.n_traces = 1
        return outs


def _first_call(jitted: Any, args: Sequence[Any]) -> Any:
    """A jitted version's first call, in which jax traces and compiles it: a task of the
    progress display (:mod:`theon.progress`), shown if it takes long."""
    with progress_task("first call (jax.jit)"):
        return jitted(*args)


def _jit_caller(jax: Any, fn: Callable[..., Any], jit_kw: dict[str, Any], static: bool,
                size: int) -> TraceCache | _StaticCall:
    if static:
        return _StaticCall(jax, fn, jit_kw)
    return TraceCache(jax, fn, jit_kw, size)
