"""Tier 1 for a whole graph: one numba function for every node, where numba takes them all.

A small graph called many times (a log-density and its gradient in a sampler's inner
loop) spends its time in the interpreter between nodes, not in them.  When every node
of such a graph has a numba spelling (:func:`nb_spell`, registered per Op class by the
layer that defines the Op, in :mod:`theon.backends.numba`), the graph becomes one
numba function: elementwise nodes as loops on numbers, the rest as the NumPy calls
numba compiles.  Its runner (:func:`graph_runner`) counts calls on tier 0, and after
``config.tier1_graph_calls`` of them hands the compile to the background thread
(:mod:`.worker`); no call waits for it.  The first call that finds the compiled function
checks it against tier 0 on the same arguments (:func:`~.worker.close_enough`), and a
function that disagrees is dropped with a warning.  A call the compiled function refuses
(a shape it was not written for, an index out of range: it raises) is served by tier 0,
which gives the value or the error tier 0 always gives.

0-d values are numbers in the generated code; array constants are extra arguments.
The source is compiled by the numba loop compiler (:mod:`.loops`), so its machine code
is kept in the disk cache and a later process loads it.

>>> from theon.graph.type import Generic
>>> from theon.graph.fg import FunctionGraph
>>> x = Generic()("x")
>>> try:
...     generate(FunctionGraph([x], [x]))
... except Unsupported as e:
...     print(e)
input 0 x: a Generic value, not a tensor
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import FunctionGraph
from theon.graph.op import Op
from theon.link.basic import Runner
from theon.link.registry import load_linker_backends
from theon.link.tier1.worker import READY, VERIFY, Slot, bump, close_enough

__all__ = ["HELPERS", "OPTIONS", "GraphRunner", "NbContext", "NbGraph", "Unsupported",
           "eligible", "generate", "graph_runner", "make_compiler", "nb_spell",
           "spell_subgraph"]

#: dtypes a value of the generated code may have
DTYPES = frozenset({"float64", "float32", "int64", "int32", "int8", "int16", "uint8", "bool"})


#: Functions the spellings may call, by name: ``name -> source`` of a function of numbers
#: (a backend adds its own); a generated graph that calls one gets it compiled with it.
HELPERS: dict[str, str] = {}

#: numba's options for the graph function and its helpers
OPTIONS = "cache=True, nogil=True, error_model='numpy'"


class Unsupported(Exception):
    """The graph has a value or a node numba is not given (the message says which)."""


@functools.singledispatch
def nb_spell(op: Op, node: Apply, ctx: NbContext) -> list[str] | None:
    """Lines of numba-compiled Python computing ``node``, or None (no spelling: the graph
    stays on tier 0).  Inputs are read with ``ctx.arg(i)`` (a number for a 0-d value, an
    array otherwise), outputs named with ``ctx.out(j)``.

    >>> nb_spell(Op(), None, None) is None
    True
    """
    return None


def ndim_of(v: Variable) -> int:
    """``v``'s number of dimensions (0 for a number)."""
    return int(v.type.ndim)  # type: ignore[attr-defined]


def dtype_of(v: Variable) -> str:
    """``v``'s dtype name."""
    return str(v.type.dtype)  # type: ignore[attr-defined]


def literal(value: Any) -> str | None:
    """Source text of a Python/NumPy number numba reads as the same number (None if not
    a number).

    >>> literal(np.float64(-np.inf)), literal(np.int64(3)), literal(True)
    ('(-np.inf)', '3', 'True')
    """
    v = np.asarray(value)
    if v.ndim != 0:
        return None
    if v.dtype.kind == "b":
        return repr(bool(v))
    if v.dtype.kind in "iu":
        return repr(int(v))
    if v.dtype.kind == "f":
        f = float(v)
        if math.isnan(f):
            return "np.nan"
        if math.isinf(f):
            return "np.inf" if f > 0 else "(-np.inf)"
        text = repr(f)
        if v.dtype != np.float64:
            return f"np.{v.dtype.name}({text})"
        return text if f >= 0 else f"({text})"
    return None


class NbContext:
    """What a spelling gets for one node (see :func:`nb_spell`)."""

    def __init__(self, gen: _Gen, node: Apply) -> None:
        self.gen = gen
        self.node = node

    def arg(self, i: int) -> str:
        """The expression of input ``i``: a name, or a number's literal."""
        return self.gen.name_of(self.node.inputs[i])

    def read(self, var: Variable) -> str:
        """The expression of any variable computed before this node."""
        return self.gen.name_of(var)

    def out(self, j: int) -> str:
        """The name output ``j`` is assigned to."""
        return self.gen.new_var(self.node.outputs[j])

    def tmp(self) -> str:
        """A fresh local name."""
        return self.gen.tmp()

    def const(self, value: Any) -> str:
        """An expression for a constant: a literal number, or an extra argument."""
        return self.gen.const(value)

    def fail(self, why: str) -> Unsupported:
        """The error to raise when the node cannot be spelled after all."""
        return Unsupported(f"{self.node}: {why}")


@dataclass
class NbGraph:
    """The generated function of a graph, and how to call it."""

    source: str
    fname: str
    consts: list[np.ndarray]
    #: per input: the Python type a 0-d input is converted with (None for arrays)
    scalar_inputs: list[type | None]
    #: per output: the dtype a number is boxed in (None for arrays)
    scalar_outputs: list[np.dtype[Any] | None]
    header: tuple[str, ...] = ("import math", "import numpy as np")


_PY_TYPE = {"b": bool, "i": int, "u": int, "f": float}


class _Gen:
    """The names of a graph function's values, its constants, and fresh names."""

    def __init__(self) -> None:
        self.names: dict[Variable, str] = {}
        self.consts: list[np.ndarray] = []
        self.n = 0

    def tmp(self) -> str:
        self.n += 1
        return f"t{self.n}"

    def new_var(self, v: Variable) -> str:
        self.n += 1
        name = f"v{self.n}"
        self.names[v] = name
        return name

    def const(self, value: Any) -> str:
        lit = literal(value)
        if lit is not None:
            return lit
        arr = np.ascontiguousarray(value)
        name = f"k{len(self.consts)}"
        self.consts.append(arr)
        return name

    def name_of(self, v: Variable) -> str:
        name = self.names.get(v)
        if name is None:
            if not isinstance(v, Constant):
                raise Unsupported(f"{v} is read before it is computed")
            name = self.names[v] = self.const(v.data)
        return name


def _check_value(v: Variable, where: str) -> None:
    t = v.type
    nd, dt = getattr(t, "ndim", None), getattr(t, "dtype", None)
    if nd is None or dt not in DTYPES or not hasattr(t, "shape"):
        raise Unsupported(f"{where} {v}: a {type(t).__name__} value, not a tensor")


def generate(fgraph: FunctionGraph) -> NbGraph:
    """The numba source of ``fgraph`` (raises :class:`Unsupported` naming the first value
    or node numba is not given)."""
    load_linker_backends("numba")
    gen = _Gen()
    params: list[str] = []
    scalar_inputs: list[type | None] = []
    for k, v in enumerate(fgraph.inputs):
        _check_value(v, f"input {k}")
        name = f"i{k}"
        gen.names[v] = name
        params.append(name)
        scalar_inputs.append(_PY_TYPE[np.dtype(dtype_of(v)).kind] if ndim_of(v) == 0 else None)
    body: list[str] = []
    for node in fgraph.toposort():
        for v in node.outputs:
            _check_value(v, "output of")
        lines = nb_spell(node.op, node, NbContext(gen, node))
        if lines is None:
            raise Unsupported(f"{node.op} has no numba spelling")
        body.extend(lines)
    outs = [gen.name_of(v) for v in fgraph.outputs]
    scalar_outputs: list[np.dtype[Any] | None] = []
    for v in fgraph.outputs:
        _check_value(v, "output")
        scalar_outputs.append(np.dtype(dtype_of(v)) if ndim_of(v) == 0 else None)
    params += [f"k{n}" for n in range(len(gen.consts))]
    src = [f"def graph({', '.join(params)}):", *("    " + ln for ln in body),
           f"    return ({', '.join(outs)},)"]
    text = "\n".join(src)
    header = ["import math", "import numpy as np"]
    for name, helper in HELPERS.items():
        if f"{name}(" in text:
            header += ["", f"@numba.njit({OPTIONS})", helper]
    return NbGraph(text, "graph", gen.consts, scalar_inputs, scalar_outputs, tuple(header))


def spell_subgraph(ctx: NbContext, fgraph: FunctionGraph, names: Sequence[str]
                   ) -> tuple[list[str], list[str]]:
    """Statements computing ``fgraph``'s nodes inside the graph function ``ctx`` belongs
    to (an Op's inner graph: a scan's body), its inputs read as ``names`` (names or
    literals the caller has bound): ``(lines, the expressions of its outputs)``.  Its
    values get fresh names, so the lines can be placed in a loop's body.  Raises
    :class:`Unsupported` naming the first node without a spelling (and ``ctx``'s)."""
    gen = ctx.gen
    for k, (v, name) in enumerate(zip(fgraph.inputs, names, strict=True)):
        _check_value(v, f"inner input {k}")
        gen.names[v] = name
    lines: list[str] = []
    for node in fgraph.toposort():
        for v in node.outputs:
            _check_value(v, "output of")
        body = nb_spell(node.op, node, NbContext(gen, node))
        if body is None:
            raise ctx.fail(f"its inner {node.op} has no numba spelling")
        lines.extend(body)
    return lines, [gen.name_of(v) for v in fgraph.outputs]


def eligible(fgraph: FunctionGraph) -> bool:
    """Whether every node of ``fgraph`` has a spelling registered for its Op class and
    every value is a tensor numba is given (a quick test at link time; the spellings
    may still decline a node when the graph is generated).

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> eligible(FunctionGraph([x], [tt.exp(x).sum()])), eligible(FunctionGraph([x], [tt.sort(x)]))
    (True, False)
    """
    load_linker_backends("numba")
    default = nb_spell.dispatch(object)
    try:
        for v in fgraph.inputs:
            _check_value(v, "input")
        for node in fgraph.apply_nodes:
            if nb_spell.dispatch(type(node.op)) is default:
                return False
            for v in node.outputs:
                _check_value(v, "output of")
    except Unsupported:
        return False
    return True


def make_compiler() -> Any:
    """The numba loop compiler (imports numba; only the background thread calls it)."""
    from theon.link.tier1.loops import make_compiler as loops_compiler

    return loops_compiler()


def _caller(g: NbGraph, fn: Callable[..., Any]) -> Callable[..., list[Any]]:
    """A Python function calling the compiled ``fn`` with a call's arguments: 0-d inputs
    as numbers, the constants appended, numbers boxed as 0-d arrays of their dtype."""
    ns: dict[str, Any] = {"_fn": fn, "_asarray": np.asarray}
    n_in = len(g.scalar_inputs)
    args = []
    for k, conv in enumerate(g.scalar_inputs):
        if conv is None:
            args.append(f"i{k}")
        else:
            ns[f"_c{k}"] = conv
            args.append(f"_c{k}(i{k})")
    for n, c in enumerate(g.consts):
        ns[f"k{n}"] = c
        args.append(f"k{n}")
    outs = []
    for j, dt in enumerate(g.scalar_outputs):
        if dt is None:
            outs.append(f"o[{j}]")
        else:
            ns[f"_d{j}"] = dt
            outs.append(f"_asarray(o[{j}], _d{j})")
    params = ", ".join(f"i{k}" for k in range(n_in))
    text = (f"def call({params}):\n    o = _fn({', '.join(args)})\n"
            f"    return [{', '.join(outs)}]\n")
    exec(compile(text, "<theon-nbgraph-call>", "exec"), ns)
    call: Callable[..., list[Any]] = ns["call"]
    return call


def _build(fgraph: FunctionGraph, sample: Sequence[Any]) -> Callable[..., list[Any]] | None:
    """Generate, compile (for the types of ``sample``, a call's arguments) and wrap."""
    from theon.link.tier1 import compiler

    comp = compiler("graph")
    if comp is None:
        return None
    g = generate(fgraph)
    args = [a if conv is None else conv(a) for a, conv in zip(sample, g.scalar_inputs)]
    fn = comp.compile_loop(list(g.header), g.source, g.fname, [*args, *g.consts],
                           options=OPTIONS, elsewhere=True)
    return _caller(g, fn)


#: calls in a row the graph function may refuse before tier 0 keeps the graph
MAX_REFUSED = 100
#: the timing of tier 1 against tier 0 stops after this many seconds (at least one run each)
TIMING_BUDGET_S = 0.2


def _faster(impl: Callable[..., Any], base: Callable[..., Any], args: tuple[Any, ...]
            ) -> bool:
    """Whether ``impl`` runs ``args`` faster than ``base`` (the fastest of up to five
    runs each, interleaved; with ``config.tier1_autotune`` off, assumed)."""
    from theon.config import config

    if not config.tier1_autotune:
        return True
    best = [math.inf, math.inf]
    start = time.perf_counter()
    for _ in range(5):
        for k, fn in enumerate((base, impl)):
            t = time.perf_counter()
            fn(*args)
            best[k] = min(best[k], time.perf_counter() - t)
        if time.perf_counter() - start > TIMING_BUDGET_S:
            break
    return best[1] < best[0]


def graph_runner(fgraph: FunctionGraph, tier0: Runner, calls: int) -> Runner:
    """``tier0`` with the whole graph compiled in the background after ``calls`` calls
    (see the module docstring); the runner's ``slot`` is the compile's :class:`Slot`.
    """
    slot = Slot("the whole graph")
    base = tier0.fn
    count = [0]

    def submit(args: tuple[Any, ...]) -> None:
        sample = [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args]
        slot.submit(lambda: _build(fgraph, sample))

    refused = [0]

    def verify(impl: Callable[..., list[Any]], args: tuple[Any, ...]) -> list[Any]:
        want = base(*args)
        try:
            got = impl(*args)
        except Exception:
            # a call the graph function refuses (tier 0 serves it): check the next one
            refused[0] += 1
            if refused[0] >= MAX_REFUSED:
                slot.drop(f"refused {MAX_REFUSED} calls in a row", warn=False)
            return want
        if len(got) != len(want) or not all(close_enough(g, w) for g, w in zip(got, want)):
            slot.drop("gave other values than tier 0")
        elif not _faster(impl, base, args):
            slot.drop("is not faster than tier 0", warn=False)
        else:
            slot.verified()
        return want

    def run(*args: Any) -> list[Any]:
        impl = slot.impl
        if impl is None:
            count[0] += 1
            if count[0] == calls:
                submit(args)
            return base(*args)
        if slot.state == READY:
            try:
                outs: list[Any] = impl(*args)
                return outs
            except Exception:
                return base(*args)  # (the value, or the error tier 0 gives)
        if slot.state == VERIFY:
            bump("tier1_calls")
            return verify(impl, args)
        return base(*args)

    return GraphRunner(run, tier0.order, tier0.source, tier0.float_inputs,
                       reentrant=tier0.reentrant,
                       reuses_output_storage=tier0.reuses_output_storage, slot=slot,
                       tier0=tier0)


@dataclass(eq=False)
class GraphRunner(Runner):
    """The runner of :func:`graph_runner`: tier 0's, with the whole-graph compile's slot
    and tier 0's own runner (``tier0``)."""

    slot: Slot | None = None
    tier0: Runner | None = None
