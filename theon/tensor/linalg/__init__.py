"""Linear algebra with gradients: decompositions, solves, inverses, determinants,
spectral decompositions (:mod:`.spectral`) and the rest (:mod:`.misc`).

Reached as ``theon.tensor.linalg`` (``import theon.tensor as T; T.linalg.solve(A, b)``);
Theano's and PyTensor's module paths ``theon.tensor.nlinalg`` and
``theon.tensor.slinalg`` name the same functions.  Every function is batched over
leading axes, has a gradient (``lu_factor`` and ``lu_solve``'s factors excepted)
and ``infer_shape``; a singular or non-positive-definite input raises
``numpy.linalg.LinAlgError`` naming the node and the line that built it, or gives
NaN when the Op is built with ``on_error='nan'``.  Rewrites (:mod:`.rewriting`) turn
``inv(A) @ b`` into ``solve(A, b)``, ``log(det(A))`` into ``slogdet`` and further
into the Cholesky diagonal, and use what is known about ``A`` (triangular,
diagonal, symmetric).  SciPy is imported when an Op first runs.

>>> import numpy as np
>>> import theon, theon.tensor as T
>>> A, b = T.dmatrix("A"), T.dvector("b")
>>> f = theon.function([A, b], T.linalg.solve(A, b))
>>> f(np.array([[3.0, 1.0], [1.0, 2.0]]), np.array([9.0, 8.0]))
array([2., 3.])
"""

from theon.link.registry import register_linker_backend as _register_linker_backend
from theon.rewriting.db import register_rewrite_module as _register_rewrite_module
from theon.tensor.linalg import decomp, misc, solvers, spectral
from theon.tensor.linalg.chol_grad import CholeskyGrad, cholesky_grad
from theon.tensor.linalg.decomp import (
    LU,
    Cholesky,
    Det,
    LUFactor,
    MatrixInverse,
    MatrixPinv,
    SLogDet,
    cholesky,
    det,
    inv,
    lu,
    lu_factor,
    matrix_inverse,
    pinv,
    slogdet,
)
from theon.tensor.linalg.eig import Eig, EigGrad, eig
from theon.tensor.linalg.misc import *  # noqa: F403
from theon.tensor.linalg.solvers import (
    CholeskySolve,
    LUSolve,
    Solve,
    SolveTriangular,
    TriMatMul,
    cho_solve,
    lu_solve,
    solve,
    solve_triangular,
)
from theon.tensor.linalg.spectral import *  # noqa: F403

__all__ = [
    "LU",
    "Cholesky",
    "CholeskyGrad",
    "CholeskySolve",
    "Det",
    "Eig",
    "EigGrad",
    "LUFactor",
    "LUSolve",
    "MatrixInverse",
    "MatrixPinv",
    "SLogDet",
    "Solve",
    "SolveTriangular",
    "TriMatMul",
    "cho_solve",
    "cholesky",
    "cholesky_grad",
    "decomp",
    "misc",
    "solvers",
    "spectral",
    "det",
    "eig",
    "inv",
    "lu",
    "lu_factor",
    "lu_solve",
    "matrix_inverse",
    "pinv",
    "slogdet",
    "solve",
    "solve_triangular",
    *spectral.__all__,
    *misc.__all__,
]


_register_rewrite_module("theon.tensor.linalg.rewriting")


# the JAX rules of these Ops (mode="JAX"), imported by the JAX linker before its first link
_register_linker_backend("jax", "theon.backends.jax.linalg")
# the numba spellings of the whole-graph tier (theon.link.tier1.nbgraph)
_register_linker_backend("numba", "theon.backends.numba.linalg")
