"""Fused elementwise nodes (``Elemwise(Composite)``) as blocked, threaded kernels.

The Composite's inner scalar graph becomes a :class:`~theon.link.pyfunc.kernel.KernelSpec`.
Each inner step keeps the dtype NumPy gives it when ``Composite.impl`` runs on
whole arrays (found by running the inner graph on empty arrays once), so the
kernel's results equal ``Elemwise.perform``'s exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from theon.graph.basic import Apply, Constant, Variable
from theon.link.pyfunc.codegen import NodeEmitter
from theon.link.pyfunc.kernel import (
    KConst,
    Kernel,
    KernelCache,
    KernelSpec,
    KStep,
    build_kernel,
    step_lines,
)
from theon.link.tier1 import accepts, allowed, available, current_tier
from theon.scalar.basic import Add, Mul, ScalarOp
from theon.scalar.composite import Composite
from theon.scalar.logic import Switch
from theon.scalar.table import OpRow, computes_as_ufunc_in_float64
from theon.scalar.type import ScalarType
from theon.tensor.type import TensorType

__all__ = ["composite_spec", "emit_fused", "numpy_name"]

# the kernels built so far, by (Composite, threads, block, threshold): an LRU of
# KERNEL_CACHE_SIZE entries (see theon.link.pyfunc.kernel)
_cache = KernelCache()


def _dtype(v: Variable) -> str:
    """The dtype of a scalar (inner) or tensor (outer) variable."""
    t = v.type
    assert isinstance(t, (ScalarType, TensorType))
    return t.dtype


def numpy_name(sop: ScalarOp) -> str:
    """The one name of ``sop`` in NumPy's namespaces: its row's ``numpy``
    (:mod:`theon.scalar.table`); "" for an op of no row, which tier 1 leaves to tier 0.

    >>> from theon.scalar import true_div, reciprocal
    >>> numpy_name(true_div), numpy_name(reciprocal)
    ('true_divide', '')
    """
    row = getattr(type(sop), "row", None)
    return (row.numpy or "") if isinstance(row, OpRow) else ""


def composite_spec(comp: Composite) -> KernelSpec | None:
    """The kernel spec of a Composite, or None when an inner op cannot be blocked."""
    n_in = len(comp.inputs)
    refs: dict[Variable, Any] = {v: k for k, v in enumerate(comp.inputs)}
    # dtypes as Composite.impl produces them on arrays: run it on empty arrays
    env: dict[Variable, Any] = {v: np.zeros(0, _dtype(v)) for v in comp.inputs}
    steps: list[KStep] = []
    with np.errstate(all="ignore"):
        for node in comp.inner_nodes:
            sop = node.op
            if not isinstance(sop, ScalarOp) or len(node.outputs) != 1:
                return None
            vals = [v.data if isinstance(v, Constant) else env[v] for v in node.inputs]
            try:
                res = np.asarray(sop.impl(*vals))
            except Exception:
                return None
            out = node.outputs[0]
            env[out] = res
            dt = res.dtype.name
            args = tuple(
                KConst(v.data) if isinstance(v, Constant) else refs[v] for v in node.inputs
            )
            ufunc = sop.ufunc
            plain = (
                isinstance(ufunc, np.ufunc)
                and sop.ufunc_exact
                and ufunc.nout == 1
                and ufunc.nin == len(args)
            )
            if plain and (type(sop).impl is ScalarOp.impl or isinstance(sop, (Add, Mul))):
                step = KStep(ufunc, args, dt, name=numpy_name(sop))
            elif (
                isinstance(sop, (Add, Mul))
                and len(args) > 2
                and all(np.asarray(v).dtype.name == dt for v in vals)
            ):
                step = KStep(ufunc, args, dt, fold=True, name=numpy_name(sop))
            elif isinstance(sop, Switch):
                step = KStep(np.where, args, dt, use_out=False)  # (Switch.impl is np.where)
            elif (
                dt == "float64"
                and computes_as_ufunc_in_float64(sop)
                and ufunc.nin == len(args)
                and all(np.asarray(v).dtype == np.float64 for v in vals)
            ):
                step = KStep(ufunc, args, dt)
            else:
                step = KStep(sop.impl, args, dt, use_out=False)
            refs[out] = n_in + len(steps)
            steps.append(step)
    outs = [KConst(o.data) if isinstance(o, Constant) else refs[o] for o in comp.outputs]
    return KernelSpec(n_in, steps, outs, [_dtype(o) for o in comp.outputs])


def _kernel_for(comp: Composite) -> Kernel | None:
    from theon.config import config

    threads = int(config.elemwise_threads)
    block = int(config.elemwise_block)
    threshold = int(config.elemwise_parallel_threshold)

    def build() -> Kernel | None:
        spec = composite_spec(comp)
        if spec is None:
            return None
        return build_kernel(spec, block=block, threads=threads, threshold=threshold, quiet=True)

    return _cache.get_or_build((comp, threads, block, threshold), build)


def emit_fused(op: Any, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """Lines calling the kernel of ``node``'s Composite; None to fall back to ``perform``."""
    from theon.backends.py.tensor import _broadcast_checks, _inputs_to_check

    comp = op.scalar_op
    if [_dtype(o) for o in node.outputs] != [_dtype(o) for o in comp.outputs]:
        return None
    kern = _kernel_for(comp)
    if kern is None:
        return None
    entry: Any = kern
    t1: Any = None
    if current_tier() == 1:
        large = (allowed("elemwise") and available("elemwise")
                 and accepts("elemwise", kern.spec))
        numba = (allowed("elemwise_small") and available("elemwise_small")
                 and accepts("elemwise_small", kern.spec))
        if large or numba:
            from theon.config import config
            from theon.link.tier1.elemwise import Tier1Kernel

            # tier 1: compiled in the background once a call is large enough (XLA), or
            # for a float64 tanh node, smaller (numba) (docs/tier1.md)
            small_at = None
            if numba:
                from theon.link.tier1.nbelem import min_size

                small_at = min_size(kern.spec, int(config.tier1_small_threshold), kern.block)
            # where XLA is not allowed (mode="NUMBA"), no call is large: numba serves all
            large_at = int(config.tier1_threshold) if allowed("elemwise") else 1 << 62
            t1 = entry = Tier1Kernel(kern, node, large_at, bool(config.tier1_autotune),
                                     small_at)
    args = ", ".join(ctx.arg(i) for i in range(len(node.inputs)))
    # an input whose static pattern is the output's has the output's shape: the
    # kernel need not work it out
    out_t = node.outputs[0].type
    lead = None
    if isinstance(out_t, TensorType) and out_t.ndim:
        for i, v in enumerate(node.inputs):
            t = v.type
            if isinstance(t, TensorType) and t.broadcastable == out_t.broadcastable:
                lead = i
                break
    if lead is None:
        k = ctx.bind(entry, "kern")
    else:
        ctx.quiet()  # (call_like leaves NumPy's error state to the caller)
        k = ctx.bind(entry.call_like, "kern")
        args = f"{lead}, {args}"
    picked = _inputs_to_check(ctx, node)
    arg_names = [ctx.arg(i) for i in range(len(node.inputs))]
    names = [ctx.out(j, fresh=True, reuse=not picked) for j in range(len(node.outputs))]
    lhs = names[0] + "," if len(names) == 1 else ", ".join(names)
    call = f"{lhs} = {k}({args})"
    inline = None
    if lead is not None:
        # a one-element constant enters the inline steps as a 0-d array: NumPy's ufuncs
        # take a faster path for it (0.36 against 0.68 us on 100 elements), and every
        # output reads input ``lead``, so its shape is unchanged
        small = [_zero_d(ctx, v) if i != lead else None for i, v in enumerate(node.inputs)]
        inline_args = [a if z is None else z for a, z in zip(arg_names, small)]
        inline = _inline_small(kern, ctx, inline_args, names, lead)
    if inline is not None and lead is not None:
        # small arrays: the steps right here, on whole arrays (NumPy broadcasting gives
        # the kernel's result); the kernel's blocks and threads for large ones
        size = f"{arg_names[lead]}.size"
        test = f"{size} <= {kern.block}"
        if t1 is not None and not t1.inline:
            # (small calls go through tier 1 while a small-call kernel may serve them;
            # calls below its threshold stay here)
            test += f" and ({size} < {t1.small_threshold} or {ctx.bind(t1, 't1')}.inline)"
        lines = [f"if {test}:", *("    " + ln for ln in inline), "else:", "    " + call]
    else:
        lines = [call]
    return [*lines, *_broadcast_checks(ctx, node, picked, names[0])]


def _zero_d(ctx: NodeEmitter, v: Variable) -> str | None:
    """The name of ``v``'s value as a 0-d array, when ``v`` is a one-element constant array."""
    data = getattr(v, "data", None)
    if not isinstance(v, Constant) or not isinstance(data, np.ndarray):
        return None
    if data.ndim == 0 or data.size != 1:
        return None
    return ctx.bind(data.reshape(()), "k")


def _inline_small(kern: Kernel, ctx: NodeEmitter, args: list[str],
                  names: list[str], lead: int) -> list[str] | None:
    """The kernel's steps as statements on whole arrays, assigning ``names`` fresh arrays
    of the output dtypes; None where an output would not be a fresh array of its dtype
    (an input or a constant passed through, one step giving two outputs, a cast) or
    might not have the output's shape (a result that does not read input ``lead``)."""
    spec = kern.spec
    n_in = spec.n_inputs
    outs = list(spec.outputs)
    for r, dt in zip(outs, spec.out_dtypes):
        if not isinstance(r, int) or r < n_in or spec.steps[r - n_in].dtype != dt:
            return None
    if len(set(outs)) != len(outs) or len(spec.steps) > 16:
        return None
    # whether each step reads ``lead`` (then its result has the output's shape)
    reads = [False] * (n_in + len(spec.steps))
    reads[lead] = True
    for k, st in enumerate(spec.steps):
        reads[n_in + k] = any(isinstance(a, int) and reads[a] for a in st.args)
    if not all(reads[r] for r in outs):
        return None
    temp = f"{names[0]}_t"
    body, values = step_lines(spec, args, temp, ctx.bind)
    # (the outputs are named last: an output may take the name of an input read above)
    body.extend(f"{name} = {v}" for name, v in zip(names, values))
    body.append(f"del {', '.join(f'{temp}{k}' for k in range(len(spec.steps)))}")
    return body
