"""Rewrites of :class:`~theon.scan.op.Scan` nodes (registered by ``import theon.scan``).

* :func:`scan_prune`: outputs nobody reads are not computed, and inputs the
  remaining body does not read are not passed.
* :func:`scan_hoist_invariant`: body computations that read only non-sequences
  (and constants) are computed once, before the loop.
* :func:`scan_save_mem`: a recurrent output of which only the last step is read
  keeps only its last ``L`` rows (memory independent of ``n_steps``).
* :func:`scan_merge`: two independent loops of the same length become one.
* :func:`scan_initial_rows`: a state's buffer built as its initial rows followed by
  uninitialised ones (PyTensor's form, which ``scan`` builds) is its initial rows.

They are PyTensor's databases :data:`scan_eqopt1` (in theon's canonicalize phase) and
:data:`scan_eqopt2` (in specialize), tagged ``fast_run`` and ``scan`` but not with the
phase's name (see :class:`ScanRewriteDB`).

>>> import numpy as np, theon, theon.tensor as tt
>>> x0, W = tt.dvector("x0"), tt.dmatrix("W")
>>> hs, _ = theon.scan(lambda h, W: tt.dot(tt.exp(W), h), outputs_info=x0,
...                    non_sequences=W, n_steps=3)
>>> f = theon.function([x0, W], hs[-1])
>>> scan_node = [n for n in f.maker.fgraph.toposort() if isinstance(n.op, Scan)][0]
>>> scan_node.op.info.store_last, [type(n.op).__name__ for n in scan_node.op.fgraph.toposort()]
((True,), ['Dot'])
"""

from __future__ import annotations

from typing import Any

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import FunctionGraph
from theon.graph.replace import clone_replace
from theon.graph.traversal import ancestors, io_toposort
from theon.rewriting import EquilibriumDB, node_rewriter
from theon.rewriting.basic import SequentialGraphRewriter
from theon.rewriting.db import RewriteDatabase, RewriteQuery, rewrite_db
from theon.rewriting.tagdb import parse_query
from theon.scan.draws import KeptDraw
from theon.scan.op import Scan, ScanInfo, scan_op
from theon.scan.pushout import scan_pushout_acc, scan_pushout_seqs
from theon.scan.utils import initial_rows
from theon.tensor.subtensor import Subtensor

__all__ = ["ScanRewriteDB", "remove_kept_draw", "scan_eqopt1", "scan_eqopt2",
           "scan_hoist_invariant", "scan_initial_rows", "scan_merge", "scan_prune",
           "scan_pushout_acc", "scan_pushout_seqs", "scan_save_mem"]


class ScanRewriteDB(EquilibriumDB):
    """PyTensor's database of scan rewrites ``name`` (``scan_eqopt1``, ``scan_eqopt2``) as
    a group of theon's phase ``phase``.

    What is registered here goes into :data:`~theon.rewriting.db.rewrite_db`'s ``phase``
    with its tags and the tags ``name`` and ``"scan"``, but not the phase's name: a
    mode's ``fast_run`` query runs it there, while a query of ``"canonicalize"`` alone
    (PyMC's on its log-probability graphs) does not, as PyTensor keeps its scan rewrites
    outside its canonicalize database.  :meth:`query` selects from this group only (an
    empty rewriter when nothing here has the tags: PyMC queries these with its own tag
    ``"basic"``).

    >>> [e.name for e in scan_eqopt1.entries()][:2]
    ['scan_initial_rows', 'scan_prune']
    >>> len(scan_eqopt1.query("+basic"))
    0
    """

    def __init__(self, name: str, phase: str, db: RewriteDatabase | None = None) -> None:
        super().__init__()
        self.name = name
        self.phase = phase
        self.db = rewrite_db if db is None else db

    def register(self, name: str, rewriter: Any, *tags: str, **kwargs: Any) -> Any:
        """Register ``rewriter`` in the phase (PyTensor's keyword arguments
        ``use_db_name_as_tag``, ``final_rewriter``, ``cleanup`` and
        ``overwrite_existing`` are accepted; ``position`` orders it in the phase)."""
        position = kwargs.pop("position", 0)
        for k in ("use_db_name_as_tag", "final_rewriter", "cleanup", "overwrite_existing"):
            kwargs.pop(k, None)
        if kwargs:
            raise TypeError(f"{self.name}.register: unknown arguments "
                            f"{', '.join(sorted(kwargs))}")
        if position == "last":
            position = 0
        assert self.name is not None
        return self.db.register(name, rewriter, *tags, self.name, "scan", phase=self.phase,
                                position=position, phase_tag=False)

    def entries(self) -> list[Any]:
        """The :class:`~theon.rewriting.db.RewriteEntry` of each rewrite of the group."""
        return [e for e in self.db if self.name in e.tags and self.phase in e.phases]

    def query(self, *tags: Any, **kwtags: Any) -> Any:
        q = parse_query(tags, kwtags)
        assert self.name is not None
        sub = RewriteQuery(q.include, q.exclude, (*q.require, self.name))
        if not self.db.select(sub):
            return SequentialGraphRewriter([], name=self.name)
        return self.db.query(sub)

    def __getitem__(self, name: str) -> Any:
        for e in self.entries():
            if e.name == name:
                return e.rewriter
        raise KeyError(f"no rewrite registered as {name!r} in {self.name}")

    def __contains__(self, name: object) -> bool:
        return any(name == e.name or name in e.tags for e in self.entries())

    def __len__(self) -> int:
        return len(self.entries())


#: PyTensor's two databases of scan rewrites: theon's scan rewrites of its canonicalize
#: phase, and of its specialize phase (PyTensor runs its before canonicalize and
#: between stabilize and specialize)
scan_eqopt1 = ScanRewriteDB("scan_eqopt1", "canonicalize")
scan_eqopt2 = ScanRewriteDB("scan_eqopt2", "specialize")


def _groups(op: Scan) -> tuple[list[list[int]], list[int], list[int], list[int]]:
    """Inner input positions: per state its taps; sequences; non-sequences; and nits."""
    info = op.info
    k = info.n_seqs
    taps = []
    for t in info.state_taps:
        taps.append(list(range(k, k + len(t))))
        k += len(t)
    return (taps, list(range(info.n_seqs)), list(range(k, k + info.n_nonseqs)),
            list(range(info.n_states, info.n_states + info.n_nit)))


def _rebuild(
    node: Apply,
    keep_states: list[int],
    keep_nits: list[int],
    keep_seqs: list[int],
    keep_ns: list[int],
    inner_outputs: list[Variable] | None = None,
    extra_ns: tuple[list[Variable], list[Variable]] = ([], []),
    **info_changes: Any,
) -> tuple[list[Variable], Scan]:
    """A Scan node keeping the given states/nits/sequences/non-sequences.

    Returns the new node's outputs aligned with the old node's (``None`` for dropped
    ones), and the new Op.
    """
    op = scan_op(node)
    info = op.info
    outs = op.inner_outputs if inner_outputs is None else inner_outputs
    tap_pos, _, ns_pos, _ = _groups(op)
    inner = op.inner_inputs
    sseq, sst, sns = info.outer_slices()
    new_in = [inner[i] for i in keep_seqs]
    for j in keep_states:
        new_in += [inner[p] for p in tap_pos[j]]
    new_in += [inner[ns_pos[w]] for w in keep_ns] + extra_ns[0]
    new_in += inner[info.n_inner_inputs - info.n_carried:]  # carried states: all kept
    new_out = [outs[j] for j in keep_states] + [outs[info.n_states + m] for m in keep_nits]
    new_out += outs[info.carried_outputs]
    if info.as_while:
        new_out.append(outs[-1])
    store_last = info_changes.pop("store_last", info.store_last)
    new_info = ScanInfo(
        n_seqs=len(keep_seqs),
        state_taps=tuple(info.state_taps[j] for j in keep_states),
        n_nit=len(keep_nits),
        n_nonseqs=len(keep_ns) + len(extra_ns[0]),
        as_while=info.as_while,
        store_last=tuple(store_last[j] for j in keep_states),
        truncate_gradient=info.truncate_gradient,
        name=info.name,
        n_carried=info.n_carried,
    )
    new_op = Scan(new_in, new_out, new_info, op.mode)
    ins = node.inputs
    outer = [ins[0], *(ins[sseq][i] for i in keep_seqs), *(ins[sst][j] for j in keep_states),
             *(ins[sns][w] for w in keep_ns), *extra_ns[1], *ins[info.carried_inputs]]
    made = new_op(*outer, return_list=True)
    res: list[Any] = [None] * len(node.outputs)
    for pos, j in enumerate(keep_states):
        res[j] = made[pos]
    for pos, m in enumerate(keep_nits):
        res[info.n_states + m] = made[len(keep_states) + pos]
    for i in range(info.n_carried):
        res[info.carried_outputs.start + i] = made[len(keep_states) + len(keep_nits) + i]
    return res, new_op


def _used(fgraph: FunctionGraph, v: Variable) -> bool:
    return bool(fgraph.clients.get(v))


@node_rewriter([Scan])
def scan_initial_rows(fgraph: FunctionGraph, node: Apply) -> Any:
    """``Scan(..., set_subtensor(empty(L + n, ...)[:L], y), ...)`` -> ``Scan(..., y, ...)``.

    A Scan reads only the first ``L`` rows of a state's buffer (``L`` its lag): when
    ``scan`` built the buffer as ``y`` followed by uninitialised rows
    (:func:`~theon.scan.utils.expand_empty`, PyTensor's form), those rows are ``y``'s.
    """
    info = scan_op(node).info
    sst = info.outer_slices()[1]
    new_inputs = list(node.inputs)
    changed = False
    for j, lag in enumerate(info.lags):
        y = initial_rows(node.inputs[sst.start + j], lag)
        if y is not None:
            new_inputs[sst.start + j] = y
            changed = True
    if not changed:
        return None
    return node.op.make_node(*new_inputs).outputs


@node_rewriter([Scan])
def scan_prune(fgraph: FunctionGraph, node: Apply) -> Any:
    """Unread outputs are not computed: ``scan(f, g)`` with ``g``'s result unused -> ``scan(f)``.

    A recurrent output is kept while another kept output's step reads it; an input
    (sequence, non-sequence, initial state) that no kept output needs is dropped.
    """
    op = scan_op(node)
    info = op.info
    tap_pos, seq_pos, ns_pos, nit_pos = _groups(op)
    inner = op.inner_inputs
    outs = op.inner_outputs
    keep_nits = [m for m in range(info.n_nit) if _used(fgraph, node.outputs[nit_pos[m]])]
    keep_states = {j for j in range(info.n_states) if _used(fgraph, node.outputs[j])}
    while True:  # add the states the kept outputs read (a fixpoint)
        roots = [outs[j] for j in keep_states] + [outs[info.n_states + m] for m in keep_nits]
        roots += outs[info.carried_outputs]
        if info.as_while:
            roots.append(outs[-1])
        needed = set(ancestors(roots))
        more = {j for j in range(info.n_states) if j not in keep_states
                and any(inner[p] in needed for p in tap_pos[j])}
        if not more:
            break
        keep_states |= more
    keep_seqs = [i for i in seq_pos if inner[i] in needed]
    keep_ns = [w for w in range(info.n_nonseqs) if inner[ns_pos[w]] in needed]
    if (len(keep_states) == info.n_states and len(keep_nits) == info.n_nit
            and len(keep_seqs) == info.n_seqs and len(keep_ns) == info.n_nonseqs):
        return None
    if not keep_states and not keep_nits and not info.as_while and not info.n_carried:
        return None  # nothing read at all: the node is dead and goes with its clients
    res, _ = _rebuild(node, sorted(keep_states), keep_nits, keep_seqs, keep_ns)
    return {o: r for o, r in zip(node.outputs, res) if r is not None and _used(fgraph, o)}


@node_rewriter([Scan])
def scan_hoist_invariant(fgraph: FunctionGraph, node: Apply) -> Any:
    """``scan(lambda s, W: g(s, h(W)))`` -> ``scan(lambda s, V: g(s, V))`` with ``V = h(W)``.

    A body node whose inputs are all non-sequences, constants or such nodes'
    outputs computes the same value at every step: it is computed once outside.
    """
    op = scan_op(node)
    info = op.info
    _, _, ns_pos, _ = _groups(op)
    inner = op.inner_inputs
    sns = info.outer_slices()[2]
    outer_of = {inner[p]: node.inputs[sns][w] for w, p in enumerate(ns_pos)}
    invariant: set[Variable] = set(outer_of)
    order = io_toposort(inner, op.inner_outputs)
    inv_nodes = []
    for n in order:
        if all(i in invariant or isinstance(i, Constant) for i in n.inputs) and any(
                i in invariant for i in n.inputs):
            inv_nodes.append(n)
            invariant.update(n.outputs)
    if not inv_nodes:
        return None
    # the invariant values the rest of the body (or its outputs) reads
    inv_out = {o for n in inv_nodes for o in n.outputs}
    frontier: list[Variable] = []
    for n in order:
        if n in inv_nodes:
            continue
        for i in n.inputs:
            if i in inv_out and i not in frontier:
                frontier.append(i)
    frontier += [o for o in op.inner_outputs if o in inv_out and o not in frontier]
    if not frontier:
        return None
    outer_vals = clone_replace(frontier, outer_of)
    new_ph = [v.type(v.name) for v in frontier]
    new_outs = clone_replace(op.inner_outputs, dict(zip(frontier, new_ph)))
    res, _ = _rebuild(node, list(range(info.n_states)), list(range(info.n_nit)),
                      list(range(info.n_seqs)), list(range(info.n_nonseqs)),
                      inner_outputs=new_outs, extra_ns=(new_ph, outer_vals))
    return res


def _last_row_clients(fgraph: FunctionGraph, v: Variable, lag: int) -> list[Apply] | None:
    """The clients ``v[-1, ...]`` (directly or as ``v[lag:][-1, ...]``), if they are all."""
    found: list[Apply] = []
    for client, _ in fgraph.clients.get(v, ()):
        if not isinstance(client, Apply) or not isinstance(client.op, Subtensor):
            return None
        idx = client.op.idx_list
        if idx and idx[0] == -1 and not isinstance(idx[0], bool):
            found.append(client)
            continue
        if idx == (slice(lag, None),):
            inner = _last_row_clients(fgraph, client.outputs[0], 0)
            if inner is None or any(not isinstance(c.op, Subtensor) or c.op.idx_list[0] != -1
                                    for c in inner):
                return None
            found.extend(inner)
            continue
        return None
    return found or None


@node_rewriter([Scan])
def scan_save_mem(fgraph: FunctionGraph, node: Apply) -> Any:
    """``scan(...)[-1]`` keeps only the last ``L`` rows of its state (``L = -min(taps)``).

    The full buffer ``S[0 : L + n]`` is replaced by a ring of ``L`` rows holding
    ``S[n : L + n]``; ``S[-1] = ring[-1]``, and ``S[L:][-1] = ring[-1]`` when ``n >= 1``.
    """
    op = scan_op(node)
    info = op.info
    targets: dict[int, list[Apply]] = {}
    for j in range(info.n_states):
        if info.store_last[j]:
            continue
        clients = _last_row_clients(fgraph, node.outputs[j], info.lags[j])
        if clients is not None:
            targets[j] = clients
    if not targets:
        return None
    store_last = tuple(info.store_last[j] or j in targets for j in range(info.n_states))
    res, _ = _rebuild(node, list(range(info.n_states)), list(range(info.n_nit)),
                      list(range(info.n_seqs)), list(range(info.n_nonseqs)),
                      store_last=store_last)
    repl: dict[Variable, Variable] = {}
    for j, clients in targets.items():
        for c in clients:
            new = c.op(res[j], *c.inputs[1:])
            repl[c.outputs[0]] = new
    for j in range(len(node.outputs)):
        if j not in targets and _used(fgraph, node.outputs[j]):
            repl[node.outputs[j]] = res[j]
    return repl


@node_rewriter([Scan])
def scan_merge(fgraph: FunctionGraph, node: Apply) -> Any:
    """Two loops of the same length, neither reading the other, run as one loop.

    ``scan(f, n)``, ``scan(g, n)`` -> ``scan(f ++ g, n)``: the bodies side by side.
    """
    op = scan_op(node)
    if op.info.as_while or op.info.n_carried:
        return None
    n = node.inputs[0]
    for client, _ in list(fgraph.clients.get(n, ())):
        if (client is node or not isinstance(client, Apply) or not isinstance(client.op, Scan)
                or client.op.info.as_while or client.op.info.n_carried
                or client.op.mode != op.mode
                or client.op.info.truncate_gradient != op.info.truncate_gradient):
            continue
        if client not in fgraph.apply_nodes:
            continue
        anc_c = {v.owner for v in ancestors(client.inputs) if v.owner is not None}
        anc_n = {v.owner for v in ancestors(node.inputs) if v.owner is not None}
        if node in anc_c or client in anc_n:
            continue
        return _merge(node, client)
    return None


def _merge(a: Apply, b: Apply) -> dict[Variable, Variable]:
    oa = scan_op(a)
    ob = scan_op(b)
    ia, ib = oa.info, ob.info
    ta, sa, na, _ = _groups(oa)
    tb, sb, nb, _ = _groups(ob)
    ina, inb = oa.inner_inputs, ob.inner_inputs
    # fresh placeholders for b's body, so the two bodies share no variables
    fresh = {v: v.type(v.name) for v in inb}
    outs_b = clone_replace(ob.inner_outputs, fresh)
    inner_in = ([ina[i] for i in sa] + [fresh[inb[i]] for i in sb]
                + [ina[p] for t in ta for p in t] + [fresh[inb[p]] for t in tb for p in t]
                + [ina[p] for p in na] + [fresh[inb[p]] for p in nb])
    outs_a = oa.inner_outputs
    inner_out = (outs_a[: ia.n_states] + outs_b[: ib.n_states]
                 + outs_a[ia.n_states: ia.n_states + ia.n_nit]
                 + outs_b[ib.n_states: ib.n_states + ib.n_nit])
    info = ScanInfo(
        n_seqs=ia.n_seqs + ib.n_seqs,
        state_taps=ia.state_taps + ib.state_taps,
        n_nit=ia.n_nit + ib.n_nit,
        n_nonseqs=ia.n_nonseqs + ib.n_nonseqs,
        store_last=ia.store_last + ib.store_last,
        truncate_gradient=ia.truncate_gradient,
        name=f"{ia.name or 'scan'}&{ib.name or 'scan'}",
    )
    op = Scan(inner_in, inner_out, info, oa.mode)
    sa_, st_a, ns_a = ia.outer_slices()
    sb_, st_b, ns_b = ib.outer_slices()
    outer = [a.inputs[0], *a.inputs[sa_], *b.inputs[sb_], *a.inputs[st_a], *b.inputs[st_b],
             *a.inputs[ns_a], *b.inputs[ns_b]]
    made = op(*outer, return_list=True)
    repl: dict[Variable, Variable] = {}
    k = 0
    for j in range(ia.n_states):
        repl[a.outputs[j]] = made[k]
        k += 1
    for j in range(ib.n_states):
        repl[b.outputs[j]] = made[k]
        k += 1
    for m in range(ia.n_nit):
        repl[a.outputs[ia.n_states + m]] = made[k]
        k += 1
    for m in range(ib.n_nit):
        repl[b.outputs[ib.n_states + m]] = made[k]
        k += 1
    return repl


@node_rewriter([KeptDraw])
def remove_kept_draw(fgraph: FunctionGraph, node: Apply) -> Any:
    """``KeptDraw(x)`` -> ``x``: the marker of a draw a loop stacks for its gradient
    (:mod:`theon.scan.draws`) computes nothing; a compiled body does without it."""
    return [node.inputs[0]]


rewrite_db.register("remove_kept_draw", remove_kept_draw, "fast_run", "fast_compile",
                    "useless", phase="canonicalize")

# theon's scan rewrites, in the order they are tried; the push-out rewrites
# (theon.scan.pushout) come after the others, and scan_pushout_acc also runs in
# specialize, after scan_save_mem marks the states that are only read at the end
for _name, _rw in (("scan_initial_rows", scan_initial_rows), ("scan_prune", scan_prune),
                  ("scan_hoist_invariant", scan_hoist_invariant), ("scan_merge", scan_merge),
                  ("scan_pushout_seqs", scan_pushout_seqs),
                  ("scan_pushout_acc", scan_pushout_acc)):
    scan_eqopt1.register(_name, _rw, "fast_run")
for _name, _rw in (("scan_save_mem", scan_save_mem), ("scan_pushout_acc", scan_pushout_acc)):
    scan_eqopt2.register(_name, _rw, "fast_run")
