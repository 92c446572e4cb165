"""Theano's and PyTensor's ``tensor.nlinalg`` module path: the same functions as
:mod:`theon.tensor.linalg` (NumPy-backed linear algebra).

>>> from theon.tensor.nlinalg import matrix_inverse
>>> import theon.tensor.linalg
>>> matrix_inverse is theon.tensor.linalg.inv
True
"""

from theon.tensor.linalg import (
    Det,
    MatrixInverse,
    MatrixPinv,
    SLogDet,
    det,
    inv,
    matrix_inverse,
    pinv,
    slogdet,
)

__all__ = [
    "Det",
    "MatrixInverse",
    "MatrixPinv",
    "SLogDet",
    "det",
    "inv",
    "matrix_inverse",
    "pinv",
    "slogdet",
]
