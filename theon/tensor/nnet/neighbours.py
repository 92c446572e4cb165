"""Theano's ``theano.tensor.nnet.neighbours``: image patches as rows of a matrix.

``images2neibs(ten4, neib_shape, neib_step, mode)`` cuts each image of a 4-d
tensor ``(batch, channel, rows, cols)`` into ``neib_shape = (c, d)`` patches, taken
every ``neib_step = (sx, sy)`` rows and columns (default: ``neib_shape``, patches
side by side).  The result is a matrix with one row per patch, ordered by batch,
channel, patch row and patch column, each row a patch flattened row by row:
``(batch * channels * n_patch_rows * n_patch_cols, c * d)``.  Along an axis of
length ``n`` with patch length ``k`` and step ``s`` the modes are:

- ``'valid'``: patches inside the image; ``(n - k) % s`` must be 0;
- ``'ignore_borders'``: the same, dropping a partial patch at the end;
- ``'wrap_centered'``: ``ceil(n / s)`` patches, centred on every ``s``-th element, the
  image wrapped around its borders (``k`` odd, ``n >= k``);
- ``'half'``: ``'valid'`` on the image padded with ``k // 2`` zeros on both sides;
- ``'full'``: ``'valid'`` on the image padded with ``k - 1`` zeros on both sides.

``neibs2images(neibs, neib_shape, original_shape, mode)`` puts patches taken side by
side back into images (``'valid'`` and ``'ignore_borders'``, whose uncovered border
is zero).  The gradient of ``images2neibs`` adds each patch element back where it
was taken from (all modes, any step).

>>> import numpy as np
>>> import theon.tensor as T
>>> x = T.dtensor4("x")
>>> images2neibs(x, (2, 2)).eval({x: np.arange(16.0).reshape(1, 1, 4, 4)}).tolist()
[[0.0, 1.0, 4.0, 5.0], [2.0, 3.0, 6.0, 7.0], [8.0, 9.0, 12.0, 13.0], [10.0, 11.0, 14.0, 15.0]]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Apply, Constant, Variable
from theon.graph.fg import describe
from theon.graph.null_type import disconnected_type
from theon.graph.op import Op
from theon.link.registry import register_linker_backend as _register_linker_backend
from theon.tensor import math as tm
from theon.tensor.basic import as_tensor_variable
from theon.tensor.creation import zeros
from theon.tensor.raise_op import Assert
from theon.tensor.subtensor import set_subtensor
from theon.tensor.type import TensorType, tensor_type
from theon.tensor.variable import TensorVariable

__all__ = ["Images2Neibs", "Images2NeibsGrad", "images2neibs", "neib_index", "neibs2images"]

MODES = ("valid", "ignore_borders", "wrap_centered", "half", "full")


def _count(n: Any, k: Any, s: Any, mode: str) -> Any:
    """The number of patches along an axis of length ``n`` (ints or symbolic scalars)."""
    if mode == "wrap_centered":
        return (n + s - 1) // s
    if mode == "half":
        return (n - k % 2) // s + 1
    if mode == "full":
        return (n + k - 2) // s + 1
    count = (n - k) // s + 1
    if mode == "ignore_borders":
        return max(count, 0) if isinstance(count, int | np.integer) else tm.maximum(count, 0)
    return count


def _axis_positions(n: int, k: int, s: int, mode: str, axis: str) -> np.ndarray:
    """For each patch and patch offset along one axis, the image index it reads, or -1
    for the zero padding: an int array ``(patches, k)``."""
    if k <= 0 or s <= 0:
        raise ValueError(f"images2neibs: neib_shape and neib_step must be positive, got "
                         f"{k} and {s} along the {axis}")
    if mode == "wrap_centered":
        if k % 2 != 1:
            raise ValueError(f"images2neibs: mode 'wrap_centered' needs odd patch lengths, got "
                             f"{k} along the {axis}")
        if n < k:
            raise ValueError(f"images2neibs: mode 'wrap_centered' needs images at least as "
                             f"large as the patch, got {n} < {k} {axis}")
    elif mode != "ignore_borders":
        span = {"valid": n - k, "half": n - k % 2, "full": n + k - 2}[mode]
        if n < k or span % s:
            raise ValueError(f"images2neibs: mode {mode!r}: neib_shape {k}, neib_step {s} and "
                             f"the image's {n} {axis} are not consistent")
    shift = {"wrap_centered": k // 2, "half": k // 2, "full": k - 1}.get(mode, 0)
    count = int(_count(n, k, s, mode))
    pos = np.arange(count)[:, None] * s + np.arange(k)[None, :] - shift
    if mode == "wrap_centered":
        return pos % n
    return np.where((pos >= 0) & (pos < n), pos, -1)


def neib_index(rows: int, cols: int, neib_shape: Any, neib_step: Any,
               mode: str) -> np.ndarray:
    """The flat index into one image (``rows * cols``; the value ``rows * cols`` stands
    for a zero) of each patch element: an int array ``(patches, c * d)``.

    >>> neib_index(2, 3, (1, 2), (1, 2), "ignore_borders").tolist()
    [[0, 1], [3, 4]]
    """
    c, d = (int(v) for v in neib_shape)
    sx, sy = (int(v) for v in neib_step)
    r = _axis_positions(rows, c, sx, mode, "rows")
    q = _axis_positions(cols, d, sy, mode, "columns")
    # [patch row a, patch col b, offset i, offset j]
    flat = r[:, None, :, None] * cols + q[None, :, None, :]
    outside = (r[:, None, :, None] < 0) | (q[None, :, None, :] < 0)
    flat = np.where(outside, rows * cols, flat)
    return flat.reshape(r.shape[0] * q.shape[0], c * d)


def _int_pair(v: Any, what: str) -> TensorVariable:
    t = as_tensor_variable(v)
    if t.type.ndim != 1 or t.type.dtype[:3] not in ("int", "uin"):
        raise TypeError(f"images2neibs: {what} must be a vector of 2 integers, got {describe(t)}")
    if t.type.shape[0] not in (None, 2):
        raise ValueError(f"images2neibs: {what} must have 2 entries, got {describe(t)}")
    return t


def _constant_pair(v: Variable) -> tuple[int, int] | None:
    """The two ints of a constant vector input, else None."""
    if isinstance(v, Constant):
        data = np.asarray(v.data).reshape(-1)
        return int(data[0]), int(data[1])
    return None


class _NeibsBase(Op):
    __props__ = ("mode",)

    def __init__(self, mode: str = "valid") -> None:
        if mode not in MODES:
            raise ValueError(f"images2neibs: mode must be one of {MODES}, got {mode!r}")
        self.mode = mode

    def __str__(self) -> str:
        return f"{type(self).__name__}{{{self.mode}}}"

    def index(self, shape: Sequence[int], neib_shape: Any, neib_step: Any) -> np.ndarray:
        return neib_index(shape[2], shape[3], np.asarray(neib_shape).reshape(-1),
                          np.asarray(neib_step).reshape(-1), self.mode)


class Images2Neibs(_NeibsBase):
    """``images2neibs`` as an Op: inputs ``ten4``, ``neib_shape``, ``neib_step``."""

    def make_node(self, ten4: Any, neib_shape: Any, neib_step: Any = None) -> Apply:
        x = as_tensor_variable(ten4)
        if x.type.ndim != 4:
            raise TypeError(f"images2neibs: ten4 must be a 4-d tensor (batch, channel, rows, "
                            f"cols), got {describe(x)}")
        shape = _int_pair(neib_shape, "neib_shape")
        step = shape if neib_step is None else _int_pair(neib_step, "neib_step")
        pair = _constant_pair(shape)
        width = None if pair is None else pair[0] * pair[1]
        return Apply(self, [x, shape, step], [TensorType(x.type.dtype, shape=(None, width))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        x, shape, step = inputs
        idx = self.index(x.shape, shape, step)
        batch = x.shape[0] * x.shape[1]
        flat = x.reshape(batch, x.shape[2] * x.shape[3])
        padded = np.concatenate([flat, np.zeros((batch, 1), x.dtype)], axis=1)
        out = padded[:, idx].reshape(batch * idx.shape[0], idx.shape[1])
        output_storage[0][0] = out.astype(tensor_type(node.outputs[0]).dtype, copy=False)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        b, ch, rows, cols = input_shapes[0]
        shape, step = node.inputs[1], node.inputs[2]
        c, d = shape[0], shape[1]  # type: ignore[index]
        gh = _count(rows, c, step[0], self.mode)  # type: ignore[index]
        gw = _count(cols, d, step[1], self.mode)  # type: ignore[index]
        return [(b * ch * gh * gw, c * d)]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False], [False]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        x, shape, step = inputs
        (gz,) = output_grads
        return [Images2NeibsGrad(self.mode)(gz, x, shape, step), disconnected_type(),
                disconnected_type()]


class Images2NeibsGrad(_NeibsBase):
    """The gradient of ``images2neibs``: each patch element of ``gz`` added back where it
    was taken from.  Inputs: ``gz``, the images ``x`` (for their shape), ``neib_shape``,
    ``neib_step``."""

    def make_node(self, gz: Any, x: Any, neib_shape: Any, neib_step: Any) -> Apply:
        g = as_tensor_variable(gz)
        xv = as_tensor_variable(x)
        if g.type.ndim != 2 or xv.type.ndim != 4:
            raise TypeError(f"Images2NeibsGrad: needs a matrix gradient and 4-d images, got "
                            f"{describe(g)} and {describe(xv)}")
        shape = _int_pair(neib_shape, "neib_shape")
        step = _int_pair(neib_step, "neib_step")
        return Apply(self, [g, xv, shape, step],
                     [TensorType(g.type.dtype, shape=xv.type.shape)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        gz, x, shape, step = inputs
        idx = self.index(x.shape, shape, step)
        batch = x.shape[0] * x.shape[1]
        if gz.shape != (batch * idx.shape[0], idx.shape[1]):
            raise ValueError(f"Images2NeibsGrad: the gradient's shape {gz.shape} does not fit "
                             f"images of shape {x.shape}")
        dtype = tensor_type(node.outputs[0]).dtype
        pixels = x.shape[2] * x.shape[3]
        acc = np.zeros((pixels + 1, batch), dtype=dtype)
        flat = idx.reshape(-1)
        inside = flat[flat < pixels]
        if np.unique(inside).size == inside.size:  # no pixel in two patches: write
            acc[flat] = gz.reshape(batch, -1).T  # (the zero slot, row pixels, is dropped)
        else:
            np.add.at(acc, flat, gz.reshape(batch, -1).T)
        output_storage[0][0] = np.ascontiguousarray(acc[:-1].T).reshape(x.shape)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        return [tuple(input_shapes[1])]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [False], [False], [False]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        _, _, shape, step = inputs
        (ggx,) = output_grads
        return [Images2Neibs(self.mode)(ggx, shape, step), disconnected_type(),
                disconnected_type(), disconnected_type()]


def images2neibs(ten4: Any, neib_shape: Any, neib_step: Any = None,
                 mode: str = "valid") -> TensorVariable:
    """The ``neib_shape`` patches of each image of ``ten4``, one per row (see the module).

    >>> import numpy as np
    >>> import theon.tensor as T
    >>> x = T.dtensor4("x")
    >>> y = images2neibs(x, (3, 3), (1, 1), mode="wrap_centered")
    >>> y.eval({x: np.arange(9.0).reshape(1, 1, 3, 3)})[4].tolist()
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
    """
    out = Images2Neibs(mode)(ten4, neib_shape, neib_step)
    assert isinstance(out, TensorVariable)
    return out


def neibs2images(neibs: Any, neib_shape: Any, original_shape: Any,
                 mode: str = "valid") -> TensorVariable:
    """Images of ``original_shape`` from the patches that ``images2neibs(x, neib_shape,
    mode=mode)`` took side by side (the default step): its inverse.

    ``mode`` is ``'valid'`` (the image lengths must be multiples of the patch's) or
    ``'ignore_borders'`` (the rows and columns no patch covered are zero).

    >>> import numpy as np
    >>> import theon.tensor as T
    >>> x = T.dtensor4("x")
    >>> xv = np.arange(24.0).reshape(1, 2, 3, 4)
    >>> back = neibs2images(images2neibs(x, (3, 2)), (3, 2), x.shape)
    >>> bool((back.eval({x: xv}) == xv).all())
    True
    """
    if mode not in ("valid", "ignore_borders"):
        raise NotImplementedError(f"neibs2images: mode must be 'valid' or 'ignore_borders' "
                                  f"(patches side by side), got {mode!r}")
    z = as_tensor_variable(neibs)
    if z.type.ndim != 2:
        raise TypeError(f"neibs2images: neibs must be a matrix, got {describe(z)}")
    ns = _int_pair(neib_shape, "neib_shape")
    orig = as_tensor_variable(original_shape)
    if orig.type.ndim != 1 or orig.type.shape[0] not in (None, 4):
        raise ValueError(f"neibs2images: original_shape must be the 4 lengths of the images, "
                         f"got {describe(orig)}")
    c, d = ns[0], ns[1]
    b, ch, rows, cols = orig[0], orig[1], orig[2], orig[3]
    gh, gw = rows // c, cols // d
    tiles = z.reshape((b, ch, gh, gw, c, d), ndim=6).dimshuffle(0, 1, 2, 4, 3, 5)
    images = tiles.reshape((b, ch, gh * c, gw * d), ndim=4)
    if mode == "valid":
        fits = tm.eq(rows % c, 0) & tm.eq(cols % d, 0)
        checked = Assert("neibs2images: in mode 'valid' the image lengths must be multiples "
                         "of neib_shape")(images, fits)
        assert isinstance(checked, TensorVariable)
        return checked
    full = zeros((b, ch, rows, cols), dtype=z.type.dtype)
    out = set_subtensor(full[:, :, : gh * c, : gw * d], images)
    assert isinstance(out, TensorVariable)
    return out


# the JAX rules of these Ops (mode="JAX"), imported by the JAX linker before its first link
_register_linker_backend("jax", "theon.backends.jax.neighbours")
