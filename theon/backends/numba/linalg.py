"""numba spellings of the linear-algebra Ops of PyMC's Gaussian processes and
multivariate normals, for the whole-graph tier (:mod:`theon.link.tier1.nbgraph`); float64
only.

- ``Cholesky``: ``np.linalg.cholesky`` (LAPACK ``potrf`` through numba, which reads
  the lower triangle, as theon's does; the upper factor is that of the transpose).
  A matrix that is not positive definite raises, so tier 0 serves the call (its
  error, or its NaN with ``on_error='nan'``).
- ``SolveTriangular``: forward or back substitution (:data:`TRSOLVE`) for each
  ``lower``/``trans``/``unit_diagonal`` and a vector or matrix right-hand side; a zero
  on the diagonal raises (tier 0: ``LinAlgError`` or NaN).  Batched through the
  ``Blockwise`` spelling of :mod:`theon.backends.numba.tensor_extra`.
- ``CholeskyGrad``: ``sym(L^-T Phi(L^T Lbar) L^-1)`` (:data:`CHOLGRAD`), the formula of
  :mod:`theon.tensor.linalg.chol_grad` (its ``perform`` runs it blocked beyond 64
  rows), from the lower triangles of the factor and of its gradient.
- ``BandPart``: a copy with the entries outside the band zeroed and the diagonal
  scaled, on matrices and stacks of them.

Inplace forms are spelled out of place (the graph function writes into no input).

>>> from theon.backends.numba.linalg import TRSOLVE
>>> import numpy as np
>>> ns = {"np": np}
>>> exec(TRSOLVE, ns)
>>> ns["_la_trsolve"](np.array([[2.0, 9.0], [1.0, 1.0]]), np.array([[2.0], [2.0]]),
...                   True, False, False)
array([[1.],
       [1.]])
"""

from __future__ import annotations

from theon.graph.basic import Apply
from theon.link.tier1.nbgraph import HELPERS, NbContext, dtype_of, nb_spell, ndim_of
from theon.tensor.linalg._common import BandPart
from theon.tensor.linalg.chol_grad import CholeskyGrad
from theon.tensor.linalg.decomp import Cholesky
from theon.tensor.linalg.solvers import SolveTriangular

__all__ = ["CHOLGRAD", "TRSOLVE"]

#: ``x`` with ``op(T) x = b`` for the ``lower`` (or upper) triangle ``T`` of ``a``, ``op``
#: the transpose if ``trans``, ones on the diagonal if ``unit``; ``b`` a matrix
TRSOLVE = """def _la_trsolve(a, b, lower, trans, unit):
    n = a.shape[0]
    if a.shape[1] != n or b.shape[0] != n:
        raise ValueError('solve_triangular: the shapes do not match')
    m = b.shape[1]
    x = np.empty((n, m), np.float64)
    for i in range(n):
        if not unit and a[i, i] == 0.0:
            raise ValueError('solve_triangular: a zero on the diagonal')
        for j in range(m):
            x[i, j] = b[i, j]
    forward = lower != trans
    for s in range(n):
        i = s if forward else n - 1 - s
        lo = 0 if forward else i + 1
        hi = i if forward else n
        for k in range(lo, hi):
            c = a[k, i] if trans else a[i, k]
            for j in range(m):
                x[i, j] -= c * x[k, j]
        if not unit:
            d = a[i, i]
            for j in range(m):
                x[i, j] /= d
    return x"""

#: ``sym(L^-T Phi(L^T Lbar) L^-1)`` for the lower triangles of ``L`` and ``Lbar``
#: (``Phi``: the lower triangle, its diagonal halved): ``L^-1`` by substitution, row by
#: row, and the products as loops over the triangles (a sixth of the multiply-adds of
#: full products; measured on one core, faster than ``np.dot`` through numba's BLAS
#: up to 400 x 400 at least: 3 us for 20 x 20, 91 us for 100 x 100)
CHOLGRAD = """def _la_cholgrad(L, G):
    n = L.shape[0]
    if L.shape[1] != n or G.shape[0] != n or G.shape[1] != n:
        raise ValueError('CholeskyGrad: the shapes do not match')
    for i in range(n):
        if L[i, i] == 0.0:
            raise ValueError('CholeskyGrad: a zero on the diagonal of the factor')
    inv = np.zeros((n, n), np.float64)
    for i in range(n):
        d = 1.0 / L[i, i]
        for k in range(i):
            c = L[i, k]
            for j in range(k + 1):
                inv[i, j] -= c * inv[k, j]
        for j in range(i):
            inv[i, j] *= d
        inv[i, i] = d
    phi = np.zeros((n, n), np.float64)
    for k in range(n):
        for i in range(k + 1):
            c = L[k, i]
            for j in range(i + 1):
                phi[i, j] += c * G[k, j]
    for i in range(n):
        phi[i, i] *= 0.5
    w = np.zeros((n, n), np.float64)
    for i in range(n):
        for k in range(i + 1):
            c = phi[i, k]
            for j in range(k + 1):
                w[i, j] += c * inv[k, j]
    s = np.zeros((n, n), np.float64)
    for k in range(n):
        for i in range(k + 1):
            c = inv[k, i]
            for j in range(k + 1):
                s[i, j] += c * w[k, j]
    out = np.empty((n, n), np.float64)
    for i in range(n):
        for j in range(n):
            out[i, j] = (s[i, j] + s[j, i]) * 0.5
    return out"""

HELPERS["_la_trsolve"] = TRSOLVE
HELPERS["_la_cholgrad"] = CHOLGRAD


def _float64(node: Apply) -> bool:
    return all(dtype_of(v) == "float64" for v in (*node.inputs, *node.outputs))


@nb_spell.register(Cholesky)
def _spell_cholesky(op: Cholesky, node: Apply, ctx: NbContext) -> list[str] | None:
    """``np.linalg.cholesky`` of the lower triangle (of the transpose for ``lower=False``);
    raises where the matrix is not positive definite."""
    if type(op).perform is not Cholesky.perform or not _float64(node):
        return None
    a, o = ctx.arg(0), ctx.out(0)
    if op.lower:
        return [f"{o} = np.linalg.cholesky({a})"]
    return [f"{o} = np.ascontiguousarray(np.linalg.cholesky({a}.T).T)"]


@nb_spell.register(SolveTriangular)
def _spell_solve_triangular(op: SolveTriangular, node: Apply, ctx: NbContext
                            ) -> list[str] | None:
    """Substitution (:data:`TRSOLVE`) on a matrix right-hand side (a vector as one column)."""
    if type(op).perform is not SolveTriangular.perform or not _float64(node):
        return None
    a, b, o = ctx.arg(0), ctx.arg(1), ctx.out(0)
    if ndim_of(node.inputs[0]) != 2 or ndim_of(node.inputs[1]) != op.b_ndim:
        return None
    flags = f"{op.lower}, {bool(op.trans)}, {op.unit_diagonal}"
    if op.b_ndim == 2:
        return [f"{o} = _la_trsolve({a}, {b}, {flags})"]
    col = ctx.tmp()
    return [f"{col} = np.ascontiguousarray({b}).reshape(({b}.shape[0], 1))",
            f"{o} = _la_trsolve({a}, {col}, {flags}).reshape(({b}.shape[0],))"]


@nb_spell.register(CholeskyGrad)
def _spell_cholesky_grad(op: CholeskyGrad, node: Apply, ctx: NbContext) -> list[str] | None:
    """:data:`CHOLGRAD` of the factor and its gradient (their transposes for ``lower=False``:
    the result is symmetric)."""
    if type(op).perform is not CholeskyGrad.perform or not _float64(node):
        return None
    f, g, o = ctx.arg(0), ctx.arg(1), ctx.out(0)
    if op.lower:
        return [f"{o} = _la_cholgrad({f}, {g})"]
    return [f"{o} = _la_cholgrad({f}.T, {g}.T)"]


@nb_spell.register(BandPart)
def _spell_band_part(op: BandPart, node: Apply, ctx: NbContext) -> list[str] | None:
    """A copy with zeros outside ``-lower <= j - i <= upper`` of the last two axes and the
    diagonal times ``diagonal`` (where the band keeps it)."""
    x = node.inputs[0]
    dt = dtype_of(x)
    if type(op).perform is not BandPart.perform or dt != dtype_of(node.outputs[0]) or (
            op.diagonal != 1.0 and dt != "float64"):
        return None
    nd = ndim_of(x)
    npdt = "np.bool_" if dt == "bool" else f"np.{dt}"
    xs = ctx.arg(0)
    o, c, b, i, j, d = (ctx.out(0), ctx.tmp(), ctx.tmp(), ctx.tmp(), ctx.tmp(), ctx.tmp())
    batch = " * ".join(f"{xs}.shape[{k}]" for k in range(nd - 2)) or "1"
    m, n = f"{xs}.shape[{nd - 2}]", f"{xs}.shape[{nd - 1}]"
    outside = []
    if op.lower is not None:
        outside.append(f"{d} < {-op.lower}")
    if op.upper is not None:
        outside.append(f"{d} > {op.upper}")
    lines = [f"{o} = np.empty({xs}.shape, {npdt})", f"{o}[...] = {xs}",
             f"{c} = {o}.reshape(({batch}, {m}, {n}))",
             f"for {b} in range({batch}):",
             f"    for {i} in range({m}):",
             f"        for {j} in range({n}):",
             f"            {d} = {j} - {i}"]
    if outside:
        lines += [f"            if {' or '.join(outside)}:",
                  f"                {c}[{b}, {i}, {j}] = 0"]
    keeps_diagonal = (op.lower is None or op.lower >= 0) and (op.upper is None or op.upper >= 0)
    if op.diagonal != 1.0 and keeps_diagonal:
        lines += [f"            if {d} == 0:",
                  f"                {c}[{b}, {i}, {j}] *= {ctx.const(op.diagonal)}"]
    if not outside and not (op.diagonal != 1.0 and keeps_diagonal):
        return [f"{o} = np.empty({xs}.shape, {npdt})", f"{o}[...] = {xs}"]
    return lines
