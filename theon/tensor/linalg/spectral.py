"""Spectral decompositions: ``eigh``, ``eigvalsh``, ``svd``, ``qr``, ``lstsq``.

Each function is one Op on matrices (its ``gufunc_signature`` says the core shapes)
whose ``perform`` calls ``numpy.linalg`` (SciPy for the generalized symmetric
eigenproblem, imported when the Op runs).  The gradients are the standard ones:

- ``eigh``: with ``A = V diag(w) V^T`` and ``F_ij = 1 / (w_j - w_i)`` (0 on the
  diagonal), ``Abar = V (diag(wbar) + F * (V^T Vbar)) V^T``, folded onto the triangle
  the Op reads (``UPLO``);
- ``svd``: values only, ``Abar = U diag(sbar) V^T``; with vectors, the formula of
  Townsend (2016) with ``F_ij = 1 / (s_j^2 - s_i^2)`` and the terms of the
  complements of ``U`` and ``V`` for rectangular matrices;
- ``qr``: the backward rule of the reduced factorization extended to wide matrices
  by splitting ``A = [X | Y]``;
- ``lstsq``: through the derivative of the pseudo-inverse, each product with
  ``pinv(A)`` itself a least-squares solve.

A decomposition that LAPACK cannot compute raises ``numpy.linalg.LinAlgError``
naming the Op and its input (the linker adds where the node was built), or, for an
Op built with ``on_error='nan'``, gives NaN outputs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

import numpy as np

from theon.graph.basic import Apply
from theon.graph.fg import describe
from theon.graph.op import Op
from theon.graph.vectorize import register_vectorize
from theon.tensor.basic import as_tensor_variable, cast
from theon.tensor.type import TensorType, float_dtypes, integer_dtypes, tensor_type
from theon.tensor.variable import TensorVariable

__all__ = ["Eigh", "Eigvalsh", "Lstsq", "QRFull", "SVD", "eigh", "eigvalsh",
           "lstsq", "qr", "svd"]

_ON_ERROR = ("raise", "nan")


# helpers shared with theon.tensor.linalg.misc ------------------------------------------


def _apply(op: Op, *inputs: Any) -> Any:
    """``op`` applied to ``inputs`` through :class:`~theon.tensor.blockwise.Blockwise`:
    leading dimensions beyond the core ones of ``op.gufunc_signature`` are batch
    dimensions (broadcast as in NumPy); with none, the core Op's outputs.  Integer
    inputs become float64 and the float inputs share one dtype (float32 stays float32)."""
    from theon.tensor.blockwise import Blockwise

    batched = Blockwise(op)
    ins = [as_tensor_variable(x) for x in inputs]
    dtypes = []
    for v, core in zip(ins, batched.inputs_sig):
        if v.type.ndim < len(core):
            kind = "a matrix" if len(core) == 2 else f"{len(core)} dimensions"
            raise ValueError(f"{op}: needs {kind} (or a batch of them), got {describe(v)}")
        dt = v.type.dtype
        if dt in integer_dtypes or dt == "bool":
            dt = "float64"
        elif dt not in float_dtypes:
            raise TypeError(f"{op}: needs a real (float or integer) tensor, got {describe(v)}")
        dtypes.append(dt)
    dtype = np.result_type(*dtypes).name
    ins = [v if v.type.dtype == dtype else cast(v, dtype) for v in ins]
    return batched(*ins)


def vectorize_blockwise(op: Op, node: Apply, inputs: list[Any], batched: list[bool]) -> Any:
    """The batching rule of the linalg core Ops (for ``vectorize_graph``, e.g. inside a
    Blockwise gradient): the Op over the new batch axis through Blockwise, no
    fallback warning."""
    from theon.tensor.blockwise import Blockwise

    return Blockwise(op)(*inputs, return_list=True)


def float_matrix(x: Any, what: str, ndim: int = 2) -> TensorVariable:
    """``x`` as a tensor of ``ndim`` dimensions with a float dtype (integers become
    float64, as in NumPy); a clear error otherwise."""
    v = as_tensor_variable(x)
    if v.type.ndim != ndim:
        kind = "a matrix" if ndim == 2 else f"{ndim} dimensions"
        raise ValueError(f"{what}: needs {kind}, got {describe(v)}")
    dtype = v.type.dtype
    if dtype in integer_dtypes or dtype == "bool":
        v = cast(v, "float64")
    elif dtype not in float_dtypes:
        raise TypeError(f"{what}: needs a real (float or integer) tensor, got {describe(v)}")
    return v


def check_on_error(on_error: str) -> str:
    """Validate an ``on_error`` argument."""
    if on_error not in _ON_ERROR:
        raise ValueError(f"on_error must be 'raise' or 'nan', got {on_error!r}")
    return on_error


def run_lapack(op: Any, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]],
               fn: Callable[[], Any], on_error: str) -> Any:
    """Call ``fn()``; on ``LinAlgError`` re-raise naming ``op`` and its input (the linker
    adds where the node was built), or, with ``on_error='nan'``, fill every output with
    NaN (shapes from ``op.nan_shape``) and return None."""
    try:
        return fn()
    except np.linalg.LinAlgError as e:
        if on_error == "nan":
            shapes = op.nan_shape([np.shape(v) for v in inputs])
            for cell, shape, out in zip(output_storage, shapes, node.outputs):
                cell[0] = np.full(shape, np.nan, dtype=tensor_type(out).dtype)
            return None
        raise np.linalg.LinAlgError(
            f"{op} failed on {describe(node.inputs[0])}: {e} "
            "(build it with on_error='nan' to get NaN instead)"
        ) from e


def mT(x: TensorVariable) -> TensorVariable:
    """Swap the last two axes (the matrix transpose of a batch of matrices)."""
    from theon.tensor.reshaping import swapaxes

    return swapaxes(x, -1, -2)


def eye_like(n: Any, dtype: str) -> TensorVariable:
    """The ``n`` x ``n`` identity matrix of ``dtype``."""
    from theon.tensor.creation import eye

    return eye(n, dtype=dtype)


def tri_mask(n: Any, lower: bool, dtype: str, k: int = 0) -> TensorVariable:
    """The ``n`` x ``n`` 0/1 mask of the lower (``lower``) or upper triangle, diagonal
    ``k`` included."""
    from theon.tensor.creation import arange
    from theon.tensor.math import ge, le

    i = arange(n)
    rel = (ge if lower else le)(i[:, None] + k, i[None, :])
    return cast(rel, dtype)


def fold_symmetric(g: TensorVariable, n: Any, lower: bool) -> TensorVariable:
    """The gradient with respect to a matrix of which only one triangle is read as a
    symmetric matrix: ``tri(g + g^T) - diag(g)``."""
    dtype = g.type.dtype
    folded: TensorVariable = (g + mT(g)) * tri_mask(n, lower, dtype) - g * eye_like(n, dtype)
    return folded


def _diag_embed(v: TensorVariable) -> TensorVariable:
    """``v[..., None, :] * I``: the diagonal matrices of the last axis of ``v``."""
    diagonal: TensorVariable = v[..., None, :] * eye_like(v.shape[-1], v.type.dtype)
    return diagonal


def _off_diag_inverse_gaps(w: TensorVariable, squared: bool = False) -> TensorVariable:
    """``F_ij = 1 / (w_j - w_i)`` off the diagonal, 0 on it (``w**2`` when ``squared``)."""
    ws = w * w if squared else w
    n = w.shape[-1]
    eye = eye_like(n, w.type.dtype)
    gaps = ws[..., None, :] - ws[..., :, None]
    f: TensorVariable = (1 - eye) / (gaps + eye)
    return f


def zeros_like(x: TensorVariable) -> TensorVariable:
    """Zeros of the shape and dtype of ``x``."""
    from theon.tensor.math import zeros_like as zl

    return zl(x)


def _matmul(a: TensorVariable, b: TensorVariable) -> TensorVariable:
    from theon.tensor.blas import matmul

    return matmul(a, b)


def _min_dim(m: Any, n: Any) -> Any:
    from theon.tensor.math import minimum

    if isinstance(m, int) and isinstance(n, int):
        return min(m, n)
    return minimum(m, n)


def _static_min(m: int | None, n: int | None) -> int | None:
    return None if m is None or n is None else min(m, n)


def _check_finite(values: Sequence[Any]) -> None:
    """A LinAlgError when a value holds inf or NaN."""
    if not all(np.isfinite(v).all() for v in values):
        raise np.linalg.LinAlgError("the input holds inf or NaN")


def _complex_of(dtype: str) -> str:
    return "complex64" if dtype == "float32" else "complex128"


# eigendecompositions ------------------------------------------------------------------


class Eigh(Op):
    """Eigenvalues (ascending) and orthonormal eigenvectors of a symmetric matrix read
    from one triangle (``UPLO='L'`` or ``'U'``), like ``numpy.linalg.eigh``; with a
    second input ``b`` (``generalized=True``) of ``a v = w b v``, like
    ``scipy.linalg.eigh(a, b)`` (``v^T b v = I``)."""

    __props__ = ("UPLO", "generalized", "on_error")

    def __init__(self, UPLO: str = "L", generalized: bool = False,
                 on_error: str = "raise") -> None:
        if UPLO not in ("L", "U"):
            raise ValueError(f"eigh: UPLO must be 'L' or 'U', got {UPLO!r}")
        self.UPLO = UPLO
        self.generalized = bool(generalized)
        self.on_error = check_on_error(on_error)

    @property
    def gufunc_signature(self) -> str:
        return "(m,m),(m,m)->(m),(m,m)" if self.generalized else "(m,m)->(m),(m,m)"

    def make_node(self, a: Any, b: Any = None) -> Apply:
        av = float_matrix(a, "eigh")
        ins = [av]
        dtype = av.type.dtype
        if self.generalized:
            if b is None:
                raise TypeError("eigh: the generalized problem needs b")
            bv = float_matrix(b, "eigh (b)")
            ins.append(bv)
            dtype = np.result_type(dtype, bv.type.dtype).name
            ins = [cast(v, dtype) if v.type.dtype != dtype else v for v in ins]
        elif b is not None:
            raise TypeError("eigh: b given to an Op built with generalized=False")
        n = av.type.shape[0] if av.type.shape[0] is not None else av.type.shape[1]
        return Apply(self, ins, [TensorType(dtype, (n,))(), TensorType(dtype, (n, n))()])

    def _compute(self, inputs: Sequence[Any], vectors: bool) -> Any:
        _check_finite(inputs)  # LAPACK's eigh gives garbage silently otherwise
        if not self.generalized:
            uplo: Literal["L", "U"] = "L" if self.UPLO == "L" else "U"
            if vectors:
                return np.linalg.eigh(inputs[0], UPLO=uplo)
            return np.linalg.eigvalsh(inputs[0], UPLO=uplo)
        import scipy.linalg

        return scipy.linalg.eigh(inputs[0], inputs[1], lower=self.UPLO == "L",
                                 eigvals_only=not vectors)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        res = run_lapack(self, node, inputs, output_storage, lambda: self._compute(inputs, True),
                         self.on_error)
        if res is not None:
            for cell, val, out in zip(output_storage, res, node.outputs):
                cell[0] = np.asarray(val, dtype=tensor_type(out).dtype)

    def nan_shape(self, shapes: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
        n = shapes[0][0]
        return [(n,), (n, n)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        n = input_shapes[0][0]
        return [(n,), (n, n)]

    def L_op(self, inputs: Sequence[Any], outputs: Sequence[Any],
             output_grads: Sequence[Any]) -> list[Any]:
        w, v = outputs
        gw, gv = output_grads
        x = _matmul(mT(v), gv)  # x_ij = v_i . vbar_j
        m = _diag_embed(gw) + _off_diag_inverse_gaps(w) * x
        return _eigh_input_grads(self, inputs, w, v, m, x)

    def R_op(self, inputs: Sequence[Any], eval_points: Sequence[Any]) -> list[Any]:
        if self.generalized or eval_points[0] is None:
            return [None, None]  # the transpose trick handles the generalized problem
        a = inputs[0]
        w, v = self(*inputs)
        da = _symmetric_from(eval_points[0], a.shape[-1], self.UPLO == "L")
        c = _matmul(mT(v), _matmul(da, v))  # V^T dA V
        eye = eye_like(a.shape[-1], w.type.dtype)
        dw = (c * eye).sum(axis=-1)
        dv = _matmul(v, _off_diag_inverse_gaps(w) * c)
        return [dw, dv]

    def __str__(self) -> str:
        return f"Eigh{{{self.UPLO}{', generalized' if self.generalized else ''}}}"


def _symmetric_from(a: TensorVariable, n: Any, lower: bool) -> TensorVariable:
    """The symmetric matrix that reads only one triangle of ``a``."""
    dtype = a.type.dtype
    tri = a * tri_mask(n, lower, dtype)
    sym: TensorVariable = tri + mT(tri) - a * eye_like(n, dtype)
    return sym


def _eigh_input_grads(op: Eigh, inputs: Sequence[Any], w: TensorVariable, v: TensorVariable,
                      m: TensorVariable, x: TensorVariable | None) -> list[Any]:
    """``abar = V M V^T`` and, for the generalized problem, ``bbar = -V (M diag(w) +
    diag(x)/2) V^T``, each folded onto the triangle the Op reads."""
    n = inputs[0].shape[-1]
    lower = op.UPLO == "L"
    ga = _matmul(v, _matmul(m, mT(v)))
    grads = [fold_symmetric(ga, n, lower)]
    if op.generalized:
        inner = m * w[..., None, :]
        if x is not None:
            inner = inner + _diag_embed((x * eye_like(n, x.type.dtype)).sum(axis=-1)) / 2
        gb = -_matmul(v, _matmul(inner, mT(v)))
        grads.append(fold_symmetric(gb, n, lower))
    return grads


class Eigvalsh(Op):
    """The eigenvalues only of :class:`Eigh` (``numpy.linalg.eigvalsh``; generalized:
    ``scipy.linalg.eigvalsh(a, b)``)."""

    __props__ = ("UPLO", "generalized", "on_error")
    def __init__(self, UPLO: str = "L", generalized: bool = False,
                 on_error: str = "raise") -> None:
        self._full = Eigh(UPLO, generalized, on_error)
        self.UPLO, self.generalized, self.on_error = UPLO, bool(generalized), on_error

    @property
    def gufunc_signature(self) -> str:
        return "(m,m),(m,m)->(m)" if self.generalized else "(m,m)->(m)"

    def make_node(self, a: Any, b: Any = None) -> Apply:
        node = self._full.make_node(a, b)
        return Apply(self, node.inputs, [node.outputs[0].type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        res = run_lapack(self, node, inputs, output_storage,
                         lambda: self._full._compute(inputs, False), self.on_error)
        if res is not None:
            output_storage[0][0] = np.asarray(res, dtype=tensor_type(node.outputs[0]).dtype)

    def nan_shape(self, shapes: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
        return [(shapes[0][0],)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        return [(input_shapes[0][0],)]

    def L_op(self, inputs: Sequence[Any], outputs: Sequence[Any],
             output_grads: Sequence[Any]) -> list[Any]:
        w, v = _apply(self._full, *inputs)
        return _eigh_input_grads(self._full, inputs, w, v, _diag_embed(output_grads[0]), None)

    def R_op(self, inputs: Sequence[Any], eval_points: Sequence[Any]) -> list[Any]:
        if self.generalized or eval_points[0] is None:
            return [None]
        w, v = _apply(self._full, *inputs)
        da = _symmetric_from(eval_points[0], inputs[0].shape[-1], self.UPLO == "L")
        return [(v * _matmul(da, v)).sum(axis=-2)]

    def __str__(self) -> str:
        return f"Eigvalsh{{{self.UPLO}{', generalized' if self.generalized else ''}}}"


def eigh(a: Any, UPLO: str = "L", b: Any = None, on_error: str = "raise") -> list[TensorVariable]:
    """Eigenvalues (ascending) and eigenvectors of a symmetric matrix, like
    ``numpy.linalg.eigh`` (only the ``UPLO`` triangle is read); with ``b``, the
    generalized problem ``a v = w b v`` like ``scipy.linalg.eigh(a, b)``.

    >>> import theon.tensor as tt
    >>> a = tt.dmatrix("a")
    >>> w, v = eigh(a)
    >>> w.eval({a: [[2.0, 1.0], [1.0, 2.0]]})
    array([1., 3.])
    """
    wv: list[TensorVariable] = _apply(Eigh(UPLO, b is not None, on_error), a,
                                      *([] if b is None else [b]))
    return wv


def eigvalsh(a: Any, b: Any = None, lower: bool = True, UPLO: str | None = None,
             on_error: str = "raise") -> TensorVariable:
    """Eigenvalues (ascending) of a symmetric matrix, like ``numpy.linalg.eigvalsh``;
    with ``b``, of ``a v = w b v`` like ``scipy.linalg.eigvalsh(a, b)`` (Theano's
    ``slinalg.eigvalsh(a, b, lower)``).

    >>> import theon.tensor as tt
    >>> a = tt.dmatrix("a")
    >>> eigvalsh(a).eval({a: [[2.0, 1.0], [1.0, 2.0]]})
    array([1., 3.])
    """
    uplo = UPLO if UPLO is not None else ("L" if lower else "U")
    w: TensorVariable = _apply(Eigvalsh(uplo, b is not None, on_error), a,
                               *([] if b is None else [b]))
    return w


# SVD ----------------------------------------------------------------------------------


class SVD(Op):
    """Singular value decomposition, like ``numpy.linalg.svd``: ``u, s, vh`` (reduced
    when ``full_matrices=False``) or only ``s`` (``compute_uv=False``)."""

    __props__ = ("full_matrices", "compute_uv", "on_error")

    def __init__(self, full_matrices: bool = True, compute_uv: bool = True,
                 on_error: str = "raise") -> None:
        self.full_matrices = bool(full_matrices)
        self.compute_uv = bool(compute_uv)
        self.on_error = check_on_error(on_error)

    @property
    def gufunc_signature(self) -> str:
        if not self.compute_uv:
            return "(m,n)->(k)"
        return "(m,n)->(m,m),(k),(n,n)" if self.full_matrices else "(m,n)->(m,k),(k),(k,n)"

    def make_node(self, a: Any) -> Apply:
        x = float_matrix(a, "svd")
        m, n = x.type.shape
        k = _static_min(m, n)
        dt = x.type.dtype
        s = TensorType(dt, (k,))()
        if not self.compute_uv:
            return Apply(self, [x], [s])
        if self.full_matrices:
            return Apply(self, [x], [TensorType(dt, (m, m))(), s, TensorType(dt, (n, n))()])
        return Apply(self, [x], [TensorType(dt, (m, k))(), s, TensorType(dt, (k, n))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (a,) = inputs
        res = run_lapack(
            self, node, inputs, output_storage,
            lambda: (np.linalg.svd(a, full_matrices=self.full_matrices) if self.compute_uv
                     else np.linalg.svd(a, full_matrices=self.full_matrices, compute_uv=False)),
            self.on_error)
        if res is None:
            return
        vals = res if self.compute_uv else (res,)
        for cell, val, out in zip(output_storage, vals, node.outputs):
            cell[0] = np.asarray(val, dtype=tensor_type(out).dtype)

    def nan_shape(self, shapes: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
        (m, n), = shapes
        k = min(m, n)
        if not self.compute_uv:
            return [(k,)]
        return [(m, m), (k,), (n, n)] if self.full_matrices else [(m, k), (k,), (k, n)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        m, n = input_shapes[0]
        k = _min_dim(m, n)
        if not self.compute_uv:
            return [(k,)]
        return [(m, m), (k,), (n, n)] if self.full_matrices else [(m, k), (k,), (k, n)]

    def L_op(self, inputs: Sequence[Any], outputs: Sequence[Any],
             output_grads: Sequence[Any]) -> list[Any]:
        (a,) = inputs
        if not self.compute_uv:
            u, s, vh = _apply(SVD(False, True, self.on_error), a)
            return [_matmul(u * output_grads[0][..., None, :], vh)]
        u, s, vh = outputs
        gu, gs, gvh = output_grads
        if self.full_matrices:  # the extra columns are an arbitrary basis: not used
            k = s.shape[-1]
            u, gu, vh, gvh = u[..., :, :k], gu[..., :, :k], vh[..., :k, :], gvh[..., :k, :]
        return [_svd_backward(a, u, s, vh, gu, gs, gvh)]

    def R_op(self, inputs: Sequence[Any], eval_points: Sequence[Any]) -> list[Any]:
        if self.compute_uv or eval_points[0] is None:
            return [None] * len(self.gufunc_signature.split("->")[1].split("),"))
        u, s, vh = _apply(SVD(False, True, self.on_error), inputs[0])
        return [(u * _matmul(eval_points[0], mT(vh))).sum(axis=-2)]

    def __str__(self) -> str:
        what = "values" if not self.compute_uv else (
            "full" if self.full_matrices else "reduced")
        return f"SVD{{{what}}}"


def _svd_backward(a: TensorVariable, u: TensorVariable, s: TensorVariable,
                  vh: TensorVariable, gu: TensorVariable, gs: TensorVariable,
                  gvh: TensorVariable) -> TensorVariable:
    """Townsend's formula for the reduced SVD ``A = U S V^T`` (U: m x k, V: n x k)::

        Abar = U [ (F * (U^T Ubar - Ubar^T U)) S + diag(sbar)
                   + S (F * (V^T Vbar - Vbar^T V)) ] V^T
               + (I - U U^T) Ubar S^-1 V^T + U S^-1 Vbar^T (I - V V^T)

    with ``F_ij = 1 / (s_j^2 - s_i^2)`` off the diagonal and 0 on it."""
    v, gv = mT(vh), mT(gvh)
    f = _off_diag_inverse_gaps(s, squared=True)
    ut_gu = _matmul(mT(u), gu)
    vt_gv = _matmul(mT(v), gv)
    j = f * (ut_gu - mT(ut_gu))
    kk = f * (vt_gv - mT(vt_gv))
    inner = j * s[..., None, :] + _diag_embed(gs) + s[..., :, None] * kk
    core = _matmul(u, _matmul(inner, vh))
    inv_s = 1 / s
    # (I - U U^T) Ubar S^-1 V^T
    gu_perp = gu - _matmul(u, ut_gu)
    left = _matmul(gu_perp * inv_s[..., None, :], vh)
    # U S^-1 Vbar^T (I - V V^T)
    gv_perp = gv - _matmul(v, vt_gv)
    right = _matmul(u * inv_s[..., None, :], mT(gv_perp))
    abar: TensorVariable = core + left + right
    return abar


def svd(a: Any, full_matrices: bool = True, compute_uv: bool = True,
        on_error: str = "raise") -> Any:
    """Singular value decomposition ``a = u @ diag(s) @ vh``, like ``numpy.linalg.svd``.

    Returns ``[u, s, vh]``, or ``s`` alone with ``compute_uv=False``.  With
    ``full_matrices=True`` and a rectangular ``a``, the extra columns of ``u`` (rows of
    ``vh``) are an arbitrary basis of a complement: gradients through them are not
    defined and are ignored.

    >>> import theon.tensor as tt
    >>> a = tt.dmatrix("a")
    >>> svd(a, compute_uv=False).eval({a: [[3.0, 0.0], [0.0, -2.0]]})
    array([3., 2.])
    """
    return _apply(SVD(full_matrices, compute_uv, on_error), a)


# QR -----------------------------------------------------------------------------------


class QRFull(Op):
    """QR factorization like ``numpy.linalg.qr`` with ``mode`` ``'reduced'`` (``q, r``),
    ``'complete'`` (``q`` square) or ``'r'`` (``r`` only)."""

    __props__ = ("mode",)
    _SIGNATURES = {"reduced": "(m,n)->(m,k),(k,n)", "complete": "(m,n)->(m,m),(m,n)",
                   "r": "(m,n)->(k,n)"}

    def __init__(self, mode: str = "reduced") -> None:
        if mode not in self._SIGNATURES:
            raise ValueError(f"qr: mode must be one of {sorted(self._SIGNATURES)}, got {mode!r}")
        self.mode = mode

    @property
    def gufunc_signature(self) -> str:
        return self._SIGNATURES[self.mode]

    def make_node(self, a: Any) -> Apply:
        x = float_matrix(a, "qr")
        m, n = x.type.shape
        k = _static_min(m, n)
        dt = x.type.dtype
        if self.mode == "reduced":
            outs = [TensorType(dt, (m, k))(), TensorType(dt, (k, n))()]
        elif self.mode == "complete":
            outs = [TensorType(dt, (m, m))(), TensorType(dt, (m, n))()]
        else:
            outs = [TensorType(dt, (k, n))()]
        return Apply(self, [x], outs)

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        a = inputs[0]
        vals: tuple[Any, ...]
        if self.mode == "r":
            vals = (np.linalg.qr(a, mode="r"),)
        elif self.mode == "complete":
            vals = tuple(np.linalg.qr(a, mode="complete"))
        else:
            vals = tuple(np.linalg.qr(a, mode="reduced"))
        for cell, val, out in zip(output_storage, vals, node.outputs):
            cell[0] = np.asarray(val, dtype=tensor_type(out).dtype)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        m, n = input_shapes[0]
        k = _min_dim(m, n)
        if self.mode == "reduced":
            return [(m, k), (k, n)]
        if self.mode == "complete":
            return [(m, m), (m, n)]
        return [(k, n)]

    def L_op(self, inputs: Sequence[Any], outputs: Sequence[Any],
             output_grads: Sequence[Any]) -> list[Any]:
        (a,) = inputs
        if self.mode == "r":
            q, r = _apply(QRFull("reduced"), a)
            gr = output_grads[0]
            gq = zeros_like(q)
        else:
            q, r = outputs
            gq, gr = output_grads
            if self.mode == "complete":  # extra columns of q: an arbitrary basis, not used
                k = _min_dim(a.shape[-2], a.shape[-1])
                q, gq, r, gr = q[..., :, :k], gq[..., :, :k], r[..., :k, :], gr[..., :k, :]
        return [_qr_backward(a, q, r, gq, gr)]

    def __str__(self) -> str:
        return f"QR{{{self.mode}}}"


def _qr_backward(a: TensorVariable, q: TensorVariable, r: TensorVariable,
                 gq: TensorVariable, gr: TensorVariable) -> TensorVariable:
    """The reduced QR backward rule, for tall and wide matrices alike.

    With ``k = min(m, n)``, ``A = [X | Y]``, ``R = [U | V]`` (``U``: k x k upper
    triangular, ``X = Q U``, ``Y = Q V``)::

        Qbar' = Qbar + Y Vbar^T;   M = U Ubar^T - Qbar'^T Q
        Xbar = (Qbar' + Q sym(M)) U^-T;   Ybar = Q Vbar

    with ``sym(M) = tril(M) + tril(M, -1)^T``.  For a tall matrix ``Y`` and ``V`` are
    empty and this is the usual rule."""
    from theon.tensor.joining import concatenate

    k = q.shape[-1]
    u, gu = r[..., :, :k], gr[..., :, :k]
    y, gv = a[..., :, k:], gr[..., :, k:]
    gq2 = gq + _matmul(y, mT(gv))
    mm = _matmul(u, mT(gu)) - _matmul(mT(gq2), q)
    b = gq2 + _matmul(q, _symmetric_from(mm, k, True))
    gx = mT(_solve_upper(u, mT(b)))  # b U^-T
    return concatenate([gx, _matmul(q, gv)], axis=-1)


def _solve_upper(u: TensorVariable, b: TensorVariable) -> TensorVariable:
    """``U^-1 b`` for a nonsingular upper-triangular ``U``."""
    x: TensorVariable = _apply(Lstsq(None, b.type.ndim), u, b)
    return x


def qr(a: Any, mode: str = "reduced") -> Any:
    """QR factorization ``a = q @ r``, like ``numpy.linalg.qr``: ``[q, r]`` for
    ``mode='reduced'`` or ``'complete'``, ``r`` alone for ``mode='r'``.

    With ``mode='complete'`` and a tall ``a``, the extra columns of ``q`` are an
    arbitrary basis of a complement: gradients through them are ignored.

    >>> import numpy as np, theon.tensor as tt
    >>> a = tt.dmatrix("a")
    >>> q, r = qr(a)
    >>> np.allclose((q @ r).eval({a: [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]}),
    ...             [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    True
    """
    return _apply(QRFull(mode), a)


# least squares ------------------------------------------------------------------------


class Lstsq(Op):
    """The minimum-norm least-squares solution ``x`` of ``a @ x = b``
    (``numpy.linalg.lstsq(a, b, rcond)[0]``), for ``b`` of ``b_ndim`` (1 or 2) dims."""

    __props__ = ("rcond", "b_ndim", "on_error")

    def __init__(self, rcond: float | None = None, b_ndim: int = 2,
                 on_error: str = "raise") -> None:
        if b_ndim not in (1, 2):
            raise ValueError(f"lstsq: b must have 1 or 2 dimensions, got {b_ndim}")
        self.rcond = None if rcond is None else float(rcond)
        self.b_ndim = b_ndim
        self.on_error = check_on_error(on_error)

    @property
    def gufunc_signature(self) -> str:
        return "(m,n),(m)->(n)" if self.b_ndim == 1 else "(m,n),(m,k)->(n,k)"

    def make_node(self, a: Any, b: Any) -> Apply:
        av = float_matrix(a, "lstsq")
        bv = float_matrix(b, "lstsq (b)", self.b_ndim)
        dt = np.result_type(av.type.dtype, bv.type.dtype).name
        av, bv = (cast(v, dt) if v.type.dtype != dt else v for v in (av, bv))
        shape = (av.type.shape[1],) + bv.type.shape[1:]
        return Apply(self, [av, bv], [TensorType(dt, shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        a, b = inputs
        if a.shape[0] != b.shape[0]:
            raise ValueError(f"lstsq: a has {a.shape[0]} rows but b has {b.shape[0]} "
                             f"({describe(node.inputs[0])}, {describe(node.inputs[1])})")

        def solve() -> Any:
            _check_finite(inputs)  # LAPACK prints to stderr otherwise
            return np.linalg.lstsq(a, b, rcond=self.rcond)[0]

        x = run_lapack(self, node, inputs, output_storage, solve, self.on_error)
        if x is not None:
            output_storage[0][0] = np.asarray(x, dtype=tensor_type(node.outputs[0]).dtype)

    def nan_shape(self, shapes: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
        return [(shapes[0][1], *shapes[1][1:])]

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        return [(input_shapes[0][1], *input_shapes[1][1:])]

    def L_op(self, inputs: Sequence[Any], outputs: Sequence[Any],
             output_grads: Sequence[Any]) -> list[Any]:
        """With ``P = pinv(a)``, ``x = P b``, ``r = b - a x`` (Golub and Pereyra's
        derivative of the pseudo-inverse)::

            bbar = P^T xbar
            abar = -bbar x^T + r (P bbar)^T + (P^T x) ((I - P a) xbar)^T

        and each product with ``P`` or ``P^T`` is itself a least-squares solve."""
        a, b = inputs
        (x,) = outputs
        (gx,) = output_grads
        at = mT(a)

        def ls(mat: TensorVariable, rhs: TensorVariable) -> TensorVariable:
            x: TensorVariable = _apply(self, mat, rhs)
            return x

        gb = ls(at, gx)
        r = b - _matmul(a, x)
        p_gb = ls(a, gb)
        pt_x = ls(at, x)
        proj = gx - ls(a, _matmul(a, gx))
        if self.b_ndim == 1:
            from theon.tensor.math import outer

            ga = -outer(gb, x) + outer(r, p_gb) + outer(pt_x, proj)
        else:
            ga = -_matmul(gb, mT(x)) + _matmul(r, mT(p_gb)) + _matmul(pt_x, mT(proj))
        return [ga, gb]

    def __str__(self) -> str:
        return f"Lstsq{{rcond={self.rcond}}}" if self.rcond is not None else "Lstsq"


def lstsq(a: Any, b: Any, rcond: float | None = None,
          on_error: str = "raise") -> list[TensorVariable]:
    """Least squares, like ``numpy.linalg.lstsq``: ``[x, residuals, rank, s]`` with
    ``x`` minimizing ``||a @ x - b||``, ``residuals`` the squared residual norm of each
    column of ``b`` (empty when ``rank < n`` or ``m <= n``), the effective ``rank`` of
    ``a`` and its singular values ``s``.  ``x``, ``residuals`` and ``s`` have gradients.

    Batched (unlike NumPy's): leading dimensions of ``a`` and ``b`` broadcast; ``b`` is
    a vector only when it has one dimension (as in ``numpy.linalg.solve``); ``rank``
    and ``s`` get the batch dimensions, and ``residuals`` (batch, k) is empty unless
    every matrix of the batch has full column rank.

    >>> import theon.tensor as tt
    >>> a, b = tt.dmatrix("a"), tt.dvector("b")
    >>> x = lstsq(a, b)[0]
    >>> x.eval({a: [[1.0, 0.0], [0.0, 2.0], [0.0, 0.0]], b: [1.0, 4.0, 5.0]})
    array([1., 2.])
    """
    from theon.tensor.math import all as tall
    from theon.tensor.math import and_, eq, gt, maximum

    av, bv = as_tensor_variable(a), as_tensor_variable(b)
    b_ndim = 1 if bv.type.ndim == 1 else 2
    x = _apply(Lstsq(rcond, b_ndim, on_error), av, bv)
    dtype = x.type.dtype
    av = cast(av, dtype) if av.type.dtype != dtype else av
    bv = cast(bv, dtype) if bv.type.dtype != dtype else bv
    m, n = av.shape[-2], av.shape[-1]
    s = svd(av, compute_uv=False, on_error=on_error)
    eps = np.finfo(dtype).eps
    cut = (eps * cast(maximum(m, n), dtype) if rcond is None
           else np.asarray(rcond, dtype))
    rank = gt(s, cut * s.max(axis=-1, keepdims=True)).sum(axis=-1, dtype="int64")
    if b_ndim == 1:
        resid = bv - _matmul(av, x[..., None])[..., 0]
        sq = (resid * resid).sum(axis=-1)[..., None]
    else:
        resid = bv - _matmul(av, x)
        sq = (resid * resid).sum(axis=-2)
    full = and_(tall(eq(rank, n)), gt(m, n))
    count = sq.shape[-1] * cast(full, "int64")
    return [x, sq[..., :count], rank, s]


register_vectorize(Eigh, Eigvalsh, SVD, QRFull, Lstsq)(vectorize_blockwise)
