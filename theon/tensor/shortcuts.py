"""The shortcut constructors of tensor variables: ``tensor``, ``scalar``/``vector``/
``matrix``/... in ``config.floatX``, and the typed ones of each dtype prefix (``b``
int8, ``w`` int16, ``i`` int32, ``l`` int64, ``f`` float32, ``d`` float64, ``c``
complex64, ``z`` complex128), one variable or several (``dmatrices("a", "b")``).

>>> from theon.tensor.shortcuts import dmatrix, ivectors
>>> dmatrix("x").type, [v.name for v in ivectors("i", "j")]
(TensorType(float64, shape=(None, None)), ['i', 'j'])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from theon.tensor.type import ShapeT, TensorType, _shape_text
from theon.tensor.variable import TensorVariable


# shortcuts -----------------------------------------------------------------------
def _multi(make: Callable[[str | None], TensorVariable], what: str) -> Callable[..., Any]:
    """A plural constructor: ``dmatrices('x', 'y')`` or ``dmatrices(3)``."""

    def many(*names: Any) -> Any:
        if len(names) == 1 and isinstance(names[0], int):
            return [make(None) for _ in range(names[0])]
        if len(names) == 1 and isinstance(names[0], str):
            text = names[0]
            if "," in text or " " in text:
                names = tuple(n for n in text.replace(",", " ").split() if n)
            else:  # Theano's spelling: one letter per variable, ``dmatrices('xy')``
                names = tuple(text)
        if len(names) == 1:
            return make(names[0])
        return [make(n) for n in names]

    plural = what[:-1] + "ces" if what.endswith("matrix") else what + "s"
    many.__name__ = many.__qualname__ = plural
    many.__doc__ = (
        f"Several {what} variables: ``{plural}('x', 'y')``, ``{plural}('x y')``, "
        f"``{plural}('xy')`` (one letter per variable, as in Theano) or "
        f"``{plural}(n)`` (n unnamed).\n\n"
        f">>> x, y = {plural}('xy')\n>>> y.name, y.type == {what}().type\n('y', True)\n"
    )
    return many


def _looks_like_dtype(x: Any) -> bool:
    """Whether ``x`` names a dtype (``"float64"``, ``"floatX"``, ``np.int32``), not a
    variable name: single letters (``"x"``, but also NumPy's codes ``"f"``, ``"d"``) are names."""
    if not isinstance(x, str):
        return x is not None
    if x == "floatX":
        return True
    if len(x) < 2:
        return False
    try:
        np.dtype(x)
    except TypeError:
        return False
    return True


def tensor(
    *args: Any,
    dtype: Any = None,
    shape: Sequence[int | None] | None = None,
    name: str | None = None,
    broadcastable: Sequence[bool] | None = None,
) -> TensorVariable:
    """A symbolic tensor of ``dtype`` (default ``config.floatX``) and static ``shape``.

    Three spellings are accepted: theon's and Theano's ``tensor(dtype, shape, name)``
    (a pattern of booleans for ``shape`` is Theano's broadcastable pattern) and
    PyTensor's ``tensor(name, shape=..., dtype=...)``.  A first argument that names a
    dtype (``"float64"``, ``"floatX"``, ``"int32"``) is the dtype, any other string
    is the name.

    >>> x = tensor("int32", shape=(None, 3), name="x")
    >>> x.type
    TensorType(int32, shape=(None, 3))
    >>> y = tensor("y", shape=(2, None), dtype="float32")
    >>> y.name, y.type
    ('y', TensorType(float32, shape=(2, None)))
    >>> tensor("float64", (False, True)).type
    TensorType(float64, shape=(None, 1))
    """
    if len(args) > 3:
        raise TypeError(f"tensor() takes at most 3 positional arguments, got {len(args)}")
    rest = list(args)
    if rest and dtype is None and _looks_like_dtype(rest[0]):
        dtype = rest.pop(0)
    elif rest and isinstance(rest[0], str) and name is None:
        name = rest.pop(0)
    for value, what in zip(rest, ("shape", "name")):
        if what == "shape":
            if shape is not None or broadcastable is not None:
                raise TypeError("tensor(): the shape is given twice")
            shape = value
        elif name is not None:
            raise TypeError("tensor(): the name is given twice")
        else:
            name = value
    if dtype is None:
        dtype = "floatX"
    if shape is None and broadcastable is None:
        raise TypeError(
            "tensor() needs a shape, e.g. tensor('x', shape=(None, 3)) or "
            "tensor('float64', shape=(None, 3))"
        )
    return TensorType(dtype, shape=shape, broadcastable=broadcastable)(name)


def _floatx_factory(kind: str, default_shape: ShapeT) -> Callable[..., TensorVariable]:
    """``matrix(name=None, dtype=None, shape=None)``: a variable of dtype floatX by default."""

    def make(
        name: str | None = None, dtype: Any = None, shape: Sequence[int | None] | None = None
    ) -> TensorVariable:
        if shape is None:
            shape = default_shape
        elif len(tuple(shape)) != len(default_shape):
            raise ValueError(f"{kind}: shape {tuple(shape)} must have {len(default_shape)} "
                             "entries")
        return TensorType("floatX" if dtype is None else dtype, shape)(name)

    make.__name__ = make.__qualname__ = kind
    make.__doc__ = (
        f"A symbolic {kind} (static shape {_shape_text(default_shape)}) of dtype ``dtype``, "
        f"by default ``config.floatX`` read at call time.\n\n"
        f">>> {kind}('x').ndim\n{len(default_shape)}\n"
    )
    return make


scalar = _floatx_factory("scalar", ())
scalars = _multi(scalar, "scalar")
vector = _floatx_factory("vector", (None,))
vectors = _multi(vector, "vector")
matrix = _floatx_factory("matrix", (None, None))
matrices = _multi(matrix, "matrix")
row = _floatx_factory("row", (1, None))
rows = _multi(row, "row")
col = _floatx_factory("col", (None, 1))
cols = _multi(col, "col")
tensor3 = _floatx_factory("tensor3", (None, None, None))
tensor3s = _multi(tensor3, "tensor3")
tensor4 = _floatx_factory("tensor4", (None,) * 4)
tensor4s = _multi(tensor4, "tensor4")
tensor5 = _floatx_factory("tensor5", (None,) * 5)
tensor5s = _multi(tensor5, "tensor5")
tensor6 = _floatx_factory("tensor6", (None,) * 6)
tensor6s = _multi(tensor6, "tensor6")
tensor7 = _floatx_factory("tensor7", (None,) * 7)
tensor7s = _multi(tensor7, "tensor7")
bscalar = TensorType("int8", (), name="bscalar")
bvector = TensorType("int8", (None,), name="bvector")
bmatrix = TensorType("int8", (None, None), name="bmatrix")
brow = TensorType("int8", (1, None), name="brow")
bcol = TensorType("int8", (None, 1), name="bcol")
btensor3 = TensorType("int8", (None, None, None), name="btensor3")
btensor4 = TensorType("int8", (None,) * 4, name="btensor4")
btensor5 = TensorType("int8", (None,) * 5, name="btensor5")
btensor6 = TensorType("int8", (None,) * 6, name="btensor6")
btensor7 = TensorType("int8", (None,) * 7, name="btensor7")
wscalar = TensorType("int16", (), name="wscalar")
wvector = TensorType("int16", (None,), name="wvector")
wmatrix = TensorType("int16", (None, None), name="wmatrix")
wrow = TensorType("int16", (1, None), name="wrow")
wcol = TensorType("int16", (None, 1), name="wcol")
wtensor3 = TensorType("int16", (None, None, None), name="wtensor3")
wtensor4 = TensorType("int16", (None,) * 4, name="wtensor4")
wtensor5 = TensorType("int16", (None,) * 5, name="wtensor5")
wtensor6 = TensorType("int16", (None,) * 6, name="wtensor6")
wtensor7 = TensorType("int16", (None,) * 7, name="wtensor7")
iscalar = TensorType("int32", (), name="iscalar")
ivector = TensorType("int32", (None,), name="ivector")
imatrix = TensorType("int32", (None, None), name="imatrix")
irow = TensorType("int32", (1, None), name="irow")
icol = TensorType("int32", (None, 1), name="icol")
itensor3 = TensorType("int32", (None, None, None), name="itensor3")
itensor4 = TensorType("int32", (None,) * 4, name="itensor4")
itensor5 = TensorType("int32", (None,) * 5, name="itensor5")
itensor6 = TensorType("int32", (None,) * 6, name="itensor6")
itensor7 = TensorType("int32", (None,) * 7, name="itensor7")
lscalar = TensorType("int64", (), name="lscalar")
lvector = TensorType("int64", (None,), name="lvector")
lmatrix = TensorType("int64", (None, None), name="lmatrix")
lrow = TensorType("int64", (1, None), name="lrow")
lcol = TensorType("int64", (None, 1), name="lcol")
ltensor3 = TensorType("int64", (None, None, None), name="ltensor3")
ltensor4 = TensorType("int64", (None,) * 4, name="ltensor4")
ltensor5 = TensorType("int64", (None,) * 5, name="ltensor5")
ltensor6 = TensorType("int64", (None,) * 6, name="ltensor6")
ltensor7 = TensorType("int64", (None,) * 7, name="ltensor7")
fscalar = TensorType("float32", (), name="fscalar")
fvector = TensorType("float32", (None,), name="fvector")
fmatrix = TensorType("float32", (None, None), name="fmatrix")
frow = TensorType("float32", (1, None), name="frow")
fcol = TensorType("float32", (None, 1), name="fcol")
ftensor3 = TensorType("float32", (None, None, None), name="ftensor3")
ftensor4 = TensorType("float32", (None,) * 4, name="ftensor4")
ftensor5 = TensorType("float32", (None,) * 5, name="ftensor5")
ftensor6 = TensorType("float32", (None,) * 6, name="ftensor6")
ftensor7 = TensorType("float32", (None,) * 7, name="ftensor7")
dscalar = TensorType("float64", (), name="dscalar")
dvector = TensorType("float64", (None,), name="dvector")
dmatrix = TensorType("float64", (None, None), name="dmatrix")
drow = TensorType("float64", (1, None), name="drow")
dcol = TensorType("float64", (None, 1), name="dcol")
dtensor3 = TensorType("float64", (None, None, None), name="dtensor3")
dtensor4 = TensorType("float64", (None,) * 4, name="dtensor4")
dtensor5 = TensorType("float64", (None,) * 5, name="dtensor5")
dtensor6 = TensorType("float64", (None,) * 6, name="dtensor6")
dtensor7 = TensorType("float64", (None,) * 7, name="dtensor7")
cscalar = TensorType("complex64", (), name="cscalar")
cvector = TensorType("complex64", (None,), name="cvector")
cmatrix = TensorType("complex64", (None, None), name="cmatrix")
crow = TensorType("complex64", (1, None), name="crow")
ccol = TensorType("complex64", (None, 1), name="ccol")
ctensor3 = TensorType("complex64", (None, None, None), name="ctensor3")
ctensor4 = TensorType("complex64", (None,) * 4, name="ctensor4")
ctensor5 = TensorType("complex64", (None,) * 5, name="ctensor5")
ctensor6 = TensorType("complex64", (None,) * 6, name="ctensor6")
ctensor7 = TensorType("complex64", (None,) * 7, name="ctensor7")
zscalar = TensorType("complex128", (), name="zscalar")
zvector = TensorType("complex128", (None,), name="zvector")
zmatrix = TensorType("complex128", (None, None), name="zmatrix")
zrow = TensorType("complex128", (1, None), name="zrow")
zcol = TensorType("complex128", (None, 1), name="zcol")
ztensor3 = TensorType("complex128", (None, None, None), name="ztensor3")
ztensor4 = TensorType("complex128", (None,) * 4, name="ztensor4")
ztensor5 = TensorType("complex128", (None,) * 5, name="ztensor5")
ztensor6 = TensorType("complex128", (None,) * 6, name="ztensor6")
ztensor7 = TensorType("complex128", (None,) * 7, name="ztensor7")
bscalars = _multi(bscalar, "bscalar")
bvectors = _multi(bvector, "bvector")
bmatrices = _multi(bmatrix, "bmatrix")
brows = _multi(brow, "brow")
bcols = _multi(bcol, "bcol")
btensor3s = _multi(btensor3, "btensor3")
btensor4s = _multi(btensor4, "btensor4")
btensor5s = _multi(btensor5, "btensor5")
btensor6s = _multi(btensor6, "btensor6")
btensor7s = _multi(btensor7, "btensor7")
wscalars = _multi(wscalar, "wscalar")
wvectors = _multi(wvector, "wvector")
wmatrices = _multi(wmatrix, "wmatrix")
wrows = _multi(wrow, "wrow")
wcols = _multi(wcol, "wcol")
wtensor3s = _multi(wtensor3, "wtensor3")
wtensor4s = _multi(wtensor4, "wtensor4")
wtensor5s = _multi(wtensor5, "wtensor5")
wtensor6s = _multi(wtensor6, "wtensor6")
wtensor7s = _multi(wtensor7, "wtensor7")
iscalars = _multi(iscalar, "iscalar")
ivectors = _multi(ivector, "ivector")
imatrices = _multi(imatrix, "imatrix")
irows = _multi(irow, "irow")
icols = _multi(icol, "icol")
itensor3s = _multi(itensor3, "itensor3")
itensor4s = _multi(itensor4, "itensor4")
itensor5s = _multi(itensor5, "itensor5")
itensor6s = _multi(itensor6, "itensor6")
itensor7s = _multi(itensor7, "itensor7")
lscalars = _multi(lscalar, "lscalar")
lvectors = _multi(lvector, "lvector")
lmatrices = _multi(lmatrix, "lmatrix")
lrows = _multi(lrow, "lrow")
lcols = _multi(lcol, "lcol")
ltensor3s = _multi(ltensor3, "ltensor3")
ltensor4s = _multi(ltensor4, "ltensor4")
ltensor5s = _multi(ltensor5, "ltensor5")
ltensor6s = _multi(ltensor6, "ltensor6")
ltensor7s = _multi(ltensor7, "ltensor7")
fscalars = _multi(fscalar, "fscalar")
fvectors = _multi(fvector, "fvector")
fmatrices = _multi(fmatrix, "fmatrix")
frows = _multi(frow, "frow")
fcols = _multi(fcol, "fcol")
ftensor3s = _multi(ftensor3, "ftensor3")
ftensor4s = _multi(ftensor4, "ftensor4")
ftensor5s = _multi(ftensor5, "ftensor5")
ftensor6s = _multi(ftensor6, "ftensor6")
ftensor7s = _multi(ftensor7, "ftensor7")
dscalars = _multi(dscalar, "dscalar")
dvectors = _multi(dvector, "dvector")
dmatrices = _multi(dmatrix, "dmatrix")
drows = _multi(drow, "drow")
dcols = _multi(dcol, "dcol")
dtensor3s = _multi(dtensor3, "dtensor3")
dtensor4s = _multi(dtensor4, "dtensor4")
dtensor5s = _multi(dtensor5, "dtensor5")
dtensor6s = _multi(dtensor6, "dtensor6")
dtensor7s = _multi(dtensor7, "dtensor7")
cscalars = _multi(cscalar, "cscalar")
cvectors = _multi(cvector, "cvector")
cmatrices = _multi(cmatrix, "cmatrix")
crows = _multi(crow, "crow")
ccols = _multi(ccol, "ccol")
ctensor3s = _multi(ctensor3, "ctensor3")
ctensor4s = _multi(ctensor4, "ctensor4")
ctensor5s = _multi(ctensor5, "ctensor5")
ctensor6s = _multi(ctensor6, "ctensor6")
ctensor7s = _multi(ctensor7, "ctensor7")
zscalars = _multi(zscalar, "zscalar")
zvectors = _multi(zvector, "zvector")
zmatrices = _multi(zmatrix, "zmatrix")
zrows = _multi(zrow, "zrow")
zcols = _multi(zcol, "zcol")
ztensor3s = _multi(ztensor3, "ztensor3")
ztensor4s = _multi(ztensor4, "ztensor4")
ztensor5s = _multi(ztensor5, "ztensor5")
ztensor6s = _multi(ztensor6, "ztensor6")
ztensor7s = _multi(ztensor7, "ztensor7")

# PyTensor's tuples of the typed scalar, vector and matrix types, by kind
int_types = int_scalar_types = (bscalar, wscalar, iscalar, lscalar)
float_types = float_scalar_types = (fscalar, dscalar)
complex_types = complex_scalar_types = (cscalar, zscalar)
int_vector_types = (bvector, wvector, ivector, lvector)
float_vector_types = (fvector, dvector)
complex_vector_types = (cvector, zvector)
int_matrix_types = (bmatrix, wmatrix, imatrix, lmatrix)
float_matrix_types = (fmatrix, dmatrix)
complex_matrix_types = (cmatrix, zmatrix)

_SHORTCUT_NAMES = (
    "scalar", "scalars", "vector", "vectors", "matrix", "matrices", "row", "rows", "col", "cols",
    "tensor3", "tensor3s", "tensor4", "tensor4s", "tensor5", "tensor5s", "bscalar", "bscalars",
    "bvector", "bvectors", "bmatrix", "bmatrices", "brow", "brows", "bcol", "bcols", "btensor3",
    "btensor3s", "btensor4", "btensor4s", "btensor5", "btensor5s", "wscalar", "wscalars",
    "wvector", "wvectors", "wmatrix", "wmatrices", "wrow", "wrows", "wcol", "wcols", "wtensor3",
    "wtensor3s", "wtensor4", "wtensor4s", "wtensor5", "wtensor5s", "iscalar", "iscalars",
    "ivector", "ivectors", "imatrix", "imatrices", "irow", "irows", "icol", "icols", "itensor3",
    "itensor3s", "itensor4", "itensor4s", "itensor5", "itensor5s", "lscalar", "lscalars",
    "lvector", "lvectors", "lmatrix", "lmatrices", "lrow", "lrows", "lcol", "lcols", "ltensor3",
    "ltensor3s", "ltensor4", "ltensor4s", "ltensor5", "ltensor5s", "fscalar", "fscalars",
    "fvector", "fvectors", "fmatrix", "fmatrices", "frow", "frows", "fcol", "fcols", "ftensor3",
    "ftensor3s", "ftensor4", "ftensor4s", "ftensor5", "ftensor5s", "dscalar", "dscalars",
    "dvector", "dvectors", "dmatrix", "dmatrices", "drow", "drows", "dcol", "dcols", "dtensor3",
    "dtensor3s", "dtensor4", "dtensor4s", "dtensor5", "dtensor5s", "cscalar", "cscalars",
    "cvector", "cvectors", "cmatrix", "cmatrices", "crow", "crows", "ccol", "ccols", "ctensor3",
    "ctensor3s", "ctensor4", "ctensor4s", "ctensor5", "ctensor5s", "zscalar", "zscalars",
    "zvector", "zvectors", "zmatrix", "zmatrices", "zrow", "zrows", "zcol", "zcols", "ztensor3",
    "ztensor3s", "ztensor4", "ztensor4s", "ztensor5", "ztensor5s",
)
_MORE_SHORTCUT_NAMES = (
    "tensor6", "tensor6s", "tensor7", "tensor7s",
    *(f"{p}tensor{k}{s}" for p in "bwilfdcz" for k in (6, 7) for s in ("", "s")),
)
_TYPE_TUPLES = (
    "int_types", "int_scalar_types", "float_types", "float_scalar_types", "complex_types",
    "complex_scalar_types", "int_vector_types", "float_vector_types", "complex_vector_types",
    "int_matrix_types", "float_matrix_types", "complex_matrix_types",
)
__all__ = ["tensor", *_SHORTCUT_NAMES, *_MORE_SHORTCUT_NAMES, *_TYPE_TUPLES]
