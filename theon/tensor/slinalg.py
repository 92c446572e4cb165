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
    LUFactor,
    LUSolve,
    Solve,
    SolveTriangular,
    cho_solve,
    cholesky,
    lu,
    lu_factor,
    lu_solve,
    solve,
    solve_triangular,
)

__all__ = [
    "LU",
    "Cholesky",
    "CholeskySolve",
    "LUFactor",
    "LUSolve",
    "Solve",
    "SolveTriangular",
    "cho_solve",
    "cholesky",
    "lu",
    "lu_factor",
    "lu_solve",
    "solve",
    "solve_triangular",
]
