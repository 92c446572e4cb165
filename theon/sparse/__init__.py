"""Sparse matrices: ``scipy.sparse`` CSR/CSC values in theon graphs (Theano's ``theano.sparse``).

``import theon.sparse`` (not ``import theon``) loads scipy.sparse.  The Ops live in
:mod:`theon.sparse.ops` (types, conversions, ``+``, ``*``, sums) and
:mod:`theon.sparse.math` (products, structured functions, scaling);
:mod:`theon.sparse.basic` is Theano's module path for all of them.

>>> import numpy as np, scipy.sparse as sp, theon, theon.tensor as tt
>>> import theon.sparse as S
>>> x, w = S.csr_matrix("x"), tt.dvector("w")
>>> loss = tt.sum(S.dot(x, w) ** 2)
>>> f = theon.function([x, w], [loss, theon.grad(loss, w)])
>>> m = sp.csr_matrix(np.array([[1.0, 0.0], [0.0, 2.0]]))
>>> [v.tolist() for v in f(m, np.array([1.0, 1.0]))]
[5.0, [2.0, 8.0]]
"""

from __future__ import annotations

from theon.link.registry import register_linker_backend as _register_linker_backend
from theon.sparse.basic import *  # noqa: F403
from theon.sparse.basic import __all__ as _basic_all
from theon.sparse.verify import verify_grad_sparse

__all__ = [*_basic_all, "verify_grad_sparse"]


# the JAX rules of these Ops (mode="JAX"), imported by the JAX linker before its first link
_register_linker_backend("jax", "theon.backends.jax.sparse")
