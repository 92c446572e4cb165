"""The ``Scan`` Op: a loop whose body is a graph, compiled once and run step by step.

Outer inputs, in order::

    n_steps                 int64 scalar: the number of steps (at most, for a while loop)
    sequences               one per (sequence, tap): step t reads ``seq[t]``
    state buffers           one per recurrent state j, ``L_j`` rows: the initial values
    non-sequences           passed unchanged to every step
    carried states          one per non-tensor state (a random generator): its value

The body (the inner graph) takes, in order: one value per sequence, one per
tap of each state (``taps_j``, negative; the state row ``t + L_j + k`` for tap
``k``, where ``L_j = -min(taps_j)``), and the non-sequences.  It returns the new
value of each state, then one value per output that is not fed back ("nit-sot"),
then, for a while loop, the boolean condition that ends the loop.

Outer outputs: for each state the buffer of its ``L_j`` initial rows followed by
the ``n`` computed rows (or, with ``store_last``, only its last ``L_j`` rows,
which is what the memory-saving rewrite asks for), then each nit-sot output
stacked over the steps, then each carried state's value after the last step.  A
carried state is not a tensor and is not stacked: a random generator threaded
through the loop (each step's draws advance it) is one.  A while loop stops after
the step whose condition is true; its outputs are truncated to the steps run.

The inner graph is rewritten and linked once per mode, by the same rewrites and
linker as an outer graph: the scan's ``mode`` when one was given, else the mode
of the :func:`theon.function` that compiles the scan (through
:meth:`Scan.prepare_node`), else ``config.mode``; the loop then calls the linked
runner directly with the step's values.

>>> import numpy as np, theon, theon.tensor as tt
>>> h = tt.dscalar("h")
>>> op = Scan([h], [2 * h], ScanInfo(n_seqs=0, state_taps=((-1,),)))
>>> n, h0 = tt.lscalar("n"), tt.dvector("h0")
>>> theon.function([n, h0], op(n, h0))(3, np.array([1.0]))
array([1., 2., 4., 8.])
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from theon.compile.inner import InnerCompiler, InnerFunctionGraph, link_inner_graph
from theon.compile.mode import Mode
from theon.graph.basic import Apply, Variable, format_trace
from theon.graph.collector import gc_paused
from theon.graph.fg import describe
from theon.graph.op import HasInnerGraph, Op, OpContractError
from theon.graph.replace import equal_computations
from theon.graph.traversal import ancestors
from theon.link.basic import Runner
from theon.scan.buffers import BufferCache
from theon.scan.fastloop import FastLoop, build_fast_loop
from theon.scan.info import ScanInfo
from theon.scan.steploop import inline_step_loop, make_step_loop
from theon.tensor.basic import as_tensor_variable, cast
from theon.tensor.type import TensorType, tensor_type
from theon.tensor.variable import TensorVariable

__all__ = ["Scan", "ScanInfo", "scan_op", "tensor_inputs"]


class Scan(Op, HasInnerGraph):
    """A loop over a body graph (see the module docstring for the layout).

    Parameters
    ----------
    inner_inputs, inner_outputs
        The body: placeholder Variables and what it computes from them.
    info
        The :class:`ScanInfo` layout.
    mode
        The mode compiling the body (``None``: that of the function compiling the
        scan, or ``config.mode`` where none is known).
    truncate_gradient, name, as_while
        PyTensor's keyword arguments: they replace (``as_while``: must agree with) the
        fields of ``info`` of those names.
    profile, allow_gc, strict, typeConstructor
        PyTensor's keyword arguments, kept as attributes and otherwise unused.
    """

    # identity: the layout, the mode and the body, compared as computations (two Scans
    # built separately from the same step function are equal, as in PyTensor, so
    # ``equal_computations`` and merging see them as one)
    __props__ = None
    profile: Any = False
    allow_gc: bool | None = None
    _fgraph: InnerFunctionGraph | None

    def __init__(
        self,
        inner_inputs: Sequence[Variable],
        inner_outputs: Sequence[Variable],
        info: ScanInfo,
        mode: str | Mode | None = None,
        typeConstructor: Any = None,
        truncate_gradient: int | None = None,
        name: str | None = None,
        as_while: bool | None = None,
        profile: Any = False,
        allow_gc: bool | None = None,
        strict: bool = True,
    ) -> None:
        del typeConstructor, strict
        if as_while is not None and bool(as_while) != info.as_while:
            raise ValueError(f"Scan: as_while={as_while} disagrees with the layout {info}")
        changes: dict[str, Any] = {}
        if truncate_gradient is not None and truncate_gradient != info.truncate_gradient:
            changes["truncate_gradient"] = truncate_gradient
        if name is not None and name != info.name:
            changes["name"] = name
        if changes:
            info = replace(info, **changes)
        self._inner_inputs = list(inner_inputs)
        self._inner_outputs = list(inner_outputs)
        self.info = info
        self.mode = mode
        self.name = info.name
        self.profile = profile
        self.allow_gc = allow_gc
        self._init_caches()
        if len(self._inner_inputs) != info.n_inner_inputs:
            raise ValueError(
                f"Scan: the body has {len(self._inner_inputs)} inputs, the layout says "
                f"{info.n_inner_inputs}"
            )
        if len(self._inner_outputs) != info.n_inner_outputs:
            raise ValueError(
                f"Scan: the body has {len(self._inner_outputs)} outputs, the layout says "
                f"{info.n_inner_outputs}"
            )

    # the inner-graph protocol (read by printing and by rewrites) --------------------
    @property
    def inner_inputs(self) -> list[Variable]:
        """The body's input placeholders."""
        return self._inner_inputs

    @property
    def inner_outputs(self) -> list[Variable]:
        """The body's outputs."""
        return self._inner_outputs

    @property
    def fgraph(self) -> InnerFunctionGraph:
        """The body as a FunctionGraph over :attr:`inner_inputs` and :attr:`inner_outputs`
        themselves (PyTensor's attribute); its copies keep the input placeholders."""
        if self._fgraph is None:
            self._fgraph = InnerFunctionGraph(self._inner_inputs, self._inner_outputs)
        return self._fgraph

    @property
    def truncate_gradient(self) -> int:
        """``info.truncate_gradient`` (PyTensor's attribute)."""
        return self.info.truncate_gradient

    def get_oinp_iinp_iout_oout_mappings(self) -> dict[str, dict[int, Any]]:
        """PyTensor's maps between the positions of the outer inputs, inner inputs,
        inner outputs and outer outputs that belong together (see
        :func:`theon.scan.args.scan_mappings`)."""
        from theon.scan.args import scan_mappings

        return scan_mappings(self.info)

    def clone(self) -> Scan:
        """A copy of this Op whose body's nodes are copies (over the same input
        placeholders); a different Op, with the same layout and mode."""
        new = copy.copy(self)
        new._inner_outputs = list(self.fgraph.clone().outputs)
        new._inner_inputs = list(self._inner_inputs)
        new._init_caches()
        return new

    def clone_with(self, **changes: Any) -> Scan:
        """The same body with some :class:`ScanInfo` fields changed."""
        return Scan(self._inner_inputs, self._inner_outputs, replace(self.info, **changes),
                    self.mode)

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not type(self):
            return False
        assert isinstance(other, Scan)
        return (self.info == other.info and self.mode == other.mode
                and equal_computations(self._inner_outputs, other._inner_outputs,
                                       self._inner_inputs, other._inner_inputs))

    def __hash__(self) -> int:
        return hash((type(self), self.info, len(self._inner_inputs)))

    def __str__(self) -> str:
        kind = "while" if self.info.as_while else "for"
        return f"Scan{{{self.name or 'scan_fn'}, {kind}}}"

    def _init_caches(self) -> None:
        # the compiled body per mode, and per node of a compiled function the one
        # ``prepare_node`` chose for it (theon.compile.inner)
        self._inner: InnerCompiler[_Compiled] = InnerCompiler(self._compile, self.mode)
        self._pattern: list[list[bool]] | None = None
        self._fgraph = None
        # held while a runner that is not reentrant runs
        self._lock = threading.Lock()
        # large state and output buffers, reused by the next run once free (buffers.py)
        self._buffers = BufferCache()

    def __getstate__(self) -> dict[str, Any]:
        state = super().__getstate__()
        for k in ("_inner", "_lock", "_pattern", "_buffers", "_fgraph"):
            state.pop(k, None)
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state.pop("_step_loop", None)  # pickles of older versions
        self.__dict__.update(state)
        self._init_caches()

    # building ----------------------------------------------------------------------
    def make_node(self, *inputs: Any) -> Apply:
        info = self.info
        if len(inputs) != info.n_outer_inputs:
            raise TypeError(
                f"{self} takes {info.n_outer_inputs} inputs (n_steps, {info.n_seqs} sequences, "
                f"{info.n_states} state buffers, {info.n_nonseqs} non-sequences, "
                f"{info.n_carried} carried states), got {len(inputs)}"
            )
        sca = info.carried_inputs
        ins: list[Variable] = [as_tensor_variable(x) for x in inputs[: sca.start]]
        carried = list(inputs[sca])
        for i, x in enumerate(carried):
            ph = self._inner_inputs[info.n_inner_inputs - info.n_carried + i]
            if not isinstance(x, Variable) or x.type != ph.type:
                raise TypeError(
                    f"{self}: carried state {i} must be a {ph.type} like the body's input "
                    f"{describe(ph)}, got {x!r}"
                )
        n = ins[0]
        nt = tensor_type(n)
        if nt.ndim != 0 or nt.dtype not in ("int8", "int16", "int32", "int64"):
            raise TypeError(f"{self}: n_steps must be an integer scalar, got {describe(n)}")
        if nt.dtype != "int64":
            ins[0] = cast(n, "int64")
        sseq, sst, sns = info.outer_slices()
        inner = self._inner_inputs
        k = 0
        for x in ins[sseq]:
            want = tensor_type(inner[k])
            xt = tensor_type(x)
            if xt.ndim != want.ndim + 1 or xt.dtype != want.dtype:
                raise TypeError(
                    f"{self}: sequence {describe(x)} must have one more dimension than the "
                    f"body's input {describe(inner[k])}, with the same dtype"
                )
            k += 1
        outs: list[Variable] = []
        for j, x in enumerate(ins[sst]):
            want = tensor_type(inner[k])
            k += len(info.state_taps[j])
            xt = tensor_type(x)
            if xt.ndim != want.ndim + 1 or xt.dtype != want.dtype:
                raise TypeError(
                    f"{self}: the initial buffer {describe(x)} of state {j} must have one more "
                    f"dimension than the state ({want}), with the same dtype"
                )
            outs.append(TensorType(want.dtype, shape=(None, *want.shape))())
        for j, x in enumerate(ins[sns]):
            ns_type = inner[k + j].type
            if x.type != ns_type:
                conv = ns_type.convert_variable(x)
                if conv is None:
                    raise TypeError(
                        f"{self}: non-sequence {describe(x)} does not fit the body's input "
                        f"{describe(inner[k + j])}"
                    )
                ins[sns.start + j] = conv
        for o in self._inner_outputs[info.n_states: info.n_states + info.n_nit]:
            ot = tensor_type(o)
            outs.append(TensorType(ot.dtype, shape=(None, *ot.shape))())
        outs += [o.type() for o in self._inner_outputs[info.carried_outputs]]
        return Apply(self, ins + carried, outs)

    # running -----------------------------------------------------------------------
    def prepare_node(self, node: Apply, mode: Mode) -> None:
        """Compile the body for ``node`` with ``mode``, the outer function's mode
        (the scan's own ``mode`` wins when it was given); ``perform`` on ``node``
        then runs that compiled body.  Each mode's body is compiled once per Op."""
        self._inner.prepare(node, mode)

    def compiled_body(self, node: Apply | None = None) -> _Compiled:
        """The compiled body ``perform`` uses for ``node``: the one
        :meth:`prepare_node` chose, else (compiled on first use) the one of the
        scan's ``mode`` or ``config.mode``."""
        return self._inner.get(node)

    def _compile(self, mode: Mode) -> _Compiled:
        """Rewrite and link the body once (the mode's rewrites and linker)."""
        body = link_inner_graph(self._inner_inputs, self._inner_outputs, mode)
        # outputs that may be views of the step's inputs: a ring buffer (store_last)
        # must copy them before a write overwrites the rows they view
        alias = body.viewing_outputs()
        with gc_paused():
            fast = (None if self.info.n_carried
                    else build_fast_loop(body.fgraph, self.info, mode.linker))
        return _Compiled(body.runner, alias, fast, mode)

    @property
    def fast_loop(self) -> FastLoop | None:
        """The body's :class:`~theon.scan.fastloop.FastLoop` (compiles the body), or ``None``.

        A body of 0-d numbers spelled wholly on Python numbers runs as one
        generated loop instead of one runner call per step.  This is the one of
        the scan's default mode; ``compiled_body(node).fast`` is a node's.
        """
        return self.compiled_body().fast

    def _generated_loop(self, c: _Compiled) -> Any:
        """The :mod:`~theon.scan.steploop` loop for this layout, or ``None`` where the
        generic loop is needed (a while loop, taps other than ``[-1]``, 0-d rows, or a
        runner that may overwrite its outputs on the next call)."""
        loop = c.step_loop
        if loop is _UNSET:
            info = self.info
            inner = self._inner_inputs
            reuse = c.runner.reuses_output_storage
            ok = (
                not info.as_while
                and not info.n_carried
                and all(taps == (-1,) for taps in info.state_taps)
                and not (any(reuse) if isinstance(reuse, list) else reuse)
                and all(tensor_type(v).ndim >= 1 for v in inner[: info.n_seqs + info.n_states])
            )
            if ok:
                layout = (info.n_seqs, info.store_last, info.n_nit, info.n_nonseqs)
                loop = inline_step_loop(c.runner, *layout) or make_step_loop(*layout)
            else:
                loop = None
            c.step_loop = loop
        return loop

    def perform(
        self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]
    ) -> None:
        """Run the loop: the fast loop where it applies, else the generated step loop,
        else one runner call per step; then store the outputs."""
        info = self.info
        c = self._inner.get(node)
        n = int(inputs[0])
        if n < 0:
            raise ValueError(f"{self}: n_steps must be >= 0, got {n}")
        sseq, sst, sns = info.outer_slices()
        seqs = list(inputs[sseq])
        self._check_sequences(node, seqs, n)
        nonseqs = list(inputs[sns])
        if c.fast is not None and n > 0 and c.fast.enabled:
            res = c.fast(n, seqs, inputs[sst], nonseqs)
            if res is not None:
                for j, b in enumerate(res[0]):
                    output_storage[j][0] = b
                for m, y in enumerate(res[1]):
                    output_storage[info.n_states + m][0] = y
                return
        if n >= _C_ORDER_STEPS:
            # a transposed matrix read every step (W.T in a backward loop): one C-ordered
            # copy now, as BLAS multiplies by it faster than by the strided view
            nonseqs = [_c_ordered(w) for w in nonseqs]
        bufs, reads, writes, lasts = self._state_buffers(node, inputs[sst], n)
        nits: list[Any] = [None] * info.n_nit
        # the carried states (generators): copied, so the caller's value is not advanced
        carried = [copy.deepcopy(x) for x in inputs[info.carried_inputs]]
        done = n
        gen = self._generated_loop(c)
        lock = None if c.runner.reentrant else self._lock
        if lock is not None:
            lock.acquire()
        retry = False
        try:
            if gen is None:
                done, carried = self._run_steps(c, node, n, seqs, bufs, reads, writes, nonseqs,
                                                nits, carried)
            else:
                retry = not self._run_generated(gen, c, node, n, seqs, bufs, nonseqs, nits)
        finally:
            if lock is not None:
                lock.release()
        if retry:  # the body inlined in the loop failed: the whole scan runs again
            self.perform(node, inputs, output_storage)
            return
        self._store_outputs(node, output_storage, bufs, lasts, nits, carried, done, n)

    def _check_sequences(self, node: Apply, seqs: list[Any], n: int) -> None:
        """Refuse a sequence shorter than the ``n`` steps."""
        for s, var in zip(seqs, node.inputs[self.info.outer_slices()[0]]):
            if s.shape[0] < n:
                raise ValueError(
                    f"{self}: sequence {describe(var)} has {s.shape[0]} entries but the loop "
                    f"runs {n} steps (n_steps = {n}); give a longer sequence or fewer steps"
                )

    def _run_generated(
        self, gen: Any, c: _Compiled, node: Apply, n: int, seqs: list[Any], bufs: list[Any],
        nonseqs: list[Any], nits: list[Any],
    ) -> bool:
        """Run the ``n`` steps with the generated step loop ``gen``; ``False`` when the
        body inlined in it failed (the body then runs with the loop calling the runner,
        which reports errors with their node: the caller runs the scan again)."""
        rows = [b.shape[1:] for b in bufs]
        at = [0]

        def bad(j: int, y: Any) -> Any:
            if np.shape(y) != rows[j]:
                self._bad_state(node, j, y, rows[j])
            return np.asarray(y, dtype=bufs[j].dtype)

        def alloc(m: int, y: Any) -> Any:
            return self._alloc_nit(node, m, y, n)

        try:
            gen(n, c.runner.fn, seqs, bufs, nonseqs, nits, rows, [b.dtype for b in bufs], bad,
                alloc, at)
        except Exception as exc:
            if not getattr(gen, "inlined", False):
                exc.add_note(self._step_note(node, at[0]))
                raise
            info = self.info
            c.step_loop = make_step_loop(info.n_seqs, info.store_last, info.n_nit,
                                         info.n_nonseqs)
            return False
        return True

    def _run_steps(
        self, c: _Compiled, node: Apply, n: int, seqs: list[Any], bufs: list[Any],
        reads: list[tuple[int, int, int]], writes: list[tuple[int, int]], nonseqs: list[Any],
        nits: list[Any], carried: list[Any],
    ) -> tuple[int, list[Any]]:
        """Run the steps, one runner call each, writing the state rows into ``bufs`` and
        the other outputs into ``nits``: the number of steps run (fewer for a while
        loop that stopped) and the carried states' values after them."""
        info = self.info
        runner = c.runner
        fn = runner.fn
        fix = c.alias if any(info.store_last) else ()
        rows = [b.shape[1:] for b in bufs]
        n_st, n_nit = info.n_states, info.n_nit
        # one argument list reused by every step: sequences, state taps, non-sequences
        args: list[Any] = [None] * info.n_inner_inputs
        n_seqs = len(seqs)
        n_ns = len(nonseqs)
        args[n_seqs + len(reads): n_seqs + len(reads) + n_ns] = nonseqs
        c_in = info.n_inner_inputs - info.n_carried
        c_out = info.carried_outputs
        args[c_in:] = carried
        ell = Ellipsis
        # a 0-d float64 body input that the runner reads only as a float gets a Python
        # float (``item``), its fast path; the others get a 0-d view of their row
        fl = runner.float_inputs
        seq_fl = [i in fl and s.ndim == 1 and s.dtype == np.float64 for i, s in enumerate(seqs)]
        tap_fl = [n_seqs + a in fl and bufs[j].ndim == 1 and bufs[j].dtype == np.float64
                  for a, (j, _, _) in enumerate(reads)]
        # what each step reads and writes, bound once: (argument, array, offset, ring, float)
        seq_steps = [(i, s, seq_fl[i]) for i, s in enumerate(seqs)]
        tap_steps = [(n_seqs + a, bufs[j], off, ring, tap_fl[a])
                     for a, (j, off, ring) in enumerate(reads)]
        state_steps = [(j, bufs[j], pos, ring, rows[j]) for j, (pos, ring) in enumerate(writes)]
        t = 0
        try:
            for t in range(n):
                for i, s, f in seq_steps:
                    args[i] = s.item(t) if f else s[t, ell]
                for a, b, off, ring, f in tap_steps:
                    r = (t + off) % ring if ring else t + off
                    args[a] = b.item(r) if f else b[r, ell]
                outs = fn(*args)
                if fix:
                    outs = list(outs)
                    for i in fix:
                        outs[i] = np.array(outs[i], copy=True)
                for j, b, pos, ring, row in state_steps:
                    y = outs[j]
                    if y.shape != row:
                        self._bad_state(node, j, y, row)
                    b[(t % ring) if ring else t + pos] = y
                for m in range(n_nit):
                    y = outs[n_st + m]
                    if t == 0:
                        nits[m] = self._alloc_nit(node, m, y, n)
                    nits[m][t] = y
                if carried:
                    carried = list(outs[c_out])
                    args[c_in:] = carried
                if info.as_while and outs[-1]:
                    return t + 1, carried
        except Exception as exc:
            exc.add_note(self._step_note(node, t))
            raise
        return n, carried

    def _step_note(self, node: Apply, t: int) -> str:
        return f"(in step {t} of {self}, built at {_where(node)})"

    def _store_outputs(
        self, node: Apply, output_storage: list[list[Any]], bufs: list[Any], lasts: list[bool],
        nits: list[Any], carried: list[Any], done: int, n: int,
    ) -> None:
        """Store the outputs of a run of ``done`` of the ``n`` steps: each state's rows
        (its last ``L_j`` in order for ``store_last``), each output stacked over the
        steps run, and the carried states."""
        info = self.info
        n_st = info.n_states
        for j in range(n_st):
            b = bufs[j]
            if lasts[j]:
                L = info.lags[j]
                if done % L:
                    b = np.roll(b, -(done % L), axis=0)
            elif done < n:
                b = b[: info.lags[j] + done].copy()
            output_storage[j][0] = b
        for m in range(info.n_nit):
            y = nits[m]
            if y is None:
                ot = tensor_type(node.outputs[n_st + m])
                y = np.zeros((0,) + tuple(s or 0 for s in ot.shape[1:]), dtype=ot.dtype)
            elif done < n:
                y = y[:done].copy()
            output_storage[n_st + m][0] = y
        c_out = info.carried_outputs
        for i, g in enumerate(carried):
            output_storage[c_out.start + i][0] = g

    def _state_buffers(
        self, node: Apply, inits: Sequence[Any], n: int
    ) -> tuple[list[Any], list[tuple[int, int, int]], list[tuple[int, int]], list[bool]]:
        """The state buffers and, per body input and output, where it reads and writes."""
        info = self.info
        bufs: list[Any] = []
        reads: list[tuple[int, int, int]] = []
        writes: list[tuple[int, int]] = []
        sst = info.outer_slices()[1]
        for j, (init, taps, last) in enumerate(zip(inits, info.state_taps, info.store_last)):
            L = -taps[0]
            if init.shape[0] < L:
                raise ValueError(
                    f"{self}: state {j} reads {L} steps back (taps {list(taps)}) but its "
                    f"initial value {describe(node.inputs[sst][j])} has only {init.shape[0]} rows"
                )
            if last:
                b = np.array(init[:L], copy=True)
                reads.extend((j, L + k, L) for k in taps)
                writes.append((0, L))
            else:
                b = self._buffers.empty(("state", j), (L + n, *init.shape[1:]), init.dtype)
                b[:L] = init[:L]
                reads.extend((j, L + k, 0) for k in taps)
                writes.append((L, 0))
            bufs.append(b)
        return bufs, reads, writes, list(info.store_last)

    def _bad_state(self, node: Apply, j: int, y: Any, row: tuple[int, ...]) -> None:
        raise ValueError(
            f"{self}: the step computed recurrent output {j} with shape {np.shape(y)}, but "
            f"its initial value {describe(node.inputs[self.info.outer_slices()[1]][j])} gives "
            f"shape {row}; a recurrent output must keep its shape"
        )

    def _alloc_nit(self, node: Apply, m: int, y: Any, n: int) -> Any:
        ot = tensor_type(node.outputs[self.info.n_states + m])
        shape = np.shape(y)
        if len(shape) != ot.ndim - 1:
            raise TypeError(
                f"{self}: output {describe(node.outputs[self.info.n_states + m])} got a step "
                f"value of shape {shape}"
            )
        return self._buffers.empty(("nit", m), (n, *shape), ot.dtype)

    # shapes and derivatives ----------------------------------------------------------
    def infer_shape(
        self, node: Apply, input_shapes: Sequence[Sequence[Variable]]
    ) -> list[tuple[Variable, ...]]:
        info = self.info
        if info.as_while:
            raise OpContractError("a while loop's length is known only when it has run")
        n = as_tensor_variable(node.inputs[0])  # (n_steps is: make_node made it one)
        sst = info.outer_slices()[1]
        # (a carried state is not a tensor: its entry is None, no shape)
        out: list[Any] = []
        for j, shp in enumerate(input_shapes[sst]):
            L = info.lags[j]
            first = as_tensor_variable(L) if info.store_last[j] else n + L
            out.append((first, *shp[1:]))
        for m in range(info.n_nit):
            ot = tensor_type(node.outputs[info.n_states + m])
            if any(s is None for s in ot.shape[1:]):
                raise OpContractError("the shape of a step's output is known when it runs")
            out.append((n, *(as_tensor_variable(s) for s in ot.shape[1:])))
        out.extend([None] * info.n_carried)
        return out

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        """``[input][output]``: whether an outer output depends on an outer input.

        Read from the body: output ``o`` depends on a sequence or non-sequence
        when the body output computing it does, and on a state's initial buffer
        when it reads that state, directly or through other states (a fixed
        point over the recurrences).  A state's output always depends on its own
        initial buffer (its first rows); a while loop's condition counts for
        every output.  ``n_steps`` sets only the length, so it is not connected.
        """
        pat = self._pattern
        if pat is None:
            pat = self._pattern = self._body_pattern()
        return [list(row) for row in pat]

    def _body_pattern(self) -> list[list[bool]]:
        info = self.info
        sseq, sst, sns = info.outer_slices()
        # the outer input each body input comes from; a state tap stands for the state
        source: list[tuple[str, int]] = [("in", sseq.start + i) for i in range(info.n_seqs)]
        for j, taps in enumerate(info.state_taps):
            source.extend(("state", j) for _ in taps)
        source.extend(("in", sns.start + w) for w in range(info.n_nonseqs))
        # a carried state is a state too (numbered after the tensor states)
        n_st = info.n_states
        source.extend(("state", n_st + i) for i in range(info.n_carried))
        pos = {v: k for k, v in enumerate(self._inner_inputs)}
        direct: list[set[tuple[str, int]]] = []
        for o in self._inner_outputs:
            used = (pos[v] for v in ancestors([o], blockers=self._inner_inputs) if v in pos)
            direct.append({source[k] for k in used})
        # deps[o]: the outer inputs body output o depends on; a state's value over the
        # steps depends on its buffer and on what its body output depends on
        sca, cout = info.carried_inputs, info.carried_outputs
        state_deps: list[set[int]] = [{sst.start + j} for j in range(n_st)]
        state_deps += [{sca.start + i} for i in range(info.n_carried)]
        # the body output computing each state: tensor states first, then carried ones
        state_out = [*range(n_st), *range(cout.start, cout.stop)]
        deps: list[set[int]] = [set() for _ in self._inner_outputs]
        changed = True
        while changed:
            changed = False
            for m, srcs in enumerate(direct):
                new = set(deps[m])
                for kind, k in srcs:
                    new |= state_deps[k] if kind == "state" else {k}
                if new != deps[m]:
                    deps[m] = new
                    changed = True
            for j, m in enumerate(state_out):
                new = state_deps[j] | deps[m]
                if new != state_deps[j]:
                    state_deps[j] = new
                    changed = True
        outs = [*state_deps[:n_st], *deps[n_st: n_st + info.n_nit], *state_deps[n_st:]]
        if info.as_while:
            outs = [d | deps[-1] for d in outs]
        return [[k in d for d in outs] for k in range(info.n_outer_inputs)]

    def L_op(
        self,
        inputs: Sequence[Variable],
        outputs: Sequence[Variable],
        output_grads: Sequence[Variable],
    ) -> list[Any]:
        from theon.scan.grad import scan_grad

        return scan_grad(self, list(inputs), list(outputs), list(output_grads))

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        from theon.scan.grad import scan_rop

        return scan_rop(self, list(inputs), list(eval_points))


def scan_op(node: Apply) -> Scan:
    """``node.op``, a Scan: what a rewrite tracking ``Scan`` is given."""
    op = node.op
    if not isinstance(op, Scan):
        raise TypeError(f"{node.op} is not a Scan (in {node})")
    return op


def tensor_inputs(node: Apply) -> list[TensorVariable]:
    """A Scan node's outer inputs before its carried states: ``n_steps``, the sequences,
    the state buffers and the non-sequences, all tensors (``make_node`` made them)."""
    stop = scan_op(node).info.carried_inputs.start
    return [as_tensor_variable(v) for v in node.inputs[:stop]]


_UNSET: Any = object()

#: Non-sequence matrices of at most this many elements are made C-ordered for a loop
#: of at least ``_C_ORDER_STEPS`` steps (a copy: worth it only when read many times).
_C_ORDER_SIZE = 1 << 16
_C_ORDER_STEPS = 8


def _c_ordered(w: Any) -> Any:
    """``w`` itself, or a C-ordered copy of a small matrix that is not C-ordered.

    >>> v = np.ones((3, 2))
    >>> _c_ordered(v.T).flags.c_contiguous, _c_ordered(v) is v
    (True, True)
    """
    if (type(w) is np.ndarray and w.ndim == 2 and not w.flags.c_contiguous
            and w.size <= _C_ORDER_SIZE):
        return np.ascontiguousarray(w)
    return w


class _Compiled:
    """A body compiled for one mode: the runner, the outputs that may view its
    inputs, the fast loop or ``None``, and the generated step loop (made lazily)."""

    __slots__ = ("runner", "alias", "fast", "mode", "step_loop")

    def __init__(self, runner: Runner, alias: tuple[int, ...], fast: FastLoop | None,
                 mode: Mode) -> None:
        self.runner = runner
        self.alias = alias
        self.fast = fast
        self.mode = mode
        self.step_loop: Any = _UNSET


def _where(node: Apply) -> str:
    tr = getattr(node.outputs[0].tag, "trace", None) if node.outputs else None
    return format_trace(tr) or "an unknown place"
