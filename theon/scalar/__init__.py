"""Scalar types and scalar ops: the elements that ``theon.tensor.Elemwise`` lifts to arrays.

The elementwise ops are rows of one table, :mod:`theon.scalar.table`; the family
modules (``basic``, ``arith``, ``logic``, ``special``, ``transcendental``) export
them with the few ops written out by hand.  This package exports every op and op
class (the rows' from :mod:`theon.scalar.rowops`), under PyTensor's names too
(``Owens_t``, ``upgrade_to_float_no_complex``, ``convert_to_float64``, ...); PyTensor's
``pytensor.scalar.basic`` is ``theon.scalar.basic`` and ``pytensor.scalar.math`` an
old path of ``theon.compat`` (``theon.scalar.special`` and this package).

>>> from theon import scalar as ts
>>> x = ts.float64("x")
>>> str((ts.exp(x) + 1).owner.op)
'add'
"""

from theon.link.registry import register_linker_backend as _register_linker_backend
from theon.scalar import basic as basic  # first: see the end of theon.scalar.basic
from theon.scalar import rowops as _rowops
from theon.scalar.arith import (
    Clip,
    Reciprocal,
    RoundHalfToEven,
    clip,
    reciprocal,
    round,
    round_half_to_even,
)
from theon.scalar.basic import (
    BinaryScalarOp,
    Cast,
    OutputTypePref,
    ScalarMaximum,
    ScalarMinimum,
    ScalarOp,
    UnaryScalarOp,
    bool_out,
    cast,
    complex_to_real,
    convert_to_bool,
    convert_to_complex64,
    convert_to_complex128,
    convert_to_float16,
    convert_to_float32,
    convert_to_float64,
    convert_to_int8,
    convert_to_int16,
    convert_to_int32,
    convert_to_int64,
    convert_to_uint8,
    convert_to_uint16,
    convert_to_uint32,
    convert_to_uint64,
    float_out,
    int_out,
    same_out,
    same_out_nobool,
    same_out_nocomplex,
    scalar_abs,
    scalar_maximum,
    scalar_minimum,
    ufunc_out_dtypes,
    upcast_out,
    upcast_out_no_complex,
    upcast_out_nobool,
    upcast_out_nocomplex,
    upgrade_to_float,
    upgrade_to_float_no_complex,
    upgrade_to_float_nocomplex,
)
from theon.scalar.composite import (
    Composite,
)
from theon.scalar.logic import (
    Switch,
    switch,
)
from theon.scalar.rowops import *  # noqa: F403  (every row's class and op, by name)
from theon.scalar.special import (
    PolyGamma,
    betainc_grad,
    gammaincc_grad,
    hyp2f1_grad,
    polygamma,
    tri_gamma,
)
from theon.scalar.type import (
    ScalarConstant,
    ScalarType,
    ScalarVariable,
    all_dtypes,
    as_scalar,
    bool_,
    complex64,
    complex128,
    complex_dtypes,
    constant,
    continuous_dtypes,
    discrete_dtypes,
    float16,
    float32,
    float64,
    float_dtypes,
    get_scalar_type,
    int8,
    int16,
    int32,
    int64,
    int_dtypes,
    is_weak_scalar,
    uint8,
    uint16,
    uint32,
    uint64,
    uint_dtypes,
    upcast,
    weak_dtype,
)

__all__ = [
    "BinaryScalarOp",
    "Cast",
    "Clip",
    "Composite",
    "PolyGamma",
    "Reciprocal",
    "RoundHalfToEven",
    "ScalarMaximum",
    "ScalarMinimum",
    "Switch",
    "betainc_grad",
    "convert_to_bool",
    "convert_to_complex128",
    "convert_to_complex64",
    "convert_to_float16",
    "convert_to_float32",
    "convert_to_float64",
    "convert_to_int16",
    "convert_to_int32",
    "convert_to_int64",
    "convert_to_int8",
    "convert_to_uint16",
    "convert_to_uint32",
    "convert_to_uint64",
    "convert_to_uint8",
    "gammaincc_grad",
    "hyp2f1_grad",
    "scalar_abs",
    "scalar_maximum",
    "scalar_minimum",
    "upcast_out_no_complex",
    "upgrade_to_float_no_complex",
    "OutputTypePref",
    "ScalarConstant",
    "ScalarOp",
    "ScalarType",
    "ScalarVariable",
    "UnaryScalarOp",
    "all_dtypes",
    "as_scalar",
    "bool_",
    "bool_out",
    "cast",
    "clip",
    "complex128",
    "complex64",
    "complex_dtypes",
    "complex_to_real",
    "constant",
    "continuous_dtypes",
    "discrete_dtypes",
    "float16",
    "float32",
    "float64",
    "float_dtypes",
    "float_out",
    "get_scalar_type",
    "int16",
    "int32",
    "int64",
    "int8",
    "int_dtypes",
    "int_out",
    "is_weak_scalar",
    "polygamma",
    "reciprocal",
    "round",
    "round_half_to_even",
    "same_out",
    "same_out_nobool",
    "same_out_nocomplex",
    "switch",
    "tri_gamma",
    "ufunc_out_dtypes",
    "uint16",
    "uint32",
    "uint64",
    "uint8",
    "uint_dtypes",
    "upcast",
    "upcast_out",
    "upcast_out_nobool",
    "upcast_out_nocomplex",
    "upgrade_to_float",
    "upgrade_to_float_nocomplex",
    "weak_dtype",
]
# every row's class and op (theon.scalar.rowops, written from the rows)
__all__ += _rowops.__all__

# every family module loads with the package (this one, whose ops are all rows, after the
# rest: the table it imports needs theon.scalar.basic loaded first)
from theon.scalar import transcendental as transcendental  # noqa: E402

# The "py" linker's emitters for these Ops live above this layer: name them for the
# linker to import before its first link (see theon.link.registry).
_register_linker_backend("py", "theon.backends.py.scalar")
_register_linker_backend("jax", "theon.backends.jax.scalar")  # (jax loads when a rule runs)
