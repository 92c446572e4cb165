"""Theano's module path ``theano.sparse.basic``: the sparse type, its Ops and functions.

>>> from theon.sparse.basic import csr_matrix, structured_dot
>>> csr_matrix("x").format
'csr'
"""

from __future__ import annotations

from theon.sparse.math import (
    Dot,
    ScaleSV,
    StructuredDot,
    StructuredDotGrad,
    col_scale,
    dot,
    row_scale,
    sign,
    structured_add,
    structured_dot,
    structured_exp,
    structured_log,
    structured_maximum,
    structured_minimum,
    structured_pow,
    structured_sigmoid,
)
from theon.sparse.ops import (
    CSC,
    CSM,
    CSR,
    AddSD,
    AddSS,
    AsFormat,
    Cast,
    CSMGrad,
    CSMProperties,
    DenseFromSparse,
    MulSD,
    MulSS,
    SparseFromDense,
    SpShape,
    SpSum,
    Transpose,
    add,
    as_format,
    cast,
    csc_from_dense,
    csm_data,
    csm_indices,
    csm_indptr,
    csm_properties,
    csm_shape,
    csr_from_dense,
    dense_from_sparse,
    mul,
    neg,
    sp_ones_like,
    sp_shape,
    sp_sum,
    sp_zeros_like,
    sub,
    transpose,
)
from theon.sparse.type import (
    SparseConstant,
    SparseTensorType,
    SparseVariable,
    as_sparse,
    as_sparse_or_tensor_variable,
    as_sparse_variable,
    csc_dmatrix,
    csc_fmatrix,
    csc_matrix,
    csr_dmatrix,
    csr_fmatrix,
    csr_matrix,
    is_sparse_variable,
    matrix,
)

#: Theano's name for the type
Sparse = SparseTensorType
#: ``sum`` over axes (None, 0, 1): :func:`sp_sum`
sum = sp_sum
sparse_dot = dot
mul_s_d = MulSD()
mul_s_s = MulSS()
add_s_s = AddSS()
add_s_d = AddSD()
structured_multiply = mul


__all__ = [
    "CSC", "CSM", "CSMGrad", "CSMProperties", "CSR", "AddSD", "AddSS", "AsFormat", "Cast",
    "DenseFromSparse", "Dot", "MulSD", "MulSS", "ScaleSV", "SpShape", "SpSum", "Sparse",
    "SparseConstant", "SparseFromDense", "SparseTensorType", "SparseVariable", "StructuredDot",
    "StructuredDotGrad", "Transpose", "add", "add_s_d", "add_s_s", "as_format", "as_sparse",
    "as_sparse_or_tensor_variable", "as_sparse_variable", "cast", "col_scale", "csc_dmatrix",
    "csc_fmatrix", "csc_from_dense",
    "csc_matrix", "csm_data", "csm_indices", "csm_indptr", "csm_properties", "csm_shape",
    "csr_dmatrix", "csr_fmatrix", "csr_from_dense", "csr_matrix", "dense_from_sparse", "dot",
    "is_sparse_variable", "matrix", "mul", "mul_s_d", "mul_s_s", "neg", "row_scale",
    "sign", "sp_ones_like", "sp_shape", "sp_sum", "sp_zeros_like", "sparse_dot", "structured_add",
    "structured_dot", "structured_exp", "structured_log", "structured_maximum",
    "structured_minimum", "structured_multiply", "structured_pow", "structured_sigmoid", "sub",
    "sum", "transpose",
]
