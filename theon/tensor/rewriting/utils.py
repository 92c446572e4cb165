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

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

import theon.scalar as ts
from theon.graph.basic import Apply, Constant, Variable
from theon.tensor.basic import cast, constant
from theon.tensor.elemwise import DimShuffle, Elemwise, _expand_to
from theon.tensor.type import TensorType

if TYPE_CHECKING:
    from theon.graph.fg import FunctionGraph

__all__ = [
    "Terms",
    "additive_terms",
    "build_product",
    "build_sum",
    "client_count",
    "elemwise_node",
    "fit",
    "is_float",
    "multiplicative_terms",
    "same_structure",
    "scalar_const",
    "size1_constant",
]

ADDITIVE = (ts.add, ts.sub, ts.neg)
MULTIPLICATIVE = (ts.mul, ts.true_div, ts.neg, ts.reciprocal)


# -------------------------------------------------------------------------------- matching
def elemwise_node(v: Variable, *sops: Any) -> Apply | None:
    """``v``'s owner if it is a non-inplace Elemwise of one of the scalar ops ``sops``."""
    node = v.owner
    if node is None or not isinstance(node.op, Elemwise) or node.op.inplace_pattern:
        return None
    if sops and node.op.scalar_op not in sops:
        return None
    return node


def client_count(fgraph: FunctionGraph | None, v: Variable) -> int:
    """How many uses ``v`` has in ``fgraph`` (graph outputs count)."""
    if fgraph is None:
        return 1
    return len(fgraph.clients.get(v, ()))


def is_float(v: Variable) -> bool:
    """Whether ``v`` is a real floating-point tensor."""
    return str(getattr(v.type, "dtype", "")).startswith("float")


def is_inexact(v: Variable) -> bool:
    """Whether ``v`` is a float or complex tensor."""
    return str(getattr(v.type, "dtype", "")).startswith(("float", "complex"))


def size1_constant(v: Variable) -> np.ndarray | None:
    """The value (0-d array) of ``v`` when it is a one-element constant, seen through DimShuffle."""
    while v.owner is not None and isinstance(v.owner.op, DimShuffle):
        v = v.owner.inputs[0]
    if not isinstance(v, Constant):
        return None
    data = np.asarray(v.data)
    if data.size != 1 or data.dtype == object:
        return None
    return data.reshape(())


def scalar_const(v: Variable) -> np.ndarray | None:
    """The value of ``v`` when it is a constant holding one value everywhere (any shape)."""
    from theon.tensor.basic import NotScalarConstantError, get_scalar_constant_value

    try:
        return get_scalar_constant_value(v, elemwise=False)
    except NotScalarConstantError:
        return None


def const_like(value: Any, like: Variable, dtype: str | None = None) -> Variable:
    """A constant of ``value`` with ``like``'s number of dimensions, all of length 1."""
    nd = like.type.ndim  # type: ignore[attr-defined]
    dt = dtype or like.type.dtype  # type: ignore[attr-defined]
    return constant(np.full((1,) * nd, value, dtype=dt))


def const_equal(a: Variable, b: Variable) -> bool:
    """Whether two constants have the same type and data."""
    if not (isinstance(a, Constant) and isinstance(b, Constant)) or a.type != b.type:
        return False
    try:
        return bool(a.signature() == b.signature())
    except Exception:
        return False


# -------------------------------------------------------------------------------- fitting
def fit(new: Variable, old: Variable, refs: Sequence[Variable] = ()) -> Variable | None:
    """``new`` with exactly ``old``'s type, or None when that cannot be done cheaply.

    Missing leading dimensions are added, the dtype is cast, and dimensions
    where ``new`` broadcasts (static length 1) but ``old`` does not are filled
    out against one of ``refs`` (variables that had ``old``'s shape there).
    """
    from theon.tensor.math import second

    ot = old.type
    nt = new.type
    if not isinstance(ot, TensorType):
        return new if nt == ot else None
    if not isinstance(nt, TensorType) or nt.ndim > ot.ndim:
        return None
    if nt.ndim < ot.ndim:
        new = _expand_to(new, ot.ndim)
    if new.type.dtype != ot.dtype:  # type: ignore[attr-defined]
        new = cast(new, ot.dtype)
    missing = [d for d in range(ot.ndim) if new.type.shape[d] == 1 and ot.shape[d] != 1]  # type: ignore[attr-defined]
    if missing:
        for r in refs:
            rt = r.type
            if not isinstance(rt, TensorType) or rt.ndim > ot.ndim:
                continue
            r2 = _expand_to(r, ot.ndim) if rt.ndim < ot.ndim else r
            if any(r2.type.shape[d] != 1 for d in missing):  # type: ignore[attr-defined]
                new = second(r2, new)
                missing = [d for d in missing if new.type.shape[d] == 1]  # type: ignore[attr-defined]
                if not missing:
                    break
        if missing:
            return None
    if new.type == ot:
        return new
    return ot.convert_variable(new)


def same_structure(new: Variable, old: Variable, limit: int = 256) -> bool:
    """Whether ``new`` computes ``old`` with the same ops on the same variables."""
    stack = [(new, old)]
    while stack:
        a, b = stack.pop()
        if a is b:
            continue
        if a.owner is None or b.owner is None:
            if const_equal(a, b):
                continue
            return False
        na, nb = a.owner, b.owner
        if a.index != b.index or na.op != nb.op or len(na.inputs) != len(nb.inputs):
            return False
        limit -= 1
        if limit < 0:
            return False
        stack.extend(zip(na.inputs, nb.inputs))
    return True


def as_dtype(v: Variable, dtype: str) -> Variable:
    """``v`` cast to ``dtype`` when it has another one."""
    return v if v.type.dtype == dtype else cast(v, dtype)  # type: ignore[attr-defined]


# -------------------------------------------------------------------------------- terms
class Terms:
    """A flattened sum or product: terms on two sides, a combined constant, what was absorbed.

    For a sum, ``pos - neg + const``; for a product, ``const * prod(pos) / prod(neg)``.
    ``consts`` lists the one-element constants met (their values combine into
    ``const``); ``nested`` counts the inner nodes flattened into this one.
    """

    __slots__ = ("pos", "neg", "consts", "nested", "dtype", "root", "sign")

    def __init__(self, root: Variable) -> None:
        self.pos: list[Variable] = []
        self.neg: list[Variable] = []
        self.consts: list[tuple[np.ndarray, bool]] = []
        self.nested = 0
        self.dtype: str = root.type.dtype  # type: ignore[attr-defined]
        self.root = root
        self.sign = 1


def _flattenable(fgraph: FunctionGraph | None, v: Variable, sops: tuple[Any, ...], dtype: str) -> bool:
    node = elemwise_node(v, *sops)
    return (
        node is not None
        and v.type.dtype == dtype  # type: ignore[attr-defined]
        and len(node.outputs) == 1
        and client_count(fgraph, v) == 1
    )


def _walk(
    fgraph: FunctionGraph | None, root: Variable, sops: tuple[Any, ...], additive: bool,
    max_depth: int | None = None,
) -> Terms:
    """Flatten the tree of ``sops`` nodes at ``root`` (inner ones single-client, same dtype)."""
    t = Terms(root)
    # (variable, on the positive side, depth); popped in left-to-right order
    stack: list[tuple[Variable, bool, int]] = [(root, True, 0)]
    while stack:
        v, side, depth = stack.pop()
        if depth == 0 or (
            (max_depth is None or depth <= max_depth) and _flattenable(fgraph, v, sops, t.dtype)
        ):
            node = v.owner
            assert node is not None
            if depth:
                t.nested += 1
            sop = node.op.scalar_op
            ins = node.inputs
            if sop == ts.add or sop == ts.mul:
                kids = [(i, side) for i in ins]
            elif sop == ts.sub or sop == ts.true_div:
                kids = [(ins[0], side), (ins[1], not side)]
            elif sop == ts.neg:
                if additive:
                    kids = [(ins[0], not side)]
                else:
                    t.sign = -t.sign
                    kids = [(ins[0], side)]
            else:  # reciprocal
                kids = [(ins[0], not side)]
            for k, s in reversed(kids):
                stack.append((k, s, depth + 1))
            continue
        c = size1_constant(v)
        if c is not None:
            t.consts.append((c, side))
        elif side:
            t.pos.append(v)
        else:
            t.neg.append(v)
    return t


def additive_terms(fgraph: FunctionGraph | None, v: Variable, max_depth: int | None = None) -> Terms | None:
    """``v`` (an add/sub/neg output) as ``sum(pos) - sum(neg) + const``; None if not one.

    Inner add/sub/neg nodes are flattened when ``v`` is their only client and
    they have ``v``'s dtype.  ``const`` (in ``v``'s dtype) is in ``consts``.

    >>> import theon.tensor as tt
    >>> x, y = tt.dvector("x"), tt.dvector("y")
    >>> t = additive_terms(None, (x - y) + 2.0)
    >>> [str(a) for a in t.pos], [str(a) for a in t.neg], combined_const(t)
    (['x'], ['y'], 2.0)
    """
    if elemwise_node(v, *ADDITIVE) is None:
        return None
    return _walk(fgraph, v, ADDITIVE, True, max_depth)


def multiplicative_terms(
    fgraph: FunctionGraph | None, v: Variable, max_depth: int | None = None
) -> Terms | None:
    """``v`` (a mul/true_div/neg/reciprocal output) as ``const * prod(pos) / prod(neg)``."""
    if elemwise_node(v, *MULTIPLICATIVE) is None:
        return None
    return _walk(fgraph, v, MULTIPLICATIVE, False, max_depth)


def combined_const(t: Terms, additive: bool = True) -> Any:
    """The terms' constants combined (a NumPy scalar of the terms' dtype), or None if unsafe."""
    dt = np.dtype(t.dtype)
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
    acc = np.asarray(acc, dtype=dt)[()]
    if dt.kind in "fc" and not np.isfinite(acc):
        return None
    return acc


def build_sum(terms: Sequence[Variable], dtype: str) -> Variable | None:
    """``add(*terms)`` (None for no term), computing in ``dtype`` from the first step."""
    if not terms:
        return None
    terms = _promote_first(terms, dtype)
    from theon.tensor.math import add

    return terms[0] if len(terms) == 1 else add(*terms)


def build_product(terms: Sequence[Variable], dtype: str) -> Variable | None:
    """``mul(*terms)`` (None for no term), computing in ``dtype`` from the first step."""
    if not terms:
        return None
    terms = _promote_first(terms, dtype)
    from theon.tensor.math import mul

    return terms[0] if len(terms) == 1 else mul(*terms)


def _promote_first(terms: Sequence[Variable], dtype: str) -> list[Variable]:
    """Terms ordered and cast so that a pairwise fold computes in ``dtype`` throughout.

    Integer terms of another dtype are cast (integer wrap-around depends on the
    width); among floats it is enough that a term of ``dtype`` comes first.
    """
    out: list[Variable] = []
    for v in terms:
        dt = v.type.dtype  # type: ignore[attr-defined]
        if dt != dtype and (np.dtype(dt).kind not in "fc" or np.dtype(dtype).kind not in "fc"):
            v = cast(v, dtype)
        out.append(v)
    if len(out) > 1 and out[0].type.dtype != dtype:  # type: ignore[attr-defined]
        for k, v in enumerate(out):
            if v.type.dtype == dtype:  # type: ignore[attr-defined]
                out.insert(0, out.pop(k))
                break
        else:
            out[0] = cast(out[0], dtype)
    return out
