"""Theano's and PyTensor's ``tensor.slinalg`` module path: the same functions as
:mod:`theon.tensor.linalg` (SciPy-backed linear algebra).

>>> from theon.tensor.slinalg import cholesky
>>> import theon.tensor.linalg
>>> cholesky is theon.tensor.linalg.cholesky
True
"""

from theon.tensor.linalg import (
    LU,
    Cholesky,
    CholeskySolve,
    Expm,
    LUFactor,
    LUSolve,
    Solve,
    SolveContinuousLyapunov,
    SolveDiscreteLyapunov,
    SolveTriangular,
    block_diag,
    cho_solve,
    cholesky,
    eigvalsh,
    expm,
    kron,
    lu,
    lu_factor,
    lu_solve,
    solve,
    solve_continuous_lyapunov,
    solve_discrete_lyapunov,
    solve_triangular,
)

__all__ = [
    "Cholesky",
    "CholeskySolve",
    "Expm",
    "LU",
    "LUFactor",
    "LUSolve",
    "Solve",
    "SolveContinuousLyapunov",
    "SolveDiscreteLyapunov",
    "SolveTriangular",
    "block_diag",
    "cho_solve",
    "cholesky",
    "eigvalsh",
    "expm",
    "kron",
    "lu",
    "lu_factor",
    "lu_solve",
    "solve",
    "solve_continuous_lyapunov",
    "solve_discrete_lyapunov",
    "solve_triangular",
]
