"""Indexing: basic (views), advanced and boolean (copies), and writing through an index.

``x[idx]`` on a TensorVariable calls :func:`getitem`.  Ints and slices give a
:class:`Subtensor` (a view; ``None`` adds a DimShuffle); integer arrays and
boolean masks give an :class:`AdvancedSubtensor` with NumPy's rules for where
the advanced dimensions go.  :func:`set_subtensor` / :func:`inc_subtensor`
write through such an index; repeated advanced indices accumulate like
``np.add.at``.

An index description (``idx_list``, an op prop) holds one entry per indexed
dimension: an ``int`` (a constant index), ``"?"`` (the next index input), a
``slice`` whose parts are ``None``, ints or ``"?"``, and (advanced only) ``None``
for a new axis.  The slices are real ``slice`` objects, as in PyTensor's ops (code
such as PyMC's reads them); since a slice is unhashable before Python 3.12, the
ops compare and hash their ``idx_list`` through :func:`idx_key`.  A
``(start, stop, step)`` tuple given for a slice is read as that slice.

>>> import theon.tensor as tt
>>> x = tt.dmatrix("x")
>>> str(x[1:, 0].owner.op)
'Subtensor{1:, 0}'
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type
from theon.graph.op import Op
from theon.tensor.basic import TensorOp, as_tensor_variable
from theon.tensor.reshaping import _dimshuffle, shape_padleft
from theon.tensor.shape import Shape, int64_constant, shape_i, static_int
from theon.tensor.type import TensorType, tensor_type, tensor_vars
from theon.tensor.variable import TensorVariable

__all__ = [
    "AdvancedIncSubtensor",
    "AdvancedIncSubtensor1",
    "AdvancedSubtensor",
    "AdvancedSubtensor1",
    "IncSubtensor",
    "SliceLength",
    "Subtensor",
    "getitem",
    "inc_subtensor",
    "set_subtensor",
    "as_index_literal",
    "get_canonical_form_slice",
    "is_basic_idx",
    "take",
]

Entry = Any  # int | "?" | slice (parts None | int | "?") | None
SYM = "?"
FULL = slice(None)


def slice_parts(e: slice) -> tuple[Any, Any, Any]:
    """``(start, stop, step)`` of a slice entry.

    >>> slice_parts(slice(None, "?"))
    (None, '?', None)
    """
    return (e.start, e.stop, e.step)


def as_idx_list(idx_list: Sequence[Entry]) -> tuple[Entry, ...]:
    """An index description as the ops hold it: a tuple, each slice a ``slice`` (a
    ``(start, stop, step)`` tuple is read as one).

    >>> as_idx_list([(1, None, None), "?"])
    (slice(1, None, None), '?')
    """
    out: list[Entry] = []
    for e in idx_list:
        if isinstance(e, tuple):
            if len(e) != 3:
                raise ValueError(f"a slice entry of an index is (start, stop, step), got {e!r}")
            e = slice(*e)
        elif not (e is None or isinstance(e, (slice, int, np.integer)) or e == SYM):
            raise TypeError(f"not an index entry: {e!r} (an int, {SYM!r}, a slice or None)")
        out.append(e)
    return tuple(out)


def idx_key(idx_list: Sequence[Entry]) -> tuple[Any, ...]:
    """A hashable key of an index description: each slice as its ``(start, stop, step)``
    (no other entry is a tuple, so the key tells the same descriptions apart).

    >>> idx_key((slice(1, None), 0)) == idx_key((slice(1, None), 0))
    True
    >>> hash(idx_key((slice(1, None), 0))) == hash(((1, None, None), 0))
    True
    """
    return tuple(slice_parts(e) if isinstance(e, slice) else e for e in idx_list)


class IdxListProps:
    """The identity of an indexing op: its ``__props__``, with ``idx_list`` read through
    :func:`idx_key`, so ops built alike compare and hash equal although they hold
    (unhashable) slices."""

    __props__: tuple[str, ...] | None

    def _props(self) -> tuple[Any, ...]:
        return tuple(idx_key(getattr(self, p)) if p == "idx_list" else getattr(self, p)
                     for p in self.__props__ or ())


# --------------------------------------------------------------------------- printing
def _part_text(p: Any) -> str:
    return "" if p is None else str(p)


def idx_text(idx_list: Sequence[Entry]) -> str:
    """``'1:, ?'``-style text of an index description.

    >>> idx_text([slice(1, None), "?"])
    '1:, ?'
    """
    parts = []
    for e in idx_list:
        if isinstance(e, slice):
            a, b, c = slice_parts(e)
            t = f"{_part_text(a)}:{_part_text(b)}"
            if c is not None:
                t += f":{c}"
            parts.append(t)
        elif e is None:
            parts.append("np.newaxis")
        else:
            parts.append(str(e))
    return ", ".join(parts)


def _is_int_dtype(dtype: Any) -> bool:
    return np.dtype(dtype).kind in "iu"


def _is_int_scalar(t: TensorType) -> bool:
    return t.ndim == 0 and _is_int_dtype(t.dtype)


def _n_sym(idx_list: Sequence[Entry]) -> int:
    n = 0
    for e in idx_list:
        if isinstance(e, slice):
            n += sum(1 for p in slice_parts(e) if p == SYM)
        elif e == SYM:
            n += 1
    return n


def _check_scalar_index(v: TensorVariable, what: str) -> None:
    if v.type.ndim != 0 or not _is_int_dtype(v.type.dtype):
        raise TypeError(f"{what} must be an integer scalar, got {describe(v)}")


# --------------------------------------------------------------------------- runtime
def _build_index(
    idx_list: Sequence[Entry], inputs: Sequence[Any], advanced: bool
) -> tuple[Any, ...]:
    """The NumPy index tuple for an index description and the index values."""
    it = iter(inputs)
    out: list[Any] = []
    for e in idx_list:
        if isinstance(e, slice):
            out.append(
                slice(*(operator.index(next(it)) if p == SYM else p for p in slice_parts(e)))
            )
        elif e is None:
            out.append(None)
        elif e == SYM:
            v = next(it)
            out.append(v if advanced else operator.index(v))
        else:
            out.append(e)
    return tuple(out)


# --------------------------------------------------------------------------- slice lengths
def _static_slice_len(
    n: int | None, slc: tuple[Any, ...], vals: Sequence[int | None]
) -> int | None:
    """Length of ``slice`` on a dimension of size ``n`` when known at build time."""
    parts = list(vals)
    step = parts[2]
    if parts[0] is None and parts[1] is None and slc[0] is None and slc[1] is None:
        if step is not None and abs(step) == 1 or (slc[2] is None):
            return n
    if n is None or any(p is None and s is not None for p, s in zip(parts, slc)):
        return None
    if step == 0:
        raise ValueError("slice step cannot be zero")
    return len(range(*slice(*parts).indices(n)))


class SliceLength(TensorOp):
    """The length of ``slice(start, stop, step)`` on a dimension of size ``n`` (int64 scalar).

    >>> import theon.tensor as tt
    >>> n = tt.lscalar("n")
    >>> SliceLength((1, None, 2))(n).eval({n: 10})
    array(5)
    """

    __props__ = ("slc",)

    def __init__(self, slc: tuple[Any, ...]) -> None:
        self.slc = tuple(slc)

    def __str__(self) -> str:
        return f"SliceLength{{{idx_text([self.slc])}}}"

    def make_node(self, n: Any, *parts: Any) -> Apply:
        ins = [as_tensor_variable(n), *(as_tensor_variable(p) for p in parts)]
        for v in ins:
            _check_scalar_index(v, "SliceLength input")
        return Apply(self, ins, [TensorType("int64", shape=())()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        it = iter(inputs[1:])
        parts = [operator.index(next(it)) if p == SYM else p for p in self.slc]
        n = len(range(*slice(*parts).indices(operator.index(inputs[0]))))
        output_storage[0][0] = np.asarray(n, dtype=np.int64)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        return [()]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return [disconnected_type() for _ in inputs]


def slice_length(
    n: TensorVariable, slc: slice | tuple[Any, ...], parts: Sequence[Variable]
) -> TensorVariable:
    """Symbolic length of a slice entry (a constant when everything is known).

    >>> static_int(slice_length(int64_constant(10), slice(2, None), []))
    8
    """
    slc = _as_parts(slc)
    vals = []
    it = iter(parts)
    for p in slc:
        vals.append(static_int(next(it)) if p == SYM else p)
    known = _static_slice_len(static_int(n), slc, vals)
    if known is not None:
        return int64_constant(known)
    if slc[0] is None and slc[1] is None and (slc[2] is None or vals[2] in (1, -1)):
        return n
    return SliceLength(slc)(n, *parts)


def _as_parts(slc: slice | tuple[Any, ...]) -> tuple[Any, ...]:
    return slice_parts(slc) if isinstance(slc, slice) else tuple(slc)


def _take_parts(slc: slice | tuple[Any, ...], it: Any) -> list[TensorVariable]:
    return [next(it) for p in _as_parts(slc) if p == SYM]


# --------------------------------------------------------------------------- Subtensor
def _basic_static_shape(
    x: TensorVariable, idx_list: Sequence[Entry], inputs: Sequence[Variable]
) -> tuple[int | None, ...]:
    """Static shape of ``x[idx]`` for basic indexing, with bounds checks of constant ints."""
    xs = x.type.shape
    if len(idx_list) > len(xs):
        raise IndexError(
            f"too many indices for {describe(x)}: it has {len(xs)} dims, "
            f"{len(idx_list)} were indexed"
        )
    it = iter(inputs)
    out: list[int | None] = []
    for d, e in enumerate(idx_list):
        n = xs[d]
        if isinstance(e, slice):
            slc = slice_parts(e)
            vals = [static_int(next(it)) if p == SYM else p for p in slc]
            out.append(_static_slice_len(n, slc, vals))
        else:
            k = static_int(next(it)) if e == SYM else e
            if k is not None and n is not None and not -n <= k < n:
                raise IndexError(
                    f"index {k} is out of bounds for axis {d} with size {n} "
                    f"({describe(x)}, static shape {tuple(xs)})"
                )
    out.extend(xs[len(idx_list):])
    return tuple(out)


def _check_index_inputs(
    idx_list: Sequence[Entry], inputs: Sequence[Any]
) -> list[TensorVariable]:
    ins = [as_tensor_variable(i) for i in inputs]
    if len(ins) != _n_sym(idx_list):
        raise ValueError(
            f"the index {idx_text(idx_list)} needs {_n_sym(idx_list)} index inputs, "
            f"got {len(ins)}"
        )
    return ins


class Subtensor(IdxListProps, TensorOp):
    """Basic indexing ``x[idx]`` with ints and slices: a view of ``x``.

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> y = x[1:, 0]
    >>> y.owner.op, y.eval({x: [[1.0, 2.0], [3.0, 4.0]]})
    (Subtensor{1:, 0}, array([3.]))
    """

    __props__ = ("idx_list",)
    view_map = {0: [0]}

    def __init__(self, idx_list: Sequence[Entry]) -> None:
        self.idx_list = as_idx_list(idx_list)

    def __str__(self) -> str:
        return f"Subtensor{{{idx_text(self.idx_list)}}}"

    def make_node(self, x: Any, *inputs: Any) -> Apply:
        x = as_tensor_variable(x)
        ins = _check_index_inputs(self.idx_list, inputs)
        for v in ins:
            _check_scalar_index(v, f"an index of {self}")
        out_shape = _basic_static_shape(x, self.idx_list, ins)
        return Apply(self, [x, *ins], [TensorType(x.type.dtype, shape=out_shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        idx = _build_index(self.idx_list, inputs[1:], False)
        # The trailing Ellipsis makes an all-int index give a 0-d view, not a scalar.
        output_storage[0][0] = inputs[0][(*idx, Ellipsis)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        xshp = input_shapes[0]
        it = iter(node.inputs[1:])
        out = []
        for d, e in enumerate(self.idx_list):
            if isinstance(e, slice):
                out.append(slice_length(xshp[d], e, _take_parts(e, it)))
            elif e == SYM:
                next(it)
        out.extend(xshp[len(self.idx_list):])
        return [tuple(out)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        from theon.tensor.math import zeros_like

        x, *idx = inputs
        rest = [disconnected_type() for _ in idx]
        if np.dtype(tensor_type(x).dtype).kind not in "fc":
            return [disconnected_type(), *rest]
        gz = output_grads[0]
        gx = IncSubtensor(self.idx_list)(zeros_like(x), gz, *idx)
        return [gx, *rest]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], *inputs[1:])]


def _check_y(
    op: Op, x: TensorVariable, y: TensorVariable, sub_shape: Sequence[int | None], set_: bool
) -> None:
    """Build-time checks that ``y`` can be written into ``x[idx]`` of static shape ``sub_shape``."""
    if y.type.ndim > len(sub_shape):
        raise ValueError(
            f"{op}: cannot write {describe(y)} (static shape {tuple(y.type.shape)}) into "
            f"an index of {describe(x)} of static shape {tuple(sub_shape)}: too many dims"
        )
    for k, m in zip(reversed(y.type.shape), reversed(sub_shape)):
        if k is not None and m is not None and k != 1 and k != m:
            raise ValueError(
                f"{op}: cannot broadcast {describe(y)} of static shape "
                f"{tuple(y.type.shape)} to the indexed shape {tuple(sub_shape)} of {describe(x)}"
            )
    if set_ and y.type.dtype[0] == "c" and x.type.dtype[0] != "c":
        raise TypeError(
            f"{op}: cannot set {describe(y)} into {describe(x)}: writing complex values "
            "into a real array would drop their imaginary part; take real() first"
        )
    if not set_ and not np.can_cast(y.type.dtype, x.type.dtype, "same_kind"):
        raise TypeError(
            f"{op}: cannot add {describe(y)} of dtype {y.type.dtype} into {describe(x)} "
            f"of dtype {x.type.dtype} (NumPy's same_kind casting)"
        )


def _inc_grads(
    op: Any, inputs: Sequence[Variable], gz: Variable, sub: Any, mk_set: Any,
    may_repeat: bool = False,
) -> list[Any]:
    """Gradients shared by the basic and advanced increment ops.

    With ``may_repeat`` (an advanced set that may name an element twice) only the
    write that stays in the result gets a gradient.
    """
    from theon.tensor.basic import cast
    from theon.tensor.creation import sum_to_shape

    x, y, *idx = tensor_vars(inputs)
    rest = [disconnected_type() for _ in idx]
    if np.dtype(x.type.dtype).kind not in "fc":
        gx: Any = disconnected_type()
    elif op.set_instead_of_inc:
        gx = mk_set(gz, np.zeros((), dtype=tensor_type(gz).dtype), *idx)
    else:
        gx = gz
    if np.dtype(y.type.dtype).kind not in "fc":
        gy: Any = disconnected_type()
    else:
        gsub = sub(gz, *idx)
        if op.set_instead_of_inc and may_repeat:
            gsub = gsub * _last_writes(x, gsub, idx, sub, mk_set)
        gy = sum_to_shape(gsub, y)
        if gy.type.dtype != y.type.dtype:
            gy = cast(gy, y.type.dtype)
    return [gx, gy, *rest]


def _last_writes(
    x: TensorVariable, gsub: TensorVariable, idx: Sequence[Variable], sub: Any, mk_set: Any
) -> TensorVariable:
    """A 0/1 mask over ``x[idx]``: 1 where that write is the one that stays in ``x``.

    Each element of ``x[idx]`` writes its own id; reading the ids back shows which
    writes survived repeated indices (the others get no gradient).
    """
    from theon import tensor as tt
    from theon.tensor.creation import arange, full_like
    from theon.tensor.reshaping import reshape
    from theon.tensor.shape import shape

    ids = reshape(arange(tt.prod(shape(gsub))), shape(gsub), ndim=gsub.type.ndim)
    written = mk_set(full_like(x, -1, dtype="int64"), ids, *idx)
    return tt.cast(tt.eq(sub(written, *idx), ids), gsub.type.dtype)


class IncSubtensor(IdxListProps, TensorOp):
    """``x`` with ``y`` added to (or written into) ``x[idx]``, for basic ``idx``.

    With ``inplace`` the output overwrites ``x`` (``destroy_map``); the default copies.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> set_subtensor(x[1:], 0.0).eval({x: [1.0, 2.0, 3.0]})
    array([1., 0., 0.])
    """

    __props__ = ("idx_list", "inplace", "set_instead_of_inc")
    #: the inplace phase may set ``inplace`` when ``x`` is dead (theon.tensor.rewriting.inplace)
    inplace_flag = True

    def __init__(
        self, idx_list: Sequence[Entry], inplace: bool = False, set_instead_of_inc: bool = False
    ) -> None:
        self.idx_list = as_idx_list(idx_list)
        self.inplace = bool(inplace)
        self.set_instead_of_inc = bool(set_instead_of_inc)
        self.destroy_map = {0: [0]} if inplace else {}

    def __str__(self) -> str:
        kind = "Set" if self.set_instead_of_inc else "Inc"
        flag = ";inplace" if self.inplace else ""
        return f"{kind}Subtensor{{{idx_text(self.idx_list)}{flag}}}"

    def make_node(self, x: Any, y: Any, *inputs: Any) -> Apply:
        x = as_tensor_variable(x)
        y = as_tensor_variable(y)
        ins = _check_index_inputs(self.idx_list, inputs)
        for v in ins:
            _check_scalar_index(v, f"an index of {self}")
        sub_shape = _basic_static_shape(x, self.idx_list, ins)
        _check_y(self, x, y, sub_shape, self.set_instead_of_inc)
        return Apply(self, [x, y, *ins], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        x, y = inputs[0], inputs[1]
        out = x if self.inplace else x.copy()
        sub = out[(*_build_index(self.idx_list, inputs[2:], False), Ellipsis)]
        if self.set_instead_of_inc:
            sub[...] = y
        else:
            np.add(sub, y, out=sub, casting="same_kind")
        output_storage[0][0] = out

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        return [tuple(input_shapes[0])]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        sub = Subtensor(self.idx_list)
        mk_set = IncSubtensor(self.idx_list, set_instead_of_inc=True)
        return _inc_grads(self, inputs, output_grads[0], sub, mk_set)

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        return _inc_rop(self, inputs, eval_points)


def _inc_rop(op: Any, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
    from theon.tensor.math import zeros_like

    ex, ey = eval_points[0], eval_points[1]
    if ex is None and ey is None:
        return [None]
    if ex is None:
        ex = zeros_like(inputs[0])
    if ey is None:
        ey = zeros_like(inputs[1])
    plain = type(op)(op.idx_list, set_instead_of_inc=op.set_instead_of_inc)
    return [plain(ex, ey, *inputs[2:])]


# --------------------------------------------------------------------------- getitem
def _index_var(v: Any) -> TensorVariable:
    if isinstance(v, (list, tuple)) and len(v) == 0:
        return as_tensor_variable(np.zeros(0, dtype=np.int64))
    var = as_tensor_variable(v)
    if var.type.dtype != "bool" and not _is_int_dtype(var.type.dtype):
        raise IndexError(
            "only integers, slices, None, Ellipsis, and integer or boolean arrays are "
            f"valid indices, got {describe(var) if isinstance(v, Variable) else repr(v)}"
        )
    return var


def _slice_part(p: Any) -> Any:
    """A slice bound: None, a Python int, or an int scalar Variable."""
    if p is None:
        return None
    if isinstance(p, (bool, np.bool_)):
        raise TypeError(f"slice bounds must be integers or None, got {p!r}")
    if isinstance(p, (int, np.integer)):
        return int(p)
    var = as_tensor_variable(p)
    _check_scalar_index(var, "a slice bound")
    k = static_int(var) if isinstance(var, Constant) else None
    return var if k is None else k


def _parse(x: TensorVariable, idx: Any) -> list[tuple[Any, ...]]:
    """Index entries as ``("new",)``, ``("int", v)``, ``("slice", a, b, c)``, ``("arr", var)``,
    with the Ellipsis expanded."""
    if isinstance(idx, list) and any(e is None or e is Ellipsis or isinstance(e, slice)
                                     for e in idx):
        idx = tuple(idx)  # old NumPy: a list holding slices is a tuple (x[[slice(None), 0]])
    if not isinstance(idx, tuple):
        idx = (idx,)
    raw: list[tuple[Any, ...]] = []
    for e in idx:
        if e is None:
            raw.append(("new",))
        elif e is Ellipsis:
            raw.append(("ell",))
        elif isinstance(e, slice):
            raw.append(("slice", _slice_part(e.start), _slice_part(e.stop), _slice_part(e.step)))
        elif isinstance(e, (bool, np.bool_)):
            raw.append(("arr", as_tensor_variable(np.asarray(e))))
        elif isinstance(e, (int, np.integer)):
            raw.append(("int", int(e)))
        elif isinstance(e, Variable) and _is_int_scalar(tensor_type(e)):
            k = static_int(e) if isinstance(e, Constant) else None
            raw.append(("int", e if k is None else k))
        else:
            var = _index_var(e)
            if var.type.ndim == 0 and var.type.dtype != "bool":
                k = static_int(var) if isinstance(var, Constant) else None
                raw.append(("int", var if k is None else k))
            else:
                raw.append(("arr", var))
    n_ell = sum(1 for r in raw if r[0] == "ell")
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = 0
    for r in raw:
        if r[0] in ("int", "slice"):
            used += 1
        elif r[0] == "arr":
            used += r[1].type.ndim if r[1].type.dtype == "bool" else 1
    nd = x.type.ndim
    if used > nd:
        raise IndexError(
            f"too many indices for {describe(x)}: it has {nd} dims, {used} were indexed"
        )
    out: list[tuple[Any, ...]] = []
    for r in raw:
        if r[0] == "ell":
            out.extend([("slice", None, None, None)] * (nd - used))
        else:
            out.append(r)
    return out


def _encode_part(p: Any, ins: list[Variable]) -> Any:
    if isinstance(p, Variable):
        ins.append(p)
        return SYM
    return p


def getitem(x: Any, idx: Any) -> TensorVariable:
    """NumPy indexing of a symbolic tensor: ``x[idx]``.

    Ints, slices (with symbolic bounds), ``None`` and ``...`` give a view
    (:class:`Subtensor`); integer arrays and boolean masks give a copy
    (:class:`AdvancedSubtensor`), laid out as NumPy does.

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> getitem(x, (slice(None, None, -1), [0, 0])).eval({x: [[1.0, 2.0], [3.0, 4.0]]})
    array([[3., 3.],
           [1., 1.]])
    """
    x = as_tensor_variable(x)
    entries = _parse(x, idx)
    ins: list[Variable] = []
    if any(e[0] == "arr" for e in entries):
        idx_list: list[Entry] = []
        for e in entries:
            if e[0] == "new":
                idx_list.append(None)
            elif e[0] == "slice":
                idx_list.append(slice(*(_encode_part(p, ins) for p in e[1:])))
            elif e[0] == "int":
                idx_list.append(_encode_part(e[1], ins))
            else:
                ins.append(e[1])
                idx_list.append(SYM)
        return AdvancedSubtensor(idx_list)(x, *ins)
    # x.shape[i] is the one dimension (a constant when static).
    if (
        x.owner is not None
        and isinstance(x.owner.op, Shape)
        and len(entries) == 1
        and entries[0][0] == "int"
        and isinstance(entries[0][1], int)
    ):
        base = x.owner.inputs[0]
        k = entries[0][1]
        if not -base.type.ndim <= k < base.type.ndim:
            raise IndexError(f"index {k} is out of bounds for the shape of {describe(base)} "
                             f"({base.type.ndim} dims)")
        return shape_i(base, k)
    idx_list = []
    new_order: list[Any] = []
    kept = 0
    for e in entries:
        if e[0] == "new":
            new_order.append("x")
        elif e[0] == "slice":
            idx_list.append(slice(*(_encode_part(p, ins) for p in e[1:])))
            new_order.append(kept)
            kept += 1
        else:
            idx_list.append(_encode_part(e[1], ins))
    n_rest = x.type.ndim - len(idx_list)
    new_order.extend(range(kept, kept + n_rest))
    while idx_list and idx_list[-1] == FULL:
        idx_list.pop()
    if not idx_list and "x" in new_order:
        return _dimshuffle(x, new_order)
    out = Subtensor(idx_list)(x, *ins)
    return _dimshuffle(out, new_order)


def take(a: Any, indices: Any, axis: int | None = None, mode: str = "raise") -> TensorVariable:
    """Elements of ``a`` at ``indices`` along ``axis`` (of the flattened ``a`` when None).

    ``mode`` is ``numpy.take``'s: ``'raise'`` (an index out of range is an error; negative
    indices count from the end), ``'wrap'`` (indices modulo the length) or ``'clip'``
    (indices clipped to ``[0, length - 1]``).

    >>> import theon.tensor as tt
    >>> a = tt.dvector("a")
    >>> take(a, [2, 0]).eval({a: [1.0, 2.0, 3.0]})
    array([3., 1.])
    >>> take(a, [4, -1], mode="clip").eval({a: [1.0, 2.0, 3.0]})
    array([3., 1.])
    """
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"take: mode must be 'raise', 'wrap' or 'clip', got {mode!r}")
    from theon.tensor.reshaping import flatten
    from theon.tensor.shape import normalize_axis

    a = as_tensor_variable(a)
    if axis is None:
        a = flatten(a)
        axis = 0
    ax = normalize_axis(axis, a.type.ndim, "take: axis", a)
    if not isinstance(indices, (int, np.integer, Variable)):
        indices = _index_var(indices)
    if isinstance(indices, Variable) and tensor_type(indices).dtype == "bool":
        raise IndexError(f"take: indices must be integers, got {describe(indices)}")
    if mode != "raise":
        from theon.tensor.math import clip, mod

        n = a.shape[ax]
        indices = mod(indices, n) if mode == "wrap" else clip(indices, 0, n - 1)
    return getitem(a, (slice(None),) * ax + (indices,))


# --------------------------------------------------------------------------- writing
def _base_of(x_sub: Variable, fn: str) -> tuple[Apply, list[Any]]:
    """The indexing node under ``x_sub`` and the DimShuffle new axes to undo, if any."""
    from theon.tensor.elemwise import DimShuffle

    node = x_sub.owner
    new_axes: list[int] = []
    if node is not None and isinstance(node.op, DimShuffle):
        order = list(node.op.new_order)
        kept = [o for o in order if o != "x"]
        inner = node.inputs[0].owner
        if kept == list(range(len(kept))) and inner is not None and isinstance(
            inner.op, (Subtensor, AdvancedSubtensor)
        ):
            new_axes = [k for k, o in enumerate(order) if o == "x"]
            node = inner
    if node is None or not isinstance(node.op, (Subtensor, AdvancedSubtensor)):
        raise TypeError(
            f"{fn}: the first argument must be an indexed tensor such as x[1:3], got "
            f"{describe(x_sub)}"
        )
    return node, new_axes


def inc_subtensor(
    x: Any,
    y: Any,
    inplace: bool = False,
    set_instead_of_inc: bool = False,
    ignore_duplicates: bool = False,
) -> TensorVariable:
    """The tensor indexed by ``x`` (which is ``t[idx]``) with ``y`` added at ``idx``.

    Returns a new ``t``; ``y`` broadcasts to ``t[idx]``.  Repeated advanced
    indices accumulate, like ``np.add.at``.

    >>> import theon.tensor as tt
    >>> t = tt.dvector("t")
    >>> inc_subtensor(t[[0, 0, 2]], 1.0).eval({t: [0.0, 0.0, 0.0]})
    array([2., 0., 1.])
    """
    fn = "set_subtensor" if set_instead_of_inc else "inc_subtensor"
    x = as_tensor_variable(x)
    y = as_tensor_variable(y)
    node, new_axes = _base_of(x, fn)
    if new_axes:
        from theon.tensor.reshaping import squeeze

        if y.type.ndim < x.type.ndim:
            y = shape_padleft(y, x.type.ndim - y.type.ndim)
        y = squeeze(y, new_axes)
    base, *idx = node.inputs
    op = node.op
    if isinstance(op, Subtensor):
        new_op: TensorOp = IncSubtensor(op.idx_list, inplace, set_instead_of_inc)
    else:
        assert isinstance(op, AdvancedSubtensor)  # (what _base_of finds)
        new_op = AdvancedIncSubtensor(op.idx_list, inplace, set_instead_of_inc, ignore_duplicates)
    return new_op(base, y, *idx)


def set_subtensor(x: Any, y: Any, inplace: bool = False) -> TensorVariable:
    """The tensor indexed by ``x`` (which is ``t[idx]``) with ``t[idx]`` replaced by ``y``.

    >>> import theon.tensor as tt
    >>> t = tt.dvector("t")
    >>> set_subtensor(t[1:], 5.0).eval({t: [0.0, 0.0, 0.0]})
    array([0., 5., 5.])
    """
    return inc_subtensor(x, y, inplace=inplace, set_instead_of_inc=True)


# The advanced ops build on the helpers above; imported last to break the cycle.
from theon.tensor.advanced_subtensor import (  # noqa: E402
    AdvancedIncSubtensor,
    AdvancedIncSubtensor1,
    AdvancedSubtensor,
    AdvancedSubtensor1,
)
from theon.tensor.slices import (  # noqa: E402
    as_index_literal,
    get_canonical_form_slice,
    is_basic_idx,
)
