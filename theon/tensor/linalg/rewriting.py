"""Rewrites of linear algebra: solve instead of inverting, determinants from factors,
and what the structure of a matrix (symmetric, triangular, diagonal) allows.

Each rewrite states its math.  They run in the stabilize phase (``theon.grad``
differentiates the stabilized cost, so a gradient also comes from the cheaper form),
``inv(inv(A))`` and the transpose of a symmetric matrix also in canonicalize.

Structure is read from the graph by :func:`structure` (facts about the last two
axes): ``"symmetric"``, ``"lower"``, ``"upper"`` (both triangles: diagonal).  The
sources are constants (checked by value), an Op's ``matrix_structure(node)`` method
(a hook any Op may define: ``Cholesky`` gives its triangle, ``Eye`` is diagonal), a
(1, 1) broadcast value (symmetric), ``X @ X.T``, transposes, inverses, and
elementwise expressions: all-symmetric inputs, or ``u + u.T``-like pairs
(``r[:, None] + r[None, :]``) under ``add``/``mul``; products keep a triangle of any
factor, sums the triangle of all terms.

>>> import numpy as np
>>> import theon, theon.tensor as T
>>> A, b = T.dmatrix("A"), T.dvector("b")
>>> f = theon.function([A, b], T.linalg.inv(A) @ b)
>>> [type(n.op).__name__ for n in f.maker.fgraph.toposort()]
['Solve']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import theon.scalar as ts
import theon.tensor.math as tm
from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import FunctionGraph, Output
from theon.rewriting import (
    node_rewriter,
    register_canonicalize,
    register_specialize,
    register_stabilize,
    rewrite_db,
)
from theon.tensor.alloc_diag import AddDiag, AllocDiag
from theon.tensor.basic import as_tensor_variable, cast, get_scalar_constant_value
from theon.tensor.blas import Dot, MatMul
from theon.tensor.blockwise import Blockwise
from theon.tensor.creation import Eye
from theon.tensor.elemwise import DimShuffle, Elemwise
from theon.tensor.linalg._common import BandPart, apply_op, band_part, mT
from theon.tensor.linalg.decomp import Cholesky, Det, LUFactor, MatrixInverse, SLogDet
from theon.tensor.linalg.solvers import (
    CholeskySolve,
    LUSolve,
    Solve,
    SolveTriangular,
    TriMatMul,
)
from theon.tensor.type import tensor_type
from theon.tensor.variable import TensorVariable

__all__ = [
    "local_chol_times_chol_t",
    "local_det_structured",
    "local_inv_dot_to_solve",
    "local_inv_inv",
    "local_log_det",
    "local_slogdet_structured",
    "local_solve_pos_to_cho_solve",
    "local_shared_lu_solves",
    "local_solve_structured",
    "local_transpose_symmetric",
    "core",
    "structure",
]

SYM, LOWER, UPPER = "symmetric", "lower", "upper"
DIAG = frozenset({SYM, LOWER, UPPER})
NONE: frozenset[str] = frozenset()
_MEMO = "linalg_structure"


def core(op: Any) -> Any:
    """The Op computing each block: ``op.core_op`` for a Blockwise, else ``op`` itself.

    The rewrites look through Blockwise, so a batch of matrices is rewritten as one
    matrix is; their replacements are built by the batching functions (``solve``,
    :func:`~theon.tensor.linalg._common.apply_op`), which batch again.
    """
    return op.core_op if isinstance(op, Blockwise) else op


# structure --------------------------------------------------------------------------------
def _transposed(v: Variable) -> Variable | None:
    """``x`` when ``v`` is ``x`` with its last two axes swapped (a DimShuffle)."""
    node = v.owner
    if node is None or not isinstance(node.op, DimShuffle):
        return None
    order = node.op.new_order
    n = node.op.input_ndim
    if n >= 2 and order == (*range(n - 2), n - 1, n - 2):
        return node.inputs[0]
    return None


def _flip(facts: frozenset[str]) -> frozenset[str]:
    """The facts of the transpose."""
    out = set(facts)
    if (LOWER in facts) != (UPPER in facts):
        out ^= {LOWER, UPPER}
    return frozenset(out)


def _pair_key(v: Variable) -> tuple[Any, ...] | None:
    """A key equal for two variables that are each other's transposes (see _mutual)."""
    x = _transposed(v)
    if x is not None:
        return ("T", x)
    node = v.owner
    if node is not None and isinstance(node.op, DimShuffle):
        order = node.op.new_order
        if order == (0, "x"):
            return ("col", node.inputs[0])
        if order == ("x", 0):
            return ("row", node.inputs[0])
    return ("id", v)


def _mutual(a: Variable, b: Variable) -> bool:
    """Whether ``b`` is ``a`` transposed (structurally)."""
    ka, kb = _pair_key(a), _pair_key(b)
    assert ka is not None and kb is not None
    pairs = {("col", "row"), ("row", "col"), ("T", "id"), ("id", "T")}
    if (ka[0], kb[0]) not in pairs:
        return False
    if ka[0] in ("col", "row"):
        return ka[1] is kb[1]
    inner_a = ka[1] if ka[0] == "T" else a
    inner_b = kb[1] if kb[0] == "T" else b
    return inner_a is inner_b


def _unscaled(v: Variable) -> Variable:
    """``x`` for ``v = c * x`` with ``c`` scalar-like (0-d or (1, 1)), repeatedly."""
    while True:
        node = v.owner
        if node is None or not isinstance(node.op, Elemwise) or not isinstance(
                node.op.scalar_op, type(ts.mul)):
            return v
        mats = [x for x in node.inputs if not _is_scalar_like(x)]
        if len(mats) != 1 or tensor_type(mats[0]).shape != tensor_type(v).shape:
            return v
        v = mats[0]


def _gram(a: Variable, b: Variable) -> bool:
    """Whether ``a @ b`` is ``c X X^T`` or ``c X^T X`` (symmetric) for scalar-like ``c``."""
    if _mutual(a, b):
        return True
    ua, ub = _unscaled(a), _unscaled(b)
    ta, tb = _transposed(ua), _transposed(ub)
    return (tb is not None and _unscaled(tb) is ua) or (ta is not None and _unscaled(ta) is ub)


def _same_scalar(a: Variable, b: Variable) -> bool:
    if a is b:
        return True
    try:
        return bool(get_scalar_constant_value(a) == get_scalar_constant_value(b))
    except Exception:  # not constants
        pass
    na, nb = a.owner, b.owner
    return (na is not None and nb is not None and na.op == nb.op
            and len(na.inputs) == len(nb.inputs)
            and all(x is y for x, y in zip(na.inputs, nb.inputs)))


def _constant_facts(data: np.ndarray) -> frozenset[str]:
    if data.ndim < 2 or data.shape[-1] != data.shape[-2]:
        return NONE
    facts = set()
    if np.array_equal(data, np.swapaxes(data, -1, -2)):
        facts.add(SYM)
    if np.array_equal(data, np.tril(data)):
        facts.add(LOWER)
    if np.array_equal(data, np.triu(data)):
        facts.add(UPPER)
    return frozenset(facts)


def _is_scalar_like(v: Variable) -> bool:
    t = tensor_type(v)
    return t.ndim < 2 or t.shape[-2:] == (1, 1)


def _elemwise_facts(node: Apply, op: Elemwise, facts: list[frozenset[str]]) -> frozenset[str]:
    sop = op.scalar_op
    ins = node.inputs
    mats = [(v, f) for v, f in zip(ins, facts) if not _is_scalar_like(v)]
    if any(tensor_type(v).ndim < 2 for v in ins if tensor_type(v).ndim not in (0,)):
        return NONE  # a vector broadcast along rows breaks every structure
    out: set[str] = set()
    unpaired = [v for v, f in mats if SYM not in f]
    if not unpaired:
        out.add(SYM)
    elif isinstance(sop, (type(ts.add), type(ts.mul))) and len(unpaired) == 2 and _mutual(
            *unpaired):
        out.add(SYM)
    if isinstance(sop, type(ts.mul)):
        for _, f in mats:
            out |= f & {LOWER, UPPER}
    elif isinstance(sop, (type(ts.add), type(ts.sub), type(ts.neg))):
        if mats and len(mats) == len(ins):
            tri = {LOWER, UPPER}
            for _, f in mats:
                tri &= f
            out |= tri
    elif isinstance(sop, type(ts.true_div)) and mats and mats[0][0] is ins[0] and len(mats) == 1:
        out |= mats[0][1] & {LOWER, UPPER}
    return frozenset(out)


def _node_facts(v: Variable, get: Callable[[Variable], frozenset[str] | None]
                ) -> frozenset[str] | None:
    """The facts of ``v`` from its owner, or None when an input's facts are needed
    first (``get(x)`` returns them, or None if not known yet)."""
    node = v.owner
    if node is None:
        return NONE
    op = node.op
    hook = getattr(core(op), "matrix_structure", None)
    if hook is not None:
        return frozenset(hook(node)[node.outputs.index(v)])
    if isinstance(op, Eye):
        rows, cols, k = node.inputs
        try:
            diagonal = get_scalar_constant_value(k) == 0 and _same_scalar(rows, cols)
        except Exception:  # k is not a constant
            diagonal = False
        return DIAG if diagonal else NONE
    if isinstance(op, DimShuffle):
        x = node.inputs[0]
        if _transposed(v) is not None:
            f = get(x)
            return None if f is None else _flip(f)
        n = op.input_ndim
        if n >= 2 and op.new_order[-2:] == (n - 2, n - 1) and all(
                o == "x" or o == i for i, o in enumerate(op.new_order[:-2])):
            return get(x)
        return NONE
    if isinstance(op, Elemwise):
        fs = []
        for x in node.inputs:
            f = NONE if tensor_type(x).ndim < 2 else get(x)
            if f is None:
                return None
            fs.append(f)
        return _elemwise_facts(node, op, fs)
    if isinstance(op, (Dot, MatMul)):
        a, b = node.inputs
        if tensor_type(a).ndim < 2 or tensor_type(b).ndim < 2:
            return NONE
        fa, fb = get(a), get(b)
        if fa is None or fb is None:
            return None
        out = set(fa & fb & {LOWER, UPPER})
        if _gram(a, b):
            out.add(SYM)
        return frozenset(out)
    if isinstance(core(op), MatrixInverse):
        return get(node.inputs[0])
    if isinstance(op, AllocDiag):
        return DIAG
    if isinstance(op, AddDiag):  # x plus a diagonal keeps x's structure
        return get(node.inputs[0])
    return NONE


def structure(fgraph: FunctionGraph | None, v: Variable) -> frozenset[str]:
    """What is known about the matrix ``v`` (its last two axes): a subset of
    ``{"symmetric", "lower", "upper"}`` (lower and upper: diagonal).

    >>> import theon.tensor as T
    >>> X = T.dmatrix("X")
    >>> sorted(structure(None, X @ X.T + 2.0))
    ['symmetric']
    """
    memo: dict[Variable, frozenset[str]] = (
        fgraph.memo.setdefault(_MEMO, {}) if fgraph is not None else {})
    if v in memo:
        return memo[v]
    stack = [v]
    missing: list[Variable] = []

    def get(x: Variable) -> frozenset[str] | None:
        if x in memo:
            return memo[x]
        missing.append(x)
        return None

    while stack:
        top = stack[-1]
        if top in memo:
            stack.pop()
            continue
        if isinstance(top, Constant):
            memo[top] = _constant_facts(np.asarray(top.data))
            stack.pop()
            continue
        t = tensor_type(top) if hasattr(top.type, "ndim") else None
        if t is None or t.ndim < 2:
            memo[top] = NONE
            stack.pop()
            continue
        if t.shape[-2:] == (1, 1):
            memo[top] = DIAG
            stack.pop()
            continue
        missing.clear()
        facts = _node_facts(top, get)
        if facts is None:
            stack.extend(missing)
            continue
        memo[top] = facts
        stack.pop()
    return memo[v]


def _cholesky_of(fgraph: FunctionGraph, a: Variable) -> Variable | None:
    """The output ``L`` (lower) of a ``Cholesky(on_error='raise')`` node on ``a`` in
    ``fgraph``, as a lower-triangular factor (an upper one transposed), if any."""
    for client in fgraph.clients.get(a, ()):
        node = client[0]
        op = core(node.op) if isinstance(node, Apply) else None
        if isinstance(op, Cholesky) and op.on_error == "raise":
            out = node.outputs[0]
            return out if op.lower else mT(out)
    return None


def _diag(a: Variable) -> TensorVariable:
    from theon.tensor.extra_ops import diagonal

    nd = tensor_type(a).ndim
    return diagonal(a, 0, nd - 2, nd - 1)


def _like(new: Any, old: Variable) -> Variable:
    """``new`` in ``old``'s dtype."""
    dt = tensor_type(old).dtype
    return new if tensor_type(new).dtype == dt else cast(new, dt)


# rewrites ---------------------------------------------------------------------------------
@register_canonicalize
@register_stabilize
@node_rewriter([MatrixInverse, Blockwise])
def local_inv_inv(fgraph: FunctionGraph, node: Apply) -> Any:
    """inv(inv(A)) -> A

    (A^-1)^-1 = A for every invertible A; a singular A no longer raises."""
    inner = node.inputs[0].owner
    if not isinstance(core(node.op), MatrixInverse) or inner is None or not isinstance(
            core(inner.op), MatrixInverse):
        return None
    if tensor_type(inner.inputs[0]).ndim != tensor_type(node.outputs[0]).ndim:
        return None
    return [inner.inputs[0]]


@register_canonicalize
@register_stabilize
@node_rewriter([DimShuffle])
def local_transpose_symmetric(fgraph: FunctionGraph, node: Apply) -> Any:
    """A^T -> A for a matrix known to be symmetric (A = A^T, see :func:`structure`)."""
    x = _transposed(node.outputs[0])
    if x is None or SYM not in structure(fgraph, x):
        return None
    if tensor_type(x).shape != tensor_type(node.outputs[0]).shape:
        return None
    return [x]


@register_stabilize
@node_rewriter([Dot, MatMul])
def local_inv_dot_to_solve(fgraph: FunctionGraph, node: Apply) -> Any:
    """inv(A) @ b -> solve(A, b)

    A^-1 b is the x with A x = b: one LU solve is cheaper and more accurate than
    forming A^-1 (the residual of a backward-stable solve is small relative to A and
    x, that of the explicit inverse relative to cond(A))."""
    from theon.tensor.linalg.solvers import solve

    a, b = node.inputs
    inv_node = a.owner
    if inv_node is None or not isinstance(core(inv_node.op), MatrixInverse):
        return None
    a_nd, b_nd = tensor_type(a).ndim, tensor_type(b).ndim
    if a_nd == 2 and b_nd in (1, 2):
        b_ndim = b_nd
    elif a_nd > 2 and isinstance(node.op, MatMul) and b_nd == a_nd:
        b_ndim = 2  # a batch of matrices times a batch of matrices
    else:
        return None
    out = solve(inv_node.inputs[0], b, b_ndim=b_ndim, on_error=core(inv_node.op).on_error)
    return [_like(out, node.outputs[0])]


def _logdet_from_cholesky(chol: Variable, dtype: str) -> TensorVariable:
    """log det(A) = 2 sum(log(diag(L))) for A = L L^T."""
    d = _diag(chol)
    logdet: TensorVariable = tm.sum(tm.log(d), axis=-1) * np.asarray(2, dtype=dtype)
    return logdet


def _slogdet_triangular(a: Variable) -> tuple[Variable, Variable]:
    """det(T) = prod(diag(T)) for a triangular T: sign = prod(sign d), log|det| = sum log|d|."""
    d = _diag(a)
    return tm.prod(tm.sgn(d), axis=-1), tm.sum(tm.log(tm.abs(d)), axis=-1)


@register_stabilize
@node_rewriter([Elemwise])
def local_log_det(fgraph: FunctionGraph, node: Apply) -> Any:
    """log(det(A)) -> log(sign) + logabsdet, with (sign, logabsdet) = slogdet(A)

    det(A) = sign * exp(logabsdet), so log(det(A)) = log(sign) + logabsdet exactly,
    without det overflowing: log(1) = 0, log(-1) = nan (a negative determinant) and
    log(0) = -inf (singular; logabsdet is -inf too).  When A is symmetric and its
    Cholesky factor L is computed anyway, log det(A) = 2 sum(log(diag(L))) (A is then
    positive definite; a non-positive-definite A makes that Cholesky raise)."""
    op = node.op
    if not isinstance(op, Elemwise) or not isinstance(op.scalar_op, type(ts.log)) \
            or op.inplace_pattern:
        return None
    (x,) = node.inputs
    det_node = x.owner
    if det_node is None or not isinstance(core(det_node.op), Det):
        return None
    (a,) = det_node.inputs
    out = node.outputs[0]
    dt = tensor_type(out).dtype
    if SYM in structure(fgraph, a):
        chol = _cholesky_of(fgraph, a)
        if chol is not None:
            return [_like(_logdet_from_cholesky(chol, dt), out)]
    from theon.tensor.linalg.decomp import slogdet

    sign, logabs = slogdet(a)
    return [_like(tm.log(sign) + logabs, out)]


@register_stabilize
@node_rewriter([SLogDet, Blockwise])
def local_slogdet_structured(fgraph: FunctionGraph, node: Apply) -> Any:
    """slogdet(A) from A's structure:

    - A triangular (or diagonal): det(A) = prod(diag(A)), so sign = prod(sign(diag(A)))
      and logabsdet = sum(log|diag(A)|);
    - A symmetric with a computed Cholesky factor L: sign = 1 and logabsdet =
      2 sum(log(diag(L)))."""
    if not isinstance(core(node.op), SLogDet):
        return None
    (a,) = node.inputs
    facts = structure(fgraph, a)
    sign_old, log_old = node.outputs
    if facts & {LOWER, UPPER}:
        sign, logabs = _slogdet_triangular(a)
        return [_like(sign, sign_old), _like(logabs, log_old)]
    if SYM in facts:
        chol = _cholesky_of(fgraph, a)
        if chol is not None:
            logabs = _logdet_from_cholesky(chol, tensor_type(log_old).dtype)
            return [_like(tm.ones_like(logabs), sign_old), _like(logabs, log_old)]
    return None


def _read_by_log(fgraph: FunctionGraph, v: Variable) -> bool:
    """Whether some client of ``v`` is ``log(v)`` (local_log_det's case, done better there)."""
    for client in fgraph.clients.get(v, ()):
        node = client[0]
        if isinstance(node, Apply) and isinstance(node.op, Elemwise) and isinstance(
                node.op.scalar_op, type(ts.log)):
            return True
    return False


@register_stabilize
@node_rewriter([Det, Blockwise])
def local_det_structured(fgraph: FunctionGraph, node: Apply) -> Any:
    """det(A) from A's structure:

    - A triangular or diagonal (e.g. det(cholesky(B))): det(A) = prod(diag(A));
    - A symmetric with a computed Cholesky factor L: det(A) = prod(diag(L))^2."""
    if not isinstance(core(node.op), Det):
        return None
    (a,) = node.inputs
    facts = structure(fgraph, a)
    out = node.outputs[0]
    if facts & {LOWER, UPPER}:
        return [_like(tm.prod(_diag(a), axis=-1), out)]
    if SYM in facts and not _read_by_log(fgraph, out):
        chol = _cholesky_of(fgraph, a)
        if chol is not None:
            p = tm.prod(_diag(chol), axis=-1)
            return [_like(p * p, out)]
    return None


@register_stabilize
@node_rewriter([Dot, MatMul])
def local_chol_times_chol_t(fgraph: FunctionGraph, node: Apply) -> Any:
    """cholesky(A) @ cholesky(A)^T -> A   (and U^T U -> A for the upper factor)

    L L^T is the symmetric matrix whose lower triangle is A's (the triangle Cholesky
    reads): A itself when A is known to be symmetric, else tril(A) + tril(A, -1)^T
    (for U^T U: triu(A) + triu(A, 1)^T).
    The factorization is skipped, so a non-positive-definite A no longer raises."""
    x, y = node.inputs
    if not _mutual(x, y):
        return None
    first_t = _transposed(x) is not None
    base = _transposed(x) if first_t else x
    assert base is not None
    c = base.owner
    if c is None:
        return None
    chol = core(c.op)
    if not isinstance(chol, Cholesky) or chol.on_error != "raise":
        return None
    # lower: L @ L^T (the transpose second); upper: U^T @ U (the transpose first)
    if chol.lower == first_t:
        return None
    (a,) = c.inputs
    out = node.outputs[0]
    if SYM in structure(fgraph, a):
        return [_like(a, out)]
    # the strict triangle Cholesky reads, mirrored, plus the diagonal
    strict = band_part(a, None, -1) if chol.lower else band_part(a, -1, None)
    return [_like(strict + mT(strict) + band_part(a, 0, 0), out)]


@register_stabilize
@node_rewriter([Solve, SolveTriangular, Blockwise])
def local_solve_structured(fgraph: FunctionGraph, node: Apply) -> Any:
    """solve(A, b) with what is known about A:

    - A diagonal: x = b / diag(A) (a zero on the diagonal gives inf/nan, not an error);
    - A triangular: solve(A, b) -> solve_triangular(A, b) (the triangle is all of A);
    - A symmetric with a computed Cholesky factor L (lower, A = L L^T):
      solve(A, b) -> cho_solve((L, True), b), two triangular solves with the factor."""
    op = core(node.op)
    if not isinstance(op, (Solve, SolveTriangular)):
        return None
    a, b = node.inputs[0], as_tensor_variable(node.inputs[1])
    out = node.outputs[0]
    facts = structure(fgraph, a)
    if isinstance(op, SolveTriangular):
        if facts >= {LOWER, UPPER} and not op.unit_diagonal:
            d = _diag(a)
            return [_like(b / (d if op.b_ndim == 1 else d[..., :, None]), out)]
        return None
    if facts >= {LOWER, UPPER}:
        d = _diag(a)
        return [_like(b / (d if op.b_ndim == 1 else d[..., :, None]), out)]
    if facts & {LOWER, UPPER}:
        new = SolveTriangular(LOWER in facts, 0, False, op.b_ndim, op.on_error)
        return [_like(apply_op(new, a, b), out)]
    reads_one_triangle = op.assume_a in ("sym", "her", "pos")
    if SYM in facts or (reads_one_triangle and op.lower):
        chol = _cholesky_of(fgraph, a)  # it reads A's lower triangle
        if chol is not None:
            return [_like(apply_op(CholeskySolve(True, op.b_ndim, op.on_error), chol, b), out)]
    return None


@register_canonicalize
@register_stabilize
@node_rewriter([Solve, Blockwise])
def local_solve_pos_to_cho_solve(fgraph: FunctionGraph, node: Apply) -> Any:
    """solve(A, b, assume_a='pos') -> cho_solve((cholesky(A), lower), b)

    What the solver computes anyway (A = L L^T, then two triangular solves), as nodes:
    the factor is then shared with other uses of it (log det(A) from its diagonal).
    Both read the same triangle of A; a non-positive-definite A still raises."""
    op = core(node.op)
    if not isinstance(op, Solve) or op.assume_a != "pos":
        return None
    a, b = node.inputs
    factor = apply_op(Cholesky(op.lower, op.on_error), a)
    new = apply_op(CholeskySolve(op.lower, op.b_ndim, op.on_error), factor, b)
    return [_like(new, node.outputs[0])]


def _general_solve(node: Apply) -> Solve | None:
    """The core ``Solve`` of ``node`` when it solves with a general matrix, else None."""
    op = core(node.op)
    return op if isinstance(op, Solve) and op.assume_a == "gen" else None


def _solves_with(fgraph: FunctionGraph, x: Variable) -> list[tuple[Apply, int]]:
    """The general solves of the graph with ``x`` (trans 0) or ``x``'s transpose (trans 1)."""
    found: list[tuple[Apply, int]] = []
    for client, k in list(fgraph.clients.get(x, ())):
        if isinstance(client.op, Output):
            continue
        if k == 0 and _general_solve(client) is not None:
            found.append((client, 0))
        elif _transposed(client.outputs[0]) is x:
            for c2, k2 in fgraph.clients.get(client.outputs[0], ()):
                if k2 == 0 and _general_solve(c2) is not None:
                    found.append((c2, 1))
    return found


@node_rewriter([Solve, Blockwise])
def local_shared_lu_solves(fgraph: FunctionGraph, node: Apply) -> Any:
    """solve(A, b) and solve(A^T, c) (or solve(A, c)) in one graph -> one factorization:
    P A = L U once (lu_factor(A)), then lu_solve(A's factors, b) and, for A^T x = c,
    lu_solve(A's factors, c, trans=1) (A^T = U^T L^T P: the same factors, read transposed).

    Only general solves (``assume_a='gen'``) with the same ``on_error`` are shared; a
    solve whose matrix already has factors in the graph uses them.
    Tagged ``shared_lu``, not ``fast_run``: ``mode="JAX"`` includes it (jax 0.10.2 hangs
    on two batched LU solves in one jitted function, and a gradient of ``solve`` has
    that form); the default linker keeps ``Solve``, whose batched NumPy kernel beats a
    loop of ``lu_solve`` calls on small matrices."""
    op = _general_solve(node)
    if op is None:
        return None
    a = node.inputs[0]
    x = _transposed(a)
    trans = 1 if x is not None else 0
    source = x if x is not None else a
    factors = [c.outputs for c, k in fgraph.clients.get(source, ())
               if isinstance(core(c.op), LUFactor)]
    peers = [n for n, _ in _solves_with(fgraph, source) if n is not node
             and (peer := _general_solve(n)) is not None and peer.on_error == op.on_error]
    if factors:
        packed, piv = factors[0]
    elif peers:
        packed, piv = apply_op(LUFactor(), source)
    else:
        return None
    new = apply_op(LUSolve(trans, op.b_ndim, op.on_error), packed, piv, node.inputs[1],
                   keep=(1,))
    return [_like(new, node.outputs[0])]


rewrite_db.register("local_shared_lu_solves", local_shared_lu_solves, "shared_lu",
                    phase=("specialize",))


def _feeds_add(fgraph: FunctionGraph, v: Variable) -> bool:
    """Whether ``v`` is read by an addition (where ``local_gemm`` may fold the product)."""
    for client, _ in fgraph.clients.get(v, ()):
        if isinstance(client, Apply) and isinstance(client.op, Elemwise) and isinstance(
                client.op.scalar_op, (type(ts.add), type(ts.sub))):
            return True
    return False


@node_rewriter([Dot])
def local_triangular_dot(fgraph: FunctionGraph, node: Apply) -> Any:
    """dot(T, B) -> TriMatMul(T, B) for a matrix T known to be lower (or upper)
    triangular, a matrix B and one float dtype: T B = tri(T) B, which BLAS ``trmm``
    computes with half the multiply-adds of a general product (and in B's buffer when
    B is dead).  A Cholesky factor and its transpose are such T (``L Phi`` in
    Cholesky's R_op, ``L^T Lbar`` in CholeskyGrad's derivatives).  Not where the
    product is added to something (``local_gemm`` folds that); tagged
    ``native_blas``, which ``mode="JAX"`` leaves out."""
    x, y = node.inputs
    tx, ty = tensor_type(x), tensor_type(y)
    if tx.ndim != 2 or ty.ndim != 2 or tx.dtype != ty.dtype or tx.dtype not in (
            "float32", "float64") or _feeds_add(fgraph, node.outputs[0]):
        return None
    facts = structure(fgraph, x)
    if (LOWER in facts) == (UPPER in facts):  # neither, or diagonal
        return None
    return [_like(TriMatMul(LOWER in facts)(x, y), node.outputs[0])]


# (the call form: a decorator taking tags is untyped for mypy)
register_specialize(local_triangular_dot, "native_blas")


def _sole_client(fgraph: FunctionGraph, v: Variable) -> bool:
    clients = fgraph.clients.get(v, ())
    return len(clients) == 1 and not isinstance(clients[0][0].op, Output)


@register_canonicalize
@node_rewriter([DimShuffle])
def local_transpose_band_part(fgraph: FunctionGraph, node: Apply) -> Any:
    """band_part(x, lower, upper, d)^T -> band_part(x^T, upper, lower, d)

    Transposing swaps the band's two limits (entry (i, j) of x^T is x's (j, i), at
    j - i = -(i - j)) and keeps the diagonal.  Done when the band is read only by the
    transpose, so that bands of a sum line up for local_add_band_parts (the gradient of
    a transposed triangular solve)."""
    x = _transposed(node.outputs[0])
    if x is None:
        return None
    band = x.owner
    if band is None or not isinstance(band.op, BandPart) or not _sole_client(fgraph, x):
        return None
    op = band.op
    new = band_part(mT(band.inputs[0]), op.upper, op.lower, op.diagonal)
    return [_like(new, node.outputs[0])]


@register_canonicalize
@node_rewriter([Elemwise])
def local_add_band_parts(fgraph: FunctionGraph, node: Apply) -> Any:
    """band_part(x, B) + band_part(y, B) + ... -> band_part(x + y + ..., B)

    band_part keeps the entries of the band B (the diagonal times a factor d) and zeros
    the rest: it is linear, so a sum of bands of one B is the band of the sum, taken
    once (in place) after one fused pass that forms the sum.  Only terms whose band is
    read by this sum alone and which are not broadcast (the band of a broadcast row is
    not the broadcast of its band) are combined; the other terms stay as they are."""
    op = node.op
    if not isinstance(op, Elemwise) or not isinstance(op.scalar_op, type(ts.add)) \
            or len(node.inputs) < 2:
        return None
    out_bc = tensor_type(node.outputs[0]).broadcastable
    # (lower, upper, diagonal) -> [(k, the band's input x) for the terms band_part(x, ...)]
    groups: dict[tuple[Any, ...], list[tuple[int, Variable]]] = {}
    for k, v in enumerate(node.inputs):
        owner = v.owner
        if (owner is not None and isinstance(owner.op, BandPart)
                and tensor_type(v).broadcastable == out_bc and _sole_client(fgraph, v)):
            band = owner.op
            groups.setdefault((band.lower, band.upper, band.diagonal), []).append(
                (k, owner.inputs[0]))
    merged = {key: ks for key, ks in groups.items() if len(ks) >= 2}
    if not merged:
        return None
    used = {k for ks in merged.values() for k, _ in ks}
    terms = [v for k, v in enumerate(node.inputs) if k not in used]
    for (lower, upper, diagonal), ks in merged.items():
        inner = [x for _, x in ks]
        terms.append(band_part(tm.add(*inner), lower, upper, diagonal))
    out = tm.add(*terms) if len(terms) > 1 else terms[0]
    return [_like(out, node.outputs[0])]
