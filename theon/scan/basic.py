"""``scan``: Theano's loop builder, on the :class:`~theon.scan.op.Scan` Op.

The step function ``fn`` is called once, on placeholder variables: one per
sequence tap, one per tap of each recurrent output, then the non-sequences.
What it returns is the body of the loop.  Every variable the body uses that is
not one of its arguments (a weight from the enclosing scope, a shared variable)
becomes an implicit non-sequence; a shared variable that ``fn`` returns an
update for becomes a recurrent state, and its value after the loop comes back
in the ``updates`` dictionary.

>>> import numpy as np, theon, theon.tensor as tt
>>> x = tt.dvector("x")
>>> total, _ = scan(lambda v, acc: acc + v, sequences=x, outputs_info=tt.constant(0.0))
>>> theon.function([x], total)(np.array([1.0, 2.0, 3.0]))
array([1., 3., 6.])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from theon.compile.sharedvalue import SharedVariable
from theon.graph.basic import Constant, Variable
from theon.graph.fg import describe
from theon.graph.replace import clone_replace
from theon.graph.traversal import graph_inputs, io_toposort
from theon.scan.draws import kept_draw
from theon.scan.op import Scan, ScanInfo
from theon.scan.utils import ScanUpdates, carried_draws, expand_empty, split_step_result
from theon.tensor.basic import as_tensor_variable
from theon.tensor.math import minimum
from theon.tensor.shape import shape_padleft
from theon.tensor.type import TensorType, tensor_type
from theon.tensor.variable import TensorVariable

__all__ = ["scan"]

V = TypeVar("V", bound=Variable)


@dataclass
class _Seq:
    var: TensorVariable
    taps: list[int]


@dataclass
class _Out:
    init: Variable | None  # None: not fed back
    taps: list[int] = field(default_factory=list)
    #: a non-tensor state (a random generator): fed back, not stacked (PyTensor's
    #: "untraced sit-sot"; a carried state of the Scan)
    untraced: bool = False
    #: the initial value holds past values along a first dimension (any taps given
    #: other than the list ``[-1]``, as in Theano and PyTensor), rather than being the
    #: previous value itself
    rows: bool = False

    @property
    def traced(self) -> bool:
        """A tensor state: fed back and stacked."""
        return self.init is not None and not self.untraced


def _as_list(x: Any) -> list[Any]:
    if x is None:
        return []
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def _taps(taps: Any, what: str) -> list[int]:
    t = [taps] if isinstance(taps, int) else list(taps)
    if not t or any(not isinstance(k, int) or isinstance(k, bool) for k in t):
        raise ValueError(f"scan: the taps of {what} must be a non-empty list of ints, got {taps!r}")
    if len(set(t)) != len(t):
        raise ValueError(f"scan: the taps of {what} repeat a tap: {t}")
    return t


def _parse_sequences(sequences: Any) -> list[_Seq]:
    out = []
    for k, s in enumerate(_as_list(sequences)):
        if isinstance(s, Mapping):
            if "input" not in s:
                raise ValueError(f"scan: sequence {k} is a dict without an 'input' entry: {s!r}")
            var = as_tensor_variable(s["input"])
            taps = _taps(s.get("taps", [0]), f"sequence {k} ({var})")
        else:
            var, taps = as_tensor_variable(s), [0]
        if tensor_type(var).ndim < 1:
            raise TypeError(
                f"scan: sequence {k}, {describe(var)}, is a scalar; a sequence is iterated "
                "over its first dimension (pass a scalar as a non-sequence)"
            )
        out.append(_Seq(var, taps))
    return out


def _is_untraced(v: Any) -> bool:
    """Whether an initial value is a non-tensor variable (a random generator)."""
    return isinstance(v, Variable) and not isinstance(v.type, TensorType)


def _parse_outputs(outputs_info: Any) -> list[_Out]:
    out = []
    for k, o in enumerate(_as_list(outputs_info)):
        if o is None:
            out.append(_Out(None))
            continue
        if isinstance(o, Mapping):
            init = o.get("initial")
            if init is None:
                out.append(_Out(None))
                continue
            given = o.get("taps", [-1])
            taps = _taps(given, f"output {k}")
            # (Theano's and PyTensor's rule: only the list [-1] reads the initial value as
            # the previous value; any other taps, (-1,) or range(-1, 0) included, read
            # past values stacked along its first dimension)
            rows = not (isinstance(given, list) and given == [-1]) and given != -1
            if _is_untraced(init):
                if taps != [-1]:
                    raise ValueError(
                        f"scan: output {k} starts from {describe(init)}, a {init.type}, which "
                        f"is not stacked: it can only be read at tap -1, not {taps}")
                out.append(_Out(init, [-1], untraced=True))
                continue
            if any(t >= 0 for t in taps):
                raise ValueError(
                    f"scan: output {k} has taps {taps}; an output can only read its past "
                    "values (negative taps)"
                )
            init_v = as_tensor_variable(init)
            if rows and tensor_type(init_v).ndim < 1:
                raise TypeError(
                    f"scan: output {k} has taps {taps}, so its initial value must hold "
                    f"{-min(taps)} past values along a first dimension; {describe(init_v)} "
                    "is a scalar"
                )
            out.append(_Out(init_v, sorted(taps), rows=rows))
        elif _is_untraced(o):
            out.append(_Out(o, [-1], untraced=True))
        else:
            out.append(_Out(as_tensor_variable(o), [-1]))
    return out


def _row_type(v: Variable) -> TensorType:
    t = tensor_type(v)
    return TensorType(t.dtype, shape=t.shape[1:])


def _named(v: V, name: str | None) -> V:
    v.name = name
    return v


def _name(v: Variable, fallback: str) -> str:
    return v.name if v.name else fallback


def scan(
    fn: Callable[..., Any],
    sequences: Any = None,
    outputs_info: Any = None,
    non_sequences: Any = None,
    n_steps: Any = None,
    truncate_gradient: int = -1,
    go_backwards: bool = False,
    mode: Any = None,
    name: str | None = None,
    profile: bool = False,
    allow_gc: bool | None = None,
    strict: bool = False,
    return_list: bool = False,
    return_updates: bool = True,
) -> Any:
    """A symbolic loop: apply ``fn`` step by step, over sequences and recurrent outputs.

    Parameters
    ----------
    fn
        The step: called with, in order, the sequences' values at this step (one
        per tap), the past values of each recurrent output (one per tap), and the
        non-sequences.  Returns the outputs of the step (one or a list), and
        optionally a dict of shared-variable updates and an :class:`until`
        condition (a tuple of these in any order).
    sequences
        Variables (or ``dict(input=x, taps=[-1, 0])``) iterated over their first
        dimension; tap ``k`` reads ``x[t + k]``.
    outputs_info
        One entry per output: its initial value (fed back as the previous value,
        tap ``-1``), ``dict(initial=x0, taps=[-2, -1])`` (``x0`` holds the
        ``-min(taps)`` first values along its first dimension), or ``None`` for an
        output that is not fed back.  ``None`` or ``[]`` for the whole argument: no
        output is fed back.  A non-tensor initial value (a random generator) is fed
        back at tap ``-1`` but not stacked: the output is its value after the last
        step (PyTensor's "untraced" state; the step returns the generator's next state).
    non_sequences
        Variables passed unchanged to every step.
    n_steps
        The number of steps (an int or integer scalar variable); by default the
        length of the shortest sequence.  With ``until`` it is the most steps run.
    truncate_gradient
        Backpropagate through at most this many of the last steps (``-1``: all).
    go_backwards
        Iterate over the sequences from the end: with ``n_steps`` shorter than a
        sequence, its last ``n_steps`` rows, the last first (as Theano).
    mode
        The mode compiling the body (``None``: ``config.mode``).
    name
        A name for the loop in messages and printing.
    profile, allow_gc, strict
        ``profile`` and ``allow_gc`` are accepted for compatibility.  ``strict=True``
        (Theano's meaning) requires every shared variable the step reads with its
        arguments to be passed in ``non_sequences``, unless the step updates it or it
        has a default update; other free variables are allowed.
    return_list
        Always return a list of outputs (else a single output is returned bare).
    return_updates
        Return ``(outputs, updates)`` (the default), else the outputs alone (PyTensor
        3's form, where every state goes through ``outputs_info``): with ``False``, a
        loop that updates shared variables is an error.

    Returns
    -------
    outputs, updates
        Each output stacked over the steps (for a recurrent output: the values it
        took after each step; for a non-tensor state, its last value), and an ordered
        dict ``{shared variable: value after the loop}`` to pass to
        ``theon.function(..., updates=...)``.  Only the outputs with
        ``return_updates=False``.

    Examples
    --------
    The elementwise power ``A ** k`` by repeated multiplication:

    >>> import numpy as np, theon, theon.tensor as tt
    >>> A, k = tt.dvector("A"), tt.iscalar("k")
    >>> powers, _ = scan(lambda prev, a: prev * a, outputs_info=tt.ones_like(A),
    ...                  non_sequences=A, n_steps=k)
    >>> theon.function([A, k], powers[-1])(np.array([1.0, 2.0, 3.0]), 3)
    array([ 1.,  8., 27.])

    A Fibonacci-like recurrence reading two steps back:

    >>> x0 = tt.dvector("x0")
    >>> fib, _ = scan(lambda a, b: a + b, outputs_info=dict(initial=x0, taps=[-2, -1]),
    ...               n_steps=6)
    >>> theon.function([x0], fib)(np.array([0.0, 1.0]))
    array([ 1.,  2.,  3.,  5.,  8., 13.])

    A random walk: a draw in the step advances its generator at every step, and
    the generator's update comes back in ``updates``:

    >>> from theon.tensor.random.utils import RandomStream
    >>> srng = RandomStream(42)
    >>> walk, upd = scan(lambda p: p + srng.normal(), outputs_info=tt.constant(0.0),
    ...                  n_steps=5)
    >>> f = theon.function([], walk, updates=upd)
    >>> a, b = f(), f()
    >>> a.shape, bool((a != b).all())
    ((5,), True)

    The same walk with its generator as a state (``return_updates=False``): the step
    gets the generator and returns its next state, which comes back as an output:

    >>> from theon.tensor.random.basic import normal
    >>> g = theon.shared(np.random.default_rng(1))
    >>> def step(p, rng):
    ...     next_rng, d = normal(0.0, 1.0, rng=rng).owner.outputs
    ...     return p + d, next_rng
    >>> walk2, last_rng = scan(step, outputs_info=[tt.constant(0.0), g], n_steps=5,
    ...                        return_updates=False)
    >>> f2 = theon.function([], walk2, updates={g: last_rng})
    >>> bool(np.allclose(f2(), np.cumsum(np.random.default_rng(1).normal(size=5))))
    True
    """
    # long function: the docstring (every argument, four examples) is its length; the
    # code is the 15 lines below
    del profile, allow_gc
    results, upd, _ = build_scan(
        fn, sequences, outputs_info, non_sequences, n_steps, truncate_gradient, go_backwards,
        mode, name, strict,
    )
    out: Any = results if return_list or len(results) != 1 else results[0]
    if return_updates:
        return out, upd
    if upd:
        raise ValueError(
            "scan(return_updates=False): the loop updates the shared variables "
            f"{', '.join(describe(k) for k in upd)}; give each of them as a state in "
            "outputs_info (the step receives it and returns its next value), or use "
            "return_updates=True")
    return out


def build_scan(
    fn: Callable[..., Any],
    sequences: Any,
    outputs_info: Any,
    non_sequences: Any,
    n_steps: Any,
    truncate_gradient: int,
    go_backwards: bool,
    mode: Any,
    name: str | None,
    strict: bool,
    trailing_nit: bool = False,
) -> tuple[list[Variable], ScanUpdates, list[TensorVariable | None]]:
    """The body of :func:`scan`: the outputs, the updates, and each output's whole buffer.

    The buffer of a recurrent output holds its initial rows before the computed
    ones (``None`` for an output that is not fed back).  With ``trailing_nit``,
    step outputs beyond ``outputs_info`` are outputs that are not fed back.
    """
    seqs = _parse_sequences(sequences)
    outs = _parse_outputs(outputs_info)
    nonseqs = [
        x if isinstance(x, Variable) else as_tensor_variable(x) for x in _as_list(non_sequences)
    ]
    _check_loop_arguments(seqs, n_steps, truncate_gradient)
    outer_seqs, inner_seqs, lengths = _sequence_slices(seqs)
    n_var, outer_seqs = _loop_length(n_steps, lengths, outer_seqs, go_backwards)
    inner_states = _state_placeholders(outs)
    args = inner_seqs + inner_states + nonseqs
    step = _trace_step(fn, args, outs, inner_states, trailing_nit)
    ext = _implicit_inputs(step, args, nonseqs, strict)
    body, nit_outs = _body_outputs(step, ext)
    n_st, n_sh = len(step.state_outs), len(ext.sh_outer)
    state_taps = tuple(tuple(o.taps) for o in step.outs if o.traced) + ((-1,),) * n_sh
    # the non-tensor states: carried, before the generators the body reads
    untraced = [k for k, o in enumerate(outs) if o.init is not None and o.untraced]
    pos = _placeholder_positions(outs)
    untraced_ph = [inner_states[pos[k]] for k in untraced]
    traced_ph = [v for v in inner_states if v not in set(untraced_ph)]
    untraced_init = [v for k in untraced if (v := outs[k].init) is not None]
    info = ScanInfo(
        n_seqs=len(inner_seqs),
        state_taps=state_taps,
        n_nit=len(nit_outs),
        n_nonseqs=len(ext.ns_inner),
        as_while=step.cond is not None,
        store_last=(False,) * n_st + (True,) * n_sh,
        truncate_gradient=truncate_gradient,
        name=name,
        n_carried=len(untraced) + len(ext.ca_outer),
    )
    inner_inputs = (inner_seqs + traced_ph + ext.sh_inner + ext.ns_inner + untraced_ph
                    + ext.ca_inner)
    inits = _initial_buffers(step.outs, ext.sh_outer, n_var)
    op = Scan(inner_inputs, body, info, mode=mode)
    node_outs = op(n_var, *outer_seqs, *inits, *ext.ns_outer, *untraced_init, *ext.ca_outer,
                   return_list=True)
    return _scan_results(node_outs, step.outs, info, ext, name)


def _placeholder_positions(outs: list[_Out]) -> dict[int, int]:
    """Output index -> the position of its first placeholder among the states'."""
    pos: dict[int, int] = {}
    k = 0
    for i, o in enumerate(outs):
        if o.init is not None:
            pos[i] = k
            k += len(o.taps)
    return pos


def _check_loop_arguments(seqs: list[_Seq], n_steps: Any, truncate_gradient: int) -> None:
    """Refuse a negative or missing ``n_steps`` and a bad ``truncate_gradient``."""
    if isinstance(n_steps, int) and n_steps < 0:
        raise ValueError(f"scan: n_steps must be >= 0, got {n_steps}")
    if not seqs and n_steps is None:
        raise ValueError("scan: give n_steps when there are no sequences to iterate over")
    if truncate_gradient != -1 and (
        not isinstance(truncate_gradient, int) or truncate_gradient < 1
    ):
        raise ValueError(f"scan: truncate_gradient must be -1 or >= 1, got {truncate_gradient!r}")


def _sequence_slices(
    seqs: list[_Seq],
) -> tuple[list[TensorVariable], list[Variable], list[TensorVariable]]:
    """The outer sequences (one slice per tap: tap k at step t reads x[t + k]), their
    body placeholders, and the number of steps each sequence allows."""
    outer_seqs: list[TensorVariable] = []
    inner_seqs: list[Variable] = []
    lengths: list[TensorVariable] = []
    for s in seqs:
        lo, hi = min(0, *s.taps), max(0, *s.taps)
        length = s.var.shape[0] - (hi - lo)
        lengths.append(length)
        for k in s.taps:
            sl = s.var[k - lo: s.var.shape[0] - hi + k] if (lo, hi) != (0, 0) else s.var
            if sl is not s.var:
                sl.name = s.var.name
            outer_seqs.append(sl)
            ph = _row_type(s.var)(f"{_name(s.var, 'seq')}[t{k:+d}]" if k else
                                  f"{_name(s.var, 'seq')}[t]")
            inner_seqs.append(ph)
    return outer_seqs, inner_seqs, lengths


def _loop_length(
    n_steps: Any, lengths: list[TensorVariable], outer_seqs: list[TensorVariable],
    go_backwards: bool,
) -> tuple[TensorVariable, list[TensorVariable]]:
    """The number of steps (``n_steps``, else the shortest sequence's length), and the
    outer sequences reversed (``go_backwards``) and cut to ``n_steps`` rows."""
    if n_steps is None:
        n = lengths[0]
        for length in lengths[1:]:
            n = minimum(n, length)
        n_var = as_tensor_variable(n)
        given_n = False
    else:
        n_var = as_tensor_variable(n_steps)
        given_n = True
        if tensor_type(n_var).ndim != 0 or not tensor_type(n_var).dtype.startswith(("int", "uint")):
            raise TypeError(f"scan: n_steps must be an integer scalar, got {describe(n_var)}")
    # backwards, then the first n_steps rows: the last n_steps rows, last first (Theano's)
    if go_backwards:
        outer_seqs = [_named(x[::-1], x.name) for x in outer_seqs]
    if given_n:
        outer_seqs = [_named(x[:n_var], x.name) for x in outer_seqs]
    return n_var, outer_seqs


def _state_placeholders(outs: list[_Out]) -> list[Variable]:
    """The recurrent outputs' body placeholders, one per tap."""
    inner_states: list[Variable] = []
    for k, o in enumerate(outs):
        if o.init is None:
            continue
        row = _row_type(as_tensor_variable(o.init)) if o.rows else o.init.type
        label = _name(o.init, f"out{k}")
        for tap in o.taps:
            inner_states.append(row(f"{label}[t{tap:+d}]"))
    return inner_states


@dataclass
class _Step:
    """What the step function returned, checked: one ``_Out`` per output, the recurrent
    outputs (converted to their states' types) and the others, the updates of tensor
    shared variables and of carried (non-tensor) ones, and the ``until`` condition."""

    outs: list[_Out]
    state_outs: list[Variable]
    nit_outs: list[Variable]
    updates: list[tuple[SharedVariable, Variable]]
    carried_upd: list[tuple[SharedVariable, Variable]]
    cond: Any
    #: the next value of each non-tensor state (outputs_info order)
    untraced_outs: list[Variable] = field(default_factory=list)


def _trace_step(
    fn: Callable[..., Any],
    args: list[Variable],
    outs: list[_Out],
    inner_states: list[Variable],
    trailing_nit: bool,
) -> _Step:
    """Call ``fn`` on the placeholders once and check what it returns."""
    step_outs, step_updates, cond = split_step_result(fn(*args))
    step_outs = [v if k < len(outs) and outs[k].untraced else as_tensor_variable(v)
                 for k, v in enumerate(step_outs)]
    # no outputs_info (None or an empty list, as in Theano): no output is fed back
    if not outs or (trailing_nit and len(step_outs) > len(outs)):
        outs = outs + [_Out(None) for _ in step_outs[len(outs):]]
    if len(step_outs) != len(outs):
        raise ValueError(
            f"scan: the step function returned {len(step_outs)} outputs but outputs_info "
            f"describes {len(outs)}; give one entry per output (None for an output that is "
            "not fed back)"
        )
    updates, carried_upd = _split_updates(step_updates)
    state_outs, nit_outs, untraced_outs = _typed_outputs(outs, step_outs, inner_states)
    return _Step(outs, state_outs, nit_outs, updates, carried_upd, cond, untraced_outs)


def _split_updates(
    step_updates: Any,
) -> tuple[list[tuple[SharedVariable, Variable]], list[tuple[SharedVariable, Variable]]]:
    """The step's updates of tensor shared variables (filtered to their types), and
    those of non-tensor ones (generators), carried from step to step."""
    updates: list[tuple[SharedVariable, Variable]] = []
    carried_upd: list[tuple[SharedVariable, Variable]] = []
    for sv, new in step_updates:
        if not isinstance(sv, SharedVariable):
            raise TypeError(f"scan: an update's key must be a shared variable, got {sv!r}")
        if not isinstance(sv.type, TensorType):
            if not isinstance(new, Variable) or new.type != sv.type:
                raise TypeError(
                    f"scan: the step updates {describe(sv)} (a {sv.type}) with {new!r}, "
                    f"which is not a {sv.type}"
                )
            carried_upd.append((sv, new))
            continue
        new_v = sv.type.filter_variable(as_tensor_variable(new))
        updates.append((sv, new_v))
    return updates, carried_upd


def _typed_outputs(
    outs: list[_Out], step_outs: list[Variable], inner_states: list[Variable]
) -> tuple[list[Variable], list[Variable], list[Variable]]:
    """The recurrent outputs, each converted to its state's type (else an error), the
    outputs that are not fed back, and the next values of the non-tensor states."""
    state_outs: list[Variable] = []
    nit_outs: list[Variable] = []
    untraced_outs: list[Variable] = []
    k_in = 0
    for k, (o, v) in enumerate(zip(outs, step_outs)):
        if o.init is None:
            nit_outs.append(v)
            continue
        want = inner_states[k_in].type
        k_in += len(o.taps)
        if o.untraced:
            if not isinstance(v, Variable) or v.type != want:
                raise TypeError(
                    f"scan: output {k} of the step function must be the next value of the "
                    f"state {describe(o.init)}, a {want}; got {v!r}")
            untraced_outs.append(v)
            continue
        conv = want.convert_variable(v)
        if conv is None:
            raise TypeError(
                f"scan: output {k} of the step function, {describe(v)}, has type {v.type}, but "
                f"its initial value in outputs_info, {describe(o.init)}, gives the type {want}; "
                "the step must return the same dtype and number of dimensions (cast the "
                "initial value or the step's result)"
            )
        state_outs.append(conv)
    return state_outs, nit_outs, untraced_outs


@dataclass
class _Implicit:
    """The variables the body reads that are not its arguments, by kind, with their
    body placeholders (``repl``): updated shared variables (new states), carried ones
    (generators) and the other non-sequences; and the new value of each carried one."""

    repl: dict[Variable, Variable] = field(default_factory=dict)
    ns_outer: list[Variable] = field(default_factory=list)
    ns_inner: list[Variable] = field(default_factory=list)
    sh_outer: list[SharedVariable] = field(default_factory=list)
    sh_inner: list[Variable] = field(default_factory=list)
    ca_outer: list[SharedVariable] = field(default_factory=list)
    ca_inner: list[Variable] = field(default_factory=list)
    updated: dict[SharedVariable, Variable] = field(default_factory=dict)
    carried_new: dict[SharedVariable, Variable] = field(default_factory=dict)


def _free_variables(
    step: _Step, args: list[Variable], nonseqs: list[Variable], strict: bool
) -> tuple[list[Variable], dict[SharedVariable, Variable]]:
    """The explicit non-sequences, then what the body uses from outside, in order; and
    each carried state's new value.  A generator with a default update (a
    RandomStream's) that the body reads is carried: it advances every step (its
    update is added to ``step.carried_upd``)."""
    placeholders = set(args)
    computed_ns = [x for x in nonseqs if x.owner is not None]
    roots_of = [*step.state_outs, *step.nit_outs, *step.untraced_outs,
                *(v for _, v in step.updates + step.carried_upd)]
    if step.cond is not None:
        roots_of.append(step.cond.condition)
    free: list[Variable] = [x for x in nonseqs if not isinstance(x, Constant)]
    seen = set(free)
    carried_new = {sv: new for sv, new in step.carried_upd}
    if strict:
        _check_strict(roots_of, [a for a in args if a not in seen], computed_ns, seen,
                      {sv for sv, _ in step.updates + step.carried_upd})
    while roots_of:
        more: list[Variable] = []
        for r in graph_inputs(roots_of, blockers=set(computed_ns)):
            if r in seen or r in placeholders or isinstance(r, Constant):
                continue
            seen.add(r)
            free.append(r)
            dflt = getattr(r, "default_update", None)
            if (isinstance(r, SharedVariable) and not isinstance(r.type, TensorType)
                    and dflt is not None and r not in carried_new):
                carried_new[r] = dflt
                step.carried_upd.append((r, dflt))
                more.append(dflt)
        roots_of = more
    return free, carried_new


def _check_strict(roots: list[Variable], args: list[Variable], cuts: list[Variable],
                  passed: set[Variable], updated: set[Variable]) -> None:
    """Theano's ``strict=True``: a shared variable that the step reads together with its
    arguments (an input of a node that depends on them) must be passed in
    ``non_sequences``, unless the step updates it or it has a default update.  Free
    variables that are not shared, and what the step computes from outside values
    alone (an outer expression it reads), are not checked.  ``args``: the step's
    sequence and state arguments; ``cuts``: computed non-sequences."""
    dependent: set[Variable] = set(args)
    for node in io_toposort([*args, *cuts], roots):
        if not any(i in dependent for i in node.inputs):
            continue
        dependent.update(node.outputs)
        for r in node.inputs:
            if (isinstance(r, SharedVariable) and r not in passed and r not in updated
                    and getattr(r, "default_update", None) is None):
                raise ValueError(
                    f"scan (strict=True): the step uses the shared variable {describe(r)}, "
                    "which is not in non_sequences; pass it there (strict governs shared "
                    "variables only, as in Theano)")


def _implicit_inputs(
    step: _Step, args: list[Variable], nonseqs: list[Variable], strict: bool
) -> _Implicit:
    """The free variables of the body, sorted into states, carried states and
    non-sequences, each with a new body placeholder."""
    free, carried_new = _free_variables(step, args, nonseqs, strict)
    ext = _Implicit(updated={sv: new for sv, new in step.updates}, carried_new=carried_new)
    for r in free:
        fph: Variable = r.type(_name(r, "ns"))
        ext.repl[r] = fph
        if isinstance(r, SharedVariable) and r in ext.updated:
            ext.sh_outer.append(r)
            ext.sh_inner.append(fph)
        elif isinstance(r, SharedVariable) and r in carried_new:
            ext.ca_outer.append(r)
            ext.ca_inner.append(fph)
        else:
            ext.ns_outer.append(r)
            ext.ns_inner.append(fph)
    for sv, _ in step.updates + step.carried_upd:
        if sv not in ext.repl:  # updated but never read
            fph = sv.type(_name(sv, "shared"))
            ext.repl[sv] = fph
            updated = sv in ext.updated
            (ext.sh_outer if updated else ext.ca_outer).append(sv)
            (ext.sh_inner if updated else ext.ca_inner).append(fph)
    return ext


def _body_outputs(step: _Step, ext: _Implicit) -> tuple[list[Variable], list[Variable]]:
    """The body's outputs on the placeholders (states, updated shared variables, the
    outputs not fed back, carried states, the condition) and the outputs not fed back,
    with the hidden stacks of each step's draws."""
    nit_outs = step.nit_outs
    body = [*step.state_outs, *(ext.updated[sv] for sv in ext.sh_outer), *nit_outs,
            *step.untraced_outs, *(ext.carried_new[sv] for sv in ext.ca_outer)]
    if step.cond is not None:
        body.append(step.cond.condition)
    if ext.repl:
        body = clone_replace(body, ext.repl)
    n_carried = len(step.untraced_outs) + len(ext.ca_outer)
    if n_carried:
        # every step's draws are also stacked as hidden outputs (the gradient reads
        # them instead of drawing again; unread, they are pruned)
        n_keep = len(step.state_outs) + len(ext.sh_outer) + len(step.nit_outs)
        draws = [kept_draw(d) for d in carried_draws(body, body[n_keep: n_keep + n_carried])
                 if d not in body[:n_keep]]
        body = [*body[:n_keep], *draws, *body[n_keep:]]
        nit_outs = nit_outs + draws
    return body, nit_outs


def _initial_buffers(
    outs: list[_Out], sh_outer: list[SharedVariable], n_var: Variable
) -> list[Variable]:
    """Each state's buffer: a recurrent output's initial value(s), then the updated
    shared variables' values; each followed by ``n_steps`` uninitialised rows, as
    PyTensor's (:func:`~theon.scan.utils.expand_empty`; the Scan reads the initial
    rows, which the rewrite ``scan_initial_rows`` hands it directly)."""
    inits: list[Variable] = []
    for o in outs:
        if not o.traced:
            continue
        v = as_tensor_variable(o.init)
        lag = -o.taps[0]
        rows = v[:lag] if o.rows else shape_padleft(v)
        inits.append(expand_empty(rows, n_var, rows=lag))
    inits += [expand_empty(shape_padleft(sv), n_var, rows=1) for sv in sh_outer]
    return inits


def _scan_results(
    node_outs: Sequence[Variable], outs: list[_Out], info: ScanInfo, ext: _Implicit,
    name: str | None,
) -> tuple[list[Variable], ScanUpdates, list[TensorVariable | None]]:
    """The user's outputs (a state's computed rows), the updates, and each output's
    whole buffer, read from the Scan node's outputs."""
    n_st = len(info.state_taps) - len(ext.sh_outer)
    results: list[Variable] = []
    buffers: list[TensorVariable | None] = []
    it_state = iter(range(n_st))
    it_nit = iter(range(info.n_states, info.n_states + info.n_nit))
    c_out = info.carried_outputs.start
    it_untraced = iter(range(c_out, c_out + info.n_carried - len(ext.ca_outer)))
    # the stacked outputs (before the carried states) are tensors: make_node made them
    stacked = [as_tensor_variable(v) for v in node_outs[: info.n_states + info.n_nit]]
    for o in outs:
        if o.init is None:
            results.append(stacked[next(it_nit)])
            buffers.append(None)
        elif o.untraced:
            results.append(node_outs[next(it_untraced)])
            buffers.append(None)
        else:
            j = next(it_state)
            results.append(stacked[j][-o.taps[0]:])
            buffers.append(stacked[j])
    upd = ScanUpdates()
    for j, sv in enumerate(ext.sh_outer):
        upd[sv] = stacked[n_st + j][-1]
    n_untraced = info.n_carried - len(ext.ca_outer)
    for i, sv in enumerate(ext.ca_outer):
        upd[sv] = node_outs[c_out + n_untraced + i]
    if name:
        for r in results:
            r.name = name
    return results, upd, buffers
