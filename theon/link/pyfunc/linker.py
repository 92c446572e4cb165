"""``PyLinker``: the tier-0 linker, one generated Python function per graph.

>>> from theon.graph.type import Generic
>>> from theon.graph.op import Op
>>> from theon.graph.basic import Apply
>>> from theon.graph.fg import FunctionGraph
>>> class Inc(Op):
...     __props__ = ()
...     def make_node(self, x):
...         return Apply(self, [x], [Generic()()])
...     def perform(self, node, inputs, out):
...         out[0][0] = inputs[0] + 1
>>> x = Generic()("x")
>>> run = PyLinker().make_function(FunctionGraph([x], [Inc()(Inc()(x))]))
>>> run(40)
[42]
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from theon.graph.basic import Variable
from theon.graph.fg import FunctionGraph
from theon.link.basic import Linker, Runner, add_node_context
from theon.link.pyfunc.codegen import GeneratedCode, generate
from theon.link.pyfunc.kernel import QUIET_CALLS
from theon.link.registry import load_linker_backends
from theon.link.tier1 import allowed, available, describe, link_tier, resolve_tier

__all__ = ["PyLinker"]

_RETRY = (ArithmeticError, ValueError, TypeError)


def _destroys_inputs(fgraph: FunctionGraph) -> bool:
    """Whether some node overwrites (a view of) a graph input: a rerun would see it."""
    inputs = set(fgraph.inputs)
    roots: dict[Variable, set[Variable]] = {}
    for node in fgraph.toposort():
        op = node.op
        if not op.view_map and not op.destroy_map:
            continue
        for o, ins in list(op.view_map.items()) + list(op.destroy_map.items()):
            # (an output may view several inputs: a conditional's output is either branch's)
            mine: set[Variable] = set()
            for i in ins:
                src = node.inputs[i]
                mine |= roots.get(src, {src})
            if mine:
                roots[node.outputs[o]] = mine
        for ins in op.destroy_map.values():
            for i in ins:
                v = node.inputs[i]
                if not roots.get(v, {v}).isdisjoint(inputs):
                    return True
    return False


class PyLinker(Linker):
    """The default linker: generates one Python function for the whole graph.

    Each node becomes a few lines of Python: a direct NumPy call where an
    emitter is registered (:func:`~theon.link.pyfunc.dispatch.py_emit`), a call
    of ``op.perform`` otherwise.  0-d float64 values are carried as Python
    floats when every op on the way has a ``math`` spelling; at a singular point
    (``1.0 / 0.0``, ``log(0)``) the call is redone at the NumPy level, so
    results keep NumPy's inf/nan semantics.

    Parameters
    ----------
    float_path
        Carry 0-d float64 values as Python floats where possible.
    tier
        Tier-1 kernels (:mod:`theon.link.tier1`): ``0``, ``1``, ``"auto"``, or
        ``None`` for ``config.tier`` (read at each link).

    The :class:`~theon.link.basic.Runner` has ``order`` (the nodes in run order),
    ``source`` (the generated code), ``float_inputs``: the positions of 0-d
    float64 inputs that are only read through ``float()``, to which a caller may
    pass a Python float as is (skipping the argument filter exactly preserves the
    result), and ``reentrant = True``: intermediates live in the locals of the
    generated function, so several threads may run it at once.

    Examples
    --------
    >>> from theon.graph.type import Generic
    >>> x = Generic()("x")
    >>> PyLinker().make_function(FunctionGraph([x], [x]))(3)
    [3]
    """

    name = "py"

    def __init__(self, float_path: bool = True, tier: int | str | None = None) -> None:
        self.float_path = float_path
        self.tier = tier

    def __repr__(self) -> str:
        return f"PyLinker(float_path={self.float_path}, tier={self.tier!r})"

    def make_function(self, fgraph: FunctionGraph, profile: Any = None) -> Runner:
        load_linker_backends("py")  # the emitters the Op layers registered
        destroys = _destroys_inputs(fgraph)
        float_path = self.float_path and not destroys
        tier = resolve_tier(self.tier)
        if profile is not None and hasattr(profile, "add_note"):
            profile.add_note(describe(self.tier))
        with link_tier(tier):
            code = generate(fgraph, profile, float_path)
        fallback: Callable[..., list[Any]] | None = None
        if code.uses_float_path:
            fallback = _lazy_fallback(fgraph, profile)
        runner = _build(code, len(fgraph.inputs), profile, fallback)
        if tier == 1 and profile is None and not destroys:
            runner = _whole_graph_tier(fgraph, runner)
        return runner


def _whole_graph_tier(fgraph: FunctionGraph, runner: Runner) -> Runner:
    """``runner``, compiled whole by numba in the background after
    ``config.tier1_graph_calls`` calls where every node has a numba spelling
    (:mod:`theon.link.tier1.nbgraph`); ``runner`` itself otherwise.  (The caller has
    checked that the graph overwrites none of its inputs: tier 0 and the compiled
    function both run on the same arguments when the latter is checked.)"""
    from theon.config import config

    calls = int(config.tier1_graph_calls)
    if calls <= 0 or not (allowed("graph") and available("graph")):
        return runner
    from theon.link.tier1 import nbgraph

    if not nbgraph.eligible(fgraph):
        return runner
    return nbgraph.graph_runner(fgraph, runner, calls)


def _lazy_fallback(fgraph: FunctionGraph, profile: Any) -> Callable[..., list[Any]]:
    """A runner at the NumPy level only, generated on first use."""
    built: list[Runner] = []

    def fallback(*args: Any) -> list[Any]:
        if not built:
            built.append(
                _build(generate(fgraph, profile, False), len(fgraph.inputs), profile, None)
            )
        return built[0].fn(*args)

    return fallback


def _build(
    code: GeneratedCode, n_in: int, profile: Any, fallback: Callable[..., list[Any]] | None
) -> Runner:
    """Write the runner function around the generated body, and compile it.

    The code is compiled once per distinct source (see :mod:`theon.link.source`):
    structurally equal graphs give equal source, as the objects they use are globals.
    """
    src = code.source
    params = ", ".join(f"i{n}" for n in range(n_in))
    src.add(f"def run({params}):")
    if code.quiet:
        src.add("    _tok = _quiet(_ignore)")
    src.add("    try:")
    header = len(src.lines)
    src.add(*("        " + ln for ln in code.lines))
    src.add("    except Exception as _e:")
    if fallback is not None:
        # Python floats given for float_inputs become what the NumPy level expects
        boxed = ", ".join(
            f"_box_f64(i{n})" if n in code.float_inputs else f"i{n}" for n in range(n_in)
        )
        src.add("        if _error(_e):", f"            return _fallback({boxed})")
    else:
        src.add("        _error(_e)")
    src.add("        raise")
    if code.quiet:
        src.add("    finally:", "        _restore(_tok)")
    src.define("_error", _error_handler(code, fallback is not None, header))
    src.define("_quiet", QUIET_CALLS[0])
    src.define("_ignore", QUIET_CALLS[1])
    src.define("_box_f64", _box_f64)
    src.define("_restore", QUIET_CALLS[2])
    src.define("_fallback", fallback)
    if profile is not None:
        src.define("_pc", time.perf_counter)
        src.define("_record", profile.record)
    run = src.function("run", "py")
    float_inputs = code.float_inputs if fallback is not None else frozenset()
    return Runner(run, code.order, src.text(), float_inputs, reentrant=True)


def _box_f64(x: Any) -> Any:
    """A Python float as the 0-d float64 array a filter would make of it."""
    return np.asarray(x, dtype=np.float64)


def _error_handler(
    code: GeneratedCode, can_retry: bool, header: int
) -> Callable[[BaseException], bool]:
    """Maps the failing line to its node: retry at the NumPy level, or add node context."""
    line_node = code.line_node
    py_lines = code.py_lines
    order = code.order

    def on_error(e: BaseException) -> bool:
        tb = e.__traceback__
        idx = tb.tb_lineno - header - 1 if tb is not None else -1
        if can_retry and idx in py_lines and isinstance(e, _RETRY):
            return True
        if 0 <= idx < len(line_node) and line_node[idx] >= 0:
            add_node_context(e, order[line_node[idx]])
        return False

    return on_error
