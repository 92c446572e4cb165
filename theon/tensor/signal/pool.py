"""Pooling over the trailing 2 (``pool_2d``) or 3 (``pool_3d``) dimensions, as in Theano.

Modes: ``'max'``, ``'sum'``, ``'average_inc_pad'`` (divide by the window's size,
padding included) and ``'average_exc_pad'`` (divide by the number of input
elements in the window).  ``ignore_border=False`` keeps the partial windows at the
end of each dimension (their average counts only the elements inside); padding
needs ``ignore_border=True``.  The max of a window never includes the padding.

The gradient of max pooling goes to every position of a window that equals its
max (all of them on ties), as Theano's.

>>> import numpy as np
>>> import theon.tensor as tt
>>> x = tt.dmatrix("x")
>>> pool_2d(x, (2, 2)).eval({x: np.arange(16.0).reshape(4, 4)}).tolist()
[[5.0, 7.0], [13.0, 15.0]]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Variable
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type
from theon.graph.op import Op
from theon.link.registry import register_linker_backend as _register_linker_backend
from theon.tensor.basic import as_tensor_variable, get_scalar_constant_value
from theon.tensor.math import maximum
from theon.tensor.type import TensorType, tensor_type
from theon.tensor.variable import TensorVariable

__all__ = [
    "AveragePoolGrad",
    "MaxPoolGrad",
    "MaxPoolGradGrad",
    "Pool",
    "PoolGrad",
    "pool_2d",
    "pool_3d",
    "pool_output_shape",
]

MODES = ("max", "sum", "average_inc_pad", "average_exc_pad")


def _ints(value: Any, nd: int, what: str, minimum: int) -> tuple[int, ...]:
    if isinstance(value, Variable) and tensor_type(value).ndim:
        vector = as_tensor_variable(value)
        value = [vector[i] for i in range(nd)]
    items = (value,) * nd if not isinstance(value, list | tuple | np.ndarray) else tuple(value)
    res = []
    for v in items:
        if isinstance(v, Variable):
            try:
                v = get_scalar_constant_value(v)
            except Exception as exc:
                raise ValueError(f"{what} must be constant integers, got the symbolic "
                                 f"{describe(v)}") from exc
        if not isinstance(v, int | np.integer) or v < minimum:
            raise ValueError(f"{what} must be {nd} integers >= {minimum}, got {value!r}")
        res.append(int(v))
    if len(res) != nd:
        raise ValueError(f"{what} must have {nd} entries, got {value!r}")
    return tuple(res)


def _is_constant(value: Any, nd: int) -> bool:
    """Whether a ``ws``/``stride``/``pad`` argument is known without running the graph
    (otherwise pooling takes it as an input: :mod:`.pool_params`)."""
    if value is None:
        return True
    if isinstance(value, Variable) and tensor_type(value).ndim:
        if tensor_type(value).shape[0] is None:
            return False
        value = [as_tensor_variable(value)[i] for i in range(nd)]
    items = value if isinstance(value, list | tuple | np.ndarray) else (value,)
    for v in items:
        if isinstance(v, Variable):
            try:
                get_scalar_constant_value(v)
            except Exception:
                return False
    return True


def _nonneg(v: Any) -> Any:
    return max(v, 0) if isinstance(v, int | np.integer) else maximum(v, 0)


def _out_len(n: Any, ws: int, st: int, pad: int, ignore_border: bool) -> Any:
    """The number of windows along a dimension of length ``n`` (int or symbolic)."""
    if ignore_border:
        return _nonneg((n + 2 * pad - ws) // st + 1)
    if st >= ws:
        return (n - 1) // st + 1
    return _nonneg((n - 1 - ws + st) // st) + 1


def pool_output_shape(imgshape: Sequence[Any], ws: Sequence[int], ignore_border: bool = True,
                      stride: Sequence[int] | None = None,
                      pad: Sequence[int] | None = None) -> tuple[Any, ...]:
    """The shape of the pooled output for an input of shape ``imgshape``.

    >>> pool_output_shape((10, 5, 5), (2, 2), ignore_border=False)
    (10, 3, 3)
    """
    nd = len(ws)
    stride = tuple(stride) if stride is not None else tuple(ws)
    pad = tuple(pad) if pad is not None else (0,) * nd
    lead = tuple(imgshape[: len(imgshape) - nd])
    spatial = imgshape[len(imgshape) - nd :]
    return lead + tuple(None if n is None else _out_len(n, w, s, p, ignore_border)
                        for n, w, s, p in zip(spatial, ws, stride, pad, strict=True))


class _PoolBase(Op):
    __props__ = ("ws", "stride", "pad", "ignore_border", "mode", "ndim")

    def __init__(self, ws: Sequence[int], stride: Sequence[int] | None = None,
                 pad: Sequence[int] | None = None, ignore_border: bool = True,
                 mode: str = "max", ndim: int = 2) -> None:
        if ndim not in (1, 2, 3):
            raise ValueError(f"pooling: ndim must be 1, 2 or 3, got {ndim!r}")
        self.ndim = ndim
        self.ws = _ints(ws, ndim, "ws", 1)
        self.stride = self.ws if stride is None else _ints(stride, ndim, "stride", 1)
        self.pad = (0,) * ndim if pad is None else _ints(pad, ndim, "pad", 0)
        if mode == "average":
            mode = "average_inc_pad"
        if mode not in MODES:
            raise ValueError(f"pooling: mode must be one of {MODES}, got {mode!r}")
        self.mode = mode
        self.ignore_border = bool(ignore_border)
        if any(self.pad) and not self.ignore_border:
            raise NotImplementedError("pooling: padding works only with ignore_border=True")
        if any(p >= w for p, w in zip(self.pad, self.ws, strict=True)):
            raise ValueError(f"pooling: pad {self.pad} must be smaller than ws {self.ws}")

    def __str__(self) -> str:
        return (f"{type(self).__name__}{{ws={self.ws}, stride={self.stride}, pad={self.pad}, "
                f"ignore_border={self.ignore_border}, mode={self.mode!r}}}")

    def _input(self, x: Any, what: str) -> TensorVariable:
        v = as_tensor_variable(x)
        if v.type.ndim < self.ndim:
            raise TypeError(f"{type(self).__name__}: {what} needs at least {self.ndim} "
                            f"dimensions, got {describe(v)}")
        return v

    def _out_shape(self, shape: Sequence[Any]) -> tuple[Any, ...]:
        return pool_output_shape(shape, self.ws, self.ignore_border, self.stride, self.pad)

    # -- the NumPy machinery shared by the Ops -----------------------------------------
    def _geometry(self, spatial: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """(output lengths, padded lengths covering every window)."""
        out = tuple(int(_out_len(n, w, s, p, self.ignore_border)) for n, w, s, p in
                    zip(spatial, self.ws, self.stride, self.pad, strict=True))
        padded = tuple(max(n + 2 * p, (o - 1) * s + w) if o > 0 else n + 2 * p for n, o, w, s, p in
                       zip(spatial, out, self.ws, self.stride, self.pad, strict=True))
        return out, padded

    def _padded(self, x: np.ndarray, padded: Sequence[int], fill: Any) -> np.ndarray:
        spatial = x.shape[x.ndim - self.ndim :]
        if tuple(padded) == tuple(spatial):
            return x
        lead = x.shape[: x.ndim - self.ndim]
        xp = np.full(lead + tuple(padded), fill, dtype=x.dtype)
        xp[self._inner(spatial)] = x
        return xp

    def _inner(self, spatial: Sequence[int]) -> tuple[Any, ...]:
        return (Ellipsis, *(slice(p, p + n) for p, n in zip(self.pad, spatial, strict=True)))

    def _windows(self, out: Sequence[int]) -> Any:
        """For each window offset, the index of the elements it picks, one per window."""
        for offs in itertools.product(*(range(w) for w in self.ws)):
            yield (Ellipsis, *(slice(o, o + s * (m - 1) + 1, s) for o, s, m in
                               zip(offs, self.stride, out, strict=True)))

    def _counts(self, spatial: Sequence[int], out: Sequence[int], padded: Sequence[int],
                dtype: Any) -> np.ndarray:
        """The divisor of each window for the average modes (broadcasts over the output)."""
        total = np.ones((), dtype=dtype)
        for axis, (n, m, w, s, p) in enumerate(zip(spatial, out, self.ws, self.stride,
                                                   self.pad, strict=True)):
            start = np.arange(m) * s
            if self.mode == "average_inc_pad":
                cnt = np.minimum(start + w, n + 2 * p) - start
            else:
                cnt = np.minimum(start + w, n + p) - np.maximum(start, p)
            shape = [1] * self.ndim
            shape[axis] = m
            total = total * cnt.reshape(shape).astype(dtype)
        return total

    def _fill(self, dtype: np.dtype[Any]) -> Any:
        if self.mode != "max":
            return 0
        return -np.inf if dtype.kind in "fc" else np.iinfo(dtype).min


class Pool(_PoolBase):
    """Pooling of the trailing ``ndim`` dimensions with windows ``ws``.

    >>> import numpy as np
    >>> import theon.tensor as tt
    >>> x = tt.dmatrix("x")
    >>> Pool((2, 2), mode="sum")(x).eval({x: np.ones((4, 4))}).tolist()
    [[4.0, 4.0], [4.0, 4.0]]
    """

    def make_node(self, x: Any) -> Apply:
        xv = self._input(x, "the input")
        out = TensorType(xv.type.dtype, shape=self._out_shape(xv.type.shape))
        return Apply(self, [xv], [out()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        (x,) = inputs
        spatial = x.shape[x.ndim - self.ndim :]
        out, padded = self._geometry(spatial)
        lead = x.shape[: x.ndim - self.ndim]
        if min(out, default=1) <= 0:
            output_storage[0][0] = np.zeros(lead + tuple(max(m, 0) for m in out), x.dtype)
            return
        xp = self._padded(x, padded, self._fill(x.dtype))
        acc: np.ndarray | None = None
        combine = np.maximum if self.mode == "max" else np.add
        for where in self._windows(out):
            if acc is None:
                acc = np.array(xp[where], copy=True)
            else:
                combine(acc, xp[where], out=acc)
        assert acc is not None
        if self.mode.startswith("average"):
            counts = self._counts(spatial, out, padded, acc.dtype)
            if acc.dtype.kind in "fc":
                acc /= counts
            else:
                acc = (acc // counts).astype(x.dtype)
        output_storage[0][0] = acc

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        return [self._out_shape(input_shapes[0])]

    def L_op(self, inputs: Sequence[Variable], outputs: Sequence[Variable],
             output_grads: Sequence[Variable]) -> list[Any]:
        (x,) = inputs
        (gz,) = output_grads
        props = self._props_dict()
        if self.mode == "max":
            return [MaxPoolGrad(**props)(x, outputs[0], gz)]
        return [AveragePoolGrad(**props)(x, gz)]


class PoolGrad(_PoolBase):
    """Base of the pooling gradients (the same parameters as the ``Pool`` they differentiate)."""


class MaxPoolGrad(PoolGrad):
    """The gradient of max pooling: ``gz`` routed to each position equal to its window's max.

    Inputs: ``x``, the pooled max ``maxout`` and the output gradient ``gz``.
    """

    def make_node(self, x: Any, maxout: Any, gz: Any) -> Apply:
        xv = self._input(x, "the input")
        mv = self._input(maxout, "the pooled output")
        gv = self._input(gz, "the output gradient")
        return Apply(self, [xv, mv, gv], [xv.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        x, maxout, gz = inputs
        spatial = x.shape[x.ndim - self.ndim :]
        out, padded = self._geometry(spatial)
        dtype = tensor_type(node.outputs[0]).dtype
        if maxout.shape != gz.shape or tuple(maxout.shape[maxout.ndim - self.ndim :]) != out:
            raise ValueError(f"{type(self).__name__}: the pooled output {maxout.shape} and its "
                             f"gradient {gz.shape} do not fit the input {x.shape}")
        gz = np.asarray(gz, dtype=dtype)
        if self.stride == self.ws and not any(self.pad) and self.ignore_border:
            output_storage[0][0] = self._tiled_grad(x, maxout, gz, out)
            return
        xp = self._padded(x, padded, self._fill(x.dtype))
        gx = np.zeros(xp.shape, dtype=dtype)
        disjoint = all(s >= w for s, w in zip(self.stride, self.ws, strict=True))
        for where in self._windows(out):
            hit = np.equal(xp[where], maxout)
            if disjoint:  # each position is in one window at most: write, don't add
                np.multiply(hit, gz, out=gx[where])
            else:
                gx[where] += hit * gz
        output_storage[0][0] = gx[self._inner(spatial)] if gx.shape != x.shape else gx

    def _tiled_grad(self, x: np.ndarray, maxout: np.ndarray, gz: np.ndarray,
                    out: Sequence[int]) -> np.ndarray:
        """Windows that tile the input (stride == ws, no padding): one broadcast pass over
        ``x`` viewed as ``(..., out_0, ws_0, out_1, ws_1, ...)`` instead of one per offset."""
        nd = self.ndim
        lead = x.shape[: x.ndim - nd]
        covered = tuple(o * w for o, w in zip(out, self.ws, strict=True))
        tiles = tuple(v for o, w in zip(out, self.ws, strict=True) for v in (o, w))
        expand: tuple[Any, ...] = (Ellipsis, *(v for _ in range(nd) for v in (slice(None), None)))
        corner: tuple[Any, ...] = (Ellipsis, *(slice(0, c) for c in covered))
        xc = x[corner].reshape(lead + tiles)
        hit = np.equal(xc, maxout[expand])
        tiled: np.ndarray = np.multiply(hit, gz[expand], dtype=gz.dtype).reshape(lead + covered)
        if covered == x.shape[x.ndim - nd :]:
            return tiled
        gx = np.zeros(x.shape, dtype=gz.dtype)
        gx[corner] = tiled
        return gx

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        return [tuple(input_shapes[0])]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False], [False], [True]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        x, maxout, _ = inputs
        (ggx,) = output_grads
        return [disconnected_type(), disconnected_type(),
                MaxPoolGradGrad(**self._props_dict())(x, maxout, ggx)]


class MaxPoolGradGrad(PoolGrad):
    """The gradient of ``MaxPoolGrad`` with respect to ``gz``: ``ggx`` summed over the
    positions of each window equal to its max (the adjoint of ``MaxPoolGrad``)."""

    def make_node(self, x: Any, maxout: Any, ggx: Any) -> Apply:
        xv = self._input(x, "the input")
        mv = self._input(maxout, "the pooled output")
        gv = self._input(ggx, "the gradient of the gradient")
        return Apply(self, [xv, mv, gv], [mv.type()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        x, maxout, ggx = inputs
        spatial = x.shape[x.ndim - self.ndim :]
        out, padded = self._geometry(spatial)
        xp = self._padded(x, padded, self._fill(x.dtype))
        gp = self._padded(ggx, padded, 0)
        acc = np.zeros(maxout.shape, dtype=tensor_type(node.outputs[0]).dtype)
        for where in self._windows(out):
            acc += np.where(xp[where] == maxout, gp[where], 0).astype(acc.dtype, copy=False)
        output_storage[0][0] = acc

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        return [tuple(input_shapes[1])]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False], [False], [True]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        x, maxout, _ = inputs
        (g,) = output_grads
        return [disconnected_type(), disconnected_type(),
                MaxPoolGrad(**self._props_dict())(x, maxout, g)]


class AveragePoolGrad(PoolGrad):
    """The gradient of sum and average pooling: each window's ``gz`` (divided by its
    count for the averages) spread over the window.  Inputs: ``x`` (for its shape), ``gz``."""

    def make_node(self, x: Any, gz: Any) -> Apply:
        xv = self._input(x, "the input")
        gv = self._input(gz, "the output gradient")
        return Apply(self, [xv, gv], [TensorType(gv.type.dtype, shape=xv.type.shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        x, gz = inputs
        spatial = x.shape[x.ndim - self.ndim :]
        out, padded = self._geometry(spatial)
        if tuple(gz.shape[gz.ndim - self.ndim :]) != out:
            raise ValueError(f"{type(self).__name__}: the output gradient {gz.shape} does not "
                             f"fit the input {x.shape}")
        dtype = tensor_type(node.outputs[0]).dtype
        if self.mode.startswith("average"):
            gz = gz / self._counts(spatial, out, padded, dtype)
        lead = x.shape[: x.ndim - self.ndim]
        gx = np.zeros(lead + tuple(padded), dtype=dtype)
        for where in self._windows(out):
            gx[where] += gz
        output_storage[0][0] = gx[self._inner(spatial)] if gx.shape != x.shape else gx

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        return [tuple(input_shapes[0])]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[False], [True]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        (ggx,) = output_grads
        return [disconnected_type(), Pool(**self._props_dict())(ggx)]


def _pool(input: Any, ws: Any, ignore_border: bool | None, stride: Any, pad: Any, mode: str,
          nd: int, fn: str) -> TensorVariable:
    if ws is None:
        raise ValueError(f"{fn}: give the window size ws")
    if ignore_border is None:
        ignore_border = False  # Theano's old default
    x = as_tensor_variable(input)
    if tensor_type(x).ndim < nd:
        raise TypeError(f"{fn}: the input needs at least {nd} dimensions, got {describe(x)}")
    if pad is None:
        pad = (0,) * nd
    if not all(_is_constant(p, nd) for p in (ws, stride, pad)):
        from theon.tensor.signal.pool_params import PoolParams

        sym = PoolParams("Pool", ignore_border, mode, nd)(
            x, ws, ws if stride is None else stride, pad)
        assert isinstance(sym, TensorVariable)
        return sym
    op = Pool(ws, stride=None if stride is None else stride, pad=pad,
              ignore_border=ignore_border, mode=mode, ndim=nd)
    out = op(x)
    assert isinstance(out, TensorVariable)
    return out


def pool_2d(input: Any, ws: Any = None, ignore_border: bool | None = None, stride: Any = None,
            pad: Any = (0, 0), mode: str = "max", ds: Any = None, st: Any = None,
            padding: Any = None) -> TensorVariable:
    """Pool the last two dimensions of ``input`` with ``ws``-sized windows.

    Parameters
    ----------
    input
        A tensor of 2 or more dimensions.
    ws
        The window size (2 ints).  ``ds`` is its old name.
    ignore_border
        True: only whole windows; False: also the partial windows at the end.
    stride
        The step between windows (default ``ws``).  ``st`` is its old name.
    pad
        Padding on both sides of each dimension (needs ``ignore_border=True``);
        ``padding`` is its old name.
    mode
        ``'max'``, ``'sum'``, ``'average_inc_pad'`` or ``'average_exc_pad'``.

    Examples
    --------
    >>> import numpy as np
    >>> import theon.tensor as tt
    >>> x = tt.dtensor4("x")
    >>> y = pool_2d(x, ws=(2, 2), ignore_border=True, mode="average_inc_pad")
    >>> y.eval({x: np.ones((1, 1, 4, 5))}).shape
    (1, 1, 2, 2)
    """
    ws = ds if ws is None else ws
    stride = st if stride is None else stride
    pad = padding if padding is not None else pad
    return _pool(input, ws, ignore_border, stride, pad, mode, 2, "pool_2d")


def pool_3d(input: Any, ws: Any = None, ignore_border: bool | None = None, stride: Any = None,
            pad: Any = (0, 0, 0), mode: str = "max") -> TensorVariable:
    """Pool the last three dimensions of ``input``; the parameters are those of :func:`pool_2d`.

    Examples
    --------
    >>> import numpy as np
    >>> import theon.tensor as tt
    >>> x = tt.dtensor3("x")
    >>> pool_3d(x, ws=(2, 2, 2), ignore_border=False).eval({x: np.ones((3, 3, 3))}).shape
    (2, 2, 2)
    """
    return _pool(input, ws, ignore_border, stride, pad, mode, 3, "pool_3d")


# the JAX rules of these Ops (mode="JAX"), imported by the JAX linker before its first link
_register_linker_backend("jax", "theon.backends.jax.nnet")
