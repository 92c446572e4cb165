"""Pickling compiled functions and graphs.

A compiled :class:`~theon.compile.compiled.Function` pickles as:

- its *rewritten* graph, stored flat (one record per variable and per node, in the
  order the nodes run), so loading never re-runs the rewrite pipeline and deep graphs
  do not hit Python's recursion limit;
- the Ops and Types themselves (pickled by reference to their classes, with their
  ``__props__`` state), and constants' data;
- each input's options (name, strict, borrow, mutable, ...) and stored values:
  defaults, state, and the shared variables with their current values;
- which outputs are borrowed, the linker, the function's name and flags.

Variable and node tags keep only entries that pickle (e.g. where the user built a
variable); private caches (keys starting with ``_``) are dropped.  Profiling data
are not stored.  Loading re-links the graph with the stored linker.

Unpickling runs code named by the pickle: unpickling data you do not trust is as
unsafe as any ``pickle.load``, and theon adds no check (none could make it safe).
Load only pickles you made or trust (docs/caches.md).

>>> import pickle
>>> from theon.compile.sharedvalue import shared
>>> s = shared([1, 2], name="s")
>>> pickle.loads(pickle.dumps(s)).get_value()
[1, 2]
"""

from __future__ import annotations

import contextlib
import contextvars
import pickle
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Constant, Scratchpad, Variable
from theon.graph.features import Feature
from theon.graph.fg import FunctionGraph

__all__ = [
    "FixedOrder",
    "GraphState",
    "dump_graph",
    "function_state",
    "load_function",
    "load_graph",
    "picklable_tag",
    "stripping_tags",
]

_PLAIN = (str, int, float, bool, bytes, type(None))


def _is_plain(v: Any) -> bool:
    """Whether ``v`` certainly pickles (nested tuples of plain values)."""
    stack = [v]
    while stack:
        x = stack.pop()
        if isinstance(x, tuple):
            stack.extend(x)
        elif not isinstance(x, _PLAIN):
            return False
    return True


#: tag entries left out of pickles in this context (see :func:`stripping_tags`)
_STRIPPED: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar(
    "theon_stripped_tags", default=frozenset())


@contextlib.contextmanager
def stripping_tags(keys: Iterable[str]) -> Iterator[None]:
    """Leave the tag entries ``keys`` (``"trace"``, say) out of what is pickled inside
    the block (Theano's ``StripPickler``).

    >>> t = Scratchpad(); t.trace = (("f.py", 1, "g"),); t.note = 1
    >>> with stripping_tags(["trace"]):
    ...     picklable_tag(t)
    {'note': 1}
    """
    token = _STRIPPED.set(_STRIPPED.get() | frozenset(keys))
    try:
        yield
    finally:
        _STRIPPED.reset(token)


def picklable_tag(tag: Scratchpad) -> dict[str, Any]:
    """The entries of ``tag`` worth pickling: public ones whose values pickle, but for
    those :func:`stripping_tags` leaves out.

    >>> t = Scratchpad(); t.trace = (("f.py", 1, "g"),); t.fn = lambda: 0; t._cache = 1
    >>> picklable_tag(t)
    {'trace': (('f.py', 1, 'g'),)}
    """
    out: dict[str, Any] = {}
    stripped = _STRIPPED.get()
    for k, v in tag.__dict__.items():
        if k.startswith("_") or k in stripped:
            continue
        if not _is_plain(v):
            try:
                pickle.dumps(v)
            except Exception:
                continue
        out[k] = v
    return out


def _extra_state(v: Any) -> dict[str, Any] | None:
    """A variable's ``__dict__`` entries (subclass attributes), if any."""
    d = getattr(v, "__dict__", None)
    return dict(d) if d else None


class GraphState:
    """A flat, picklable description of a graph.

    ``leaves``: one record per owner-less variable; ``nodes``: one record per Apply,
    in execution order; ``inputs``/``outputs``: indices into the variable table.
    """

    def __init__(
        self,
        leaves: list[tuple[Any, ...]],
        nodes: list[tuple[Any, ...]],
        inputs: list[int],
        outputs: list[int],
    ) -> None:
        self.leaves = leaves
        self.nodes = nodes
        self.inputs = inputs
        self.outputs = outputs


def dump_graph(
    inputs: Sequence[Variable], outputs: Sequence[Variable], order: Sequence[Apply]
) -> GraphState:
    """Describe the graph from ``inputs`` to ``outputs`` whose nodes run in ``order``.

    Shared variables are stored as objects (they pickle with their values, once per
    pickle even when several graphs use them).

    >>> from theon.graph.type import Generic
    >>> from theon.graph.op import Op
    >>> g = Generic(); a = g("a"); out = g("out"); node = Apply(Op(), [a], [out])
    >>> state = dump_graph([a], [out], [node])
    >>> ins, outs, nodes = load_graph(state)
    >>> outs[0].owner is nodes[0], nodes[0].inputs[0] is ins[0], ins[0] is a
    (True, True, False)
    """
    from theon.compile.sharedvalue import SharedVariable

    ids: dict[Variable, int] = {}
    leaves: list[tuple[Any, ...]] = []

    def leaf(v: Variable) -> int:
        k = ids.get(v)
        if k is not None:
            return k
        k = ids[v] = len(ids)
        if isinstance(v, SharedVariable):
            leaves.append((k, "shared", v))
        elif isinstance(v, Constant):
            leaves.append((k, "const", type(v), v.type, v.name, v.data,
                           picklable_tag(v.tag), _extra_state(v)))
        else:
            leaves.append((k, "var", type(v), v.type, v.name,
                           picklable_tag(v.tag), _extra_state(v)))
        return k

    for v in inputs:
        leaf(v)
    nodes: list[tuple[Any, ...]] = []
    for node in order:
        in_ids = [ids[v] if v in ids else leaf(v) for v in node.inputs]
        outs = []
        for o in node.outputs:
            ids[o] = len(ids)
            outs.append((type(o), o.type, o.name, picklable_tag(o.tag), _extra_state(o)))
        nodes.append((node.op, in_ids, outs, picklable_tag(node.tag)))
    out_ids = [ids[v] if v in ids else leaf(v) for v in outputs]
    return GraphState(leaves, nodes, [ids[v] for v in inputs], out_ids)


def _new_variable(cls: type[Variable], type_: Any, name: str | None, tag: dict[str, Any],
                  extra: dict[str, Any] | None) -> Variable:
    """A bare variable of class ``cls`` (its ``__init__`` is not re-run)."""
    v: Variable = cls.__new__(cls)
    Variable.__init__(v, type_, None, None, name)
    if extra:
        v.__dict__.update(extra)
    v.tag.__dict__.update(tag)
    return v


def load_graph(state: GraphState) -> tuple[list[Variable], list[Variable], list[Apply]]:
    """Rebuild the graph of ``state``: its inputs, outputs and nodes in execution order.

    See :func:`dump_graph` for an example.
    """
    table: dict[int, Variable] = {}
    n_vars = len(state.leaves) + sum(len(n[2]) for n in state.nodes)
    leaf_at = {rec[0]: rec for rec in state.leaves}
    nodes: list[Apply] = []
    node_iter = iter(state.nodes)

    def build_leaf(k: int) -> Variable:
        rec = leaf_at[k]
        kind = rec[1]
        v: Variable
        if kind == "shared":
            v = rec[2]
        elif kind == "const":
            _, _, cls, type_, name, data, tag, extra = rec
            c: Constant = cls.__new__(cls)
            Variable.__init__(c, type_, None, None, name)
            if isinstance(data, np.ndarray) and data.flags.writeable:
                data.setflags(write=False)  # constants stay read-only
            c._data = data  # already filtered when it was pickled
            c._signature = None
            if extra:
                c.__dict__.update(extra)
            c.tag.__dict__.update(tag)
            v = c
        else:
            _, _, cls, type_, name, tag, extra = rec
            v = _new_variable(cls, type_, name, tag, extra)
        table[k] = v
        return v

    k = 0
    while k < n_vars:
        if k in leaf_at:
            build_leaf(k)
            k += 1
            continue
        op, in_ids, outs, ntag = next(node_iter)
        ins = [table[i] if i in table else build_leaf(i) for i in in_ids]
        out_vars = [_new_variable(*rec) for rec in outs]
        node = Apply(op, ins, out_vars)
        node.tag.__dict__.update(ntag)
        nodes.append(node)
        for o in out_vars:
            table[k] = o
            k += 1
    return [table[i] for i in state.inputs], [table[i] for i in state.outputs], nodes


class FixedOrder(Feature):
    """Makes ``fgraph.toposort()`` return a recorded node order.

    A reloaded or copied graph has lost the features (e.g. the destroy handler)
    whose orderings shaped the original order; this keeps that order.
    """

    def __init__(self, order: Sequence[Apply]) -> None:
        self.order = list(order)

    def orderings(self, fgraph: FunctionGraph) -> dict[Apply, list[Apply]]:
        """Each recorded node (still in the graph) after the previous one."""
        out: dict[Apply, list[Apply]] = {}
        prev: Apply | None = None
        for node in self.order:
            if node not in fgraph.apply_nodes:
                continue
            if prev is not None:
                out[node] = [prev]
            prev = node
        return out


# compiled functions ------------------------------------------------------------------
_VERSION = 1
_IN_FIELDS = ("name", "mutable", "borrow", "strict", "allow_downcast", "implicit", "shared")


def _picklable_spec(spec: Any) -> Any:
    """A mode's optimizer spec if it pickles, else ``None``."""
    try:
        pickle.dumps(spec)
    except Exception:
        return None
    return spec


def function_state(f: Any) -> dict[str, Any]:
    """What a pickled Function stores (see the module docstring); ``Function.__reduce__``."""
    m = f.maker
    fg = m.fgraph
    order = fg.toposort()
    protected = fg.protected_inputs if fg.protected_inputs is not None else set(fg.inputs)
    inputs = []
    for i, c in zip(m.inputs, f.input_storage):
        spec = {k: getattr(i, k) for k in _IN_FIELDS}
        spec["has_default"] = i.has_default
        spec["variable"] = i.variable if i.shared else None
        spec["container"] = c
        inputs.append(spec)
    return {
        "version": _VERSION,
        "graph": dump_graph(fg.inputs, fg.outputs, order),
        "update_mapping": dict(fg.update_mapping),
        "protected": [k for k, v in enumerate(fg.inputs) if v in protected],
        "inputs": inputs,
        "outputs": [o.borrow for o in m.outputs],
        "linker": m.mode.linker,
        "mode_name": m.mode.name,
        "optimizer": _picklable_spec(m.mode.optimizer),
        "unpack": m.unpack_single,
        "name": f.name,
        "trust_input": f.trust_input,
        "profile": f.profile is not None,
    }


def load_function(state: dict[str, Any]) -> Any:
    """Rebuild a pickled Function: relink its stored graph (no rewriting)."""
    from theon.compile.compiled import Function, FunctionMaker
    from theon.compile.io import In, Out
    from theon.compile.mode import Mode
    from theon.compile.profiling import ProfileStats

    if state.get("version") != _VERSION:
        raise ValueError(f"cannot load a theon Function pickled with format {state.get('version')}")
    inputs, outputs, order = load_graph(state["graph"])
    umap: dict[int, int] = state["update_mapping"]
    fg = FunctionGraph(inputs, outputs, clone=False, update_mapping=umap)
    fg.attach_feature(FixedOrder(order))
    protected = {inputs[k] for k in state["protected"]}
    fg.protected_inputs = protected
    fg.mutable_inputs = set(inputs) - protected
    update_of = {j: outputs[k] for k, j in umap.items()}
    ins: list[In] = []
    storage = []
    for k, spec in enumerate(state["inputs"]):
        c = spec["container"]
        i = In.__new__(In)
        i.__dict__.update({f: spec[f] for f in _IN_FIELDS})
        i.variable = spec["variable"] if spec["variable"] is not None else inputs[k]
        i.value = c.storage[0] if spec["has_default"] else _no_value()
        i.update = update_of.get(k)
        ins.append(i)
        storage.append(c)
    n_out = len(state["outputs"])
    outs = [Out(v, borrow=b) for v, b in zip(outputs[:n_out], state["outputs"])]
    mode = Mode(linker=state["linker"], optimizer=state["optimizer"], name=state["mode_name"])
    maker = FunctionMaker(fg, ins, outs, mode, state["unpack"])
    prof = ProfileStats(state["name"]) if state["profile"] else None
    runner = mode.linker.make_function(fg, profile=prof)
    return Function(maker, runner, name=state["name"], trust_input=state["trust_input"],
                    input_storage=storage, profile=prof)


def _no_value() -> Any:
    from theon.compile.io import _NO_VALUE

    return _NO_VALUE
