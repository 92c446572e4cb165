"""Complex numbers from their parts: ``complex``, ``complex_from_polar``, ``angle``.

``complex(re, im)`` is one Op (:class:`Complex`) that writes the two parts into the
output, so infinities stay where they are (``re + 1j * im`` would make ``0 * inf``,
nan, of an infinite ``im``).  The gradient of a real cost ``C`` follows theon's
convention for complex variables, ``dC/dre + 1j * dC/dim``: ``re`` gets the real part
of the output's gradient and ``im`` its imaginary part.

>>> import theon.tensor as tt
>>> r, i = tt.dvector("r"), tt.dvector("i")
>>> complex(r, i).eval({r: [1.0], i: [float("inf")]})
array([1.+infj])
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type
from theon.tensor.basic import TensorOp, as_tensor_variable
from theon.tensor.type import TensorType, tensor_type
from theon.tensor.variable import TensorVariable

__all__ = ["Complex", "angle", "complex", "complex_from_polar"]


def complex_dtype(a: str, b: str) -> str:
    """The complex dtype of parts of dtypes ``a`` and ``b``: NumPy's promotion with
    complex64 (float32, and integers of 16 bits or less, stay single precision).

    >>> complex_dtype("float32", "float32"), complex_dtype("int32", "float32")
    ('complex64', 'complex128')
    """
    return str(np.result_type(np.dtype(a), np.dtype(b), np.complex64))


def _broadcast_static(a: tuple[int | None, ...], b: tuple[int | None, ...],
                      what: str) -> tuple[int | None, ...]:
    out: list[int | None] = []
    for x, y in zip(a, b):
        if x == 1:
            out.append(y)
        elif y == 1 or x == y:
            out.append(x)
        elif x is None or y is None:
            out.append(x if y is None else y)
        else:
            raise ValueError(f"{what}: lengths {x} and {y} do not broadcast")
    return tuple(out)


class Complex(TensorOp):
    """``re + 1j * im``, each part written as it is; the two inputs have one number of
    dimensions and broadcast as in NumPy.

    >>> import theon.tensor as tt
    >>> r = tt.fvector("r")
    >>> Complex()(r, r).type
    TensorType(complex64, shape=(None,))
    """

    __props__ = ()

    def make_node(self, re: Any, im: Any) -> Apply:
        r, i = as_tensor_variable(re), as_tensor_variable(im)
        for v, part in ((r, "real part"), (i, "imaginary part")):
            if v.type.dtype.startswith("complex"):
                raise TypeError(f"complex: the {part} must be real, got {describe(v)}")
        if r.type.ndim != i.type.ndim:
            raise ValueError(f"complex: the parts need one number of dimensions, got "
                             f"{describe(r)} and {describe(i)}")
        shape = _broadcast_static(r.type.shape, i.type.shape, "complex")
        out = TensorType(complex_dtype(r.type.dtype, i.type.dtype), shape=shape)()
        return Apply(self, [r, i], [out])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        r, i = (np.asarray(v) for v in inputs)
        out = np.empty(np.broadcast_shapes(r.shape, i.shape),
                       dtype=tensor_type(node.outputs[0]).dtype)
        out.real = r
        out.imag = i
        output_storage[0][0] = out

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Variable]]) -> list[Any]:
        from theon.tensor.math import maximum

        r, i = (tensor_type(v).shape for v in node.inputs)
        dims: list[Any] = []
        for d, (sr, si) in enumerate(zip(input_shapes[0], input_shapes[1])):
            if r[d] == 1:
                dims.append(si)
            elif i[d] == 1 or r[d] is not None:
                dims.append(sr)
            elif i[d] is not None:
                dims.append(si)
            else:
                dims.append(maximum(sr, si))
        return [tuple(dims)]

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        from theon.tensor.basic import cast
        from theon.tensor.broadcast_grad import broadcast_grad
        from theon.tensor.math import imag, real

        (gz,) = output_grads
        grads: list[Any] = []
        for v, part in zip(inputs, (real(gz), imag(gz))):
            dt = tensor_type(v).dtype
            if not dt.startswith("float"):
                grads.append(disconnected_type())
                continue
            g = broadcast_grad(part, v)
            grads.append(cast(g, dt) if tensor_type(g).dtype != dt else g)
        return grads


def complex(real: Any, imag: Any) -> TensorVariable:
    """The complex array ``real + 1j * imag`` of two real arrays (broadcast together),
    PyTensor's ``complex``; float32 parts give complex64, float64 (and int32, int64)
    parts complex128.

    >>> import theon.tensor as tt
    >>> r = tt.dvector("r")
    >>> complex(r, 2.0).eval({r: [1.0, 3.0]})
    array([1.+2.j, 3.+2.j])
    """
    r, i = as_tensor_variable(real), as_tensor_variable(imag)
    nd = builtins.max(r.type.ndim, i.type.ndim)
    r = r[(None,) * (nd - r.type.ndim)] if r.type.ndim < nd else r
    i = i[(None,) * (nd - i.type.ndim)] if i.type.ndim < nd else i
    return Complex()(r, i)


def complex_from_polar(abs: Any, angle: Any) -> TensorVariable:
    """``abs * exp(1j * angle)`` from the modulus and the argument (PyTensor's name).

    >>> import numpy as np, theon.tensor as tt
    >>> r = tt.dvector("r")
    >>> np.round(complex_from_polar(r, np.pi / 2).eval({r: [2.0]}), 12)
    array([0.+2.j])
    """
    from theon.tensor.math import cos, sin

    r, t = as_tensor_variable(abs), as_tensor_variable(angle)
    return complex(r * cos(t), r * sin(t))


def angle(z: Any, deg: bool = False) -> TensorVariable:
    """The argument of each (complex) element, in radians (degrees when ``deg``), like
    ``numpy.angle``: ``arctan2(z.imag, z.real)``, so ``pi`` for a negative real number.

    >>> import theon.tensor as tt
    >>> x = tt.dvector("x")
    >>> angle(x).eval({x: [1.0, -1.0]})
    array([0.        , 3.14159265])
    """
    from theon.tensor.math import arctan2, imag, real

    v = as_tensor_variable(z)
    if v.type.dtype.startswith("complex"):
        out = arctan2(imag(v), real(v))
    else:
        out = arctan2(0, v)  # NumPy's: the imaginary part of a real number is a weak 0
    return out * (180.0 / np.pi) if deg else out
