"""Source generation for the py linker: one Python function for a whole graph.

Each variable lives in a local of the generated function, in one or more
*representations* (:class:`Rep`):

- ``Rep.VAL``: exactly the value ``perform`` would produce or receive,
- ``Rep.NPS``: a NumPy scalar (or 0-d array) of the right dtype, for 0-d values,
- ``Rep.PY``: a Python ``float``/``int``/``bool``, for 0-d values (the fast path).

Conversions are emitted only where a consumer needs another representation.
A dead intermediate is released right after its last reader: its local is
rebound by that reader's output, or deleted.  Each line of the body remembers
which node it belongs to, so an error can be annotated with its node at no
cost on the normal path.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import StrEnum
from functools import singledispatch
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import FunctionGraph
from theon.graph.op import lazy_branches
from theon.link.lazy import Branch, Schedule, has_lazy_nodes, lazy_schedule
from theon.link.pyfunc.dispatch import (
    MAX_EXPR_ARGS,
    ValueInfo,
    py_emit,
    py_globals,
    py_scalar_block,
    py_scalar_expr,
    value_info,
)
from theon.link.source import Source

__all__ = ["GeneratedCode", "NodeEmitter", "Rep", "extra_reads", "generate"]


@singledispatch
def extra_reads(op: Any, node: Apply) -> Sequence[Variable]:
    """Variables other than ``node.inputs`` that ``op``'s emitter may read (through
    :meth:`NodeEmitter.read`), kept alive until ``node`` has run.

    An emitter that reads a value further up the graph (the operand of an input's
    DimShuffle, say) registers a rule here, so the liveness of the generated code
    counts that read.  None by default.
    """
    return ()


class Rep(StrEnum):
    """How the generated code holds a value (a str: ``Rep.NPS == "nps"``).

    >>> Rep("nps") is Rep.NPS, [r.value for r in Rep]
    (True, ['val', 'nps', 'py'])
    """

    #: exactly the value ``perform`` would produce or receive
    VAL = "val"
    #: a NumPy scalar (or 0-d array) of the right dtype, for 0-d values
    NPS = "nps"
    #: a Python ``float``/``int``/``bool``, for 0-d values (the fast path)
    PY = "py"


#: Conditionals nest at most this deep in generated code (Python's parser limits the
#: indentation); a conditional deeper than that computes both branches.
MAX_BRANCH_DEPTH = 32

_PY_CONV = {"f": "float", "i": "int", "u": "int", "b": "bool"}
# dtypes a Python number holds exactly as the result of a fast-path expression
_PY_RESULT_DTYPES = ("float64", "bool")


def _perform1(perform: Any, node: Apply, args: list[Any]) -> Any:
    """Run a one-output ``perform`` into a fresh cell and return the value."""
    cell: list[Any] = [None]
    perform(node, args, [cell])
    return cell[0]


def _perform(perform: Any, node: Apply, args: list[Any], n: int) -> list[Any]:
    """Run ``perform`` into ``n`` fresh cells and return the values."""
    cells: list[list[Any]] = [[None] for _ in range(n)]
    perform(node, args, cells)
    return [c[0] for c in cells]


class GeneratedCode:
    """The body lines of a generated runner, with its line -> node table.

    ``source`` holds the namespace the lines use; the linker writes the
    function around the body into it (see :func:`~theon.link.pyfunc.linker`).
    """

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.line_node: list[int] = []
        self.source = Source({
            **py_globals,
            "np": np,
            "math": math,
            "_perform1": _perform1,
            "_perform": _perform,
        })
        self.py_lines: set[int] = set()
        self.order: list[Apply] = []
        self.uses_float_path = False
        self.quiet = False
        # inputs that are only read through float(): a Python float may be passed as is
        self.float_inputs: frozenset[int] = frozenset()
        # the indentation of the lines added now (inside the branches of a conditional)
        self.indent = ""
        # with ``py_io``: the expression of each output (no ``return`` line is added)
        self.output_names: list[str] = []

    def bind(self, obj: Any, hint: str = "g") -> str:
        """A global name for ``obj`` in the generated function (one per object)."""
        return self.source.bind(obj, hint)

    def add(self, line: str, node_index: int, py: bool = False) -> None:
        """Append a body line belonging to node ``node_index`` (-1: none)."""
        self.lines.append(self.indent + line if self.indent else line)
        self.line_node.append(node_index)
        if py:
            self.py_lines.add(len(self.lines) - 1)


class _VarState:
    """Where a variable's value is held, per representation."""

    __slots__ = ("info", "reps", "fresh", "const", "py_in", "py_out")

    def __init__(self, info: ValueInfo, py_in: bool = False, py_out: bool = False) -> None:
        self.info = info
        self.py_in = py_in  # may be read as a Python number
        self.py_out = py_out  # may be computed as a Python number
        self.reps: dict[Rep, str] = {}
        self.fresh = False
        self.const = False


class NodeEmitter:
    """The context an emitter gets for one node (see :func:`~.dispatch.py_emit`)."""

    def __init__(self, gen: _Generator, node: Apply, index: int) -> None:
        self.gen = gen
        self.node = node
        self.index = index
        self.pre: list[tuple[str, bool]] = []

    # inputs -----------------------------------------------------------------
    def info(self, var: Variable) -> ValueInfo:
        """The ValueInfo of ``var``'s type."""
        return self.gen.state(var).info

    def arg(self, i: int, rep: Rep = Rep.VAL) -> str:
        """An expression for input ``i`` in representation ``rep`` (conversions emitted)."""
        return self.gen.materialize(self.node.inputs[i], rep, self.pre)

    def read(self, var: Variable, rep: Rep = Rep.VAL) -> str:
        """An expression for ``var``, one of the variables :func:`extra_reads` names."""
        return self.gen.materialize(var, rep, self.pre)

    def may_overwrite(self, i: int) -> bool:
        """Whether input ``i``'s array is owned by this function and dead after this node."""
        return self.gen.may_overwrite(self.node, self.index, i)

    # outputs ----------------------------------------------------------------
    def out(self, j: int, rep: Rep = Rep.VAL, fresh: bool = False, reuse: bool = False) -> str:
        """The local name the emitter assigns output ``j`` to, in representation ``rep``.

        ``fresh`` declares that the assigned value is a new array no other
        variable shares, so a later node may overwrite it once it is dead.
        ``reuse`` declares that no line of the emitter reads an input after
        assigning this output: the name of an input dying here may then be
        rebound, which releases that input's value with no ``del``.
        """
        st = self.gen.state(self.node.outputs[j])
        if rep != Rep.VAL and not st.info.is_scalar:
            raise ValueError(
                f"representation {str(rep)!r} needs a 0-d numeric type, "
                f"not {self.node.outputs[j].type}"
            )
        name = (reuse and self.gen.take_dying_name(self.node, self.index)) or self.gen.new_name()
        st.reps = {rep: name}
        st.fresh = fresh and rep == Rep.VAL
        return name

    def out_constant(self, j: int, value: Any) -> None:
        """Declare output ``j`` known at compile time: later readers use ``value`` directly."""
        st = self.gen.state(self.node.outputs[j])
        st.reps = {Rep.VAL: self.bind(value, "k")}
        st.fresh = False
        st.const = True

    def bind(self, obj: Any, hint: str = "g") -> str:
        """A global name for ``obj``."""
        return self.gen.code.bind(obj, hint)

    def quiet(self) -> None:
        """Run the function with NumPy floating-point errors ignored (as ``perform`` does)."""
        self.gen.code.quiet = True

    @property
    def shared(self) -> dict[str, Any]:
        """A dict shared by all emitters of one generated function (for backend analyses)."""
        return self.gen.shared


class _Generator:
    """Builds the body of the runner for one FunctionGraph."""

    def __init__(
        self, fgraph: FunctionGraph, profile: Any, float_path: bool, py_io: bool = False
    ) -> None:
        self.fgraph = fgraph
        self.profile = profile
        self.float_path = float_path
        self.py_io = py_io
        self.code = GeneratedCode()
        self.states: dict[Variable, _VarState] = {}
        self._infos: dict[int, ValueInfo] = {}
        self.outputs = set(fgraph.outputs)
        self.order = fgraph.toposort()
        self.schedule: Schedule | None = None
        if has_lazy_nodes(self.order):
            self.schedule = lazy_schedule(fgraph, MAX_BRANCH_DEPTH)
            if self.schedule is not None:
                self.order = self.schedule.order
        self.code.order = self.order
        self.last: dict[Variable, int] = {}
        for k, node in enumerate(self.order):
            for v in node.inputs:
                self.last[v] = k
            for v in extra_reads(node.op, node):
                # read here, not freed here: only 0-d values (a name, no array) are
                # expected, kept to the end of the function if nothing frees them later
                self.last[v] = max(self.last.get(v, k), k)
        self._viewers: dict[Variable, list[Variable]] | None = None
        self._roots: dict[Variable, list[Variable]] = {}
        self._count = 0
        self.free_names: list[str] = []
        self.pending_free: list[str] = []
        self._flag_cache: dict[int, tuple[bool, bool]] = {}
        self._spellings: dict[Any, tuple[str, Any] | None] = {}
        self._keep_alive: list[Any] = []
        self.input_index = {v: n for n, v in enumerate(fgraph.inputs)}
        self.raw_inputs: set[int] = set()  # inputs read other than through float()
        self.shared: dict[str, Any] = {}

    # variables ----------------------------------------------------------------
    def type_info(self, t: Any) -> ValueInfo:
        """value_info(t), memoized per type object (types are alive while we generate)."""
        info = self._infos.get(id(t))
        if info is None:
            info = self._infos[id(t)] = value_info(t)
        return info

    def state(self, var: Variable) -> _VarState:
        st = self.states.get(var)
        if st is None:
            info = self.type_info(var.type)
            st = _VarState(info, *self._py_flags(info))
            if isinstance(var, Constant):
                st.reps[Rep.VAL] = self.code.bind(var.data, "k")
            self.states[var] = st
        return st

    def take_dying_name(self, node: Apply, k: int) -> str | None:
        """The name of an input of node ``k`` that dies there (its other names are freed)."""
        last = self.last
        for v in node.inputs:
            if v.owner is not None and last.get(v) == k and v not in self.outputs:
                st = self.states.get(v)
                if st is not None and st.reps and not st.const:
                    names = list(st.reps.values())
                    st.reps = {}
                    # the other names may still be read by this node's lines
                    self.pending_free.extend(names[1:])
                    return names[0]
        return None

    def new_name(self) -> str:
        """A local name: a freed one (rebinding it releases its old value) or a new one."""
        if self.free_names:
            return self.free_names.pop()
        self._count += 1
        return f"v{self._count - 1}"

    def materialize(self, var: Variable, rep: Rep, pre: list[tuple[str, bool]]) -> str:
        """The name of ``var`` in ``rep``, emitting a conversion into ``pre`` if needed."""
        st = self.state(var)
        if rep != Rep.PY and var in self.input_index:
            self.raw_inputs.add(self.input_index[var])
        name = st.reps.get(rep)
        if name is not None:
            return name
        if not st.reps and not isinstance(var, Constant):
            raise AssertionError(
                f"py linker: {var} is read after its local was given to another value "
                "(an emitter must read its inputs with arg() before out(..., reuse=True))"
            )
        info = st.info
        if rep == Rep.NPS and Rep.VAL in st.reps:
            return st.reps[Rep.VAL]  # a 0-d array is acceptable where a NumPy scalar is
        if isinstance(var, Constant):
            name = self._constant_rep(var, rep, info)
            st.reps[rep] = name
            return name
        if rep == Rep.VAL:
            src = st.reps.get(Rep.NPS) or st.reps.get(Rep.PY)
            if src is None or info.box is None:
                raise AssertionError(f"no value for {var} to box")
            args = "".join(", " + self.code.bind(a, "d") for a in info.box_args)
            expr = f"{self.code.bind(info.box, 'box')}({src}{args})"
            py = src == st.reps.get(Rep.PY)
        elif rep == Rep.NPS:
            src = st.reps[Rep.PY]
            expr = f"{self.code.bind(np.dtype(info.dtype).type, 't')}({src})"
            py = True
        elif rep == Rep.PY:
            src = st.reps.get(Rep.NPS) or st.reps[Rep.VAL]
            expr = f"{_PY_CONV[np.dtype(info.dtype).kind]}({src})"
            py = False
        else:
            raise ValueError(f"unknown representation {str(rep)!r}")
        name = self.new_name()
        pre.append((f"{name} = {expr}", py))
        st.reps[rep] = name
        return name

    def _constant_rep(self, c: Constant, rep: Rep, info: ValueInfo) -> str:
        data = c.data
        if rep == Rep.PY:
            value = np.asarray(data).item()
            if isinstance(value, float) and math.isfinite(value) or isinstance(value, (bool, int)):
                return f"({value!r})" if value < 0 else repr(value)
            return self.code.bind(value, "k")
        if rep == Rep.NPS:
            return self.code.bind(np.asarray(data)[()], "k")
        return self.code.bind(data, "k")

    # aliasing -----------------------------------------------------------------
    def viewers(self, var: Variable) -> list[Variable]:
        """Variables whose memory is ``var``'s (views or destroyed-into outputs)."""
        if self._viewers is None:
            vw: dict[Variable, list[Variable]] = {}
            roots: dict[Variable, list[Variable]] = {}
            for node in self.order:
                op = node.op
                if not op.view_map and not op.destroy_map:
                    continue
                for o, ins in list(op.view_map.items()) + list(op.destroy_map.items()):
                    out = node.outputs[o]
                    out_roots = roots.setdefault(out, [])
                    for i in ins:
                        src = node.inputs[i]
                        # a view of a view shares its root's memory
                        for r in roots.get(src) or [src]:
                            out_roots.append(r)
                            vw.setdefault(r, []).append(out)
            self._viewers = vw
            self._roots = roots
        return self._viewers.get(var, [])

    def memory_sharers(self, var: Variable) -> set[Variable]:
        """Every variable that may share ``var``'s memory: its roots and all their views."""
        self.viewers(var)
        viewers = self._viewers or {}
        roots = self._roots.get(var) or [var]
        group: set[Variable] = set(roots)
        for r in roots:
            group.update(viewers.get(r, ()))
        group.update(viewers.get(var, ()))
        group.discard(var)
        return group

    def may_overwrite(self, node: Apply, k: int, i: int) -> bool:
        var = node.inputs[i]
        if var.owner is None or var in self.outputs or self.last.get(var) != k:
            return False
        st = self.states.get(var)
        if st is None or not st.fresh or Rep.VAL not in st.reps:
            return False
        if node.inputs.count(var) != 1:
            return False
        for w in self.memory_sharers(var):
            if w.owner is None or w in self.outputs or self.last.get(w, -1) >= k:
                return False
        return True

    # nodes --------------------------------------------------------------------
    def py_eligible(self, node: Apply) -> bool:
        """Whether the node's values can all be Python numbers (0-d, right dtypes)."""
        if not self.float_path or not node.outputs:
            return False
        state = self.state
        for o in node.outputs:
            if not state(o).py_out:
                return False
        for v in node.inputs:
            if not state(v).py_in:
                return False
        return True

    def _py_flags(self, info: ValueInfo) -> tuple[bool, bool]:
        """(may be read as a Python number, may be computed as one), per ValueInfo."""
        f = self._flag_cache.get(id(info))
        if f is None:
            sc = info.is_scalar
            kind_ok = sc and np.dtype(info.dtype).kind in _PY_CONV
            f = self._flag_cache[id(info)] = (kind_ok, sc and info.dtype in _PY_RESULT_DTYPES)
            self._keep_alive.append(info)
        return f

    def emit_node(self, k: int, node: Apply) -> None:
        code = self.code
        em = NodeEmitter(self, node, k)
        lines: list[tuple[str, bool]] | None = None
        if self.py_eligible(node):
            lines = self._py_lines(node, em)
        if lines is None:
            emitted = py_emit(node.op, node, em)
            if emitted is None:
                emitted = self._perform_lines(node, em)
            lines = [(ln, False) for ln in emitted]
        prof = self.profile is not None
        if prof:
            code.add("_t0 = _pc()", k)
        for ln, py in em.pre:
            code.add(ln, k, py)
        for ln, py in lines:
            code.add(ln, k, py)
        if prof:
            code.add(f"_record({code.bind(node, 'n')}, _pc() - _t0)", k)
        self._free_after(k, node)

    def _py_spelling(self, node: Apply) -> tuple[str, Any] | None:
        """("block", builder) or ("expr", format template) for the node, memoized by types."""
        # keyed by identity: equal but distinct ops or types only cost a second lookup
        key: Any = (
            id(node.op),
            *[id(v.type) for v in node.inputs],
            *[id(v.type) for v in node.outputs],
        )
        try:
            return self._spellings[key]
        except KeyError:
            pass
        found: tuple[str, Any] | None = None
        builder = py_scalar_block(node.op, node)
        if builder is not None:
            found = ("block", builder)
        elif len(node.outputs) == 1 and len(node.inputs) <= MAX_EXPR_ARGS:
            # (more operands could nest too deep for compile(): NumPy level instead)
            marks = [f"__arg{i}__" for i in range(len(node.inputs))]
            expr = py_scalar_expr(node.op, node, marks)
            if expr is not None:
                template = expr.replace("{", "{{").replace("}", "}}")
                for i, m in enumerate(marks):
                    template = template.replace(m, "{" + str(i) + "}")
                found = ("expr", template)
        self._spellings[key] = found
        self._keep_alive.append(node)  # the ids in the key stay valid
        return found

    def _py_lines(self, node: Apply, em: NodeEmitter) -> list[tuple[str, bool]] | None:
        """The node on Python numbers, if its op has a spelling for that."""
        spelling = self._py_spelling(node)
        if spelling is None:
            return None
        self.code.uses_float_path = True
        args = [em.arg(i, Rep.PY) for i in range(len(node.inputs))]
        kind, how = spelling
        if kind == "expr":
            expr = how.format(*args)
            name = em.out(0, Rep.PY, reuse=True)
            return [] if name == expr else [(f"{name} = {expr}", True)]
        taken: list[str] = []

        def new_name() -> str:
            taken.append(self.new_name())
            return taken[-1]

        body, outs = how(args, new_name)
        lines = [(ln, True) for ln in body]
        kept = set()
        for j, e in enumerate(outs):
            st = self.state(node.outputs[j])
            if e in taken and e not in kept:
                st.reps = {Rep.PY: e}  # the temporary is the output
                kept.add(e)
            else:
                lines.append((f"{em.out(j, Rep.PY)} = {e}", True))
            st.fresh = False
        self.free_names.extend(n for n in taken if n not in kept)
        return lines

    def _perform_lines(self, node: Apply, em: NodeEmitter) -> list[str]:
        args = ", ".join(em.arg(i) for i in range(len(node.inputs)))
        perform = em.bind(node.op.perform, "p")
        n = em.bind(node, "n")
        if len(node.outputs) == 1:
            return [f"{em.out(0, reuse=True)} = _perform1({perform}, {n}, [{args}])"]
        outs = ", ".join(em.out(j, reuse=True) for j in range(len(node.outputs)))
        return [f"{outs}, = _perform({perform}, {n}, [{args}], {len(node.outputs)})"]

    def _free_after(self, k: int, node: Apply) -> None:
        """Release the values dead after node ``k`` and give their names back for reuse.

        Arrays are deleted at once; 0-d values are tiny, so their names are
        just rebound later.
        """
        last = self.last
        outputs = self.outputs
        freed: list[str] = []
        dels: list[str] = []
        for v in (*node.inputs, *node.outputs):
            if v.owner is None or v in outputs or last.get(v, k) != k:
                continue
            st = self.states.get(v)
            if st is not None and st.reps and not st.const:
                names = st.reps.values()
                freed.extend(names)
                if st.info.ndim != 0:
                    dels.extend(names)
                st.reps = {}
        if dels:
            self.code.add(f"del {', '.join(dict.fromkeys(dels))}", k)
        self.free_names.extend(dict.fromkeys(freed))
        self.free_names.extend(self.pending_free)
        self.pending_free.clear()

    # lazy conditionals --------------------------------------------------------
    def emit_steps(self, steps: list[Apply | Branch]) -> None:
        """Emit a block of a lazy schedule (recursion bounded by MAX_BRANCH_DEPTH)."""
        for step in steps:
            if isinstance(step, Branch):
                self.emit_branch(step)
            else:
                self.emit_node(self.node_index[step], step)

    def emit_branch(self, br: Branch) -> None:
        """``if cond:`` then-block, outputs from the then-values, ``else:`` the same.

        Each path through the generated code runs a subsequence of ``self.order``,
        so liveness computed on that order holds on every path; what needs care is
        the names.  A conversion made inside a block exists only on that path, so
        the outer variables get their names back after each block.  An outer array
        whose last reader is inside one block is deleted there, and at the start
        of the other block (where its name still holds it).
        """
        node = br.node
        parts = lazy_branches(node)
        assert parts is not None
        k = self.node_index[node]
        code = self.code
        pre: list[tuple[str, bool]] = []
        st_c = self.state(parts.condition)
        # any representation can be tested for truth: take one there is
        cond = self.materialize(parts.condition, Rep.PY if Rep.PY in st_c.reps else Rep.NPS, pre)
        for ln, py in pre:
            code.add(ln, k, py)
        outs = [self.new_name() for _ in node.outputs]
        snap = {v: dict(st.reps) for v, st in self.states.items() if st.reps}
        last = self.last

        def dying(lo: int, hi: int) -> list[Variable]:
            return [
                v for v in snap
                if v.owner is not None and v not in self.outputs and lo <= last.get(v, -1) < hi
            ]

        die_then = dying(br.then_start, br.else_start)
        die_else = dying(br.else_start, k)
        outer_indent = code.indent
        reps: list[Rep] = []
        for taken in (True, False):
            code.add("if " + cond + ":" if taken else "else:", k)
            code.indent = outer_indent + "    "
            n_lines = len(code.lines)
            if not taken:
                self._del_names(die_then, snap, k)
            self.emit_steps(br.then_steps if taken else br.else_steps)
            values = parts.then_values if taken else parts.else_values
            pre = []
            srcs = []
            for j, v in enumerate(values):
                if taken:
                    st_o = self.state(node.outputs[j])
                    py = st_o.py_out and self.float_path and Rep.PY in self.state(v).reps
                    reps.append(Rep.PY if py else Rep.VAL)
                srcs.append(self.materialize(v, reps[j], pre))
            for ln, py in pre:
                code.add(ln, k, py)
            for name, src in zip(outs, srcs):
                code.add(f"{name} = {src}", k)
            # the block's own values read only by the conditional die here
            self._free_vars(
                [v for v in dict.fromkeys(values) if v not in snap and last.get(v) == k], k
            )
            if taken:
                self._del_names(die_else, snap, k)
            if len(code.lines) == n_lines:
                code.add("pass", k)
            code.indent = outer_indent
            dead = set(die_then) if taken else set(die_then + die_else)
            for v, r in snap.items():
                self.states[v].reps = {} if v in dead else dict(r)
        for j, o in enumerate(node.outputs):
            st = self.state(o)
            st.reps = {reps[j]: outs[j]}
            st.fresh = False
        self._free_after(k, node)

    def _del_names(self, vs: list[Variable], snap: dict[Variable, dict[Rep, str]], k: int) -> None:
        names = [n for v in vs if self.states[v].info.ndim != 0 for n in snap[v].values()]
        if names:
            self.code.add(f"del {', '.join(dict.fromkeys(names))}", k)

    def _free_vars(self, vs: list[Variable], k: int) -> None:
        """Release ``vs`` (dead after node ``k``) and give their names back."""
        freed: list[str] = []
        dels: list[str] = []
        for v in vs:
            if v.owner is None or v in self.outputs:
                continue
            st = self.states.get(v)
            if st is not None and st.reps and not st.const:
                freed.extend(st.reps.values())
                if st.info.ndim != 0:
                    dels.extend(st.reps.values())
                st.reps = {}
        if dels:
            self.code.add(f"del {', '.join(dict.fromkeys(dels))}", k)
        self.free_names.extend(dict.fromkeys(freed))

    # the whole function -------------------------------------------------------
    def run(self) -> GeneratedCode:
        for n, v in enumerate(self.fgraph.inputs):
            info = self.type_info(v.type)
            st = _VarState(info, *self._py_flags(info))
            # parameters are never reused: a retry passes them on
            st.reps[Rep.PY if self.py_io and st.py_in else Rep.VAL] = f"i{n}"
            self.states[v] = st
        if self.schedule is None:
            for k, node in enumerate(self.order):
                self.emit_node(k, node)
        else:
            self.node_index = {node: k for k, node in enumerate(self.order)}
            self.emit_steps(self.schedule.steps)
        pre: list[tuple[str, bool]] = []
        outs = [
            self.materialize(v, Rep.PY if self.py_io and self.state(v).py_out else Rep.VAL, pre)
            for v in self.fgraph.outputs
        ]
        for ln, py in pre:
            self.code.add(ln, -1, py)
        if self.py_io:
            self.code.output_names = outs
        else:
            self.code.add(f"return [{', '.join(outs)}]", -1)
        self.code.float_inputs = frozenset(
            n
            for n, v in enumerate(self.fgraph.inputs)
            if n not in self.raw_inputs
            and self.states[v].info.dtype == "float64"
            and self.states[v].info.is_scalar
        )
        return self.code


def generate(
    fgraph: FunctionGraph, profile: Any = None, float_path: bool = True, py_io: bool = False
) -> GeneratedCode:
    """Generate the body of the runner for ``fgraph`` (lines, namespace, line table).

    With ``py_io`` the body is a block for a caller that writes its own
    function around it (a loop, say): input ``n`` is the local ``i{n}``, held
    as a Python number when it is 0-d and numeric, and no ``return`` line is
    added; ``code.output_names`` holds each output's expression, a Python
    number where the output is 0-d float64 or bool.
    """
    return _Generator(fgraph, profile, float_path, py_io).run()
