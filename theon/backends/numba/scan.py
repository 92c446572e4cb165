"""numba spelling of ``Scan`` for the whole-graph tier (:mod:`theon.link.tier1.nbgraph`):
the loop over the steps written out in the graph function, its body the scan's inner
graph (rewritten by the body's mode, as tier 0 runs it) spelled node by node by the
same :func:`~theon.link.tier1.nbgraph.nb_spell` (a nested scan is a nested loop).

- Sequences are read at the step (``s[t]``: a number for a vector's entries).
- A recurrent state of taps ``taps_j`` (``L_j = -min(taps_j)`` initial rows) lives in a
  buffer of ``L_j + n`` rows, its initial rows copied in; tap ``k`` at step ``t`` reads
  row ``t + L_j + k`` and the step writes row ``t + L_j`` (the output is the buffer).
  With ``store_last`` the buffer is a ring of ``L_j`` rows (row ``(t + k) mod L_j``,
  written at ``t mod L_j``), turned to its last rows in order at the end.
- An output that is not fed back (nit-sot) is stacked in an array made at the first step,
  of the first step's shape (a 0-d row's array is made before the loop).
- Non-sequences are the outer values themselves.

The checks tier 0 makes raise here too (the call is then served by tier 0, which gives
its error): ``n_steps < 0``, a sequence shorter than the loop, an initial buffer of
fewer than ``L_j`` rows, a step's state of another shape than its initial rows, and a
step's stacked output of another shape than the first step's.  Step values that may
view a ring's rows are copied before any ring is written.

Declined (the graph stays on tier 0): while loops (``until``), carried non-tensor states
(random generators, shared updates), ``truncate_gradient != -1``, a body node without a
spelling, a state whose step value has another dtype or rank than its rows, and a
subclass of ``Scan`` with its own ``perform``.

>>> import theon, theon.tensor as tt
>>> from theon.link.tier1.nbgraph import generate
>>> xs, a = tt.dvector("xs"), tt.dscalar("a")
>>> hs, _ = theon.scan(lambda x, h, a: a * h + x, sequences=xs,
...                    outputs_info=tt.constant(0.0), non_sequences=a)
>>> print(generate(theon.function([xs, a], hs).maker.fgraph).source)
def graph(i0, i1, k0):
    v1 = np.int64(i0.shape[0])
    t2 = np.int64(v1)
    if t2 < 0: raise ValueError('n_steps < 0')
    if i0.shape[0] < t2: raise ValueError('a sequence shorter than n_steps')
    if k0.shape[0] < 1: raise ValueError('an initial state of too few rows for its taps')
    t4 = np.empty((1 + t2,), np.float64)
    t4[:1] = k0[:1]
    for t3 in range(t2):
        t5 = i0[t3]
        t6 = t4[t3 + 0]
        t8 = (i1 * t6)
        t9 = (t8 + t5)
        v7 = t9
        t4[t3 + 1] = v7
    v10 = t4
    v11 = v10[1:]
    return (v11,)
"""

from __future__ import annotations

from theon.compile.compiled import plan_copies
from theon.compile.inner import rewrite_inner_graph
from theon.graph.basic import Apply, Variable
from theon.graph.fg import FunctionGraph
from theon.link.tier1.nbgraph import NbContext, dtype_of, nb_spell, ndim_of, spell_subgraph
from theon.scan.op import Scan
from theon.scan.utils import ScanBuffer
from theon.tensor.elemwise import Elemwise

__all__: list[str] = []


def _np_dtype(dt: str) -> str:
    return "np.bool_" if dt == "bool" else f"np.{dt}"


def _static(v: Variable) -> tuple[int | None, ...]:
    return tuple(v.type.shape)  # type: ignore[attr-defined]


def _shape(first: str, src: str, nd: int, start: int = 1) -> str:
    """The tuple ``(first, src.shape[start], ..., src.shape[start + nd - 1])``."""
    dims = (f"{src}.shape[{d}]" for d in range(start, start + nd))
    return "(" + ", ".join([first, *dims]) + ",)"


def _body(op: Scan, node: Apply) -> FunctionGraph:
    """The body as tier 0 runs it: rewritten by the mode its compiled form was made for."""
    mode = op.compiled_body(node).mode
    return rewrite_inner_graph(op.inner_inputs, op.inner_outputs, mode)


def _used(fg: FunctionGraph, v: Variable) -> bool:
    return bool(fg.clients.get(v))


@nb_spell.register(Scan)
def _spell_scan(op: Scan, node: Apply, ctx: NbContext) -> list[str] | None:
    """The step loop, the body's statements inlined in it."""
    info = op.info
    if (type(op).perform is not Scan.perform or info.as_while or info.n_carried
            or info.truncate_gradient != -1):
        return None
    n_st, n_nit = info.n_states, info.n_nit
    body_outs = op.inner_outputs
    for j in range(n_st):
        st_out, stacked = body_outs[j], node.outputs[j]
        if dtype_of(st_out) != dtype_of(stacked) or ndim_of(st_out) != ndim_of(stacked) - 1:
            return None
    fg = _body(op, node)
    sseq, sst, sns = info.outer_slices()
    lines: list[str] = []
    n, t = ctx.tmp(), ctx.tmp()
    lines += [f"{n} = np.int64({ctx.arg(0)})",
              f"if {n} < 0: raise ValueError('n_steps < 0')"]
    seqs = [ctx.arg(i) for i in range(sseq.start, sseq.stop)]
    lines += [f"if {s}.shape[0] < {n}: raise ValueError('a sequence shorter than n_steps')"
              for s in seqs]
    bufs = _state_buffers(node, op, ctx, n, sst.start, lines)
    # the stacked outputs: 0-d rows made now, the others at the first step
    nits: list[str] = []
    for m in range(n_nit):
        v = node.outputs[n_st + m]
        o = ctx.out(n_st + m)
        nits.append(o)
        nd, dt = ndim_of(v), _np_dtype(dtype_of(v))
        if nd == 1:
            lines.append(f"{o} = np.empty({n}, {dt})")
        else:
            rest = ", ".join(str(s or 0) for s in _static(v)[1:])
            lines.append(f"{o} = np.empty((0, {rest},), {dt})")
    # the body's inputs at step t: sequence rows, state taps, non-sequences
    step: list[str] = []
    names: list[str] = []
    k = 0
    for s in seqs:
        x = ctx.tmp()
        if _used(fg, fg.inputs[k]):
            step.append(f"{x} = {s}[{t}]")
        names.append(x)
        k += 1
    for j, taps in enumerate(info.state_taps):
        L, last = info.lags[j], info.store_last[j]
        for tap in taps:
            x = ctx.tmp()
            row = ("0" if L == 1 else f"({t} + {L + tap}) % {L}") if last else f"{t} + {L + tap}"
            if _used(fg, fg.inputs[k]):
                step.append(f"{x} = {bufs[j]}[{row}]")
            names.append(x)
            k += 1
    names += [ctx.arg(i) for i in range(sns.start, sns.stop)]
    inner, outs = spell_subgraph(ctx, fg, names)
    step += inner
    # the stacked outputs first (a value viewing a ring's row is read before it changes)
    for m, o in enumerate(nits):
        y, nd = outs[n_st + m], ndim_of(node.outputs[n_st + m])
        if nd > 1:
            dt = _np_dtype(dtype_of(node.outputs[n_st + m]))
            step.append(f"if {t} == 0: {o} = np.empty({_shape(n, y, nd - 1, 0)}, {dt})")
            step += [f"if {y}.shape[{d}] != {o}.shape[{d + 1}]: raise ValueError("
                     "'a step output of another shape than the first step')"
                     for d in range(nd - 1)]
        step.append(f"{o}[{t}] = {y}")
    # the states; with a ring of rows, step values that may view a buffer are copied
    # before any buffer is written
    ring = any(last and ndim_of(node.outputs[j]) > 1
               for j, last in enumerate(info.store_last))
    may_view = plan_copies(fg, len(fg.outputs), [False] * len(fg.outputs))[0]
    writes: list[str] = []
    for j, b in enumerate(bufs):
        y, nd = outs[j], ndim_of(node.outputs[j]) - 1
        L, last = info.lags[j], info.store_last[j]
        row = ("0" if L == 1 else f"{t} % {L}") if last else f"{t} + {L}"
        if nd:
            step += [f"if {y}.shape[{d}] != {b}.shape[{d + 1}]: raise ValueError("
                     "'a step state of another shape than its initial value')"
                     for d in range(nd)]
            owner = fg.outputs[j].owner
            if ring and (may_view[j] or owner is None or not isinstance(owner.op, Elemwise)):
                c = ctx.tmp()
                step += [f"{c} = {y}.copy()"]
                y = c
        writes.append(f"{b}[{row}] = {y}")
    step += writes
    lines.append(f"for {t} in range({n}):")
    lines += ["    " + ln for ln in step]
    return lines + _state_outputs(op, ctx, n, bufs)


def _state_buffers(node: Apply, op: Scan, ctx: NbContext, n: str, first: int,
                   lines: list[str]) -> list[str]:
    """Lines (added to ``lines``) making each state's buffer, its initial rows copied in
    (all the steps' rows, or a ring of the last ones); the buffers' names."""
    info = op.info
    bufs: list[str] = []
    for j in range(info.n_states):
        init, L, last = ctx.arg(first + j), info.lags[j], info.store_last[j]
        nd = ndim_of(node.outputs[j])
        b = ctx.tmp()
        bufs.append(b)
        lines += [f"if {init}.shape[0] < {L}: raise ValueError('an initial state of too few "
                  "rows for its taps')",
                  f"{b} = np.empty({_shape(str(L) if last else f'{L} + {n}', init, nd - 1)}, "
                  f"{_np_dtype(dtype_of(node.outputs[j]))})",
                  f"{b}[:{L}] = {init}[:{L}]"]
    return bufs


def _state_outputs(op: Scan, ctx: NbContext, n: str, bufs: list[str]) -> list[str]:
    """The states' outputs: the buffers (a ring turned to its last rows in order)."""
    info = op.info
    lines: list[str] = []
    for j, b in enumerate(bufs):
        o = ctx.out(j)
        L = info.lags[j]
        if info.store_last[j] and L > 1:
            r = ctx.tmp()
            lines += [f"{r} = {n} % {L}",
                      f"{o} = np.concatenate(({b}[{r}:], {b}[:{r}]))"]
        else:
            lines.append(f"{o} = {b}")
    return lines


@nb_spell.register(ScanBuffer)
def _spell_scan_buffer(op: ScanBuffer, node: Apply, ctx: NbContext) -> list[str] | None:
    """The uninitialised rows after a state's initial ones (``np.empty``); a rewrite
    usually hands the Scan the initial rows instead."""
    if type(op).perform is not ScanBuffer.perform:
        return None
    dims = "".join(f"np.int64({ctx.arg(i)}), " for i in range(len(node.inputs)))
    return [f"{ctx.out(0)} = np.empty(({dims}), {_np_dtype(dtype_of(node.outputs[0]))})"]
