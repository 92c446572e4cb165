"""numba spellings of ``Blockwise`` and of advanced indexing by integer vectors, for the
whole-graph tier (:mod:`theon.link.tier1.nbgraph`).

- ``Blockwise``: a loop nest over the batch dimensions with the core Op's own spelling
  as its body (the core Op's inputs are the blocks ``x[b0, b1, ...]``: numbers for 0-d
  blocks).  A batch dimension of static length 1 is read at index 0; any other must
  have the batch's length (checked: a call that broadcasts at run time is left to
  tier 0).  An output's core lengths are static or named by an input's core dimension
  in the signature.
- ``AdvancedSubtensor`` / ``AdvancedIncSubtensor`` whose index is integer vectors (and
  numbers) on the leading dimensions, ``x[i, j]`` (the diagonal ``x[i, i]`` of PyMC's
  Gaussian processes): one element (or sub-array) per index position, the indices
  broadcast as NumPy does, each wrapped when negative and checked against the length
  (an index out of range raises: tier 0 gives NumPy's error).  Increments accumulate
  over repeated indices in order (``np.add.at``); ``set`` writes in order (the last
  write wins); with ``ignore_duplicates`` each position gets ``x[idx] + y`` of the
  original ``x``.  Inplace forms are spelled out of place (a copy first).

>>> import theon.tensor as tt
>>> from theon.graph.fg import FunctionGraph
>>> from theon.link.tier1.nbgraph import generate
>>> x, i = tt.dmatrix("x"), tt.lvector("i")
>>> src = generate(FunctionGraph([x, i], [x[i, i]], clone=False)).source
>>> for line in src.splitlines()[-5:]:
...     print(line)
        t5 = np.int64(i1[t1 * t3])
        if t5 < 0: t5 += i0.shape[1]
        if t5 < 0 or t5 >= i0.shape[1]: raise IndexError('index out of range')
        v6[t1] = i0[t4, t5]
    return (v6,)
"""

from __future__ import annotations

from typing import Any

from theon.graph.basic import Apply, Variable
from theon.link.tier1.nbgraph import NbContext, dtype_of, nb_spell, ndim_of
from theon.tensor.advanced_subtensor import (
    AdvancedIncSubtensor,
    AdvancedIncSubtensor1,
    AdvancedSubtensor,
    AdvancedSubtensor1,
)
from theon.tensor.blockwise import Blockwise
from theon.tensor.subtensor import SYM

__all__: list[str] = []

_INTS = frozenset({"int64", "int32", "int16", "int8", "uint8"})


def _np_dtype(dt: str) -> str:
    return "np.bool_" if dt == "bool" else f"np.{dt}"


def _static(v: Variable) -> tuple[int | None, ...]:
    return tuple(v.type.shape)  # type: ignore[attr-defined]


# ----------------------------------------------------------------------------- Blockwise
class _BlockContext(NbContext):
    """The context of the core Op's spelling inside a Blockwise loop: its inputs are the
    blocks named by ``ins``, its outputs the names ``outs``."""

    def __init__(self, base: NbContext, core: Apply, ins: list[str], outs: list[str]) -> None:
        super().__init__(base.gen, core)
        self.ins = ins
        self.outs = outs

    def arg(self, i: int) -> str:
        return self.ins[i]

    def out(self, j: int) -> str:
        return self.outs[j]


@nb_spell.register(Blockwise)
def _spell_blockwise(op: Blockwise, node: Apply, ctx: NbContext) -> list[str] | None:
    """The core Op's spelling in a loop nest over the batch dimensions."""
    if type(op).perform is not Blockwise.perform:
        return None
    core = op.core_node(node)
    bs = op.batch_ndims(node.inputs)
    nb = max(bs, default=0)
    names = [ctx.arg(i) for i in range(len(node.inputs))]
    # the length of each core dimension name, from the first input that has it
    sizes: dict[str, str] = {}
    for k, sig in enumerate(op.inputs_sig):
        for d, dim in enumerate(sig):
            sizes.setdefault(dim, f"{names[k]}.shape[{bs[k] + d}]")
    core_shapes: list[list[str]] = []
    for core_out, sig in zip(core.outputs, op.outputs_sig):
        shp: list[str] = []
        for s, dim in zip(_static(core_out), sig):
            if s is not None:
                shp.append(str(s))
            elif dim in sizes:
                shp.append(sizes[dim])
            else:
                return None
        core_shapes.append(shp)
    lines: list[str] = []
    n = [ctx.tmp() for _ in range(nb)]
    for p in range(nb):  # (batch dimensions right-aligned, as NumPy broadcasts them)
        src = next((f"{names[k]}.shape[{p - (nb - b)}]" for k, (v, b) in
                    enumerate(zip(node.inputs, bs)) if p >= nb - b and
                    _static(v)[p - (nb - b)] != 1), "1")
        lines.append(f"{n[p]} = {src}")
    for k, (v, b) in enumerate(zip(node.inputs, bs)):
        for d in range(b):
            if _static(v)[d] != 1:
                lines.append(f"if {names[k]}.shape[{d}] != {n[nb - b + d]}: "
                             "raise ValueError('a batch length that broadcasts at run time')")
    outs = [ctx.out(j) for j in range(len(node.outputs))]
    for o, v, shp in zip(outs, node.outputs, core_shapes):
        dims = "".join(f"{x}, " for x in [*n, *shp])
        lines.append(f"{o} = np.empty(({dims}), {_np_dtype(dtype_of(v))})")
    idx = [ctx.tmp() for _ in range(nb)]
    blocks: list[str] = []
    pre: list[str] = []
    for k, (v, b) in enumerate(zip(node.inputs, bs)):
        if b == 0:
            blocks.append(names[k])
            continue
        t = ctx.tmp()
        at = ", ".join("0" if _static(v)[d] == 1 else idx[nb - b + d] for d in range(b))
        pre.append(f"{t} = {names[k]}[{at}]")
        blocks.append(t)
    cells = [ctx.tmp() for _ in outs]
    body = nb_spell(op.core_op, core, _BlockContext(ctx, core, blocks, cells))
    if body is None:
        return None
    pad = ""
    for p in range(nb):
        lines.append(f"{pad}for {idx[p]} in range({n[p]}):")
        pad += "    "
    at = ", ".join(idx)
    lines += [pad + ln for ln in [*pre, *body]]
    lines += [f"{pad}{o}[{at}] = {c}" for o, c in zip(outs, cells)]
    return lines


# --------------------------------------------------------------------- advanced indexing
def _int_index(v: Variable) -> bool:
    return dtype_of(v) in _INTS and ndim_of(v) <= 1


def _vector_index(idx_list: tuple[Any, ...], index: list[Variable], x: Variable) -> bool:
    """Whether the index is integer vectors (and numbers) on the leading dimensions of
    ``x``, at least one a vector."""
    return (len(idx_list) == len(index) <= ndim_of(x) and all(e == SYM for e in idx_list)
            and all(_int_index(v) for v in index) and any(ndim_of(v) == 1 for v in index))


def _positions(ctx: NbContext, xs: str, index: list[Variable], first: int, t: str
               ) -> tuple[list[str], str, list[str], list[str]]:
    """The broadcast length of the index vectors (inputs ``first, ...``), and at the
    index position ``t`` the statements naming the wrapped, checked index of each
    dimension: ``(setup lines, length name, loop lines, index names)``."""
    length = ctx.tmp()
    setup = [f"{length} = 1"]
    loop: list[str] = []
    js: list[str] = []
    stride: dict[str, str] = {}  # (an index vector used twice, x[i, i]: checked once)
    for k, v in enumerate(index):
        i = ctx.arg(first + k)
        if ndim_of(v) == 1 and i not in stride:
            stride[i] = ctx.tmp()
            setup += [f"if {i}.shape[0] != {length}:",
                      f"    if {length} == 1: {length} = {i}.shape[0]",
                      f"    elif {i}.shape[0] != 1: raise IndexError('shape mismatch')",
                      f"{stride[i]} = 0 if {i}.shape[0] == 1 else 1"]
    for k, v in enumerate(index):
        i = ctx.arg(first + k)
        j = ctx.tmp()
        js.append(j)
        wrap = [f"if {j} < 0: {j} += {xs}.shape[{k}]",
                f"if {j} < 0 or {j} >= {xs}.shape[{k}]: raise IndexError('index out of range')"]
        if ndim_of(v) == 1:
            loop += [f"{j} = np.int64({i}[{t} * {stride[i]}])", *wrap]
        else:
            setup += [f"{j} = np.int64({i})", *wrap]
    return setup, length, loop, js


@nb_spell.register(AdvancedSubtensor)
def _spell_advanced_subtensor(op: AdvancedSubtensor, node: Apply, ctx: NbContext
                              ) -> list[str] | None:
    """``x[i, j, ...]`` for integer vectors (and numbers) on the leading dimensions."""
    if type(op).perform is not AdvancedSubtensor.perform or isinstance(op, AdvancedSubtensor1):
        return None
    x, index = node.inputs[0], list(node.inputs[1:])
    if not _vector_index(op.idx_list, index, x):
        return None
    xs = ctx.arg(0)
    t = ctx.tmp()
    setup, length, loop, js = _positions(ctx, xs, index, 1, t)
    o = ctx.out(0)
    rest = "".join(f", {xs}.shape[{d}]" for d in range(len(index), ndim_of(x)))
    return [*setup, f"{o} = np.empty(({length}{rest},), {_np_dtype(dtype_of(x))})",
            f"for {t} in range({length}):",
            *("    " + ln for ln in loop),
            f"    {o}[{t}] = {xs}[{', '.join(js)}]"]


@nb_spell.register(AdvancedIncSubtensor)
def _spell_advanced_inc_subtensor(op: AdvancedIncSubtensor, node: Apply, ctx: NbContext
                                  ) -> list[str] | None:
    """A copy of ``x`` with ``y`` added to (written into) ``x[i, j, ...]`` position by
    position, in order."""
    if type(op).perform is not AdvancedIncSubtensor.perform or isinstance(
            op, AdvancedIncSubtensor1):
        return None
    x, y, index = node.inputs[0], node.inputs[1], list(node.inputs[2:])
    if not _vector_index(op.idx_list, index, x) or dtype_of(y) != dtype_of(x):
        return None
    xs, ys = ctx.arg(0), ctx.arg(1)
    nd = ndim_of(x)
    sub = 1 + nd - len(index)  # (the index vectors broadcast to one dimension)
    ny = ndim_of(y)
    t = ctx.tmp()
    setup, length, loop, js = _positions(ctx, xs, index, 2, t)
    o = ctx.out(0)
    lines = [*setup, f"{o} = {xs}.copy()"]
    # y: a number, one value per position (its rest checked against x's), or one
    # sub-array for every position (the trailing lengths checked)
    if ny == 0:
        src = ys
    elif ny == sub:
        sy = ctx.tmp()
        lines += [f"if {ys}.shape[0] != {length} and {ys}.shape[0] != 1: "
                  "raise ValueError('shape mismatch')",
                  f"{sy} = 0 if {ys}.shape[0] == 1 else 1"]
        lines += [f"if {ys}.shape[{d}] != {xs}.shape[{nd - sub + d}]: "
                  "raise ValueError('shape mismatch')" for d in range(1, ny)]
        src = f"{ys}[{t} * {sy}]"
    elif ny <= nd - len(index):
        lines += [f"if {ys}.shape[{d}] != {xs}.shape[{nd - ny + d}]: "
                  "raise ValueError('shape mismatch')" for d in range(ny)]
        src = ys
    else:
        return None
    at = ", ".join(js)
    if op.set_instead_of_inc:
        step = f"{o}[{at}] = {src}"
    elif op.ignore_duplicates:
        step = f"{o}[{at}] = {xs}[{at}] + {src}"
    else:
        step = f"{o}[{at}] += {src}"
    return [*lines, f"for {t} in range({length}):",
            *("    " + ln for ln in loop), f"    {step}"]
