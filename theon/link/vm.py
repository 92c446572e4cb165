"""The reference linker: ``Op.perform`` node by node, in topological order.

It keeps one storage cell per variable, frees intermediates once their last
reader has run, and is the oracle every other linker is tested against.

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
>>> run = VMLinker().make_function(FunctionGraph([x], [Inc()(x)]))
>>> run(41)
[42]
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import FunctionGraph
from theon.graph.op import lazy_branches
from theon.link.basic import Linker, Runner, add_node_context
from theon.link.lazy import Branch, Schedule, has_lazy_nodes, lazy_schedule

__all__ = ["VMLinker"]


class VMLinker(Linker):
    """The reference VM.

    Parameters
    ----------
    allow_gc
        Free each intermediate as soon as no later node reads it.
    check_outputs
        Verify that every value ``perform`` produces is valid for its type
        (slow; for testing Ops).
    """

    name = "vm"

    def __init__(self, allow_gc: bool = True, check_outputs: bool = False) -> None:
        self.allow_gc = allow_gc
        self.check_outputs = check_outputs

    def make_function(self, fgraph: FunctionGraph, profile: Any = None) -> Runner:
        order = fgraph.toposort()
        schedule = lazy_schedule(fgraph) if has_lazy_nodes(order) else None
        if schedule is not None:
            order = schedule.order
        storage: dict[Variable, list[Any]] = {}
        for v in fgraph.variables:
            storage[v] = [v.data if isinstance(v, Constant) else None]
        for node in order:
            for v in node.inputs + node.outputs:
                if v not in storage:
                    storage[v] = [v.data if isinstance(v, Constant) else None]
        input_cells = [storage[v] for v in fgraph.inputs]
        output_cells = [storage[v] for v in fgraph.outputs]
        keep = set(fgraph.inputs) | set(fgraph.outputs)
        last_use: dict[Variable, int] = {}
        for k, node in enumerate(order):
            for v in node.inputs:
                last_use[v] = k
        steps = []
        for k, node in enumerate(order):
            frees = []
            if self.allow_gc:
                for v in dict.fromkeys(node.inputs):
                    if last_use.get(v) == k and v not in keep and v.owner is not None:
                        frees.append(storage[v])
                # outputs nobody reads are dead at once
                for v in node.outputs:
                    if v not in last_use and v not in keep:
                        frees.append(storage[v])
            steps.append(
                (
                    node,
                    node.op.perform,
                    [storage[v] for v in node.inputs],
                    [storage[v] for v in node.outputs],
                    frees,
                )
            )
        computed = [storage[v] for v in fgraph.variables if v.owner is not None]
        check = self.check_outputs
        n_in = len(input_cells)
        if schedule is not None:
            program = _lazy_program(schedule, storage, steps, last_use, keep, self.allow_gc)
            lazy_run = _lazy_runner(program, input_cells, output_cells, computed, check, profile)
            return Runner(lazy_run, order)

        def run(*args: Any) -> list[Any]:
            if len(args) != n_in:
                raise TypeError(f"expected {n_in} inputs, got {len(args)}")
            for cell, a in zip(input_cells, args):
                cell[0] = a
            try:
                for node, perform, ins, outs, frees in steps:
                    for c in outs:
                        c[0] = None
                    try:
                        if profile is None:
                            perform(node, [c[0] for c in ins], outs)
                        else:
                            t0 = time.perf_counter()
                            perform(node, [c[0] for c in ins], outs)
                            profile.record(node, time.perf_counter() - t0)
                    except Exception as e:
                        add_node_context(e, node)
                        raise
                    if check:
                        _check_outputs(node, outs)
                    for c in frees:
                        c[0] = None
                return [c[0] for c in output_cells]
            finally:
                for cell in input_cells:
                    cell[0] = None
                for c in computed:
                    c[0] = None

        return Runner(run, order)


def _check_outputs(node: Apply, outs: list[list[Any]]) -> None:
    for v, c in zip(node.outputs, outs):
        if c[0] is None:
            raise ValueError(f"{node.op}.perform did not fill output {v.index}")
        if not v.type.is_valid_value(c[0]):
            raise TypeError(
                f"{node.op}.perform put a value of the wrong type in output {v.index}: "
                f"expected {v.type}, got {type(c[0]).__name__} {getattr(c[0], 'dtype', '')}"
                f"{getattr(c[0], 'shape', '')}"
            )


# lazy conditionals ------------------------------------------------------------------
# The program of a graph with lazy conditionals is a list of instructions run with a
# program counter (no recursion, whatever the nesting):
#   (_NODE, node, perform, input cells, output cells, cells to free)
#   (_BRANCH, condition cell, where the else-block starts)
#   (_SELECT, node, the taken branch's value cells, output cells, cells to free, next pc)
_NODE, _BRANCH, _SELECT = 0, 1, 2


def _lazy_program(
    schedule: Schedule,
    storage: dict[Variable, list[Any]],
    steps: list[tuple[Apply, Any, list[list[Any]], list[list[Any]], list[list[Any]]]],
    last_use: dict[Variable, int],
    keep: set[Variable],
    allow_gc: bool,
) -> list[list[Any]]:
    """The instructions running ``schedule``'s blocks, each conditional's branch lazily."""
    index = {node: k for k, node in enumerate(schedule.order)}
    program: list[list[Any]] = []
    # a value whose last reader is in one branch is dead after the conditional on both
    # paths: the SELECTs free everything that dies between the branch and the join
    dies_at: dict[int, list[Variable]] = {}
    for v, k in last_use.items():
        if v not in keep and v.owner is not None:
            dies_at.setdefault(k, []).append(v)
    work: list[Apply | Branch | tuple[str, Branch, list[Any]]] = list(reversed(schedule.steps))
    then_selects: dict[Branch, list[Any]] = {}  # (their jump target is set after the else-block)
    while work:
        item = work.pop()
        if isinstance(item, Branch):
            parts = lazy_branches(item.node)
            assert parts is not None
            branch = [_BRANCH, storage[parts.condition], -1]
            program.append(branch)
            work.append(("else", item, branch))
            work.extend(reversed(item.else_steps))
            work.append(("then", item, branch))
            work.extend(reversed(item.then_steps))
        elif isinstance(item, tuple):
            which, br, branch = item
            node = br.node
            parts = lazy_branches(node)
            assert parts is not None
            k = index[node]
            frees: list[list[Any]] = []
            if allow_gc:
                for j in range(br.then_start, k + 1):
                    frees.extend(storage[v] for v in dies_at.get(j, ()))
                frees.extend(
                    storage[v] for v in node.outputs if v not in last_use and v not in keep
                )
            values = parts.then_values if which == "then" else parts.else_values
            select = [
                _SELECT, node, [storage[v] for v in values],
                [storage[v] for v in node.outputs], frees, -1,
            ]
            program.append(select)
            if which == "then":
                branch[2] = len(program)  # the else-block starts after the then-SELECT
                then_selects[br] = select
            else:
                select[5] = len(program)
                then_selects.pop(br)[5] = len(program)
        else:
            program.append([_NODE, *steps[index[item]]])
    return program


def _lazy_runner(
    program: list[list[Any]],
    input_cells: list[list[Any]],
    output_cells: list[list[Any]],
    computed: list[list[Any]],
    check: bool,
    profile: Any,
) -> Callable[..., list[Any]]:
    n_in = len(input_cells)
    end = len(program)

    def run(*args: Any) -> list[Any]:
        if len(args) != n_in:
            raise TypeError(f"expected {n_in} inputs, got {len(args)}")
        for cell, a in zip(input_cells, args):
            cell[0] = a
        try:
            pc = 0
            while pc < end:
                ins = program[pc]
                kind = ins[0]
                if kind == _BRANCH:
                    pc = pc + 1 if ins[1][0] else ins[2]
                    continue
                t0 = time.perf_counter() if profile is not None else 0.0
                if kind == _NODE:
                    _, node, perform, in_cells, outs, frees = ins
                    for c in outs:
                        c[0] = None
                    try:
                        perform(node, [c[0] for c in in_cells], outs)
                    except Exception as e:
                        add_node_context(e, node)
                        raise
                    pc += 1
                else:
                    _, node, values, outs, frees, pc = ins
                    for src, c in zip(values, outs):
                        c[0] = src[0]
                if profile is not None:
                    profile.record(node, time.perf_counter() - t0)
                if check:
                    _check_outputs(node, outs)
                for c in frees:
                    c[0] = None
            return [c[0] for c in output_cells]
        finally:
            for cell in input_cells:
                cell[0] = None
            for c in computed:
                c[0] = None

    return run
