"""Advanced indexing: integer arrays and boolean masks (copies), with NumPy's layout rules.

``x[[0, 2]]``, ``x[:, mask]`` and ``x[idx, :, 0]`` build an :class:`AdvancedSubtensor`;
writing through them an :class:`AdvancedIncSubtensor`, where repeated indices
accumulate like ``np.add.at``.  The index description is the one of
:mod:`theon.tensor.subtensor`, plus ``None`` for a new axis.

>>> import theon.tensor as tt
>>> x = tt.dmatrix("x")
>>> x[[0, 1], None, 0].type.shape
(2, 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type
from theon.tensor.basic import TensorOp, as_tensor_variable
from theon.tensor.shape import int64_constant, static_int
from theon.tensor.subtensor import (
    FULL,
    SYM,
    Entry,
    IdxListProps,
    _build_index,
    _check_index_inputs,
    _check_scalar_index,
    _check_y,
    _inc_grads,
    _inc_rop,
    _is_int_dtype,
    _static_slice_len,
    _take_parts,
    as_idx_list,
    idx_text,
    slice_length,
    slice_parts,
)
from theon.tensor.type import TensorType, tensor_type, tensor_vars
from theon.tensor.variable import TensorVariable

__all__ = [
    "AdvancedIncSubtensor", "AdvancedIncSubtensor1", "AdvancedSubtensor", "AdvancedSubtensor1"
]


def _adv_kinds(
    x: TensorVariable, idx_list: Sequence[Entry], inputs: Sequence[TensorVariable]
) -> list[tuple[Any, ...]]:
    """Walk an advanced index: a list of ``("basic", dim, slc, parts)``, ``("new",)``,
    ``("adv", value, dims)`` items, ``value`` an int or an index Variable."""
    it = iter(inputs)
    items: list[tuple[Any, ...]] = []
    d = 0
    nd = x.type.ndim
    for e in idx_list:
        if e is None:
            items.append(("new",))
        elif isinstance(e, slice):
            parts = _take_parts(e, it)
            for p in parts:
                _check_scalar_index(p, "a slice bound")
            items.append(("basic", d, e, parts))
            d += 1
        elif e == SYM:
            v = next(it)
            if v.type.dtype == "bool":
                k = v.type.ndim
                items.append(("adv", v, tuple(range(d, d + k))))
                d += k
            elif _is_int_dtype(v.type.dtype):
                items.append(("adv", v, (d,)))
                d += 1
            else:
                raise IndexError(
                    f"arrays used as indices must be of integer or boolean type, got "
                    f"{describe(v)}"
                )
        else:
            items.append(("adv", int(e), (d,)))
            d += 1
        if d > nd:
            raise IndexError(
                f"too many indices for {describe(x)}: it has {nd} dims, "
                f"index [{idx_text(idx_list)}] indexes more"
            )
    for r in range(d, nd):
        items.append(("basic", r, FULL, []))
    return items


def _adv_layout(items: Sequence[tuple[Any, ...]]) -> bool:
    """Whether the advanced indices are adjacent (then their dims stay in place)."""
    pos = [k for k, it in enumerate(items) if it[0] == "adv"]
    return pos == list(range(pos[0], pos[0] + len(pos)))


def _static_bcast(shapes: Sequence[Sequence[int | None]], where: str) -> list[int | None]:
    nd = max((len(s) for s in shapes), default=0)
    out: list[int | None] = []
    for k in range(nd):
        dims = [s[len(s) - nd + k] for s in shapes if len(s) - nd + k >= 0]
        known = {v for v in dims if v is not None and v != 1}
        if len(known) > 1:
            raise IndexError(
                f"{where}: shape mismatch: indexing arrays could not be broadcast together "
                f"with shapes {', '.join(str(tuple(s)) for s in shapes)}"
            )
        if known:
            out.append(known.pop())
        elif all(v == 1 for v in dims):
            out.append(1)
        else:
            out.append(None)
    return out


def _adv_index_static(
    x: TensorVariable, item: tuple[Any, ...], where: str
) -> tuple[int | None, ...]:
    """Static broadcast shape of one advanced index (masks: the count of True values)."""
    _, v, dims = item
    if isinstance(v, int):
        n = x.type.shape[dims[0]]
        if n is not None and not -n <= v < n:
            raise IndexError(f"index {v} is out of bounds for axis {dims[0]} with size {n} "
                             f"({where})")
        return ()
    if v.type.dtype != "bool":
        return tuple(v.type.shape)
    for k, d in enumerate(dims):
        m, n = v.type.shape[k], x.type.shape[d]
        if m is not None and n is not None and m != n:
            raise IndexError(
                f"{where}: boolean index {describe(v)} of static shape {tuple(v.type.shape)} "
                f"does not match dimension {d} of size {n}"
            )
    if isinstance(v, Constant):
        return (int(np.count_nonzero(v.data)),)
    if any(s == 0 for s in v.type.shape):
        return (0,)
    return (None,)


def _adv_static_shape(
    x: TensorVariable, idx_list: Sequence[Entry], inputs: Sequence[TensorVariable]
) -> tuple[int | None, ...]:
    """NumPy's output shape of an advanced index, with ``None`` where not known."""
    where = f"indexing {describe(x)} with [{idx_text(idx_list)}]"
    items = _adv_kinds(x, idx_list, inputs)
    bshape = _static_bcast([_adv_index_static(x, it, where) for it in items if it[0] == "adv"],
                           where)
    return tuple(_arrange(items, bshape, lambda it: _static_basic_dim(x, it)))


def _static_basic_dim(x: TensorVariable, item: tuple[Any, ...]) -> int | None:
    if item[0] == "new":
        return 1
    _, d, e, parts = item
    slc = slice_parts(e)
    vals = []
    it = iter(parts)
    for p in slc:
        vals.append(static_int(next(it)) if p == SYM else p)
    return _static_slice_len(x.type.shape[d], slc, vals)


def _arrange(items: Sequence[tuple[Any, ...]], bshape: Sequence[Any], basic: Any) -> list[Any]:
    """Place the broadcast advanced dims among the basic ones, as NumPy does."""
    out: list[Any] = []
    if not any(it[0] == "adv" for it in items):
        return [basic(it) for it in items]
    if _adv_layout(items):
        placed = False
        for it in items:
            if it[0] == "adv":
                if not placed:
                    out.extend(bshape)
                    placed = True
            else:
                out.append(basic(it))
        return out
    out.extend(bshape)
    out.extend(basic(it) for it in items if it[0] != "adv")
    return out


def _sym_bcast(shapes: Sequence[Sequence[Any]]) -> list[Any]:
    """Symbolic broadcast of index shapes (lists of int64 scalars)."""
    from theon import tensor as tt

    nd = max((len(s) for s in shapes), default=0)
    out = []
    for k in range(nd):
        dims = [s[len(s) - nd + k] for s in shapes if len(s) - nd + k >= 0]
        known = [static_int(v) for v in dims]
        fixed = [v for v in known if v is not None and v != 1]
        if fixed:
            out.append(int64_constant(fixed[0]))
            continue
        cur = None
        for v, kv in zip(dims, known):
            if kv == 1:
                continue
            cur = v if cur is None else tt.switch(tt.eq(cur, 1), v, cur)
        out.append(int64_constant(1) if cur is None else cur)
    return out


class AdvancedSubtensor(IdxListProps, TensorOp):
    """Advanced indexing ``x[idx]`` (integer arrays, boolean masks, with slices, ints and
    new axes), following NumPy's rules; the output is a copy.

    >>> import theon.tensor as tt
    >>> x, i = tt.dvector("x"), tt.lvector("i")
    >>> y = x[i]
    >>> type(y.owner.op).__name__, y.eval({x: [1.0, 2.0, 3.0], i: [2, 0]})
    ('AdvancedSubtensor', array([3., 1.]))
    """

    __props__: tuple[str, ...] = ("idx_list",)

    def __init__(self, idx_list: Sequence[Entry]) -> None:
        self.idx_list = as_idx_list(idx_list)

    def __str__(self) -> str:
        return f"AdvancedSubtensor{{{idx_text(self.idx_list)}}}"

    def make_node(self, x: Any, *inputs: Any) -> Apply:
        x = as_tensor_variable(x)
        ins = _check_index_inputs(self.idx_list, inputs)
        out_shape = _adv_static_shape(x, self.idx_list, ins)
        return Apply(self, [x, *ins], [TensorType(x.type.dtype, shape=out_shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        idx = _build_index(self.idx_list, inputs[1:], True)
        output_storage[0][0] = np.asarray(inputs[0][idx])

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        from theon.tensor import sum as tsum
        from theon.tensor.basic import cast

        x, *idx = tensor_vars(node.inputs)
        xshp = input_shapes[0]
        items = _adv_kinds(x, self.idx_list, idx)
        in_shape = {id(v): s for v, s in zip(node.inputs, input_shapes)}
        ishapes: list[list[Any]] = []
        for it in items:
            if it[0] != "adv":
                continue
            v = it[1]
            if isinstance(v, int):
                ishapes.append([])
            elif v.type.dtype == "bool":
                if isinstance(v, Constant):
                    ishapes.append([int64_constant(int(np.count_nonzero(v.data)))])
                else:
                    ishapes.append([cast(tsum(cast(v, "int64")), "int64")])
            else:
                ishapes.append(list(in_shape[id(v)]))
        bshape = _sym_bcast(ishapes)

        def basic(it: tuple[Any, ...]) -> Any:
            if it[0] == "new":
                return int64_constant(1)
            _, d, slc, parts = it
            return slice_length(xshp[d], slc, parts)

        return [tuple(_arrange(items, bshape, basic))]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        from theon.tensor.math import zeros_like

        x, *idx = inputs
        rest = [disconnected_type() for _ in idx]
        if np.dtype(tensor_type(x).dtype).kind not in "fc":
            return [disconnected_type(), *rest]
        gx = AdvancedIncSubtensor(self.idx_list)(zeros_like(x), output_grads[0], *idx)
        return [gx, *rest]

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        if eval_points[0] is None:
            return [None]
        return [self(eval_points[0], *inputs[1:])]


def _sub_ndim(node: Apply, idx_list: Sequence[Entry]) -> int:
    """The number of dims of ``x[idx]`` for an AdvancedIncSubtensor ``node`` (cached)."""
    nd = getattr(node.tag, "sub_ndim", None)
    if nd is None:
        ins = tensor_vars(node.inputs)
        nd = len(_adv_static_shape(ins[0], idx_list, ins[2:]))
        node.tag.sub_ndim = nd
    return int(nd)


class AdvancedIncSubtensor(IdxListProps, TensorOp):
    """``x`` with ``y`` added to (or written into) ``x[idx]`` for an advanced ``idx``.

    Repeated indices accumulate (``np.add.at``) unless ``ignore_duplicates``;
    when setting, the last write wins, as in NumPy.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> y = tt.inc_subtensor(x[[0, 0, 2]], 1.0)
    >>> type(y.owner.op).__name__, y.eval({x: [0.0, 0.0, 0.0]})
    ('AdvancedIncSubtensor', array([2., 0., 1.]))
    """

    __props__: tuple[str, ...] = ("idx_list", "inplace", "set_instead_of_inc", "ignore_duplicates")
    #: the inplace phase may set ``inplace`` when ``x`` is dead (theon.tensor.rewriting.inplace)
    inplace_flag = True

    def __init__(
        self,
        idx_list: Sequence[Entry],
        inplace: bool = False,
        set_instead_of_inc: bool = False,
        ignore_duplicates: bool = False,
    ) -> None:
        self.idx_list = as_idx_list(idx_list)
        self.inplace = bool(inplace)
        self.set_instead_of_inc = bool(set_instead_of_inc)
        self.ignore_duplicates = bool(ignore_duplicates)
        self.destroy_map = {0: [0]} if inplace else {}

    def __str__(self) -> str:
        kind = "Set" if self.set_instead_of_inc else "Inc"
        flag = ";inplace" if self.inplace else ""
        return f"Advanced{kind}Subtensor{{{idx_text(self.idx_list)}{flag}}}"

    def make_node(self, x: Any, y: Any, *inputs: Any) -> Apply:
        x = as_tensor_variable(x)
        y = as_tensor_variable(y)
        ins = _check_index_inputs(self.idx_list, inputs)
        sub_shape = _adv_static_shape(x, self.idx_list, ins)
        _check_y(self, x, y, sub_shape, self.set_instead_of_inc)
        return Apply(self, [x, y, *ins], [x.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        x, y = inputs[0], inputs[1]
        out = x if self.inplace else x.copy()
        idx = _build_index(self.idx_list, inputs[2:], True)
        if self.set_instead_of_inc:
            out[idx] = y
        elif self.ignore_duplicates:
            out[idx] = np.add(out[idx], y, casting="same_kind", dtype=out.dtype)
        else:
            y = np.asarray(y)
            if y.dtype != out.dtype:
                y = y.astype(out.dtype, casting="same_kind")
            # NumPy 2.4's ufunc.at broadcasts a y with fewer dims than the indexed
            # result wrongly when an index array has 2+ dims (np.add.at(zeros(4),
            # [[0, 1], [1, 1]], [1, 10]) gives [1, 10, 0, 0], not [1, 21, 0, 0]);
            # leading length-1 dims make it right
            nd = _sub_ndim(node, self.idx_list)
            if 0 < y.ndim < nd:
                y = y.reshape((1,) * (nd - y.ndim) + y.shape)
            np.add.at(out, idx, y)
        output_storage[0][0] = out

    def infer_shape(self, node: Apply, input_shapes: Sequence[Any]) -> list[tuple[Any, ...]]:
        return [tuple(input_shapes[0])]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        sub = AdvancedSubtensor(self.idx_list)
        mk_set = AdvancedIncSubtensor(self.idx_list, set_instead_of_inc=True)
        # any integer array may name an element twice (masks never do)
        may_repeat = any(
            v.type.ndim > 0 and v.type.dtype != "bool" for v in tensor_vars(inputs)[2:]
        )
        return _inc_grads(self, inputs, output_grads[0], sub, mk_set, may_repeat)

    def R_op(self, inputs: Sequence[Variable], eval_points: Sequence[Any]) -> list[Any]:
        return _inc_rop(self, inputs, eval_points)


def _check_int_vector(op: Any, ilist: Any) -> TensorVariable:
    """``ilist`` as an integer vector (the index of the ``...1`` Ops)."""
    i = as_tensor_variable(ilist)
    if i.type.ndim != 1 or not _is_int_dtype(i.type.dtype):
        raise TypeError(f"{op}: the index must be an integer vector, got {describe(i)}")
    return i


class AdvancedSubtensor1(AdvancedSubtensor):
    """``x[i]`` for an integer vector ``i`` on the first axis (PyTensor's class of that
    name): an :class:`AdvancedSubtensor` of the index ``(i,)``, which the specialize phase
    gives such nodes (``local_advanced_subtensor1``, as PyTensor's does).  It computes as
    its base.

    >>> import theon.tensor as tt
    >>> x, i = tt.dmatrix("x"), tt.lvector("i")
    >>> AdvancedSubtensor1()(x, i).eval({x: [[1.0, 2.0], [3.0, 4.0]], i: [1, 1, 0]})
    array([[3., 4.],
           [3., 4.],
           [1., 2.]])
    """

    __props__ = ()

    def __init__(self) -> None:
        self.idx_list = (SYM,)

    def __str__(self) -> str:
        return "AdvancedSubtensor1"

    def make_node(self, x: Any, *inputs: Any) -> Apply:
        if len(inputs) != 1:
            raise TypeError(f"{self} takes x and one index vector, got {len(inputs)} indices")
        x = as_tensor_variable(x)
        if x.type.ndim == 0:
            raise TypeError(f"{self}: cannot index the 0-d {describe(x)}")
        return super().make_node(x, _check_int_vector(self, inputs[0]))

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        from theon.tensor.math import zeros_like

        x, i = inputs
        if np.dtype(tensor_type(x).dtype).kind not in "fc":
            return [disconnected_type(), disconnected_type()]
        return [AdvancedIncSubtensor1()(zeros_like(x), output_grads[0], i), disconnected_type()]


class AdvancedIncSubtensor1(AdvancedIncSubtensor):
    """``x`` with ``y`` added to (or, with ``set_instead_of_inc``, written into) ``x[i]``
    for an integer vector ``i`` on the first axis; repeated indices accumulate (PyTensor's
    class of that name, props ``inplace`` and ``set_instead_of_inc``).

    >>> import theon.tensor as tt
    >>> x, i = tt.dvector("x"), tt.lvector("i")
    >>> AdvancedIncSubtensor1()(x, 1.0, i).eval({x: [0.0, 0.0, 0.0], i: [2, 2, 0]})
    array([1., 0., 2.])
    """

    __props__ = ("inplace", "set_instead_of_inc")

    def __init__(self, inplace: bool = False, set_instead_of_inc: bool = False) -> None:
        super().__init__((SYM,), inplace, set_instead_of_inc)

    def __str__(self) -> str:
        kind = "Set" if self.set_instead_of_inc else "Inc"
        return f"Advanced{kind}Subtensor1{{{'inplace' if self.inplace else 'no_inplace'}}}"

    def make_node(self, x: Any, y: Any, *inputs: Any) -> Apply:
        if len(inputs) != 1:
            raise TypeError(f"{self} takes x, y and one index vector, got {len(inputs)} indices")
        x = as_tensor_variable(x)
        if x.type.ndim == 0:
            raise TypeError(f"{self}: cannot index the 0-d {describe(x)}")
        return super().make_node(x, y, _check_int_vector(self, inputs[0]))

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        return _inc_grads(
            self, inputs, output_grads[0], AdvancedSubtensor1(),
            AdvancedIncSubtensor1(set_instead_of_inc=True), True,
        )
