"""JAX rules for the Ops holding inner graphs: ``Scan``, ``IfElse``, ``OpFromGraph``.

- ``Scan`` becomes :func:`jax.lax.scan` over its ``n_steps`` (a loop with an
  ``until`` condition: :func:`jax.lax.while_loop`).  The carry holds, per
  recurrent state, the window of its last ``L_j`` rows (the taps read it), and
  the carried states (random keys); the sequences are the scanned inputs and the
  new states and per-step outputs are stacked.  The number of steps must be
  known when the function is traced: a constant, or (the usual case, a loop over
  sequences) the length of the sequences, which ``scan`` makes equal to
  ``n_steps``.  A while loop's outputs are as long as the steps it ran, a shape
  XLA cannot have, so only loops whose outputs keep their length (every state
  read only for its last rows, no stacked outputs) are compiled.
- ``IfElse`` becomes :func:`jax.lax.cond`.  The linker traces each branch's own
  nodes inside the branch function (:mod:`theon.link.jax.lazy`), so only the branch
  taken runs; the rule here serves an IfElse whose branches have no nodes of their
  own (values computed in front either way).
- ``OpFromGraph`` is inlined: its inner graph is traced into the outer function.

The inner graphs are rewritten by the outer mode's rewrites (as the Ops do when
they compile them for the other linkers) and traced by the linker's
``funcify_fgraph``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from theon.backends.jax.tensor import DynamicShapeError
from theon.compile.inner import rewrite_inner_graph
from theon.compile.mode import get_mode
from theon.graph.basic import Apply, Constant, Variable
from theon.ifelse import IfElse
from theon.link.jax.dispatch import jax_funcify
from theon.opfromgraph import OpFromGraph
from theon.scan.draws import KeptDraw
from theon.scan.op import Scan
from theon.tensor.type import tensor_type

__all__ = ["inner_function"]


def _unsupported(op: Any, why: str) -> DynamicShapeError:
    return DynamicShapeError(f"mode='JAX' cannot compile {op}: {why}")


def inner_function(inputs: Sequence[Variable], outputs: Sequence[Variable], linker: Any
                   ) -> Callable[..., list[Any]]:
    """The traceable function of an inner graph: ``fn(*input_values) -> [outputs]``.

    The graph is copied and rewritten with ``mode="JAX"``'s rewrites by
    :func:`theon.compile.inner.rewrite_inner_graph` (as ``Scan`` and ``OpFromGraph``
    compile their inner graphs for the other linkers) before
    ``linker.funcify_fgraph`` traces it.
    """
    # the nested inner graphs are traced here too, so no prepare_node compiles them
    fg = rewrite_inner_graph(inputs, outputs, get_mode("JAX"), prepare=False)
    fn = linker.funcify_fgraph(fg)
    n_out = len(fg.outputs)

    def call(*args: Any) -> list[Any]:
        res = fn(*args)
        if n_out == 1 and not isinstance(res, list | tuple):
            return [res]
        return list(res)

    return call


# -- IfElse ------------------------------------------------------------------------------
@jax_funcify.register(IfElse)
def _ifelse(op: IfElse, node: Apply, **kw: Any) -> Callable[..., Any]:
    from jax import lax

    n = op.n_outs

    def ifelse(cond: Any, *values: Any) -> Any:
        thens, elses = tuple(values[:n]), tuple(values[n:])
        for j, (t, e) in enumerate(zip(thens, elses)):
            ts, es = getattr(t, "shape", None), getattr(e, "shape", None)
            if ts != es:
                raise DynamicShapeError(
                    f"mode='JAX': output {j} of {op} has shape {ts} when the condition holds "
                    f"and {es} when it does not; under jax.jit a value's shape cannot depend "
                    "on a run-time condition")
        out = lax.cond(cond != 0, lambda: thens, lambda: elses)
        return out[0] if n == 1 else tuple(out)

    return ifelse


# -- OpFromGraph ---------------------------------------------------------------------------
@jax_funcify.register(OpFromGraph)
def _ofg(op: OpFromGraph, node: Apply, **kw: Any) -> Callable[..., Any]:
    inner = inner_function(op.inner_inputs, op.inner_outputs, kw["linker"])
    single = len(node.outputs) == 1

    def ofg(*args: Any) -> Any:
        outs = inner(*args)
        return outs[0] if single else tuple(outs)

    return ofg


# -- Scan ----------------------------------------------------------------------------------
@jax_funcify.register(KeptDraw)
def _kept_draw(op: KeptDraw, node: Apply, **kw: Any) -> Callable[..., Any]:
    """The marker of a draw a loop keeps for its gradient: the draw itself."""

    def kept(x: Any) -> Any:
        return x

    return kept


def _static_steps(node: Apply, seqs: Sequence[Any], n: Any) -> int:
    """The number of steps, known when tracing: a constant, a concrete value, or the
    length of the sequences (which ``scan`` makes ``n_steps`` long)."""
    v = node.inputs[0]
    if isinstance(v, Constant):
        return int(v.data)
    try:
        return int(n)
    except Exception:  # a traced value
        pass
    if seqs:
        return min(int(s.shape[0]) for s in seqs)
    raise _unsupported(
        node.op,
        "its number of steps is computed from a run-time value and it has no sequence to take the "
        "length from; under jax.jit the length of a loop must be known when tracing "
        "(give n_steps as a constant)",
    )


@jax_funcify.register(Scan)
def _scan(op: Scan, node: Apply, **kw: Any) -> Callable[..., Any]:
    info = op.info
    if info.as_while and (info.n_nit or not all(info.store_last)):
        raise _unsupported(
            op,
            "a loop with an until condition has outputs as long as the steps it runs, a "
            "shape unknown until it runs; XLA needs it when compiling.  Read only the last "
            "value of each state (y[-1]) so that the loop keeps only its last rows",
        )
    body = inner_function(op.inner_inputs, op.inner_outputs, kw["linker"])
    sseq, sst, sns = info.outer_slices()
    sca = info.carried_inputs
    lags = info.lags
    taps = info.state_taps
    n_st, n_nit, n_car = info.n_states, info.n_nit, info.n_carried
    state_dtypes = [tensor_type(o).dtype for o in node.outputs[:n_st]]
    nit_dtypes = [tensor_type(o).dtype for o in node.outputs[n_st:n_st + n_nit]]

    def step_args(xs: Sequence[Any], windows: Sequence[Any], nonseqs: Sequence[Any],
                  carried: Sequence[Any]) -> list[Any]:
        args = list(xs)
        for j, w in enumerate(windows):
            args.extend(w[lags[j] + k] for k in taps[j])
        return args + list(nonseqs) + list(carried)

    def advance(windows: Sequence[Any], new: Sequence[Any]) -> list[Any]:
        import jax.numpy as jnp

        out = []
        for j, (w, y) in enumerate(zip(windows, new)):
            y = jnp.asarray(y, dtype=state_dtypes[j])
            out.append(jnp.concatenate([w[1:], y[None]], axis=0) if lags[j] > 1 else y[None])
        return out

    def scan(*inputs: Any) -> Any:
        import jax.numpy as jnp
        from jax import lax

        seqs = list(inputs[sseq])
        n = _static_steps(node, seqs, inputs[0])
        seqs = [s[:n] for s in seqs]
        inits = [jnp.asarray(b)[: lags[j]] for j, b in enumerate(inputs[sst])]
        nonseqs = list(inputs[sns])
        carried0 = list(inputs[sca])
        if info.as_while:
            return _while(n, seqs, inits, nonseqs, carried0)

        def step(carry: Any, xs: Any) -> Any:
            windows, carried = carry
            outs = body(*step_args(xs, windows, nonseqs, carried))
            new, nits = outs[:n_st], outs[n_st:n_st + n_nit]
            carried = outs[n_st + n_nit:n_st + n_nit + n_car]
            ys = [jnp.asarray(y, dtype=state_dtypes[j]) for j, y in enumerate(new)]
            ys += [jnp.asarray(y, dtype=nit_dtypes[m]) for m, y in enumerate(nits)]
            return (advance(windows, new), list(carried)), ys

        (windows, carried), ys = lax.scan(step, (inits, carried0), seqs, length=n)
        res: list[Any] = []
        for j in range(n_st):
            if info.store_last[j]:
                res.append(windows[j])
            else:
                res.append(jnp.concatenate([inits[j], ys[j]], axis=0))
        res += ys[n_st:]
        res += carried
        return res[0] if len(res) == 1 else tuple(res)

    def _while(n: int, seqs: list[Any], inits: list[Any], nonseqs: list[Any],
               carried0: list[Any]) -> Any:
        import jax.numpy as jnp
        from jax import lax

        def cond(state: Any) -> Any:
            t, _, _, stop = state
            return jnp.logical_and(t < n, jnp.logical_not(stop))

        def body_fn(state: Any) -> Any:
            t, windows, carried, _ = state
            xs = [lax.dynamic_index_in_dim(s, t, keepdims=False) for s in seqs]
            outs = body(*step_args(xs, windows, nonseqs, carried))
            new = outs[:n_st]
            carried = list(outs[n_st:n_st + n_car])
            stop = jnp.asarray(outs[-1]).astype(bool).reshape(())
            return t + 1, advance(windows, new), carried, stop

        state0 = (jnp.asarray(0, dtype="int64"), inits, carried0, jnp.asarray(False))
        _, windows, carried, _ = lax.while_loop(cond, body_fn, state0)
        res = list(windows) + list(carried)
        return res[0] if len(res) == 1 else tuple(res)

    return scan
