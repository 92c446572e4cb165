"""py-linker emitters for ``theon.tensor``'s core ops: Elemwise, DimShuffle, CAReduce.

Each emitter reproduces its op's ``perform`` exactly (values, dtypes, errors),
minus the interpretation overhead:

- ``Elemwise``: one direct ufunc call; ``out=`` into a dead input buffer that
  the function owns (or into the destroyed input of an inplace op), checked at
  run time to be contiguous unless the ufunc is proven safe on strided outputs
  (:mod:`theon.tensor.ufunc_safety`); the runtime broadcasting check only where
  shapes are not already known equal.
  ``Elemwise(Composite)`` on arrays becomes a blocked, threaded kernel
  (:mod:`theon.backends.py.fused`).
- ``DimShuffle``: the same squeeze/transpose/index view, inline.
- ``CAReduce``: ``ufunc.reduce(x, axis=..., dtype=...)``.
- ``Subtensor``/``IncSubtensor`` with constant indices: the index tuple is built once;
  ``Join``: one ``np.concatenate`` call.

0-d tensors are carried as Python floats through ops that have a ``py_expr``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from theon.backends.py.scalar import cached_composite_block
from theon.graph.basic import Apply, Constant, Variable
from theon.link.pyfunc.codegen import NodeEmitter, Rep, extra_reads
from theon.link.pyfunc.dispatch import (
    PyBlockBuilder,
    ValueInfo,
    py_emit,
    py_scalar_block,
    py_scalar_expr,
    value_info,
)
from theon.link.tier1.nbelem import SLOW
from theon.scalar.basic import Add, Mul, ScalarOp, ufunc_out_dtypes
from theon.scalar.composite import Composite
from theon.scalar.type import ScalarType
from theon.tensor.alloc_diag import AddDiag, add_diag
from theon.tensor.basic import ScalarFromTensor, TensorFromScalar
from theon.tensor.blas import Dot
from theon.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from theon.tensor.joining import Join, static_axis
from theon.tensor.reshaping import Reshape
from theon.tensor.rewriting.blas import Gemm, Gemv
from theon.tensor.shape import Shape, Shape_i
from theon.tensor.subtensor import SYM, IncSubtensor, Subtensor, _build_index, slice_parts
from theon.tensor.type import TensorType, tensor_type
from theon.tensor.ufunc_safety import strided_out_safe

_FOLDING = (Add, Mul)  # ops whose impl folds a binary ufunc over any number of inputs

#: Emitters of ``Elemwise`` nodes by the class of their scalar op, tried before the
#: general ufunc spelling below (:mod:`theon.backends.py.tensor_extra` adds to it).
ELEMWISE_EMITTERS: dict[type, Callable[[Elemwise, Apply, NodeEmitter], list[str] | None]] = {}


@value_info.register(TensorType)
def _tensor_type_info(t: TensorType) -> ValueInfo:
    """0-d tensors box to 0-d arrays of the dtype (what Elemwise.perform gives)."""
    if t.ndim == 0:
        return ValueInfo(0, t.dtype, np.asarray, (t.numpy_dtype,))
    return ValueInfo(t.ndim, t.dtype)


@py_scalar_expr.register(Elemwise)
def _elemwise_expr(op: Elemwise, node: Apply, args: list[str]) -> str | None:
    """The scalar op's ``py_expr`` for 0-d float64 nodes (inplace or not: the result is new)."""
    if type(op).perform is not Elemwise.perform:
        return None
    sop = op.scalar_op
    if not isinstance(sop, ScalarOp):
        return None
    # the scalar op's spelling (its py_expr, or a backend override), for this node's dtypes
    return py_scalar_expr(sop, node, args)


@py_scalar_block.register(Elemwise)
def _elemwise_block(op: Elemwise, node: Apply) -> PyBlockBuilder | None:
    """A 0-d fused node (Elemwise of a Composite), one statement per inner op; or the
    scalar op's own block (a sum of many operands, in chunks)."""
    if type(op).perform is not Elemwise.perform:
        return None
    if not isinstance(op.scalar_op, Composite):
        return py_scalar_block(op.scalar_op, node)
    return cached_composite_block(op.scalar_op)


# shape knowledge: which variables are known to have equal runtime shapes ------------
def _shape_class(ctx: NodeEmitter, v: Variable) -> Any:
    """A representative of the set of variables known to share ``v``'s runtime shape."""
    parent: dict[Variable, Variable] = ctx.shared.setdefault("shape_parent", {})
    root = v
    while root in parent:
        root = parent[root]
    while v in parent and parent[v] is not root:  # path compression
        parent[v], v = root, parent[v]
    return root


def _same_shape(ctx: NodeEmitter, a: Variable, b: Variable) -> None:
    """Record that ``a`` and ``b`` have equal runtime shapes."""
    ra, rb = _shape_class(ctx, a), _shape_class(ctx, b)
    if ra is not rb:
        ctx.shared["shape_parent"][ra] = rb


def _no_broadcast_dims(v: Variable) -> bool:
    return 1 not in tensor_type(v).shape


def _inputs_to_check(ctx: NodeEmitter, node: Apply) -> list[int]:
    """Inputs whose runtime shape must be compared with the output's (Elemwise's check).

    Inputs of static shape (1, ..., 1) may broadcast anywhere.  Of the others,
    one per set of inputs known to share a runtime shape is enough, and when
    they all share one shape the output has it too: no check at all.
    """
    if tensor_type(node.outputs[0]).ndim == 0:
        return []
    seen: set[Any] = set()
    picked: list[int] = []
    for i, v in enumerate(node.inputs):
        if all(s == 1 for s in tensor_type(v).shape):
            continue
        r = _shape_class(ctx, v)
        if r not in seen:
            seen.add(r)
            picked.append(i)
    return picked if len(picked) > 1 else []


def _fixed_constant(v: Variable) -> bool:
    """Whether ``v`` is a constant without length-1 axes (it cannot broadcast)."""
    return isinstance(v, Constant) and 1 not in np.shape(v.data)


def _broadcast_checks(ctx: NodeEmitter, node: Apply, picked: list[int], out_name: str) -> list[str]:
    """The check line for ``picked`` inputs; records the shapes known equal afterwards."""
    out = node.outputs[0]
    lines: list[str] = []
    if picked:
        check = ctx.bind(_broadcast_error(node), "chk")
        # a constant without length-1 axes cannot broadcast: no test for it
        tested = [i for i in picked if not _fixed_constant(node.inputs[i])]
        cond = " or ".join(_shape_differs(ctx.arg(i), node.inputs[i], out, out_name)
                           for i in tested)
        args = ", ".join(ctx.arg(i) for i in range(len(node.inputs)))
        if cond:
            lines.append(f"if {cond}: {check}([{args}], {out_name}.shape)")
    if tensor_type(out).ndim:
        # past the check, inputs without broadcastable dims have the output's shape
        for v in node.inputs:
            if _no_broadcast_dims(v):
                _same_shape(ctx, v, out)
        if not picked:
            for v in node.inputs:
                if not all(s == 1 for s in tensor_type(v).shape):
                    _same_shape(ctx, v, out)
                    break
    for o in node.outputs[1:]:
        _same_shape(ctx, o, out)
    return lines


def _shape_differs(name: str, v: Variable, out: Variable, out_name: str) -> str:
    """A test that input ``v`` (called ``name``) differs in shape from the output, in the
    dimensions where it is not statically 1 (those broadcast by declaration)."""
    shape = tensor_type(v).shape
    off = tensor_type(out).ndim - len(shape)
    if off == 0 and 1 not in shape:
        return f"{name}.shape != {out_name}.shape"
    dims = [d for d, s in enumerate(shape) if s != 1]
    return " or ".join(f"{name}.shape[{d}] != {out_name}.shape[{d + off}]" for d in dims)


def _broadcast_error(node: Apply) -> Any:
    """A callable raising Elemwise's runtime-broadcast error for ``node``."""
    op = node.op
    assert isinstance(op, Elemwise)

    def check(inputs: list[Any], shape: tuple[int, ...]) -> None:
        op._check_runtime_broadcast(node, inputs, shape)

    return check


def _refusing_runtime_broadcast(
    ctx: NodeEmitter, node: Apply, lines: list[str], args: list[str]
) -> list[str]:
    """``lines`` (ufunc calls writing into an input's buffer) in a ``try`` whose handler
    gives Elemwise's run-time broadcast error, naming the node and the input, where NumPy
    refused an output buffer of another shape than the broadcast one (a ``try`` costs
    nothing until something raises)."""
    op = node.op
    assert isinstance(op, Elemwise)

    def refuse(inputs: list[Any]) -> None:
        op.refuse_runtime_broadcast(node, inputs)

    name = ctx.bind(refuse, "refuse")
    return [
        "try:",
        *("    " + ln for ln in lines),
        f"except ValueError: {name}([{', '.join(args)}]); raise",
    ]


def _natural_dtypes(ufunc: Any, node: Apply) -> tuple[str, ...] | None:
    """Output dtypes NumPy gives ``ufunc`` on the node's input dtypes (None: no loop)."""
    try:
        return ufunc_out_dtypes(ufunc, tuple(tensor_type(v).dtype for v in node.inputs))
    except TypeError:
        return None


def _fold_dtype(ufunc: Any, dtypes: list[str]) -> str | None:
    dt = dtypes[0]
    for d in dtypes[1:]:
        try:
            (dt,) = ufunc_out_dtypes(ufunc, (dt, d))
        except (TypeError, ValueError):
            return None
    return dt


_ALONE: dict[tuple[ScalarOp, str], Composite] = {}


def _alone(sop: ScalarOp, dtype: str) -> Composite:
    """``sop`` on one input of ``dtype`` as a Composite (one per op and dtype)."""
    comp = _ALONE.get((sop, dtype))
    if comp is None:
        x = ScalarType(dtype)()
        comp = _ALONE[(sop, dtype)] = Composite([x], [sop(x)])
    return comp


def _slow_alone(op: Elemwise, node: Apply) -> bool:
    """Whether ``node`` is one float64 op that tier 1 (numba) computes faster than
    NumPy (see :mod:`theon.link.tier1.nbelem`), tier 1 being on for this link."""
    from theon.link.tier1 import available, current_tier

    if current_tier() != 1 or len(node.inputs) != 1 or len(node.outputs) != 1:
        return False
    if getattr(op.scalar_op.ufunc, "__name__", "") not in SLOW:
        return False
    if any(tensor_type(v).dtype != "float64" for v in (*node.inputs, *node.outputs)):
        return False
    return available("elemwise_small")


@py_emit.register(Elemwise)
def _emit_elemwise(op: Elemwise, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """A direct ufunc call reproducing Elemwise.perform."""
    if type(op).perform is not Elemwise.perform:
        return None
    sop = op.scalar_op
    outs = node.outputs
    out_nd = tensor_type(outs[0]).ndim
    if isinstance(sop, Composite) and out_nd > 0:
        from theon.backends.py.fused import emit_fused

        return emit_fused(op, node, ctx)
    special = ELEMWISE_EMITTERS.get(type(sop))
    if special is not None and out_nd > 0:
        lines = special(op, node, ctx)
        if lines is not None:
            return lines
    if out_nd > 0 and _slow_alone(op, node):
        # a lone float64 tanh: as a one-step fused node, so tier 1 (numba) may take it
        from theon.backends.py.fused import emit_fused

        return emit_fused(Elemwise(_alone(sop, tensor_type(node.inputs[0]).dtype)), node, ctx)
    ufunc = sop.ufunc
    if not (op._is_np_ufunc and isinstance(ufunc, np.ufunc)) or ufunc.nout != len(outs):
        return _emit_impl(op, node, ctx)
    nin = len(node.inputs)
    fold = nin != ufunc.nin
    if fold and not (isinstance(sop, _FOLDING) and ufunc.nin == 2 and nin > 2):
        return _emit_impl(op, node, ctx)
    if op.inplace_pattern and fold:
        return None
    in_dts = [tensor_type(v).dtype for v in node.inputs]
    natural = (_fold_dtype(ufunc, in_dts),) if fold else _natural_dtypes(ufunc, node)
    if natural is None or None in natural:
        return None
    want = tuple(tensor_type(o).dtype for o in outs)
    ctx.quiet()
    f = ctx.bind(ufunc, "uf")
    scalar_out = out_nd == 0
    # 0-d operands may stay NumPy scalars: ufuncs treat them like 0-d arrays
    args = [
        ctx.arg(i, Rep.NPS if tensor_type(v).ndim == 0 else Rep.VAL)
        for i, v in enumerate(node.inputs)
    ]
    if not fold:
        for i, src in _scalar_operands(op, node).items():
            args[i] = ctx.read(src, Rep.NPS)
    target, fresh = _result_targets(op, node, ctx, args, fold, natural == want)
    # a strided buffer takes the result only from a ufunc proven safe there (see
    # theon.tensor.ufunc_safety); otherwise a run-time check falls back to a new array
    guarded = [
        j for j, t in enumerate(target)
        if t is not None and not strided_out_safe(ufunc, want[j])
    ]
    if guarded and fold:
        target[0], guarded = None, []
    picked = _inputs_to_check(ctx, node)
    for i in picked:
        ctx.arg(i)
    names = [
        ctx.out(
            j,
            Rep.NPS if scalar_out and natural[j] == want[j] else Rep.VAL,
            fresh=fresh[j],
            reuse=not picked and not fold,
        )
        for j in range(len(outs))
    ]
    lines = _ufunc_call_lines(f, args, names, target, guarded, fold)
    if picked and any(t is not None for t in target):
        # (without ``picked`` no input may broadcast at run time: nothing to refuse)
        lines = _refusing_runtime_broadcast(ctx, node, lines, args)
    for j, name in enumerate(names):
        if natural[j] != want[j] and (target[j] is None or j in guarded):
            dt = ctx.bind(np.dtype(want[j]), "dt")
            lines.append(f"{name} = {ctx.bind(np.asarray, 'asarray')}({name}, {dt})")
    lines.extend(_broadcast_checks(ctx, node, picked, names[0]))
    return lines


def _result_targets(
    op: Elemwise, node: Apply, ctx: NodeEmitter, args: list[str], fold: bool,
    natural_dtypes: bool,
) -> tuple[list[str | None], list[bool]]:
    """Where each result goes: a destroyed input (inplace op) or a dead owned buffer
    (``None``: a new array), and whether that buffer is the node's own to overwrite.

    ``natural_dtypes``: the ufunc computes the output dtypes itself.
    """
    outs = node.outputs
    target: list[str | None] = [None] * len(outs)
    fresh = [True] * len(outs)
    if tensor_type(outs[0]).ndim == 0:
        return target, fresh
    for o, i in op.inplace_pattern.items():
        target[o] = ctx.arg(i)
        fresh[o] = ctx.may_overwrite(i)
    out_shape, want = tensor_type(outs[0]).shape, tensor_type(outs[0]).dtype
    if len(outs) == 1 and target[0] is None and natural_dtypes:
        # a fold reads its later operands after the first call: only 0 and 1 may go
        for i, v in enumerate(node.inputs[:2] if fold else node.inputs):
            vt = tensor_type(v)
            if vt.dtype == want and vt.shape == out_shape and ctx.may_overwrite(i):
                target[0] = args[i]
                break
    return target, fresh


def _ufunc_call_lines(f: str, args: list[str], names: list[str], target: list[str | None],
                      guarded: list[int], fold: bool) -> list[str]:
    """The ufunc ``f`` called on ``args`` into ``names`` (writing into ``target`` where
    given; where ``guarded``, only if the buffer is contiguous), or folded left over
    the operands."""
    lines: list[str] = []
    if fold:
        expr = f"{f}({args[0]}, {args[1]}{_out_kw(target[0])})"
        acc = names[0]
        lines.append(f"{acc} = {expr}")
        for a in args[2:]:
            lines.append(f"{acc} = {f}({acc}, {a}{_out_kw(target[0] and acc)})")
        return lines
    call_args = ", ".join(args)
    plain = f"{f}({call_args})"
    lhs = names[0] if len(names) == 1 else ", ".join(names)
    if any(t is not None for t in target):
        outs_kw = "(" + ", ".join(t or "None" for t in target) + ",)"
        call = f"{f}({call_args}, out={outs_kw})"
        if guarded:
            cond = " and ".join(f"{target[j]}.flags.forc" for j in guarded)
            lines.append(f"if {cond}: {lhs} = {call}")
            call = plain
            lhs = f"else: {lhs}"
    else:
        call = plain
    lines.append(f"{lhs} = {call}")
    return lines


def _scalar_operands(op: Elemwise, node: Apply) -> dict[int, Variable]:
    """Inputs ``s[None, ...]`` (a 0-d ``s`` given length-1 axes) that the ufunc call may
    read as ``s`` itself, by input position.

    NumPy broadcasts a 0-d operand as one of shape ``(1, ..., 1)`` and promotes a NumPy
    scalar as an array of its dtype, so the result is the same when another operand
    (not one of these) has the result's number of dimensions; the call skips the
    broadcast of a one-element array along the other operands' loop.  Only for the
    single ufunc call of ``_emit_elemwise`` (not folds, not Composites, not outputs
    written into an input).
    """
    sop = op.scalar_op
    ufunc = getattr(sop, "ufunc", None)
    if isinstance(sop, Composite) or not isinstance(ufunc, np.ufunc):
        return {}
    if len(node.inputs) != ufunc.nin or op.inplace_pattern:
        return {}
    out_t = tensor_type(node.outputs[0])
    found: dict[int, Variable] = {}
    full = False
    for i, v in enumerate(node.inputs):
        owner = v.owner
        if (owner is not None and isinstance(owner.op, DimShuffle)
                and owner.op.input_ndim == 0 and out_t.ndim > 0
                and tensor_type(v).shape != out_t.shape):
            found[i] = owner.inputs[0]
        elif tensor_type(v).ndim == out_t.ndim:
            full = True
    return found if full else {}


@extra_reads.register(Elemwise)
def _elemwise_extra_reads(op: Elemwise, node: Apply) -> list[Variable]:
    return list(_scalar_operands(op, node).values())


def _emit_impl(op: Elemwise, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """``scalar_op.impl`` called directly, then cast as Elemwise.perform casts."""
    if op.inplace_pattern or (
        op._ufunc is not None and (op._ufunc_nin is None or len(node.inputs) == op._ufunc_nin)
    ):
        return None  # perform would take another branch
    ctx.quiet()
    impl = ctx.bind(op.scalar_op.impl, "impl")
    args = ", ".join(
        ctx.arg(i, Rep.NPS if tensor_type(v).ndim == 0 else Rep.VAL)
        for i, v in enumerate(node.inputs)
    )
    picked = _inputs_to_check(ctx, node)
    for i in picked:
        ctx.arg(i)
    names = [ctx.out(j) for j in range(len(node.outputs))]
    lhs = names[0] if len(names) == 1 else ", ".join(names)
    lines = [f"{lhs} = {impl}({args})"]
    nd = ctx.bind(np.ndarray, "ndarray")
    asarray = ctx.bind(np.asarray, "asarray")
    for name, o in zip(names, node.outputs):
        dt = ctx.bind(tensor_type(o).numpy_dtype, "dt")
        lines.append(
            f"if type({name}) is not {nd} or {name}.dtype != {dt}: {name} = {asarray}({name}, {dt})"
        )
    lines.extend(_broadcast_checks(ctx, node, picked, names[0]))
    return lines


def _out_kw(target: str | None) -> str:
    return f", out={target}" if target else ""


@py_emit.register(DimShuffle)
def _emit_dimshuffle(op: DimShuffle, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """The view DimShuffle.perform makes, as one inline expression."""
    if type(op).perform is not DimShuffle.perform:
        return None
    x = node.inputs[0]
    if isinstance(x, Constant):  # a view of constant data: make it once, here
        cell: list[Any] = [None]
        op.perform(node, [x.data], [cell])
        ctx.out_constant(0, cell[0])
        return []
    expr = ctx.arg(0)
    if op.drop:
        expr = f"{expr}.squeeze(axis={op.drop!r})"
    if op._perm is not None:
        # ``.T`` reverses the axes (cheaper than a call with the permutation)
        rev = tuple(range(len(op._perm) - 1, -1, -1))
        expr = f"{expr}.T" if tuple(op._perm) == rev else f"{expr}.transpose({op._perm!r})"
    if op._expand is not None:
        expr = f"{expr}[{ctx.bind(op._expand, 'ix')}]"
    return [f"{ctx.out(0, reuse=True)} = {expr}"]


@py_emit.register(CAReduce)
def _emit_careduce(op: CAReduce, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """``ufunc.reduce(x, axis=..., dtype=...)`` as CAReduce.perform calls it."""
    if type(op).perform is not CAReduce.perform:
        return None
    ctx.quiet()
    out = node.outputs[0]
    dt = tensor_type(out).numpy_dtype
    red = ctx.bind(op._reduce, "red")
    x = ctx.arg(0)
    extra = "" if op.initial is None else f", initial={ctx.bind(op.initial, 'init')}"
    call = f"{red}({x}, axis={op.axis!r}, dtype={ctx.bind(dt, 'dt')}{extra})"
    if tensor_type(out).ndim == 0:
        # a NumPy scalar of the output dtype: boxed only if it leaves the function
        return [f"{ctx.out(0, Rep.NPS, reuse=True)} = {call}"]
    return [f"{ctx.out(0, fresh=op.axis != (), reuse=True)} = {call}"]


def _dtype(v: Variable) -> str:
    """The dtype of a tensor or scalar variable."""
    t = v.type
    assert isinstance(t, (TensorType, ScalarType))
    return t.dtype


@py_scalar_expr.register(TensorFromScalar)
@py_scalar_expr.register(ScalarFromTensor)
def _same_number_expr(op: Any, node: Apply, args: list[str]) -> str | None:
    """A 0-d tensor and a scalar hold the same number."""
    if _dtype(node.inputs[0]) != _dtype(node.outputs[0]):
        return None
    return args[0]


@py_emit.register(TensorFromScalar)
@py_emit.register(ScalarFromTensor)
def _emit_same_number(op: Any, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """The conversion as ``perform`` does it: ``x[()]`` or ``np.asarray(x, dtype)``."""
    if type(op).perform not in (TensorFromScalar.perform, ScalarFromTensor.perform):
        return None
    out = node.outputs[0]
    if isinstance(op, ScalarFromTensor):
        x = ctx.arg(0)
        return [f"{ctx.out(0, Rep.NPS, reuse=True)} = {x}[()]"]
    asarray = ctx.bind(np.asarray, "asarray")
    dt = ctx.bind(tensor_type(out).numpy_dtype, "dt")
    x = ctx.arg(0, Rep.NPS)
    return [f"{ctx.out(0, reuse=True)} = {asarray}({x}, {dt})"]


@py_emit.register(Dot)
def _emit_dot(op: Dot, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """``np.dot`` as Dot.perform calls it (a vector dot product stays a NumPy scalar)."""
    if type(op).perform is not Dot.perform:
        return None
    a, b = node.inputs
    out = node.outputs[0]
    natural = np.result_type(tensor_type(a).numpy_dtype, tensor_type(b).numpy_dtype)
    call = f"{ctx.bind(np.dot, 'dot')}({ctx.arg(0)}, {ctx.arg(1)})"
    out_t = tensor_type(out)
    if natural != out_t.numpy_dtype:
        dt = ctx.bind(out_t.numpy_dtype, "dt")
        asarray = ctx.bind(np.asarray, "asarray")
        return [f"{ctx.out(0, fresh=True, reuse=True)} = {asarray}({call}, {dt})"]
    if out_t.ndim == 0:
        return [f"{ctx.out(0, Rep.NPS, reuse=True)} = {call}"]
    return [f"{ctx.out(0, fresh=True, reuse=True)} = {call}"]


@py_emit.register(AddDiag)
def _emit_add_diag(op: AddDiag, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """``add_diag(x, v, inplace)``, as AddDiag.perform calls it."""
    if type(op).perform is not AddDiag.perform:
        return None
    fn = ctx.bind(add_diag, "add_diag")
    x, v = ctx.arg(0), ctx.arg(1)
    call = f"{fn}({x}, {v}, {op.inplace})"
    if not op.inplace:
        return [f"{ctx.out(0, fresh=True, reuse=True)} = {call}"]
    # add_diag's own fast case, inline: a contiguous square matrix's diagonal is the
    # flat view with step n + 1 in memory order; any other layout calls add_diag
    fresh = ctx.may_overwrite(0)
    add = ctx.bind(np.add, "add")
    lines = [
        f"if {x}.flags.forc and {x}.shape[0] == {x}.shape[1]:",
        f"    _adg = {x}.ravel('K')[::{x}.shape[0] + 1]",
        f"    {add}(_adg, {v}, out=_adg)",
        "    del _adg",
        "else:",
        f"    {call}",
    ]
    o = ctx.out(0, fresh=fresh, reuse=True)
    return lines if o == x else [*lines, f"{o} = {x}"]


@py_emit.register(Gemm)
@py_emit.register(Gemv)
def _emit_gemm(op: Gemm | Gemv, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """``beta * z + alpha * dot(x, y)`` with constant ``alpha``/``beta``, as perform computes it.

    ``perform``'s tests of ``alpha != 1`` and ``beta`` are made here, once: the lines
    are ``r = dot(x, y)``, then ``r *= alpha`` and ``r += z`` (or ``r += beta * z``)
    only where perform would do them, on the same values in the same order.
    """
    if type(op).perform is not Gemm.perform:
        return None
    z, alpha, x, y, beta = node.inputs
    if not (isinstance(alpha, Constant) and isinstance(beta, Constant)):
        return None
    a, b = np.asarray(alpha.data), np.asarray(beta.data)
    dot = ctx.bind(np.dot, "dot")
    xs, ys = ctx.arg(2), ctx.arg(3)
    zs = ctx.arg(0) if b != 0 else None
    out = ctx.out(0, fresh=True)
    lines = [f"{out} = {dot}({xs}, {ys})"]
    if a != 1:
        lines.append(f"{out} *= {ctx.bind(a, 'alpha')}")
    if b == 1:
        lines.append(f"{out} += {zs}")
    elif b != 0:
        lines.append(f"{out} += {ctx.bind(b, 'beta')} * {zs}")
    return lines


@py_emit.register(Shape_i)
def _emit_shape_i(op: Shape_i, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """One dimension's length, as an int64 NumPy scalar."""
    if type(op).perform is not Shape_i.perform:
        return None
    i64 = ctx.bind(np.int64, "int64")
    x = ctx.arg(0, Rep.NPS)  # read inputs before naming outputs (out may reuse their names)
    return [f"{ctx.out(0, Rep.NPS, reuse=True)} = {i64}({x}.shape[{op.i}])"]


@py_emit.register(Shape)
def _emit_shape(op: Shape, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """The shape as a new int64 vector."""
    if type(op).perform is not Shape.perform:
        return None
    arr = ctx.bind(np.array, "array")
    i64 = ctx.bind(np.dtype(np.int64), "dt")
    shape = f"{ctx.arg(0, Rep.NPS)}.shape"
    return [f"{ctx.out(0, fresh=True, reuse=True)} = {arr}({shape}, {i64}).reshape(-1)"]


@py_emit.register(Reshape)
def _emit_reshape(op: Reshape, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """``x.reshape(shape)`` for a constant shape (the view Reshape.perform makes; PyMC
    unpacks each scalar of its flat parameter vector this way); a run-time shape:
    perform."""
    shp = node.inputs[1]
    if type(op).perform is not Reshape.perform or not isinstance(shp, Constant):
        return None
    dims = tuple(int(d) for d in np.asarray(shp.data).reshape(-1))
    if len(dims) != op.ndim:
        return None
    x = ctx.arg(0)
    return [f"{ctx.out(0, reuse=True)} = {x}.reshape({ctx.bind(dims, 'shape')})"]


# ------------------------------------------------------------- constant basic indexing
def _constant_index(idx_list: tuple[Any, ...]) -> tuple[Any, ...] | None:
    """The NumPy index tuple ``perform`` builds, when no entry is symbolic (else None)."""
    for e in idx_list:
        if e == SYM or (isinstance(e, slice) and SYM in slice_parts(e)):
            return None
    return (*_build_index(idx_list, (), False), Ellipsis)


@py_emit.register(Subtensor)
def _emit_subtensor(op: Subtensor, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """``x[idx]``, the view Subtensor.perform makes, for an index of constants only."""
    if type(op).perform is not Subtensor.perform:
        return None
    ix = _constant_index(op.idx_list)
    if ix is None:
        return None
    x = ctx.arg(0)
    if _one_entry(op.idx_list, node.inputs[0]):
        # x[i, j] (no Ellipsis) is a NumPy scalar of x's dtype: the 0-d value, copied
        return [f"{ctx.out(0, Rep.NPS, reuse=True)} = {x}[{ctx.bind(ix[:-1], 'ix')}]"]
    return [f"{ctx.out(0, reuse=True)} = {x}[{ctx.bind(ix, 'ix')}]"]


def _one_entry(idx_list: tuple[Any, ...], x: Variable) -> bool:
    """Whether a constant index of integers picks one entry of every dimension of ``x``."""
    return (len(idx_list) == tensor_type(x).ndim
            and all(isinstance(e, (int, np.integer)) and not isinstance(e, bool)
                    for e in idx_list))


def inc_subtensor_at(x: np.ndarray, y: Any, ix: tuple[Any, ...], inplace: bool,
                     set_: bool) -> np.ndarray:
    """What IncSubtensor.perform computes, with the index tuple already built.

    >>> inc_subtensor_at(np.zeros(3), 2.0, (1, Ellipsis), False, False)
    array([0., 2., 0.])
    """
    out = x if inplace else x.copy()
    sub = out[ix]
    if set_:
        sub[...] = y
    else:
        np.add(sub, y, out=sub, casting="same_kind")
    return out


@py_emit.register(IncSubtensor)
def _emit_inc_subtensor(op: IncSubtensor, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """``inc_subtensor_at(x, y, idx, inplace, set)`` for an index of constants only."""
    if type(op).perform is not IncSubtensor.perform:
        return None
    ix = _constant_index(op.idx_list)
    if ix is None:
        return None
    x, y = node.inputs[0], node.inputs[1]
    if _one_entry(op.idx_list, x) and tensor_type(y).dtype == tensor_type(x).dtype:
        # one entry, same dtype: ``o[i] += y`` adds (or stores) exactly as perform's np.add
        xs, ys = ctx.arg(0), ctx.arg(1, Rep.NPS)
        sign = "=" if op.set_instead_of_inc else "+="
        at = ctx.bind(ix[:-1], "ix")
        if op.inplace:  # into x's own buffer: then x's name is the result's
            fresh = ctx.may_overwrite(0)
            o = ctx.out(0, fresh=fresh, reuse=True)
            return [f"{xs}[{at}] {sign} {ys}"] + ([] if o == xs else [f"{o} = {xs}"])
        o = ctx.out(0, fresh=True)
        return [f"{o} = {xs}.copy()", f"{o}[{at}] {sign} {ys}"]
    fn = ctx.bind(inc_subtensor_at, "inc_sub")
    call = (f"{fn}({ctx.arg(0)}, {ctx.arg(1)}, {ctx.bind(ix, 'ix')}, {op.inplace}, "
            f"{op.set_instead_of_inc})")
    fresh = ctx.may_overwrite(0) if op.inplace else True
    return [f"{ctx.out(0, fresh=fresh, reuse=True)} = {call}"]


@py_emit.register(Join)
def _emit_join(op: Join, node: Apply, ctx: NodeEmitter) -> list[str] | None:
    """``np.concatenate([...], axis, dtype)`` as Join.perform calls it, for a constant
    axis (a run-time one: perform)."""
    axis = static_axis(node)
    if type(op).perform is not Join.perform or axis is None:
        return None
    cat = ctx.bind(np.concatenate, "concatenate")
    dt = ctx.bind(tensor_type(node.outputs[0]).numpy_dtype, "dt")
    args = ", ".join(ctx.arg(i) for i in range(1, len(node.inputs)))
    return [f"{ctx.out(0, fresh=True, reuse=True)} = {cat}([{args}], axis={axis}, dtype={dt})"]
