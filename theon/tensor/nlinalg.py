"""Theano's and PyTensor's ``tensor.nlinalg`` module path: the same functions as
:mod:`theon.tensor.linalg` (NumPy-backed linear algebra).

>>> from theon.tensor.nlinalg import matrix_inverse
>>> import theon.tensor.linalg
>>> matrix_inverse is theon.tensor.linalg.inv
True
"""

from theon.tensor.linalg import (
    SVD,
    Det,
    Eig,
    EigGrad,
    Eigh,
    Eigvalsh,
    Lstsq,
    MatrixInverse,
    MatrixPinv,
    QRFull,
    SLogDet,
    det,
    eig,
    eigh,
    eigvalsh,
    extract_diag,
    inv,
    kron,
    lstsq,
    matrix_inverse,
    matrix_power,
    norm,
    pinv,
    qr,
    slogdet,
    svd,
    trace,
)

__all__ = [
    "Det",
    "Eig",
    "EigGrad",
    "Eigh",
    "Eigvalsh",
    "Lstsq",
    "MatrixInverse",
    "MatrixPinv",
    "QRFull",
    "SLogDet",
    "SVD",
    "det",
    "eig",
    "eigh",
    "eigvalsh",
    "extract_diag",
    "inv",
    "kron",
    "lstsq",
    "matrix_inverse",
    "matrix_power",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "svd",
    "trace",
]
