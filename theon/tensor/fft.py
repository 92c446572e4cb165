"""Real fast Fourier transforms with gradients: PyTensor's ``pytensor.tensor.fft``.

``rfft(x)`` transforms each of the ``m`` entries of the first axis of ``x``
(``(m, ..., n)``) over all its other axes, like ``numpy.fft.rfftn(x, axes=(1, ...))``,
and returns the ``n // 2 + 1`` non-redundant frequencies of the last axis as pairs of
real numbers: shape ``(m, ..., n // 2 + 1, 2)``, real parts at ``[..., 0]``.
``irfft`` is its inverse, from that layout to ``(m, ..., n)`` (``is_odd`` says whether
``n`` was odd).

The Ops (:class:`RFFTOp`, :class:`IRFFTOp`) compute the unnormalized transforms; the
functions apply ``norm``: ``None`` divides the inverse by the number of points,
``'ortho'`` both by its square root, ``'no_norm'`` neither.  The gradient of one Op is
the other: the adjoint of the real transform is the inverse transform of the output's
gradient with its inner frequencies (those whose mirror image the layout leaves out)
halved, and the adjoint of the inverse is the real transform of the gradient with them
doubled.

>>> import numpy as np, theon.tensor as tt
>>> x = tt.dmatrix("x")
>>> irfft(rfft(x)).eval({x: [[1.0, 2.0, 3.0, 4.0]]})
array([[1., 2., 3., 4.]])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type
from theon.tensor.basic import TensorOp, as_tensor_variable, cast
from theon.tensor.type import TensorType, tensor_type, tensor_vars
from theon.tensor.variable import TensorVariable

__all__ = ["IRFFTOp", "RFFTOp", "irfft", "rfft"]

_NORMS = (None, "ortho", "no_norm")


def _real_dtype(dtype: str) -> str:
    return dtype if dtype in ("float32", "float64") else "float64"


def _inner_scale(n_last: Any, n_freq: Any, dtype: str, factor: float) -> TensorVariable:
    """A vector over the ``n_freq`` stored frequencies of a real transform of length
    ``n_last``: ``factor`` for the inner ones (0 < k < n_last / 2), 1 for the constant
    term and the Nyquist one."""
    from theon.tensor.creation import arange
    from theon.tensor.math import eq, switch

    k = arange(n_freq)
    edge = eq(k, 0) | eq(2 * k, n_last)
    return cast(switch(edge, 1.0, factor), dtype)


class RFFTOp(TensorOp):
    """The unnormalized real FFT over all axes but the first, as pairs of reals.

    >>> import theon.tensor as tt
    >>> RFFTOp()(tt.dmatrix("x")).type.ndim
    3
    """

    __props__ = ()

    def make_node(self, x: Any) -> Apply:
        v = as_tensor_variable(x)
        if v.type.ndim < 2:
            raise ValueError(f"rfft: needs a batch axis and at least one axis to transform, "
                             f"got {describe(v)}")
        if v.type.dtype.startswith("complex"):
            raise TypeError(f"rfft: the input must be real, got {describe(v)}")
        n = v.type.shape[-1]
        shape = (*v.type.shape[:-1], None if n is None else n // 2 + 1, 2)
        return Apply(self, [v], [TensorType(_real_dtype(v.type.dtype), shape=shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        x = np.asarray(inputs[0])
        spec = np.fft.rfftn(x, axes=tuple(range(1, x.ndim)))
        dt = tensor_type(node.outputs[0]).dtype
        output_storage[0][0] = np.stack([spec.real, spec.imag], axis=-1).astype(dt, copy=False)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        s: list[Any] = list(input_shapes[0])
        return [(*s[:-1], s[-1] // 2 + 1, 2)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        (x,) = tensor_vars(inputs)
        (gz,) = output_grads
        if not x.type.dtype.startswith("float"):
            return [disconnected_type()]
        n = x.shape[-1]
        g = tensor_vars([gz])[0]
        scale = _inner_scale(n, g.shape[-2], g.type.dtype, 0.5)
        gx = IRFFTOp()(g * scale[:, None], n)
        return [cast(gx, x.type.dtype) if gx.type.dtype != x.type.dtype else gx]


class IRFFTOp(TensorOp):
    """The unnormalized inverse real FFT from pairs of reals (``is_odd``: the transformed
    last axis had odd length; or, as a second input, that length itself).

    >>> import theon.tensor as tt
    >>> IRFFTOp(is_odd=True)(tt.dtensor3("z")).type.ndim
    2
    """

    __props__ = ("is_odd",)

    def __init__(self, is_odd: bool = False) -> None:
        self.is_odd = bool(is_odd)

    def make_node(self, z: Any, n_last: Any = None) -> Apply:
        from theon.tensor.shape import as_int_scalar, static_int

        v = as_tensor_variable(z)
        if v.type.ndim < 3 or v.type.shape[-1] not in (None, 2):
            raise ValueError(f"irfft: needs (m, ..., n_freq, 2) pairs of reals, got {describe(v)}")
        f = v.type.shape[-2]
        ins: list[Variable] = [v]
        if n_last is not None:
            nv = as_int_scalar(n_last, "irfft's output length")
            ins.append(nv)
            n = static_int(nv)
        else:
            n = None if f is None else 2 * (f - 1) + int(self.is_odd)
        shape = (*v.type.shape[:-2], n)
        return Apply(self, ins, [TensorType(_real_dtype(v.type.dtype), shape=shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        z = np.asarray(inputs[0])
        spec = z[..., 0] + 1j * z[..., 1]
        n = 2 * (z.shape[-2] - 1) + int(self.is_odd) if len(inputs) == 1 else int(inputs[1])
        s = (*z.shape[1:-2], n)
        out = np.fft.irfftn(spec, s=s, axes=tuple(range(1, spec.ndim)), norm="forward")
        output_storage[0][0] = out.astype(tensor_type(node.outputs[0]).dtype, copy=False)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        s: list[Any] = list(input_shapes[0])
        n = 2 * (s[-2] - 1) + int(self.is_odd) if len(node.inputs) == 1 else node.inputs[1]
        return [(*s[:-2], n)]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        z = tensor_vars(inputs)[0]
        (gx,) = tensor_vars(output_grads)
        spec = RFFTOp()(gx)
        scale = _inner_scale(gx.shape[-1], spec.shape[-2], spec.type.dtype, 2.0)
        gz = spec * scale[:, None]
        # a frequency beyond the output's length (n_last shorter) is cut off: no gradient;
        # one the output's length reaches but z lacks does not occur (irfftn pads with 0)
        gz = gz[..., : z.shape[-2], :]
        gz = cast(gz, z.type.dtype) if gz.type.dtype != z.type.dtype else gz
        return [gz] + [disconnected_type() for _ in inputs[1:]]


def _points(v: TensorVariable, first: int) -> Any:
    """The number of transformed points: the product of ``v``'s lengths from axis 1 on
    (up to ``first`` axes from the end excluded)."""
    n: Any = 1
    for d in range(1, v.type.ndim - first):
        n = n * v.shape[d]
    return n


def rfft(inp: Any, norm: str | None = None) -> TensorVariable:
    """The real FFT of each entry of the first axis over the other axes, as
    ``(m, ..., n // 2 + 1, 2)`` pairs of reals (see the module docstring); ``norm`` as
    NumPy's (``None``: unnormalized, ``'ortho'``: divided by the square root of the
    number of points), or ``'no_norm'``.

    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> rfft(x).eval({x: [[1.0, 1.0]]})
    array([[[2., 0.],
            [0., 0.]]])
    """
    from theon.tensor.math import sqrt

    if norm not in _NORMS:
        raise ValueError(f"rfft: norm must be None, 'ortho' or 'no_norm', got {norm!r}")
    x = as_tensor_variable(inp)
    out = RFFTOp()(x)
    if norm == "ortho":
        out = out / cast(sqrt(cast(_points(x, 0), "float64")), out.type.dtype)
    return out


def irfft(inp: Any, norm: str | None = None, is_odd: bool = False) -> TensorVariable:
    """The inverse of :func:`rfft`: real arrays ``(m, ..., n)`` from ``(m, ..., n_freq,
    2)`` pairs of reals, ``n = 2 * (n_freq - 1)`` (plus one when ``is_odd``); ``norm``
    ``None`` divides by the number of points (NumPy's inverse), ``'ortho'`` by its
    square root, ``'no_norm'`` by nothing.

    >>> import theon.tensor as tt
    >>> z = tt.dtensor3("z")
    >>> irfft(z).eval({z: [[[2.0, 0.0], [0.0, 0.0]]]})
    array([[1., 1.]])
    """
    from theon.tensor.math import sqrt

    if norm not in _NORMS:
        raise ValueError(f"irfft: norm must be None, 'ortho' or 'no_norm', got {norm!r}")
    out = IRFFTOp(is_odd)(inp)
    if norm is None:
        out = out / cast(_points(out, 0), out.type.dtype)
    elif norm == "ortho":
        out = out / cast(sqrt(cast(_points(out, 0), "float64")), out.type.dtype)
    return out
