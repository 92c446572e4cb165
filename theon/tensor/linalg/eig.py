"""``eig``: eigenvalues and right eigenvectors of a general square matrix, with a gradient.

``A V = V diag(w)`` with complex ``w`` and ``V`` (``numpy.linalg.eig``: each column of
``V`` has unit norm, its phase fixed by LAPACK).  The gradient follows theon's
convention for complex values (the gradient of a real cost ``C`` with respect to
``z`` is ``dC/dRe(z) + i dC/dIm(z)``).  With ``F_ij = 1 / (conj(w_j) - conj(w_i))``
off the diagonal (0 on it) and ``Vbar' = Vbar - V diag(Re(diag(V^H Vbar)))`` (the
part of ``Vbar`` that changes the columns' norms removed),

    ``Abar = Re(V^-H (diag(wbar) + F * (V^H Vbar')) V^H)``

for a real ``A`` (complex ``A``: without ``Re``).  It holds where the eigenvalues are
distinct; through ``V`` it is the gradient of costs that do not depend on the
eigenvectors' phases (as ``abs(V)``), since LAPACK's choice of phase is not a
differentiable function.  :class:`EigGrad` computes it in NumPy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply
from theon.graph.null_type import grad_not_implemented
from theon.graph.op import Op
from theon.graph.vectorize import register_vectorize
from theon.tensor.basic import as_tensor_variable, cast
from theon.tensor.linalg.spectral import (
    _apply,
    _complex_of,
    check_on_error,
    float_matrix,
    run_lapack,
    vectorize_blockwise,
)
from theon.tensor.type import TensorType, complex_dtypes, tensor_type
from theon.tensor.variable import TensorVariable

__all__ = ["Eig", "EigGrad", "eig"]


class Eig(Op):
    """Eigenvalues and right eigenvectors of a general square matrix
    (``numpy.linalg.eig``); both outputs are complex."""

    __props__ = ("on_error",)
    gufunc_signature = "(m,m)->(m),(m,m)"

    def __init__(self, on_error: str = "raise") -> None:
        self.on_error = check_on_error(on_error)

    def make_node(self, a: Any) -> Apply:
        x = float_matrix(a, "eig")
        n = x.type.shape[0] if x.type.shape[0] is not None else x.type.shape[1]
        ct = _complex_of(x.type.dtype)
        return Apply(self, [x], [TensorType(ct, (n,))(), TensorType(ct, (n, n))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (a,) = inputs
        res = run_lapack(self, node, inputs, output_storage, lambda: np.linalg.eig(a),
                         self.on_error)
        if res is not None:
            for cell, val, out in zip(output_storage, res, node.outputs):
                cell[0] = np.asarray(val, dtype=tensor_type(out).dtype)

    def nan_shape(self, shapes: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
        (n, _), = shapes
        return [(n,), (n, n)]

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        n = input_shapes[0][0]
        return [(n,), (n, n)]

    def L_op(self, inputs: Sequence[Any], outputs: Sequence[Any],
             output_grads: Sequence[Any]) -> list[Any]:
        (a,) = inputs
        w, v = outputs
        wbar, vbar = output_grads
        dt = tensor_type(a).dtype
        from theon.tensor.blockwise import Blockwise

        return [Blockwise(EigGrad(dt))(w, v, _as(wbar, w), _as(vbar, v))]

    def __str__(self) -> str:
        return "Eig"


def _as(g: Any, like: TensorVariable) -> TensorVariable:
    """The output gradient ``g`` in ``like``'s complex dtype."""
    v = as_tensor_variable(g)
    dt = like.dtype
    return v if v.dtype == dt else cast(v, dt)


class EigGrad(Op):
    """``Abar`` from ``(w, V, wbar, Vbar)`` of :class:`Eig` (the formula in the module
    docstring), in the dtype of ``A``.  Not differentiable itself."""

    __props__ = ("dtype",)
    gufunc_signature = "(m),(m,m),(m),(m,m)->(m,m)"

    def __init__(self, dtype: str) -> None:
        self.dtype = str(dtype)

    def make_node(self, w: Any, v: Any, wbar: Any, vbar: Any) -> Apply:
        ins = [as_tensor_variable(x) for x in (w, v, wbar, vbar)]
        for x, nd in zip(ins, (1, 2, 1, 2)):
            if x.type.ndim != nd or x.type.dtype not in complex_dtypes:
                raise TypeError(f"EigGrad: needs complex inputs of ndim (1, 2, 1, 2), got "
                                f"{[str(i.type) for i in ins]}")
        return Apply(self, ins, [TensorType(self.dtype, ins[1].type.shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        w, v, wbar, vbar = inputs
        vh = v.conj().T
        # remove the part of vbar along each column (the columns' norms are fixed)
        vbar = vbar - v * np.real(np.einsum("ij,ij->j", v.conj(), vbar))[None, :]
        cw = w.conj()
        gaps = cw[None, :] - cw[:, None]
        np.fill_diagonal(gaps, 1.0)
        f = 1.0 / gaps
        np.fill_diagonal(f, 0.0)
        inner = f * (vh @ vbar)
        inner[np.diag_indices_from(inner)] += wbar
        g = np.linalg.solve(vh, inner @ vh)
        if np.dtype(self.dtype).kind != "c":
            g = g.real
        output_storage[0][0] = np.asarray(g, dtype=self.dtype)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        return [input_shapes[1]]

    def L_op(self, inputs: Sequence[Any], outputs: Sequence[Any],
             output_grads: Sequence[Any]) -> list[Any]:
        return [grad_not_implemented(self, k, x, "eig has no second derivative")
                for k, x in enumerate(inputs)]


def eig(a: Any, on_error: str = "raise") -> list[TensorVariable]:
    """Eigenvalues and right eigenvectors of a square matrix, like ``numpy.linalg.eig``
    (always complex: ``complex128``, or ``complex64`` for ``float32``).

    Differentiable where the eigenvalues are distinct; through the eigenvectors, for
    costs that do not depend on their phases (see :mod:`theon.tensor.linalg.eig`).

    >>> import numpy as np, theon.tensor as tt
    >>> a = tt.dmatrix("a")
    >>> w, v = eig(a)
    >>> np.sort(w.eval({a: [[2.0, 0.0], [0.0, 3.0]]}).real)
    array([2., 3.])
    """
    wv: list[TensorVariable] = _apply(Eig(on_error), a)
    return wv


register_vectorize(Eig, EigGrad)(vectorize_blockwise)
