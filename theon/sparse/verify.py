"""``verify_grad_sparse``: :func:`theon.verify_grad` for functions of sparse matrices.

``theon.verify_grad`` perturbs the entries of dense arrays.  For a sparse input
the perturbed values are either

* all of its entries (``structured=False``, the regular gradient): the function
  is checked on the dense matrix, converted to sparse before ``op`` (so the
  gradient that reaches the dense input is the sparse gradient made dense); or
* its stored entries only (``structured=True``): the function is checked on the
  vector of stored values, from which ``CSM`` rebuilds the matrix with the
  point's pattern (so the check sees the gradient at those entries only, and a
  structured gradient is right when it agrees there).

Sparse outputs are made dense before the check (``DenseFromSparse(structured)``).
This is the role of Theano's ``theano.sparse.verify_grad_sparse``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = ["verify_grad_sparse"]


def verify_grad_sparse(
    op: Callable[..., Any], pt: Sequence[Any], structured: bool = False, **kwargs: Any
) -> None:
    """Check the gradient of ``op`` at ``pt``, where some points are sparse matrices.

    Parameters
    ----------
    op
        Takes one variable per point (sparse variables for the sparse points) and
        returns one variable, sparse or dense.
    pt
        The point: ``scipy.sparse`` CSR/CSC matrices and dense arrays (floats).
    structured
        ``True``: perturb only the stored entries of the sparse points (for
        structured gradients); ``False``: perturb every entry (regular gradients).
    kwargs
        Passed to :func:`theon.verify_grad` (``eps``, ``abs_tol``, ``rng``, ``mode``...).

    Raises
    ------
    theon.gradient.GradientError
        When a gradient disagrees with finite differences.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> from theon.sparse import structured_exp
    >>> m = sp.random(3, 4, density=0.5, format="csr", random_state=0)
    >>> verify_grad_sparse(structured_exp, [m], structured=True)
    """
    from theon.gradient.verify import verify_grad

    from .ops import CSM, DenseFromSparse, SparseFromDense
    from .type import is_sparse_variable

    pt = list(pt)
    sparse_at = [k for k, p in enumerate(pt) if sp.issparse(p)]
    if not sparse_at:
        raise TypeError("verify_grad_sparse: no point is a scipy.sparse matrix; use "
                        "theon.verify_grad")
    fmts: dict[int, str] = {}
    points: list[Any] = []
    for k, p in enumerate(pt):
        if k in fmts or not sp.issparse(p):
            points.append(np.asarray(p))
            continue
        fmt = "csc" if p.format == "csc" else "csr"
        fmts[k] = fmt
        m = getattr(sp, f"{fmt}_matrix")(p)
        m.sum_duplicates()
        if structured:
            points.append(np.asarray(m.data))
            fmts[k] = fmt
            pt[k] = m
        else:
            points.append(m.toarray())

    def fun(*inputs: Any) -> Any:
        args = list(inputs)
        for k, fmt in fmts.items():
            if structured:
                m = pt[k]
                args[k] = CSM(fmt)(inputs[k], np.asarray(m.indices, dtype=np.int32),
                                   np.asarray(m.indptr, dtype=np.int32),
                                   np.asarray(m.shape, dtype=np.int64))
            else:
                args[k] = SparseFromDense(fmt)(inputs[k])
        out = op(*args)
        if is_sparse_variable(out):
            # read every entry of a sparse output in the regular check (a structured
            # read would hide the entries the perturbations create)
            out = DenseFromSparse(structured=structured)(out)
        return out

    verify_grad(fun, points, **kwargs)
