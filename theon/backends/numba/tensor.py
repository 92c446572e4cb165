"""numba spellings of ``theon.tensor``'s Ops for the whole-graph tier
(:mod:`theon.link.tier1.nbgraph`).

- ``Elemwise`` (a Composite's inner graph included): a loop nest over the output, one
  statement per inner op on numbers (:mod:`theon.backends.numba.scalar`); an input of
  static length 1 along a dimension is read at index 0 there, any other must have the
  output's length (checked: a call that broadcasts at run time is left to tier 0);
- reductions over all axes (``sum``, ``prod``, ``max``, ``min``, ``all``, ``any``), a
  sum over one axis;
- structure: ``DimShuffle``, ``Reshape`` to a constant shape, ``Subtensor`` and
  ``IncSubtensor`` (index checked against the length where it is a number), ``Join``,
  ``Split`` by constant sizes, ``Alloc`` of a number, ``MakeVector``, ``Shape``,
  ``Shape_i``, the ``...1`` advanced indexing Ops (indices checked);
- ``Dot``, ``Gemv``, ``Gemm`` on float64; ``CumOp`` and the softmaxes of vectors.

An inplace Op is spelled as its out-of-place form (a copy first): the graph function
owns no caller's buffer.  Whatever is not spelled here leaves the graph on tier 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from theon.backends.numba.scalar import ERFCX, spell
from theon.compile.ops import DeepCopyOp, TypeCastingOp
from theon.graph.basic import Apply, Constant, Variable
from theon.link.tier1.nbgraph import HELPERS, NbContext, dtype_of, nb_spell, ndim_of
from theon.scalar.composite import Composite
from theon.tensor.advanced_subtensor import AdvancedIncSubtensor1, AdvancedSubtensor1
from theon.tensor.basic import ScalarFromTensor, TensorFromScalar
from theon.tensor.blas import Dot
from theon.tensor.creation import Alloc
from theon.tensor.elemwise import CAReduce, DimShuffle, Elemwise
from theon.tensor.extra_ops import CumOp
from theon.tensor.joining import Join, Split, static_axis
from theon.tensor.reduction import All
from theon.tensor.reduction import Any as AnyOp
from theon.tensor.reshaping import Reshape
from theon.tensor.rewriting.blas import Gemm, Gemv
from theon.tensor.shape import MakeVector, Shape, Shape_i, SpecifyShape
from theon.tensor.special import LogSoftmax, Softmax
from theon.tensor.subtensor import SYM, IncSubtensor, Subtensor, slice_parts

__all__: list[str] = []

HELPERS["_erfcx"] = ERFCX


def _np_dtype(dt: str) -> str:
    return "np.bool_" if dt == "bool" else f"np.{dt}"


def _static(v: Variable) -> tuple[int | None, ...]:
    return tuple(v.type.shape)  # type: ignore[attr-defined]


# ----------------------------------------------------------------------------- Elemwise
def _scalar_lines(op: Any, ins: list[str], in_vars: list[Variable], outs: list[str],
                  out_vars: list[Variable], ctx: NbContext) -> list[str] | None:
    """Statements computing the scalar op (a Composite: its inner graph) on numbers."""
    if isinstance(op, Composite):
        env: dict[Variable, str] = dict(zip(op.inputs, ins))
        lines: list[str] = []
        for node in op.inner_nodes:
            args = []
            for v in node.inputs:
                if isinstance(v, Constant):
                    args.append(ctx.const(v.data))
                else:
                    args.append(env[v])
            if len(node.outputs) != 1 or not hasattr(node.op, "name"):
                return None
            expr = spell(node.op.name, args, [dtype_of(v) for v in node.inputs],
                         dtype_of(node.outputs[0]))
            if expr is None:
                return None
            t = ctx.tmp()
            lines.append(f"{t} = {expr}")
            env[node.outputs[0]] = t
        for o, v in zip(outs, op.outputs):
            if isinstance(v, Constant):
                lines.append(f"{o} = {ctx.const(v.data)}")
            else:
                lines.append(f"{o} = {env[v]}")
        return lines
    if len(outs) != 1 or not hasattr(op, "name"):
        return None
    expr = spell(op.name, ins, [dtype_of(v) for v in in_vars], dtype_of(out_vars[0]))
    return None if expr is None else [f"{outs[0]} = {expr}"]


@nb_spell.register(Elemwise)
def _spell_elemwise(op: Elemwise, node: Apply, ctx: NbContext) -> list[str] | None:
    """A loop nest over the output (or one statement, for 0-d outputs)."""
    if type(op).perform is not Elemwise.perform:
        return None
    nd = ndim_of(node.outputs[0])
    names = [ctx.arg(i) for i in range(len(node.inputs))]
    if nd == 0:
        outs = [ctx.out(j) for j in range(len(node.outputs))]
        return _scalar_lines(op.scalar_op, names, list(node.inputs), outs,
                             list(node.outputs), ctx)
    if any(0 < ndim_of(v) != nd for v in node.inputs):
        return None
    lines: list[str] = []
    # the output's length along each dimension: that of an input not of static length 1
    dims: list[str] = []
    for d in range(nd):
        src = next((names[k] for k, v in enumerate(node.inputs)
                    if ndim_of(v) and _static(v)[d] != 1), None)
        dims.append(f"{src}.shape[{d}]" if src is not None else "1")
    n = [ctx.tmp() for _ in range(nd)]
    lines += [f"{n[d]} = {dims[d]}" for d in range(nd)]
    for k, v in enumerate(node.inputs):
        for d in range(ndim_of(v)):
            if _static(v)[d] != 1:
                lines.append(f"if {names[k]}.shape[{d}] != {n[d]}: "
                             "raise ValueError('a length that broadcasts at run time')")
    idx = [ctx.tmp() for _ in range(nd)]
    outs = [ctx.out(j) for j in range(len(node.outputs))]
    shape = "(" + "".join(f"{x}, " for x in n) + ")"
    for o, v in zip(outs, node.outputs):
        lines.append(f"{o} = np.empty({shape}, {_np_dtype(dtype_of(v))})")
    elems = [names[k] if ndim_of(v) == 0 else ctx.tmp() for k, v in enumerate(node.inputs)]
    cells = [ctx.tmp() for _ in outs]
    inner = _scalar_lines(op.scalar_op, elems, list(node.inputs), cells, list(node.outputs),
                          ctx)
    if inner is None:
        return None
    pad = ""
    for d in range(nd):
        lines.append(f"{pad}for {idx[d]} in range({n[d]}):")
        pad += "    "
    for k, v in enumerate(node.inputs):
        if ndim_of(v):
            at = ", ".join("0" if _static(v)[d] == 1 else idx[d] for d in range(nd))
            lines.append(f"{pad}{elems[k]} = {names[k]}[{at}]")
    lines += [pad + ln for ln in inner]
    at = ", ".join(idx)
    lines += [f"{pad}{o}[{at}] = {c}" for o, c in zip(outs, cells)]
    return lines


# --------------------------------------------------------------------------- reductions
_FULL = {"add": "np.sum", "mul": "np.prod", "maximum": "np.max", "minimum": "np.min"}


@nb_spell.register(CAReduce)
def _spell_careduce(op: CAReduce, node: Apply, ctx: NbContext) -> list[str] | None:
    """``np.sum(x)`` (and kin) over every axis; ``np.sum(x, axis=k)`` over one."""
    if type(op).perform is not CAReduce.perform:
        return None
    x = node.inputs[0]
    nd = ndim_of(x)
    din, dout = dtype_of(x), dtype_of(node.outputs[0])
    name = getattr(op.scalar_op, "name", "")
    fn = _FULL.get(name)
    if fn is None or not (din == dout == "float64" or (
            name in ("add", "mul") and din in ("int64", "bool") and dout == "int64")):
        return None
    xs = ctx.arg(0)
    if nd == 0:
        return [f"{ctx.out(0)} = {xs}"]
    axis = tuple(range(nd)) if op.axis is None else tuple(op.axis)
    if op.initial is not None and name not in ("maximum", "minimum"):
        return None
    if sorted(axis) == list(range(nd)):
        o = ctx.out(0)
        if name not in ("maximum", "minimum"):
            return [f"{o} = {fn}({xs})"]
        if op.initial is None:  # (NumPy's error on an empty array: tier 0's)
            return [f"if {xs}.size == 0: raise ValueError('empty')", f"{o} = {fn}({xs})"]
        # with an initial value: it takes part as one more element (nan propagates)
        init, m = ctx.const(op.initial), ctx.tmp()
        cmp = ">=" if name == "maximum" else "<="
        return [f"{m} = {fn}({xs}) if {xs}.size else {init}",
                f"{o} = {m} if {m} {cmp} {init} or {m} != {m} else {init}"]
    if name == "add" and len(axis) == 1 and dout == "float64":
        return [f"{ctx.out(0)} = np.sum({xs}, axis={axis[0]})"]
    if name in ("maximum", "minimum") and nd == 2 and len(axis) == 1:
        return _max_along(ctx, xs, axis[0], name == "maximum", op.initial)
    return None


def _max_along(ctx: NbContext, xs: str, axis: int, is_max: bool, initial: Any
               ) -> list[str]:
    """The max (min) of a matrix along ``axis`` by loops, nan propagating, ``initial``
    taking part (without one, an empty axis is NumPy's error: tier 0's)."""
    o, i, j, m, v = ctx.out(0), ctx.tmp(), ctx.tmp(), ctx.tmp(), ctx.tmp()
    keep, red = (1, 0) if axis == 0 else (0, 1)
    at = f"{j}, {i}" if axis == 0 else f"{i}, {j}"
    cmp = ">" if is_max else "<"
    lines = []
    if initial is None:
        lines.append(f"if {xs}.shape[{red}] == 0: raise ValueError('empty')")
        start = f"{xs}[{'0, ' + i if axis == 0 else i + ', 0'}]"
    else:
        start = ctx.const(initial)
    return [*lines, f"{o} = np.empty({xs}.shape[{keep}], np.float64)",
            f"for {i} in range({xs}.shape[{keep}]):",
            f"    {m} = {start}",
            f"    for {j} in range({xs}.shape[{red}]):",
            f"        {v} = {xs}[{at}]",
            f"        if {v} {cmp} {m} or {v} != {v}:",
            f"            {m} = {v}",
            f"            if {v} != {v}:",
            "                break",
            f"    {o}[{i}] = {m}"]


@nb_spell.register(All)
@nb_spell.register(AnyOp)
def _spell_all_any(op: All | AnyOp, node: Apply, ctx: NbContext) -> list[str] | None:
    """``np.all(x)``/``np.any(x)`` over every axis."""
    x = node.inputs[0]
    if ndim_of(node.outputs[0]) != 0 or type(op).perform is not All.perform:
        return None
    fn = "np.all" if isinstance(op, All) else "np.any"
    xs = ctx.arg(0)
    return [f"{ctx.out(0)} = {fn}({xs})" if ndim_of(x) else f"{ctx.out(0)} = bool({xs})"]


# ---------------------------------------------------------------------------- structure
@nb_spell.register(DimShuffle)
def _spell_dimshuffle(op: DimShuffle, node: Apply, ctx: NbContext) -> list[str] | None:
    """Dropped dimensions indexed at 0, a transpose, new dimensions by a reshape."""
    if type(op).perform is not DimShuffle.perform:
        return None
    x = node.inputs[0]
    nd_in, nd_out = ndim_of(x), ndim_of(node.outputs[0])
    xs = ctx.arg(0)
    o = ctx.out(0)
    if nd_in == 0:
        shape = "(" + "1, " * nd_out + ")"
        return [f"{o} = np.full({shape}, {xs})"] if nd_out else [f"{o} = {xs}"]
    kept = [int(d) for d in op.new_order if d != "x"]
    dropped = [d for d in range(nd_in) if d not in kept]
    lines: list[str] = []
    cur = xs
    if dropped:
        t = ctx.tmp()
        at = ", ".join("0" if d in dropped else ":" for d in range(nd_in))
        lines += [f"if {xs}.shape[{d}] != 1: raise ValueError('not of length 1')"
                  for d in dropped]
        lines.append(f"{t} = {cur}[{at}]")
        cur = t
    remaining = [d for d in range(nd_in) if d not in dropped]
    perm = [remaining.index(d) for d in kept]
    if perm != sorted(perm):
        t = ctx.tmp()
        lines.append(f"{t} = np.transpose({cur}, {tuple(perm)!r})")
        cur = t
    if nd_out == 0:
        lines.append(f"{o} = {cur}")
        return lines
    if len(kept) != nd_out:
        t = ctx.tmp()
        parts, k = [], 0
        for d in op.new_order:
            if d == "x":
                parts.append("1")
            else:
                parts.append(f"{cur}.shape[{k}]")
                k += 1
        lines.append(f"{t} = np.ascontiguousarray({cur}).reshape(({', '.join(parts)},))")
        cur = t
    lines.append(f"{o} = {cur}")
    return lines


@nb_spell.register(Reshape)
def _spell_reshape(op: Reshape, node: Apply, ctx: NbContext) -> list[str] | None:
    """``reshape`` to a constant shape (a 0-d result: the one element)."""
    shp = node.inputs[1]
    if type(op).perform is not Reshape.perform or not isinstance(shp, Constant):
        return None
    dims = tuple(int(d) for d in np.asarray(shp.data).reshape(-1))
    xs = ctx.arg(0)
    o = ctx.out(0)
    if ndim_of(node.inputs[0]) == 0:
        if any(d not in (1, -1) for d in dims):
            return None
        ones = (1,) * len(dims)
        return [f"{o} = np.full({ones!r}, {xs})" if dims else f"{o} = {xs}"]
    if not dims:
        return [f"if {xs}.size != 1: raise ValueError('not one element')",
                f"{o} = np.ascontiguousarray({xs}).reshape(-1)[0]"]
    return [f"{o} = np.ascontiguousarray({xs}).reshape({dims!r})"]


def _index_text(idx_list: tuple[Any, ...], syms: list[str], x: str, nd: int
                ) -> tuple[str, list[str], bool] | None:
    """The index text, checks of its number entries against the lengths, and whether it
    picks one element (every dimension indexed by a number)."""
    it = iter(syms)
    parts: list[str] = []
    checks: list[str] = []
    for d, e in enumerate(idx_list):
        if isinstance(e, slice):
            p = [("" if v is None else next(it) if v == SYM else str(int(v)))
                 for v in slice_parts(e)]
            parts.append(f"{p[0]}:{p[1]}" + (f":{p[2]}" if p[2] else ""))
        elif e is None:
            return None
        else:
            i = next(it) if e == SYM else str(int(e))
            parts.append(i)
            checks.append(f"if not -{x}.shape[{d}] <= {i} < {x}.shape[{d}]: "
                          "raise IndexError('index out of range')")
    one = len(checks) == len(idx_list) == nd
    return ", ".join(parts) or ":", checks, one


@nb_spell.register(Subtensor)
def _spell_subtensor(op: Subtensor, node: Apply, ctx: NbContext) -> list[str] | None:
    """``x[index]``: a view, or a number."""
    if type(op).perform is not Subtensor.perform:
        return None
    xs = ctx.arg(0)
    syms = [ctx.arg(i) for i in range(1, len(node.inputs))]
    got = _index_text(op.idx_list, syms, xs, ndim_of(node.inputs[0]))
    if got is None:
        return None
    ix, checks, _ = got
    return [*checks, f"{ctx.out(0)} = {xs}[{ix}]"]


@nb_spell.register(IncSubtensor)
def _spell_inc_subtensor(op: IncSubtensor, node: Apply, ctx: NbContext) -> list[str] | None:
    """A copy of ``x`` with ``y`` added to (or written into) ``x[index]``."""
    if type(op).perform is not IncSubtensor.perform:
        return None
    x, y = node.inputs[0], node.inputs[1]
    if dtype_of(y) != dtype_of(x):
        return None
    xs, ys = ctx.arg(0), ctx.arg(1)
    syms = [ctx.arg(i) for i in range(2, len(node.inputs))]
    got = _index_text(op.idx_list, syms, xs, ndim_of(x))
    if got is None:
        return None
    ix, checks, one = got
    o = ctx.out(0)
    lines = [*checks, f"{o} = {xs}.copy()"]
    if op.set_instead_of_inc:
        return [*lines, f"{o}[{ix}] = {ys}"]
    if one:
        return [*lines, f"{o}[{ix}] += {ys}"]
    t = ctx.tmp()
    return [*lines, f"{t} = {o}[{ix}]", f"{t} += {ys}"]


@nb_spell.register(Join)
def _spell_join(op: Join, node: Apply, ctx: NbContext) -> list[str] | None:
    """``np.concatenate`` along a constant axis."""
    axis = static_axis(node)
    if type(op).perform is not Join.perform or axis is None:
        return None
    dt = dtype_of(node.outputs[0])
    if any(ndim_of(v) == 0 for v in node.inputs[1:]):
        return None
    parts = [ctx.arg(i) if dtype_of(node.inputs[i]) == dt else
             f"{ctx.arg(i)}.astype({_np_dtype(dt)})" for i in range(1, len(node.inputs))]
    return [f"{ctx.out(0)} = np.concatenate(({''.join(p + ', ' for p in parts)}), "
            f"axis={axis})"]


@nb_spell.register(Split)
def _spell_split(op: Split, node: Apply, ctx: NbContext) -> list[str] | None:
    """Views of ``x`` by constant sizes (their sum checked against the length)."""
    _, ax, sp = node.inputs
    if type(op).perform is not Split.perform or not (
            isinstance(ax, Constant) and isinstance(sp, Constant)):
        return None
    sizes = [int(s) for s in np.asarray(sp.data).reshape(-1)]
    if len(sizes) != op.len_splits or min(sizes, default=0) < 0:
        return None
    axis = int(np.asarray(ax.data))
    xs = ctx.arg(0)
    lines = [f"if {xs}.shape[{axis}] != {sum(sizes)}: raise ValueError('sizes')"]
    start = 0
    for j, n in enumerate(sizes):
        at = ":, " * axis + f"{start}:{start + n}"
        lines.append(f"{ctx.out(j)} = {xs}[{at}]")
        start += n
    return lines


@nb_spell.register(Alloc)
def _spell_alloc(op: Alloc, node: Apply, ctx: NbContext) -> list[str] | None:
    """``np.full(shape, value)`` of a number (or of a one-element array's element)."""
    if type(op).perform is not Alloc.perform:
        return None
    v = node.inputs[0]
    if dtype_of(v) != dtype_of(node.outputs[0]):
        return None
    vs = ctx.arg(0)
    dims = [f"int({ctx.arg(i)})" for i in range(1, len(node.inputs))]
    shape = f"({''.join(d + ', ' for d in dims)})"
    dt = _np_dtype(dtype_of(node.outputs[0]))
    o = ctx.out(0)
    if all(s == 1 for s in _static(v)):
        if ndim_of(v):
            vs = f"{vs}[{', '.join(['0'] * ndim_of(v))}]"
        return [f"{o} = np.full({shape}, {vs}, {dt})"]
    # an array: the trailing dimensions of the shape (NumPy broadcasting), checked
    lead = len(dims) - ndim_of(v)
    checks = [f"if {vs}.shape[{d}] != {dims[lead + d]}: raise ValueError('shape')"
              for d in range(ndim_of(v)) if _static(v)[d] != 1]
    if any(_static(v)[d] == 1 for d in range(ndim_of(v))) or lead:
        return None
    return [*checks, f"{o} = np.empty({shape}, {dt})", f"{o}[...] = {vs}"]


@nb_spell.register(MakeVector)
def _spell_make_vector(op: MakeVector, node: Apply, ctx: NbContext) -> list[str] | None:
    """``np.array([a, b, ...])`` of the numbers, each cast to the vector's dtype."""
    if type(op).perform is not MakeVector.perform or not node.inputs:
        return None
    dt = _np_dtype(op.dtype)
    items = [f"{dt}({ctx.arg(i)})" for i in range(len(node.inputs))]
    return [f"{ctx.out(0)} = np.array([{', '.join(items)}])"]


@nb_spell.register(Shape)
def _spell_shape(op: Shape, node: Apply, ctx: NbContext) -> list[str] | None:
    """The lengths as an int64 vector."""
    x = node.inputs[0]
    xs = ctx.arg(0)
    if ndim_of(x) == 0:
        return [f"{ctx.out(0)} = np.zeros(0, np.int64)"]
    items = [f"np.int64({xs}.shape[{d}])" for d in range(ndim_of(x))]
    return [f"{ctx.out(0)} = np.array([{', '.join(items)}])"]


@nb_spell.register(Shape_i)
def _spell_shape_i(op: Shape_i, node: Apply, ctx: NbContext) -> list[str] | None:
    """One length, a number."""
    xs = ctx.arg(0)
    return [f"{ctx.out(0)} = np.int64({xs}.shape[{op.i}])"]


@nb_spell.register(ScalarFromTensor)
@nb_spell.register(TensorFromScalar)
@nb_spell.register(TypeCastingOp)
def _spell_same(op: Any, node: Apply, ctx: NbContext) -> list[str] | None:
    """The value itself (both sides are numbers, or the same array)."""
    if (isinstance(op, TypeCastingOp) and type(op).perform is not TypeCastingOp.perform) or (
            dtype_of(node.inputs[0]) != dtype_of(node.outputs[0])):
        return None
    xs = ctx.arg(0)
    return [f"{ctx.out(0)} = {xs}"]


@nb_spell.register(SpecifyShape)
def _spell_specify_shape(op: SpecifyShape, node: Apply, ctx: NbContext) -> list[str] | None:
    """The value itself, after the check of each given length (a mismatch: tier 0's
    error)."""
    if type(op).perform is not SpecifyShape.perform:
        return None
    xs = ctx.arg(0)
    dims = iter(range(1, len(node.inputs)))
    checks = [f"if {xs}.shape[{d}] != {ctx.arg(next(dims))}: raise AssertionError('shape')"
              for d, spec in enumerate(op.specified) if spec]
    return [*checks, f"{ctx.out(0)} = {xs}"]


@nb_spell.register(DeepCopyOp)
def _spell_deep_copy(op: DeepCopyOp, node: Apply, ctx: NbContext) -> list[str] | None:
    """A copy of an array (a number is its own copy)."""
    xs = ctx.arg(0)
    o = ctx.out(0)
    return [f"{o} = {xs}.copy()" if ndim_of(node.inputs[0]) else f"{o} = {xs}"]


# ------------------------------------------------------------------- advanced indexing
def _wrapped_index(i: str, t: str, n: str, j: str) -> list[str]:
    return [f"{j} = {i}[{t}]", f"if {j} < 0: {j} += {n}",
            f"if {j} < 0 or {j} >= {n}: raise IndexError('index out of range')"]


@nb_spell.register(AdvancedSubtensor1)
def _spell_advanced_subtensor1(op: AdvancedSubtensor1, node: Apply, ctx: NbContext
                               ) -> list[str] | None:
    """``x[i]`` row by row, each index checked."""
    if type(op).perform is not AdvancedSubtensor1.perform:
        return None
    x = node.inputs[0]
    xs, i = ctx.arg(0), ctx.arg(1)
    o, t, j, n = ctx.out(0), ctx.tmp(), ctx.tmp(), ctx.tmp()
    rest = "".join(f", {xs}.shape[{d}]" for d in range(1, ndim_of(x)))
    return [f"{n} = {xs}.shape[0]",
            f"{o} = np.empty(({i}.shape[0]{rest},), {_np_dtype(dtype_of(x))})",
            f"for {t} in range({i}.shape[0]):",
            *("    " + ln for ln in _wrapped_index(i, t, n, j)),
            f"    {o}[{t}] = {xs}[{j}]"]


@nb_spell.register(AdvancedIncSubtensor1)
def _spell_advanced_inc_subtensor1(op: AdvancedIncSubtensor1, node: Apply, ctx: NbContext
                                   ) -> list[str] | None:
    """A copy of ``x`` with ``y``'s rows added to (written into) rows ``i``, in order."""
    if type(op).perform is not AdvancedIncSubtensor1.perform or op.ignore_duplicates:
        return None
    x, y = node.inputs[0], node.inputs[1]
    if dtype_of(x) != dtype_of(y):
        return None
    xs, ys, i = ctx.arg(0), ctx.arg(1), ctx.arg(2)
    o, t, j, n = ctx.out(0), ctx.tmp(), ctx.tmp(), ctx.tmp()
    if ndim_of(y) == 0:
        src = ys
    elif ndim_of(y) == ndim_of(x):
        src = f"{ys}[0]" if _static(y)[0] == 1 else f"{ys}[{t}]"
    else:
        return None
    lines = [f"{n} = {xs}.shape[0]", f"{o} = {xs}.copy()"]
    if ndim_of(y) == ndim_of(x) and _static(y)[0] != 1:
        lines.append(f"if {ys}.shape[0] != {i}.shape[0]: raise ValueError('lengths')")
    sign = "=" if op.set_instead_of_inc else "+="
    return [*lines, f"for {t} in range({i}.shape[0]):",
            *("    " + ln for ln in _wrapped_index(i, t, n, j)),
            f"    {o}[{j}] {sign} {src}"]


# ------------------------------------------------------------------------------- BLAS
def _all_float64(node: Apply) -> bool:
    return all(dtype_of(v) == "float64" for v in (*node.inputs, *node.outputs))


@nb_spell.register(Dot)
def _spell_dot(op: Dot, node: Apply, ctx: NbContext) -> list[str] | None:
    """``np.dot`` of float64 vectors and matrices (made contiguous for numba's BLAS)."""
    a, b = node.inputs
    if type(op).perform is not Dot.perform or not _all_float64(node) or not (
            1 <= ndim_of(a) <= 2 and 1 <= ndim_of(b) <= 2):
        return None
    xa, xb = ctx.arg(0), ctx.arg(1)
    return [f"{ctx.out(0)} = np.dot(np.ascontiguousarray({xa}), np.ascontiguousarray({xb}))"]


@nb_spell.register(Gemm)
@nb_spell.register(Gemv)
def _spell_gemm(op: Gemm | Gemv, node: Apply, ctx: NbContext) -> list[str] | None:
    """``beta * z + alpha * dot(x, y)`` in ``perform``'s order of operations."""
    if type(op).perform is not Gemm.perform or not _all_float64(node):
        return None
    z, a, x, y, b = (ctx.arg(i) for i in range(5))
    o = ctx.out(0)
    return [f"{o} = np.dot(np.ascontiguousarray({x}), np.ascontiguousarray({y}))",
            f"if {a} != 1: {o} *= {a}",
            f"if {b} == 1: {o} += {z}",
            f"elif {b} != 0: {o} += {b} * {z}"]


# ------------------------------------------------------------------- vectors: cum, softmax
@nb_spell.register(CumOp)
def _spell_cumop(op: CumOp, node: Apply, ctx: NbContext) -> list[str] | None:
    """``np.cumsum``/``np.cumprod`` of a float64 vector."""
    x = node.inputs[0]
    if type(op).perform is not CumOp.perform or ndim_of(x) != 1 or not _all_float64(node):
        return None
    fn = "np.cumsum" if op.mode == "add" else "np.cumprod"
    xs = ctx.arg(0)
    return [f"{ctx.out(0)} = {fn}({xs})"]


@nb_spell.register(Softmax)
@nb_spell.register(LogSoftmax)
def _spell_softmax(op: Softmax | LogSoftmax, node: Apply, ctx: NbContext
                   ) -> list[str] | None:
    """A float64 vector's softmax (log-softmax), shifted by its max where that is finite,
    as :func:`~theon.tensor.special.softmax_values` computes it."""
    x = node.inputs[0]
    if not _all_float64(node):
        return None
    if ndim_of(x) == 2 and op.axis in (0, 1):
        return _softmax_rows(op, ctx)
    if ndim_of(x) != 1:
        return None
    xs = ctx.arg(0)
    o, m, s = ctx.out(0), ctx.tmp(), ctx.tmp()
    lines = [f"if {xs}.size == 0: raise ValueError('empty')",
             f"{m} = np.max({xs})",
             f"if not np.isfinite({m}): {m} = 0.0"]
    if isinstance(op, Softmax):
        return [*lines, f"{o} = np.exp({xs} - {m})", f"{s} = np.sum({o})", f"{o} /= {s}"]
    return [*lines, f"{o} = {xs} - {m}", f"{s} = np.log(np.sum(np.exp({o})))", f"{o} -= {s}"]



def _softmax_rows(op: Softmax | LogSoftmax, ctx: NbContext) -> list[str]:
    """A matrix's softmax (log-softmax) along ``op.axis``, one line of it at a time, by
    loops on numbers (no temporary arrays): the line's max (nan propagating; 0 where it
    is not finite), then ``exp(x - max)`` and its sum."""
    xs = ctx.arg(0)
    o, i, j, v, m, s = (ctx.out(0), ctx.tmp(), ctx.tmp(), ctx.tmp(), ctx.tmp(), ctx.tmp())
    ax = 0 if op.axis == 0 else 1
    keep = 1 - ax
    at = f"{j}, {i}" if ax == 0 else f"{i}, {j}"
    n = f"{xs}.shape[{ax}]"
    if isinstance(op, Softmax):
        body = [f"        {v} = math.exp({xs}[{at}] - {m})", f"        {o}[{at}] = {v}",
                f"        {s} += {v}",
                f"    for {j} in range({n}):", f"        {o}[{at}] /= {s}"]
    else:
        body = [f"        {s} += math.exp({xs}[{at}] - {m})",
                f"    {s} = np.log({s})",
                f"    for {j} in range({n}):", f"        {o}[{at}] = ({xs}[{at}] - {m}) - {s}"]
    return [f"{o} = np.empty_like({xs})",
            f"for {i} in range({xs}.shape[{keep}] if {n} != 0 else 0):",
            f"    {m} = -np.inf",
            f"    for {j} in range({n}):",
            f"        {v} = {xs}[{at}]",
            f"        if {v} > {m} or {v} != {v}:",
            f"            {m} = {v}",
            f"            if {v} != {v}:",
            "                break",
            f"    if not np.isfinite({m}): {m} = 0.0",
            f"    {s} = 0.0",
            f"    for {j} in range({n}):",
            *body]
