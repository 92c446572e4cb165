"""PyTensor's view of a Scan node: :class:`ScanArgs` and the position maps.

PyTensor's programs (PyMC's log-probability of a scan, its support points) take a
Scan node apart by kind of input and output, change the parts and build a new node.
:class:`ScanArgs` holds a node's variables in PyTensor's named groups::

    outer_in_seqs  inner_in_seqs                         sequences
    outer_in_mit_sot  inner_in_mit_sot (one list per state, one entry per tap)
                   mit_sot_in_slices  inner_out_mit_sot  outer_out_mit_sot
    outer_in_sit_sot  inner_in_sit_sot  inner_out_sit_sot  outer_out_sit_sot
    outer_in_shared  inner_in_shared  inner_out_shared  outer_out_shared
    outer_in_nit_sot  inner_out_nit_sot  outer_out_nit_sot
    outer_in_non_seqs  inner_in_non_seqs                 non-sequences
    n_steps, cond (``[condition]`` for a while loop, else ``[]``)

A state that reads only its previous value (taps ``[-1]``) is a "sit-sot", any other
a "mit-sot"; the carried (non-tensor) states, such as random generators, are the
"shared" (untraced sit-sot) group.  The groups are lists the caller may change; the
aggregates :attr:`ScanArgs.outer_inputs`, :attr:`ScanArgs.inner_inputs`,
:attr:`ScanArgs.inner_outputs` and :attr:`ScanArgs.outer_outputs`, and
:attr:`ScanArgs.info`, are computed from them in theon's layout, which is what
:class:`~theon.scan.op.Scan` takes::

    Scan(args.inner_inputs, args.inner_outputs, args.info, mode=...)(*args.outer_inputs)

Where theon's layout differs from PyTensor's:

* the aggregates are in theon's order: the non-sequences come before the carried
  states in the inputs; mit-sots come before sit-sots (the node being rebuilt may have
  had them interleaved: the new node's outputs are those of
  :attr:`ScanArgs.outer_outputs`, in that order);
* ``outer_in_nit_sot`` holds ``n_steps`` once per nit-sot (PyTensor's buffer lengths)
  and is not among theon's inputs: a theon Scan stacks every step of a nit-sot;
* theon has no mit-mot states (its gradients are loops of the other kinds);
* a loop that draws random numbers from a carried generator also stacks its draws as
  outputs for its gradient (:mod:`theon.scan.draws`): they are in no group, and a Scan
  rebuilt from the groups has none (its values are the same; its gradient, which
  would need them, raises).

>>> import numpy as np, theon, theon.tensor as tt
>>> x = tt.dvector("x")
>>> acc, _ = theon.scan(lambda v, a: a + v, sequences=x, outputs_info=tt.constant(0.0))
>>> node = acc.owner.inputs[0].owner
>>> args = ScanArgs.from_node(node)
>>> len(args.outer_in_seqs), len(args.inner_in_sit_sot), args.info.n_sit_sot
(1, 1, 1)
>>> new = Scan(args.inner_inputs, args.inner_outputs, args.info)(*args.outer_inputs)
>>> theon.function([x], new[1:])(np.array([1.0, 2.0, 3.0]))
array([1., 3., 6.])
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from theon.graph.basic import Apply, Variable
from theon.graph.replace import clone_get_equiv
from theon.graph.traversal import ancestors
from theon.scan.draws import is_kept_draw
from theon.scan.info import ScanInfo, is_sit_sot
from theon.scan.op import Scan, scan_op

__all__ = ["FieldInfo", "ScanArgs", "rebuild", "scan_mappings"]


def _groups(info: ScanInfo) -> list[tuple[list[int], list[int], list[int], list[int]]]:
    """One entry per group of variables that belong together, in theon's layout:
    ``(outer inputs, inner inputs, inner outputs, outer outputs)`` positions (``n_steps``
    and each sequence, state, nit-sot, non-sequence and carried state)."""
    out: list[tuple[list[int], list[int], list[int], list[int]]] = [([0], [], [], [])]
    sseq, sst, sns = info.outer_slices()
    out += [([sseq.start + i], [i], [], []) for i in range(info.n_seqs)]
    k = info.n_seqs
    for j, taps in enumerate(info.state_taps):
        out.append(([sst.start + j], list(range(k, k + len(taps))), [j], [j]))
        k += len(taps)
    n_st = info.n_states
    out += [([], [], [n_st + m], [n_st + m]) for m in range(info.n_nit)]
    out += [([sns.start + w], [k + w], [], []) for w in range(info.n_nonseqs)]
    k += info.n_nonseqs
    sca, cout = info.carried_inputs, info.carried_outputs
    out += [([sca.start + i], [k + i], [cout.start + i], [cout.start + i])
            for i in range(info.n_carried)]
    return out


def scan_mappings(info: ScanInfo) -> dict[str, dict[int, Any]]:
    """The maps PyTensor's ``Scan.get_oinp_iinp_iout_oout_mappings()`` returns, for a
    node of layout ``info``.

    Keys are ``"<to>_from_<from>"`` with ``<to>`` and ``<from>`` among ``outer_inp``,
    ``inner_inp``, ``inner_out``, ``outer_out``; each maps a position of ``<from>`` to
    the position of the ``<to>`` that belongs with it (``-1``: none), or to the list of
    them for ``inner_inp`` and ``inner_out`` (a state has one inner input per tap).  A
    while loop's condition is in none of them; a nit-sot has no outer input in theon.

    >>> m = scan_mappings(ScanInfo(n_seqs=1, state_taps=((-2, -1),), n_nit=1))
    >>> m["outer_out_from_outer_inp"], m["inner_inp_from_outer_out"]
    ({0: -1, 1: -1, 2: 0}, {0: [1, 2], 1: []})
    """
    kinds = ("outer_inp", "inner_inp", "inner_out", "outer_out")
    listed = {"inner_inp", "inner_out"}
    counts = {"outer_inp": info.n_outer_inputs, "inner_inp": info.n_inner_inputs,
              "inner_out": info.n_inner_outputs - int(info.as_while),
              "outer_out": info.n_states + info.n_nit + info.n_carried}
    groups = _groups(info)
    maps: dict[str, dict[int, Any]] = {}
    for a, src in enumerate(kinds):
        for b, dst in enumerate(kinds):
            if a == b:
                continue
            m: dict[int, Any] = {i: ([] if dst in listed else -1) for i in range(counts[src])}
            for g in groups:
                for i in g[a]:
                    m[i] = list(g[b]) if dst in listed else (g[b][0] if g[b] else -1)
            maps[f"{dst}_from_{src}"] = m
    return maps


@dataclass(frozen=True)
class FieldInfo:
    """Where a variable is in a :class:`ScanArgs`: the group's name, the aggregate it is
    part of, its position in the group (and among its state's taps for a mit-sot's inner
    inputs), and its position in the aggregate."""

    name: str
    agg_name: str
    index: int
    inner_index: int | None
    agg_index: int


_FIELDS = (
    "mit_mot_out_slices", "mit_mot_in_slices", "mit_sot_in_slices", "n_steps",
    "outer_in_seqs", "inner_in_seqs", "inner_in_mit_mot", "inner_in_mit_sot",
    "outer_in_mit_mot", "outer_in_mit_sot", "outer_in_sit_sot", "inner_in_sit_sot",
    "outer_in_shared", "inner_in_shared", "outer_in_nit_sot", "outer_in_non_seqs",
    "inner_in_non_seqs", "outer_out_mit_mot", "inner_out_mit_mot", "outer_out_mit_sot",
    "inner_out_mit_sot", "outer_out_sit_sot", "inner_out_sit_sot", "outer_out_nit_sot",
    "inner_out_nit_sot", "outer_out_shared", "inner_out_shared",
)
#: the aggregates, each the concatenation of these groups (theon's layout)
_AGGREGATES = {
    "outer_inputs": ("n_steps", "outer_in_seqs", "outer_in_mit_sot", "outer_in_sit_sot",
                     "outer_in_non_seqs", "outer_in_shared"),
    "inner_inputs": ("inner_in_seqs", "inner_in_mit_sot", "inner_in_sit_sot",
                     "inner_in_non_seqs", "inner_in_shared"),
    "inner_outputs": ("inner_out_mit_sot", "inner_out_sit_sot", "inner_out_nit_sot",
                      "inner_out_shared", "cond"),
    "outer_outputs": ("outer_out_mit_sot", "outer_out_sit_sot", "outer_out_nit_sot",
                      "outer_out_shared"),
}
_NESTED = ("inner_in_mit_mot", "inner_in_mit_sot", "inner_out_mit_mot")


def default_filter(name: str) -> bool:
    """The groups :meth:`ScanArgs.find_among_fields` searches by default: those holding
    variables."""
    return name.startswith(("inner_", "outer_"))


class ScanArgs:
    """A Scan node's variables in PyTensor's named groups (see the module docstring).

    Parameters
    ----------
    outer_inputs, outer_outputs, inner_inputs, inner_outputs, info
        A Scan node's inputs and outputs, and its Op's body and layout (theon's).
    clone
        Copy the body first (its inputs too), so that changing it leaves the Op's alone.
    """

    def __init__(
        self,
        outer_inputs: Sequence[Variable],
        outer_outputs: Sequence[Variable],
        inner_inputs: Sequence[Variable],
        inner_outputs: Sequence[Variable],
        info: ScanInfo,
        clone: bool = True,
    ) -> None:
        ins, outs = list(inner_inputs), list(inner_outputs)
        if clone:
            equiv = clone_get_equiv(ins, outs)
            ins, outs = [equiv[v] for v in ins], [equiv[v] for v in outs]
        oin, oout = list(outer_inputs), list(outer_outputs)
        if len(oin) != info.n_outer_inputs or len(ins) != info.n_inner_inputs \
                or len(outs) != info.n_inner_outputs:
            raise ValueError(
                f"ScanArgs: {len(oin)} outer inputs, {len(ins)} inner inputs and {len(outs)} "
                f"inner outputs do not fit the layout {info}")
        self.n_steps: Variable = oin[0]
        sseq, sst, sns = info.outer_slices()
        self.outer_in_seqs = oin[sseq]
        self.inner_in_seqs = ins[: info.n_seqs]
        self.mit_mot_in_slices: list[Any] = []
        self.mit_mot_out_slices: list[Any] = []
        self.outer_in_mit_mot: list[Variable] = []
        self.inner_in_mit_mot: list[list[Variable]] = []
        self.inner_out_mit_mot: list[list[Variable]] = []
        self.outer_out_mit_mot: list[Variable] = []
        self.mit_sot_in_slices: list[tuple[int, ...]] = []
        self.outer_in_mit_sot: list[Variable] = []
        self.inner_in_mit_sot: list[list[Variable]] = []
        self.inner_out_mit_sot: list[Variable] = []
        self.outer_out_mit_sot: list[Variable] = []
        self.outer_in_sit_sot: list[Variable] = []
        self.inner_in_sit_sot: list[Variable] = []
        self.inner_out_sit_sot: list[Variable] = []
        self.outer_out_sit_sot: list[Variable] = []
        # theon's fields PyTensor's groups do not hold: a state's store_last, by its
        # initial buffer (which keeps it through the callers' edits)
        self._store_last = {oin[sst][j]: last for j, last in enumerate(info.store_last)}
        self.truncate_gradient = info.truncate_gradient
        self.name = info.name
        k = info.n_seqs
        for j, taps in enumerate(info.state_taps):
            tap_vars = ins[k: k + len(taps)]
            k += len(taps)
            if is_sit_sot(taps):
                self.outer_in_sit_sot.append(oin[sst][j])
                self.inner_in_sit_sot.append(tap_vars[0])
                self.inner_out_sit_sot.append(outs[j])
                self.outer_out_sit_sot.append(oout[j])
            else:
                self.mit_sot_in_slices.append(tuple(taps))
                self.outer_in_mit_sot.append(oin[sst][j])
                self.inner_in_mit_sot.append(tap_vars)
                self.inner_out_mit_sot.append(outs[j])
                self.outer_out_mit_sot.append(oout[j])
        self.outer_in_non_seqs = oin[sns]
        self.inner_in_non_seqs = ins[k: k + info.n_nonseqs]
        n_st, n_nit = info.n_states, info.n_nit
        # the stacks of draws theon keeps for a gradient are not PyTensor's outputs
        nits = [m for m in range(n_st, n_st + n_nit) if not is_kept_draw(outs[m])]
        self.inner_out_nit_sot = [outs[m] for m in nits]
        self.outer_out_nit_sot = [oout[m] for m in nits]
        self.outer_in_nit_sot = [self.n_steps] * len(nits)
        self.outer_in_shared = oin[info.carried_inputs]
        self.inner_in_shared = ins[info.n_inner_inputs - info.n_carried:]
        self.inner_out_shared = outs[info.carried_outputs]
        self.outer_out_shared = oout[info.carried_outputs]
        self.cond: list[Variable] = [outs[-1]] if info.as_while else []

    @classmethod
    def from_node(cls, node: Apply, clone: bool = False) -> ScanArgs:
        """The groups of a Scan node (its Op's body itself unless ``clone``)."""
        op = scan_op(node)
        return cls(node.inputs, node.outputs, op.inner_inputs, op.inner_outputs, op.info,
                   clone=clone)

    # the aggregates, in theon's layout ------------------------------------------------
    @property
    def field_names(self) -> list[str]:
        """PyTensor's names of the groups."""
        return list(_FIELDS)

    def _aggregate(self, name: str) -> list[Variable]:
        out: list[Variable] = []
        for f in _AGGREGATES[name]:
            if f == "n_steps":
                out.append(self.n_steps)
            elif f in _NESTED:
                out.extend(v for taps in getattr(self, f) for v in taps)
            else:
                out.extend(getattr(self, f))
        return out

    @property
    def outer_inputs(self) -> list[Variable]:
        """``n_steps``, sequences, mit-sot and sit-sot initial buffers, non-sequences,
        carried states: the inputs of a node of the :class:`Scan` built from these groups."""
        return self._aggregate("outer_inputs")

    @property
    def inner_inputs(self) -> list[Variable]:
        """The body's inputs: sequences, each mit-sot's taps, sit-sots, non-sequences,
        carried states."""
        return self._aggregate("inner_inputs")

    @property
    def inner_outputs(self) -> list[Variable]:
        """The body's outputs: mit-sots, sit-sots, nit-sots, carried states, condition."""
        return self._aggregate("inner_outputs")

    @property
    def outer_outputs(self) -> list[Variable]:
        """The node's outputs, in the order of :attr:`inner_outputs`."""
        return self._aggregate("outer_outputs")

    @property
    def info(self) -> ScanInfo:
        """The :class:`ScanInfo` of a Scan built from these groups."""
        n_mit = len(self.mit_sot_in_slices)
        for what, n in (("outer_in_mit_sot", len(self.outer_in_mit_sot)),
                        ("inner_in_mit_sot", len(self.inner_in_mit_sot)),
                        ("inner_out_mit_sot", len(self.inner_out_mit_sot))):
            if n != n_mit:
                raise ValueError(f"ScanArgs: {what} has {n} entries but mit_sot_in_slices "
                                 f"{n_mit}")
        for taps, tap_vars in zip(self.mit_sot_in_slices, self.inner_in_mit_sot):
            if len(tuple(taps)) != len(tap_vars):
                raise ValueError(f"ScanArgs: a mit-sot with taps {tuple(taps)} has "
                                 f"{len(tap_vars)} inner inputs")
        states = [*self.outer_in_mit_sot, *self.outer_in_sit_sot]
        return ScanInfo(
            n_seqs=len(self.inner_in_seqs),
            state_taps=(*(tuple(int(t) for t in taps) for taps in self.mit_sot_in_slices),
                        *((-1,) for _ in self.inner_in_sit_sot)),
            n_nit=len(self.inner_out_nit_sot),
            n_nonseqs=len(self.inner_in_non_seqs),
            as_while=bool(self.cond),
            store_last=tuple(self._store_last.get(v, False) for v in states),
            truncate_gradient=self.truncate_gradient,
            name=self.name,
            n_carried=len(self.inner_in_shared),
        )

    @property
    def n_nit_sot(self) -> int:
        return len(self.inner_out_nit_sot)

    @property
    def n_mit_mot(self) -> int:
        return 0

    @property
    def var_mappings(self) -> dict[str, dict[int, Any]]:
        """:func:`scan_mappings` of :attr:`info`: positions in the aggregates."""
        return scan_mappings(self.info)

    # finding and removing -----------------------------------------------------------------
    def _agg_of(self, name: str) -> str:
        for agg, fields in _AGGREGATES.items():
            if name in fields:
                return agg
        return ""

    def find_among_fields(
        self, i: Variable, field_filter: Callable[[str], bool] = default_filter
    ) -> FieldInfo | None:
        """Where the variable ``i`` is among the groups ``field_filter`` accepts, or
        ``None``."""
        for name in _FIELDS:
            if not field_filter(name):
                continue
            agg = self._agg_of(name)
            values = getattr(self, name)
            if name in _NESTED:
                for k, taps in enumerate(values):
                    for t, v in enumerate(taps):
                        if v is i:
                            return FieldInfo(name, agg, k, t, self._agg_index(agg, i))
                continue
            for k, v in enumerate(values):
                if v is i:
                    return FieldInfo(name, agg, k, None, self._agg_index(agg, i))
        return None

    def _agg_index(self, agg: str, v: Variable) -> int:
        if not agg:
            return -1
        for k, w in enumerate(self._aggregate(agg)):
            if w is v:
                return k
        return -1

    def get_alt_field(self, var_info: FieldInfo | Variable, alt_prefix: str) -> Any:
        """The entry of group ``<alt_prefix>_<kind>`` at the same position as
        ``var_info`` (a FieldInfo or a variable) in its group ``<side>_<dir>_<kind>``:
        ``get_alt_field(outer output of sit-sot 1, "inner_out")`` is the body output
        computing it."""
        if not isinstance(var_info, FieldInfo):
            found = self.find_among_fields(var_info)
            if found is None:
                raise ValueError(f"ScanArgs: {var_info} is in none of the groups")
            var_info = found
        kind = var_info.name[var_info.name.index("_", 6) + 1:]
        return getattr(self, f"{alt_prefix}_{kind}")[var_info.index]

    def _same_group(self, info: FieldInfo) -> list[Variable]:
        """The variables of the state (or sequence, non-sequence, ...) ``info`` is part of."""
        kind = info.name[info.name.index("_", 6) + 1:]
        out: list[Variable] = []
        for prefix in ("outer_in", "inner_in", "inner_out", "outer_out"):
            name = f"{prefix}_{kind}"
            if name not in _FIELDS or (prefix == "outer_in" and kind == "nit_sot"):
                continue
            values = getattr(self, name)
            if info.index < len(values):
                v = values[info.index]
                out.extend(v if isinstance(v, list) else [v])
        return out

    def get_dependent_nodes(self, i: Variable) -> set[Variable]:
        """The variables that go when ``i`` goes: the rest of its state (or sequence,
        ...), and every body output that reads a body input that goes, with its own
        state, to a fixed point."""
        gone: set[Variable] = set()
        todo = [i]
        while todo:
            v = todo.pop()
            if v in gone:
                continue
            gone.add(v)
            found = self.find_among_fields(v)
            if found is None:
                continue
            todo.extend(w for w in self._same_group(found) if w not in gone)
            inner_ins = set(self.inner_inputs) & gone
            if inner_ins:
                for o in self.inner_outputs:
                    if o not in gone and set(ancestors([o], blockers=list(inner_ins))) \
                            & inner_ins:
                        todo.append(o)
        gone.discard(i)
        return gone

    def remove_from_fields(self, i: Variable, rm_dependents: bool = True) -> list[FieldInfo]:
        """Remove ``i`` from its group (with :meth:`get_dependent_nodes` when
        ``rm_dependents``); the :class:`FieldInfo` of each variable removed."""
        to_go = [i, *self.get_dependent_nodes(i)] if rm_dependents else [i]
        removed: list[FieldInfo] = []
        for v in to_go:
            found = self.find_among_fields(v)
            if found is None:
                continue
            values = getattr(self, found.name)
            if found.inner_index is None:
                del values[found.index]
            else:
                del values[found.index][found.inner_index]
            removed.append(found)
        return removed

    # copying and printing -----------------------------------------------------------------
    def __copy__(self) -> ScanArgs:
        """A copy whose groups are new lists (a mit-sot's taps too)."""
        new = ScanArgs.__new__(ScanArgs)
        for k, v in self.__dict__.items():
            if k in _NESTED:
                v = [list(taps) for taps in v]
            elif isinstance(v, (list, dict)):
                v = copy.copy(v)
            new.__dict__[k] = v
        return new

    def __str__(self) -> str:
        rows = [f"\t{name}={getattr(self, name)}" for name in _FIELDS]
        return "ScanArgs(\n" + ",\n".join(rows) + ")"

    def __repr__(self) -> str:
        return str(self)


def rebuild(args: ScanArgs, mode: Any = None, op_class: type[Scan] = Scan) -> list[Variable]:
    """The outputs of a Scan node built from ``args`` (in the order of
    :attr:`ScanArgs.outer_outputs`)."""
    op = op_class(args.inner_inputs, args.inner_outputs, args.info, mode=mode)
    res: list[Variable] = op(*args.outer_inputs, return_list=True)
    return res
