"""Helpers shared by the tensor rewrites: matching Elemwise nodes, reading constants,
flattening sums and products into terms, and fitting a replacement to the exact type
of the variable it replaces.

>>> import theon.tensor as tt
>>> from theon import scalar as ts
>>> x = tt.dvector("x")
>>> elemwise_node(tt.exp(x), ts.exp) is not None
True
>>> float(size1_constant(tt.constant([[2.0]])))
2.0
"""

from __future__ import annotations

import cmath
import math
import typing
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

import theon.scalar as ts
from theon.graph.basic import Apply, Constant, Variable
from theon.tensor.basic import (
    NotScalarConstantError,
    cast,
    constant,
    get_scalar_constant_value,
)
from theon.tensor.elemwise import DimShuffle, Elemwise, _expand_to
from theon.tensor.math import add as _add_op
from theon.tensor.math import mul as _mul_op
from theon.tensor.math import second as _second_op
from theon.tensor.type import TensorType, tensor_type

if TYPE_CHECKING:
    from theon.graph.fg import FunctionGraph

__all__ = [
    "Terms",
    "dtype_kind",
    "cast_op",
    "materialize",
    "moves_a_constant",
    "product_spec",
    "spec_const",
    "spec_matches",
    "sum_spec",
    "additive_terms",
    "client_count",
    "combined_const",
    "elemwise_node",
    "fit",
    "is_float",
    "multiplicative_terms",
    "product_const",
    "scalar_const",
    "size1_constant",
    "sum_const",
]

ADDITIVE = (ts.add, ts.sub, ts.neg)
MULTIPLICATIVE = (ts.mul, ts.true_div, ts.neg, ts.reciprocal)


# -------------------------------------------------------------------------------- matching
def elemwise_node(v: Variable, *sops: Any) -> Apply | None:
    """``v``'s owner if it is a non-inplace Elemwise of one of the scalar ops ``sops``."""
    node = v.owner
    if node is None:
        return None
    op = node.op
    if not isinstance(op, Elemwise) or op.inplace_pattern:
        return None
    if not sops:
        return node
    sop = op.scalar_op
    for s in sops:
        # scalar ops without parameters are equal when their classes are (cheaper than ==)
        if sop is s or (type(sop) is type(s) and (not s.__props__ or sop == s)):
            return node
    return None


def client_count(fgraph: FunctionGraph | None, v: Variable) -> int:
    """How many uses ``v`` has in ``fgraph`` (graph outputs count)."""
    if fgraph is None:
        return 1
    return len(fgraph.clients.get(v, ()))


def is_float(v: Variable) -> bool:
    """Whether ``v`` is a real floating-point tensor."""
    return str(getattr(v.type, "dtype", "")).startswith("float")


def size1_constant(v: Variable) -> np.ndarray | None:
    """The value (0-d array) of ``v`` when it is a one-element constant, seen through DimShuffle."""
    node = v.owner
    while node is not None:
        if not isinstance(node.op, DimShuffle):
            return None
        v = node.inputs[0]
        node = v.owner
    if not isinstance(v, Constant):
        return None
    data = v.data
    arr: np.ndarray = data if type(data) is np.ndarray else np.asarray(data)
    if arr.size != 1 or arr.dtype == object:
        return None
    return arr.reshape(())


def scalar_const(v: Variable) -> np.ndarray | None:
    """The value of ``v`` when it is a constant holding one value everywhere (any shape)."""
    if isinstance(v, Constant):
        data = v.data
        # the usual case, answered without the general walk: a one-element array
        if type(data) is np.ndarray and data.size == 1 and data.dtype.kind != "O":
            return data.reshape(())
    try:
        return get_scalar_constant_value(v, elemwise=False)
    except NotScalarConstantError:
        return None


def const_like(value: Any, like: Variable, dtype: str | None = None) -> Variable:
    """A constant of ``value`` with ``like``'s number of dimensions, all of length 1."""
    nd = tensor_type(like).ndim
    dt = dtype or tensor_type(like).dtype
    return constant(np.full((1,) * nd, value, dtype=dt))


# -------------------------------------------------------------------------------- fitting
def fit(new: Variable, old: Variable, refs: Sequence[Variable] = ()) -> Variable | None:
    """``new`` with exactly ``old``'s type, or None when that cannot be done cheaply.

    Missing leading dimensions are added, the dtype is cast, and dimensions
    where ``new`` broadcasts (static length 1) but ``old`` does not are filled
    out against one of ``refs`` (variables that had ``old``'s shape there).
    """
    ot = old.type
    nt = new.type
    if not isinstance(ot, TensorType):
        return new if nt == ot else None
    if not isinstance(nt, TensorType) or nt.ndim > ot.ndim:
        return None
    if nt.ndim < ot.ndim:
        new = _expand_to(new, ot.ndim)
    if tensor_type(new).dtype != ot.dtype:
        new = cast(new, ot.dtype)
    missing = [d for d in range(ot.ndim) if tensor_type(new).shape[d] == 1 and ot.shape[d] != 1]
    if missing:
        for r in refs:
            rt = r.type
            if not isinstance(rt, TensorType) or rt.ndim > ot.ndim:
                continue
            r2 = _expand_to(r, ot.ndim) if rt.ndim < ot.ndim else r
            if any(tensor_type(r2).shape[d] != 1 for d in missing):
                new = _second_op(r2, new)
                missing = [d for d in missing if tensor_type(new).shape[d] == 1]
                if not missing:
                    break
        if missing:
            return None
    if new.type is ot or new.type == ot:
        return new
    return ot.convert_variable(new)


def as_dtype(v: Variable, dtype: str) -> Variable:
    """``v`` cast to ``dtype`` when it has another one."""
    return v if tensor_type(v).dtype == dtype else cast(v, dtype)


# -------------------------------------------------------------------------------- terms
class Terms:
    """A flattened sum or product: terms on two sides, a combined constant, what was absorbed.

    For a sum, ``pos - neg + const``; for a product, ``const * prod(pos) / prod(neg)``.
    ``consts`` lists the one-element constants met (their values combine into
    ``const``); ``nested`` counts the inner nodes flattened into this one; ``fills``
    the shapes that ``second`` terms gave (needed only where nothing else does).
    """

    __slots__ = ("pos", "neg", "consts", "nested", "fills", "dtype", "root", "sign")

    def __init__(self, root: Variable) -> None:
        self.pos: list[Variable] = []
        self.neg: list[Variable] = []
        self.consts: list[tuple[np.ndarray, bool]] = []
        self.nested = 0
        # ``a`` of each ``second(a, b)`` term read as ``b``: only its shape mattered
        self.fills: list[Variable] = []
        self.dtype: str = tensor_type(root).dtype
        self.root = root
        self.sign = 1


def _kinds() -> dict[type, str]:
    return {
        type(ts.add): "all", type(ts.mul): "all", type(ts.sub): "diff",
        type(ts.true_div): "diff", type(ts.neg): "neg", type(ts.reciprocal): "inv",
    }


_KIND = _kinds()
_ADDITIVE_T = frozenset(type(s) for s in ADDITIVE)
_MULTIPLICATIVE_T = frozenset(type(s) for s in MULTIPLICATIVE)
_SECOND_T = type(_second_op.scalar_op)


def _walk(
    fgraph: FunctionGraph | None, root: Variable, types: frozenset[type], additive: bool,
    max_depth: int | None = None,
) -> Terms:
    """Flatten the tree of ``types`` nodes at ``root`` (inner ones single-client, same dtype)."""
    t = Terms(root)
    dtype = t.dtype
    clients = fgraph.clients if fgraph is not None else None
    pos, neg, consts, fills = t.pos, t.neg, t.consts, t.fills
    # (variable, on the positive side, depth); popped in left-to-right order
    stack: list[tuple[Variable, bool, int]] = [(root, True, 0)]
    while stack:
        v, side, depth = stack.pop()
        node = v.owner
        if node is not None:
            op = node.op
            if depth == 0 or (
                isinstance(op, Elemwise)
                and type(op.scalar_op) in types
                and not op.inplace_pattern
                and (max_depth is None or depth <= max_depth)
                and tensor_type(v).dtype == dtype
                and len(node.outputs) == 1
                and (clients is None or len(clients.get(v, ())) == 1)
            ):
                if depth:
                    t.nested += 1
                # (an Elemwise: at depth 0 too, where the caller's root is one)
                kind = _KIND[type(typing.cast(Elemwise, op).scalar_op)]
                ins = node.inputs
                d = depth + 1
                if kind == "all":
                    stack.extend([(i, side, d) for i in reversed(ins)])
                elif kind == "diff":
                    stack.append((ins[1], not side, d))
                    stack.append((ins[0], side, d))
                elif kind == "neg" and not additive:
                    t.sign = -t.sign
                    stack.append((ins[0], side, d))
                else:  # neg in a sum, reciprocal in a product
                    stack.append((ins[0], not side, d))
                continue
            # a term second(a, b) (b filled out to a's shape) is read as b
            while (
                isinstance(op, Elemwise) and type(op.scalar_op) is _SECOND_T
                and not op.inplace_pattern
            ):
                fills.append(node.inputs[0])
                v = node.inputs[1]
                node = v.owner
                if node is None:
                    break
                op = node.op
            if node is not None and not isinstance(op, DimShuffle):
                # a computed term (size1_constant would find no constant here)
                if side:
                    pos.append(v)
                else:
                    neg.append(v)
                continue
        c = size1_constant(v)
        if c is not None:
            consts.append((c, side))
        elif side:
            pos.append(v)
        else:
            neg.append(v)
    return t


def additive_terms(
    fgraph: FunctionGraph | None, v: Variable, max_depth: int | None = None
) -> Terms | None:
    """``v`` (an add/sub/neg output) as ``sum(pos) - sum(neg) + const``; None if not one.

    Inner add/sub/neg nodes are flattened when ``v`` is their only client and
    they have ``v``'s dtype; one-element constants go to ``consts``
    (:func:`combined_const` sums them).  A term ``second(a, b)`` (``b`` filled out
    to ``a``'s shape) is read as ``b``, with ``a`` kept in ``fills``.

    >>> import theon.tensor as tt
    >>> x, y = tt.dvector("x"), tt.dvector("y")
    >>> t = additive_terms(None, (x - y) + 2.0)
    >>> [str(a) for a in t.pos], [str(a) for a in t.neg], float(combined_const(t))
    (['x'], ['y'], 2.0)
    """
    if elemwise_node(v, *ADDITIVE) is None:
        return None
    return _walk(fgraph, v, _ADDITIVE_T, True, max_depth)


def multiplicative_terms(
    fgraph: FunctionGraph | None, v: Variable, max_depth: int | None = None
) -> Terms | None:
    """``v`` (a mul/true_div/neg/reciprocal output) as ``const * prod(pos) / prod(neg)``."""
    if elemwise_node(v, *MULTIPLICATIVE) is None:
        return None
    return _walk(fgraph, v, _MULTIPLICATIVE_T, False, max_depth)


def combined_const(t: Terms, additive: bool = True) -> Any:
    """The terms' constants combined into one (a NumPy scalar of the terms' dtype), or None.

    ``c`` such that ``sum(pos) - sum(neg) + c`` (``c * prod(pos) / prod(neg)``)
    computes what the graph does.  Integer constants combine freely (wrap-around
    is associative).  Float constants combine only where that is exact: see
    :func:`sum_const` and :func:`product_const`.  None when it is not, and for a
    product whose constant must stay a divisor (``x / 49``).

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> float(combined_const(multiplicative_terms(None, 2.0 * x * 3.0), additive=False))
    6.0
    >>> combined_const(multiplicative_terms(None, 3.0 * x * 5.0), additive=False) is None
    True
    """
    if additive:
        return sum_const(t)
    got = product_const(t)
    if got is None or got[1] is not None:
        return None
    return got[0]


def _const_values(t: Terms) -> list[tuple[Any, bool]] | None:
    """The constants as Python numbers of the terms' dtype; None if one is inf or nan."""
    dt = np.dtype(t.dtype)
    out: list[tuple[Any, bool]] = []
    for c, side in t.consts:
        v = np.asarray(c).astype(dt)[()].item()
        if dt.kind in "fc" and not cmath.isfinite(v):
            return None
        out.append((v, side))
    return out


def _cancel_equal(vals: list[tuple[Any, bool]]) -> list[tuple[Any, bool]]:
    """``vals`` without the pairs of equal constants on opposite sides (``c - c``, ``c / c``)."""
    pos = [v for v, s in vals if s]
    left: list[tuple[Any, bool]] = []
    for v, s in vals:
        if s:
            continue
        if v in pos:
            pos.remove(v)
        else:
            left.append((v, False))
    return [(v, True) for v in pos] + left


def sum_const(t: Terms) -> Any:
    """The constant of a sum, ``c`` in ``sum(pos) - sum(neg) + c``, or None if not exact.

    Float sums: equal constants on the two sides cancel (as ``x - x -> 0``) and
    zeros drop out; a single constant may remain.  Two would be added in another
    order than the graph adds them (``(x + 1) + 2`` is not ``x + 3`` in floats),
    so then this is None.
    """
    dt = np.dtype(t.dtype)
    if dt.kind not in "fc":
        return _int_const(t, dt, additive=True)
    vals = _const_values(t)
    if vals is None:
        return None
    vals = [(v, s) for v, s in _cancel_equal(vals) if v != 0]
    if len(vals) > 1:
        return None
    if not vals:
        return dt.type(0)
    v, side = vals[0]
    return dt.type(v if side else -v)


def _pow2_exponent(v: Any) -> int | None:
    """``k`` when ``abs(v) == 2**k`` (a real number), else None."""
    if isinstance(v, complex):
        if v.imag != 0:
            return None
        v = v.real
    m, e = math.frexp(abs(v))
    return e - 1 if m == 0.5 else None


def _scaled(v: Any, k: int, dt: np.dtype) -> Any:
    """``v * 2**k`` in ``dt`` when that is exact (no part leaves the normal range), else None."""
    fi = np.finfo(dt)
    tiny, big = float(fi.tiny), float(fi.max)
    parts = [v.real, v.imag] if isinstance(v, complex) else [v]
    out = []
    for a in parts:
        try:
            r = math.ldexp(a, k)
        except OverflowError:
            return None
        if a != 0 and not tiny <= abs(r) <= big:
            return None
        out.append(r)
    return dt.type(complex(*out) if isinstance(v, complex) else out[0])


def product_const(t: Terms) -> tuple[Any, Any] | None:
    """The constants of a product as ``(c, d)``: ``c * prod(pos) / prod(neg) / d``; None if unsafe.

    ``d`` is None when there is no divisor.  For floats only exact combinations
    are made, so that ``x / 49`` stays a division (``x * (1/49)`` differs from
    NumPy's ``x / 49`` in about a third of the results): equal constants on the
    two sides cancel (as ``x / x -> 1``), powers of two combine with everything
    (scaling by ``2**k`` is exact when nothing over- or underflows), and at
    most one other constant may remain, a multiplier or a divisor as in the
    graph.  ``x * 2 / 4 -> x * 0.5``, ``x / 3 * 2 -> x / 1.5``; ``x * 3 / 7`` is None.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> c, d = product_const(multiplicative_terms(None, x / 3.0 * 2.0))
    >>> float(c), float(d)
    (1.0, 1.5)
    """
    dt = np.dtype(t.dtype)
    if dt.kind not in "fc":
        c = _int_const(t, dt, additive=False)
        return None if c is None else (c, None)
    vals = _const_values(t)
    if vals is None or any(v == 0 and not s for v, s in vals):
        return None
    sign = t.sign
    exp2 = 0
    other: list[tuple[Any, bool]] = []
    for v, s in _cancel_equal(vals):
        k = _pow2_exponent(v)
        if k is None:
            other.append((v, s))
            continue
        if (v.real if isinstance(v, complex) else v) < 0:
            sign = -sign
        exp2 += k if s else -k
    if not other:
        c = _scaled(1.0 if dt.kind == "f" else complex(1.0), exp2, dt)
        return None if c is None else (dt.type(sign * c), None)
    if len(other) > 1:
        return None
    v, side = other[0]
    if side:
        c = _scaled(v, exp2, dt)
        return None if c is None else (dt.type(sign * c), None)
    d = _scaled(v, -exp2, dt)
    return None if d is None else (dt.type(1), dt.type(sign * d))


def moves_a_constant(t: Terms, additive: bool) -> bool:
    """Whether rebuilding float terms ``t`` in canonical form could regroup a constant
    with two or more other terms, which rounds differently from the graph.

    ``(x/3)*y -> (x*y)/3`` and ``(x+1)+y -> (x+y)+1`` change about a third of the
    results by an ulp.  Powers of two move freely in a product (scaling by ``2**k``
    is exact), and equal constants on the two sides cancel and do not count.

    >>> import theon.tensor as tt
    >>> x, y = tt.dvector("x"), tt.dvector("y")
    >>> moves_a_constant(multiplicative_terms(None, (x / 3.0) * y), additive=False)
    True
    >>> moves_a_constant(multiplicative_terms(None, (x / 4.0) * y), additive=False)
    False
    """
    if len(t.pos) + len(t.neg) < 2 or dtype_kind(t.dtype) not in "fc":
        return False
    vals = _const_values(t)
    if vals is None:
        return False  # not combined at all (see combined_const)
    for v, _ in _cancel_equal(vals):
        if (v != 0) if additive else (_pow2_exponent(v) is None):
            return True
    return False


def _int_const(t: Terms, dt: np.dtype, additive: bool) -> Any:
    """The combined constant of integer (or bool) terms, in ``dt``; None if unsafe."""
    with np.errstate(all="ignore"):
        if additive:
            acc = np.zeros((), dtype=dt)
            for c, side in t.consts:
                cv = np.asarray(c).astype(dt)
                acc = acc + cv if side else acc - cv
            if dt.kind == "u" and t.consts and not all(s for _, s in t.consts):
                return None
        else:
            acc = np.ones((), dtype=dt) * t.sign
            for c, side in t.consts:
                cv = np.asarray(c).astype(dt)
                if not side and cv == 0:
                    return None
                acc = acc * cv if side else acc / cv
    return np.asarray(acc, dtype=dt)[()]


# -------------------------------------------------------------------------------- specs
# A *spec* describes an expression to build without building it: a Variable (used
# as is), ``("const", value, dtype, ndim)`` (a one-element constant) or
# ``(elemwise_op, *child_specs)``.  Rewrites compare the spec of the canonical form
# with the graph first (:func:`spec_matches`), and build nodes only when they differ.

_CAST_OPS: dict[str, Elemwise] = {}


def cast_op(dtype: str) -> Elemwise:
    """The (cached) Elemwise casting to ``dtype``."""
    op = _CAST_OPS.get(dtype)
    if op is None:
        from theon.scalar.basic import _cast_op

        op = _CAST_OPS[dtype] = Elemwise(_cast_op(dtype))
    return op


def spec_const(value: Any, like: Variable) -> tuple[Any, ...]:
    """The spec of a one-element constant ``value`` in ``like``'s dtype and ndim."""
    dt = tensor_type(like).dtype
    return ("const", np.asarray(value, dtype=dt).reshape(()), dt, tensor_type(like).ndim)


def spec_dtype(spec: Any) -> str:
    """The dtype of what ``spec`` builds."""
    if isinstance(spec, Variable):
        return tensor_type(spec).dtype
    if spec[0] == "const":
        dt: str = spec[2]
        return dt
    op = spec[0]
    if op.scalar_op.__props__ and hasattr(op.scalar_op, "o_type"):  # a cast
        cast_dt: str = op.scalar_op.o_type.dtype
        return cast_dt
    raise TypeError(f"spec_dtype: cannot tell the dtype of {spec!r}")


def _const_matches(sp: tuple[Any, ...], v: Variable) -> bool:
    if not isinstance(v, Constant):
        return False
    _, value, dt, nd = sp
    data = v.data
    return bool(
        tensor_type(v).dtype == dt and data.shape == (1,) * nd and data.reshape(()) == value
    )


def _leaf_key(sp: Any) -> Any:
    """A hashable key of a leaf spec (a variable or a constant), or None."""
    if isinstance(sp, Variable):
        return ("var", id(sp))
    if sp[0] == "const":
        return ("const", sp[2], sp[3], sp[1].item())
    return None


def _permuted_leaves(children: Sequence[Any], inputs: Sequence[Variable]) -> bool:
    """Whether ``inputs`` are the leaf specs ``children`` in some order."""
    want: dict[Any, int] = {}
    for c in children:
        k = _leaf_key(c)
        if k is None:
            return False
        want[k] = want.get(k, 0) + 1
    for i in inputs:
        if isinstance(i, Constant):
            data = i.data
            if data.size != 1:
                return False
            k = ("const", tensor_type(i).dtype, data.ndim, data.reshape(()).item())
        else:
            k = ("var", id(i))
        n = want.get(k, 0)
        if not n:
            return False
        want[k] = n - 1
    return True


def spec_matches(spec: Any, var: Variable) -> bool:
    """Whether ``var`` is already what ``spec`` describes.

    The inputs of a commutative op (add, mul) whose children are all leaves may
    come in any order (for floats, the order only changes rounding).
    """
    stack = [(spec, var)]
    while stack:
        sp, v = stack.pop()
        if isinstance(sp, Variable):
            if sp is not v:
                return False
            continue
        if sp[0] == "const":
            if not _const_matches(sp, v):
                return False
            continue
        node = v.owner
        op = sp[0]
        if node is None or not (node.op is op or node.op == op):
            return False
        if len(node.inputs) != len(sp) - 1:
            return False
        children = sp[1:]
        ordered = True
        for c, i in zip(children, node.inputs):
            if isinstance(c, Variable):
                if c is not i:
                    ordered = False
                    break
            elif c[0] == "const":
                if not _const_matches(c, i):
                    ordered = False
                    break
            else:
                stack.append((c, i))
        if ordered:
            continue
        if not (
            getattr(op.scalar_op, "commutative", False)
            and str(tensor_type(v).dtype).startswith(("float", "complex"))
            and _permuted_leaves(children, node.inputs)
        ):
            return False
    return True


def materialize(spec: Any) -> Variable:
    """Build what ``spec`` describes."""
    if isinstance(spec, Variable):
        return spec
    if spec[0] == "const":
        _, value, dt, nd = spec
        return constant(np.full((1,) * nd, value, dtype=dt))
    out: Variable = spec[0](*[materialize(c) for c in spec[1:]])
    return out


_KINDS: dict[str, str] = {}


def dtype_kind(dtype: str) -> str:
    """``np.dtype(dtype).kind``, cached.

    >>> dtype_kind("float32")
    'f'
    """
    k = _KINDS.get(dtype)
    if k is None:
        k = _KINDS[dtype] = np.dtype(dtype).kind
    return k


def _promote_first(terms: Sequence[Any], dtype: str) -> list[Any]:
    """Term specs ordered and cast so that a pairwise fold computes in ``dtype`` throughout.

    Integer terms of another dtype are cast (integer wrap-around depends on the
    width); among floats it is enough that a term of ``dtype`` comes first.
    """
    out: list[Any] = []
    kind = dtype_kind(dtype)
    for v in terms:
        dt = spec_dtype(v)
        if dt != dtype and (dtype_kind(dt) not in "fc" or kind not in "fc"):
            v = (cast_op(dtype), v)
        out.append(v)
    if len(out) > 1 and spec_dtype(out[0]) != dtype:
        for k, v in enumerate(out):
            if spec_dtype(v) == dtype:
                out.insert(0, out.pop(k))
                break
        else:
            out[0] = (cast_op(dtype), out[0])
    return out


def sum_spec(terms: Sequence[Any], dtype: str) -> Any:
    """Spec of ``add(*terms)`` (None for no term), computing in ``dtype`` throughout."""
    if not terms:
        return None
    t = _promote_first(terms, dtype)
    return t[0] if len(t) == 1 else (_add_op, *t)


def product_spec(terms: Sequence[Any], dtype: str) -> Any:
    """Spec of ``mul(*terms)`` (None for no term), computing in ``dtype`` throughout."""
    if not terms:
        return None
    t = _promote_first(terms, dtype)
    return t[0] if len(t) == 1 else (_mul_op, *t)
