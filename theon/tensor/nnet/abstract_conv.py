"""Convolutions (2-D and 3-D) and their gradients, as in Theano's ``abstract_conv``.

Three Ops per dimension, each one's gradient written with the other two:

- ``AbstractConv2d(img, kern)``: ``(N, C, H, W)`` images and ``(O, C/groups, kh, kw)``
  filters give ``(N, O, H', W')``;
- ``AbstractConv2d_gradWeights(img, topgrad, shape)``: the gradient with respect
  to the filters, ``shape`` their spatial shape;
- ``AbstractConv2d_gradInputs(kern, topgrad, shape)``: the gradient with respect
  to the images (a transposed convolution), ``shape`` their spatial shape.

``filter_flip=True`` (the default) is a true convolution: the kernel is flipped
along its spatial axes; ``False`` is a correlation.  ``border_mode`` is
``'valid'`` (no padding), ``'full'`` (``k - 1``), ``'half'`` (``k // 2``), an int
or a tuple of ints (padding on both sides), or a tuple of ``(before, after)``
pairs; ``k`` is the dilated kernel length ``(k - 1) * dilation + 1``.

The shape hints ``input_shape`` / ``filter_shape`` (``None`` for an unknown
entry) add static shape information and are checked when the function runs.

>>> import numpy as np
>>> import theon, theon.tensor as tt
>>> x, w = tt.dtensor4("x"), tt.dtensor4("w")
>>> f = theon.function([x, w], conv2d(x, w))
>>> f(np.ones((1, 1, 3, 3)), np.ones((1, 1, 2, 2))).tolist()
[[[[4.0, 4.0], [4.0, 4.0]]]]
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
from theon.scalar.type import upcast
from theon.tensor.basic import as_tensor_variable, cast
from theon.tensor.nnet import conv_kernels as kernels
from theon.tensor.type import TensorType, float_dtypes, tensor_type
from theon.tensor.variable import TensorVariable

__all__ = [
    "conv2d_transpose",
    "AbstractConv",
    "AbstractConv2d",
    "AbstractConv2d_gradInputs",
    "AbstractConv2d_gradWeights",
    "AbstractConv3d",
    "AbstractConv3d_gradInputs",
    "AbstractConv3d_gradWeights",
    "AbstractConv_gradInputs",
    "AbstractConv_gradWeights",
    "conv2d",
    "conv2d_grad_wrt_inputs",
    "conv2d_grad_wrt_weights",
    "conv3d",
    "conv3d_grad_wrt_inputs",
    "conv3d_grad_wrt_weights",
    "get_conv_output_shape",
]

Border = str | tuple[Any, ...]
Hint = tuple[int | None, ...] | None
Dim = Any  # an int or a symbolic integer scalar


# -- parameters --------------------------------------------------------------------
def _int_tuple(value: Any, nd: int, what: str, minimum: int) -> tuple[int, ...]:
    items = (value,) * nd if isinstance(value, int | np.integer) else tuple(value)
    if len(items) != nd or not all(isinstance(v, int | np.integer) and v >= minimum
                                   for v in items):
        raise ValueError(f"{what} must be {nd} integers >= {minimum}, got {value!r}")
    return tuple(int(v) for v in items)


def _border(border_mode: Any, nd: int) -> Border:
    """``'valid'``/``'full'``/``'half'``, or a tuple of ``nd`` ints or ``(lo, hi)`` pairs."""
    if isinstance(border_mode, str):
        if border_mode not in ("valid", "full", "half"):
            raise ValueError(f"border_mode must be 'valid', 'full', 'half', an int or a tuple, "
                             f"got {border_mode!r}")
        return border_mode
    items = (border_mode,) * nd if isinstance(border_mode, int | np.integer) else tuple(border_mode)
    if len(items) != nd:
        raise ValueError(f"border_mode must have {nd} entries, got {border_mode!r}")
    res: list[Any] = []
    for p in items:
        if isinstance(p, int | np.integer) and p >= 0:
            res.append(int(p))
        elif (isinstance(p, tuple | list) and len(p) == 2
              and all(isinstance(q, int | np.integer) and q >= 0 for q in p)):
            res.append((int(p[0]), int(p[1])))
        else:
            raise ValueError(f"border_mode entries must be ints >= 0 or (before, after) pairs "
                             f"of them, got {border_mode!r}")
    return tuple(res)


def _hint(shape: Any, ndim: int, what: str) -> Hint:
    if shape is None:
        return None
    items = tuple(shape)
    if len(items) != ndim:
        raise ValueError(f"{what} must have {ndim} entries, got {shape!r}")
    res: list[int | None] = []
    for v in items:
        if isinstance(v, Variable):
            v = v.data if isinstance(v, Constant) else None
        if v is not None:
            v = int(v)
            if v < 0:
                raise ValueError(f"{what} has a negative entry: {shape!r}")
        res.append(v)
    return tuple(res)


def _dilated(k: Dim, d: int) -> Dim:
    return (k - 1) * d + 1


def _pads(border: Border, dk: Sequence[Dim]) -> list[tuple[Dim, Dim]]:
    """``(before, after)`` padding per spatial dimension for dilated kernel lengths ``dk``."""
    if border == "valid":
        return [(0, 0)] * len(dk)
    if border == "full":
        return [(k - 1, k - 1) for k in dk]
    if border == "half":
        return [(k // 2, k // 2) for k in dk]
    return [p if isinstance(p, tuple) else (p, p) for p in border]


def _out_len(n: Dim, k: Dim, pad: tuple[Dim, Dim], s: int, d: int) -> Dim:
    return (n + pad[0] + pad[1] - _dilated(k, d)) // s + 1


def get_conv_output_shape(image_shape: Sequence[Any], kernel_shape: Sequence[Any],
                          border_mode: Any, subsample: Sequence[int],
                          filter_dilation: Sequence[int] | None = None) -> tuple[Any, ...]:
    """The output shape of a convolution (entries may be ints, symbolic or None).

    >>> get_conv_output_shape((64, 1, 28, 28), (20, 1, 5, 5), "valid", (1, 1))
    (64, 20, 24, 24)
    """
    nd = len(image_shape) - 2
    dil = tuple(filter_dilation or (1,) * nd)
    border = _border(border_mode, nd)
    return (image_shape[0], kernel_shape[0],
            *_spatial_out(image_shape[2:], kernel_shape[2:], border, tuple(subsample), dil))


def _spatial_out(spatial: Sequence[Any], k: Sequence[Any], border: Border, s: Sequence[int],
                 d: Sequence[int]) -> tuple[Any, ...]:
    res: list[Any] = []
    for i, (n, kk) in enumerate(zip(spatial, k, strict=True)):
        if n is None or kk is None:
            res.append(None)
            continue
        pad = _pads(border, [_dilated(kk, d[i])] * len(spatial))[i]
        res.append(_out_len(n, kk, pad, s[i], d[i]))
    return tuple(res)


# -- the Ops -------------------------------------------------------------------------
class _ConvBase(Op):
    """What the three convolution Ops share: their parameters and the shape checks."""

    __props__ = ("convdim", "border_mode", "subsample", "filter_flip", "imshp", "kshp",
                 "filter_dilation", "num_groups")
    convdim = 2

    def __init__(self, imshp: Any = None, kshp: Any = None, border_mode: Any = "valid",
                 subsample: Any = None, filter_flip: bool = True, filter_dilation: Any = None,
                 num_groups: int = 1) -> None:
        nd = self.convdim
        self.border_mode = _border(border_mode, nd)
        self.subsample = _int_tuple(subsample if subsample is not None else 1, nd, "subsample", 1)
        self.filter_dilation = _int_tuple(filter_dilation if filter_dilation is not None else 1,
                                          nd, "filter_dilation", 1)
        self.filter_flip = bool(filter_flip)
        if not isinstance(num_groups, int | np.integer) or num_groups < 1:
            raise ValueError(f"num_groups must be an int >= 1, got {num_groups!r}")
        self.num_groups = int(num_groups)
        self.imshp = _hint(imshp, nd + 2, "input_shape")
        self.kshp = _hint(kshp, nd + 2, "filter_shape")
        if self.kshp is not None and self.kshp[0] is not None and self.kshp[0] % self.num_groups:
            raise ValueError(f"the number of filters {self.kshp[0]} is not a multiple of "
                             f"num_groups={self.num_groups}")

    def __str__(self) -> str:
        return (f"{type(self).__name__}{{border_mode={self.border_mode!r}, "
                f"subsample={self.subsample}, filter_flip={self.filter_flip}, "
                f"filter_dilation={self.filter_dilation}, num_groups={self.num_groups}}}")

    @property
    def _name(self) -> str:
        return type(self).__name__

    # -- checks ------------------------------------------------------------------------
    def _tensor(self, v: Any, what: str) -> TensorVariable:
        x = as_tensor_variable(v)
        t = x.type
        if t.ndim != self.convdim + 2:
            raise TypeError(f"{self._name}: {what} must have {self.convdim + 2} dimensions, "
                            f"got {describe(x)}")
        if t.dtype not in float_dtypes:
            raise TypeError(f"{self._name}: {what} must be a float tensor, got {describe(x)}")
        return x

    def _check_static(self, v: Variable, hint: Hint, what: str) -> tuple[int | None, ...]:
        """The static shape of ``v`` merged with ``hint``; an error where they disagree."""
        shape = tensor_type(v).shape
        if hint is None:
            return tuple(shape)
        res = []
        for i, (a, b) in enumerate(zip(shape, hint, strict=True)):
            if a is not None and b is not None and a != b:
                raise ValueError(f"{self._name}: the {what} hint {hint} disagrees with the "
                                 f"static shape of {describe(v)} in dimension {i}")
            res.append(a if a is not None else b)
        return tuple(res)

    def _check_run(self, arr: np.ndarray, hint: Hint, what: str) -> None:
        if hint is None:
            return
        for i, (h, n) in enumerate(zip(hint, arr.shape, strict=True)):
            if h is not None and h != n:
                raise ValueError(f"{self._name}: the {what} hint {hint} does not match the "
                                 f"run-time shape {arr.shape} (dimension {i})")

    def _check_groups(self, c_in: int, c_kern: int, o: int) -> None:
        g = self.num_groups
        if o % g or c_in != c_kern * g:
            raise ValueError(f"{self._name}: {c_in} input channels and filters of shape "
                             f"(out={o}, in={c_kern}, ...) do not fit num_groups={g} "
                             f"(need in_channels == filter in-channels * groups and "
                             f"out channels divisible by groups)")

    def _run_pads(self, k: Sequence[int]) -> list[tuple[int, int]]:
        dk = [_dilated(kk, dd) for kk, dd in zip(k, self.filter_dilation, strict=True)]
        return _pads(self.border_mode, dk)

    def _out_spatial(self, spatial: Sequence[int], k: Sequence[int]) -> tuple[int, ...]:
        return tuple(int(v) for v in _spatial_out(spatial, k, self.border_mode, self.subsample,
                                                  self.filter_dilation))

    def _kernel(self, w: np.ndarray) -> np.ndarray:
        if self.filter_flip:
            return w[(slice(None), slice(None), *(slice(None, None, -1),) * self.convdim)]
        return w

    def _like(self) -> dict[str, Any]:
        return {"imshp": self.imshp, "kshp": self.kshp, "border_mode": self.border_mode,
                "subsample": self.subsample, "filter_flip": self.filter_flip,
                "filter_dilation": self.filter_dilation, "num_groups": self.num_groups}

    def _family(self) -> tuple[type[AbstractConv], type[AbstractConv_gradWeights],
                               type[AbstractConv_gradInputs]]:
        if self.convdim == 2:
            return AbstractConv2d, AbstractConv2d_gradWeights, AbstractConv2d_gradInputs
        return AbstractConv3d, AbstractConv3d_gradWeights, AbstractConv3d_gradInputs

    def _spatial_shape(self, shape: Any, what: str) -> TensorVariable:
        v = as_tensor_variable(shape)
        t = v.type
        if t.ndim != 1 or not t.dtype.startswith(("int", "uint")):
            raise TypeError(f"{self._name}: {what} must be a vector of {self.convdim} ints, got "
                            f"{describe(v)}")
        if t.shape[0] is not None and t.shape[0] != self.convdim:
            raise ValueError(f"{self._name}: {what} must have {self.convdim} entries, got "
                             f"{describe(v)}")
        return v


def _common(a: TensorVariable, b: TensorVariable
            ) -> tuple[TensorVariable, TensorVariable, str]:
    dtype = upcast(a.type.dtype, b.type.dtype)
    if a.type.dtype != dtype:
        a = cast(a, dtype)
    if b.type.dtype != dtype:
        b = cast(b, dtype)
    return a, b, dtype


def _const_vector(v: Variable, n: int) -> list[int | None]:
    if isinstance(v, Constant):
        return [int(q) for q in np.asarray(v.data).reshape(-1)]
    return [None] * n


class AbstractConv(_ConvBase):
    """The convolution of images ``(N, C, *spatial)`` with filters ``(O, C/groups, *k)``."""

    def make_node(self, img: Any, kern: Any) -> Apply:
        iv, kv, dtype = _common(self._tensor(img, "the input"), self._tensor(kern, "the filters"))
        ishape = self._check_static(iv, self.imshp, "input_shape")
        kshape = self._check_static(kv, self.kshp, "filter_shape")
        if ishape[1] is not None and kshape[1] is not None and kshape[0] is not None:
            self._check_groups(ishape[1], kshape[1], kshape[0])
        out = (ishape[0], kshape[0], *_spatial_out(ishape[2:], kshape[2:], self.border_mode,
                                                   self.subsample, self.filter_dilation))
        if any(v is not None and v < 0 for v in out):
            raise ValueError(f"{self._name}: the output would have the negative shape {out} "
                             f"for {describe(iv)} and {describe(kv)}")
        return Apply(self, [iv, kv], [TensorType(dtype, shape=out)()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        x, w = inputs
        self._check_run(x, self.imshp, "input_shape")
        self._check_run(w, self.kshp, "filter_shape")
        self._check_groups(x.shape[1], w.shape[1], w.shape[0])
        pads = self._run_pads(w.shape[2:])
        out = kernels.corr_forward(x, self._kernel(w), pads, self.subsample,
                                   self.filter_dilation, self.num_groups)
        if min(out.shape[2:], default=1) <= 0:
            raise ValueError(f"{self._name}: the filters {w.shape} do not fit in the input "
                             f"{x.shape} (padding {pads})")
        output_storage[0][0] = out

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        ishape, kshape = input_shapes
        spatial = [s if h is None else h for s, h in
                   zip(ishape, self.imshp or (None,) * len(ishape), strict=True)][2:]
        k = [s if h is None else h for s, h in
             zip(kshape, self.kshp or (None,) * len(kshape), strict=True)][2:]
        return [(ishape[0], kshape[0], *_spatial_out(spatial, k, self.border_mode,
                                                     self.subsample, self.filter_dilation))]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        img, kern = inputs
        (gz,) = output_grads
        _, gw_op, gi_op = self._family()
        shape_of = as_tensor_variable(img).shape
        kshape_of = as_tensor_variable(kern).shape
        d_img = gi_op(**self._like())(kern, gz, shape_of[2:])
        d_kern = gw_op(**self._like())(img, gz, kshape_of[2:])
        return [d_img, d_kern]


class AbstractConv_gradWeights(_ConvBase):
    """The gradient of a convolution with respect to its filters.

    Inputs: the images, the gradient of the output, the filters' spatial shape.
    """

    def make_node(self, img: Any, topgrad: Any, shape: Any) -> Apply:
        iv, gv, dtype = _common(self._tensor(img, "the input"),
                                self._tensor(topgrad, "the output gradient"))
        sv = self._spatial_shape(shape, "the filter shape")
        ishape = self._check_static(iv, self.imshp, "input_shape")
        gshape = gv.type.shape
        k = _const_vector(sv, self.convdim)
        cin = None if ishape[1] is None else ishape[1] // self.num_groups
        out: list[int | None] = [gshape[1], cin, *k]
        if self.kshp is not None:
            out = [a if a is not None else b for a, b in zip(out, self.kshp, strict=True)]
        return Apply(self, [iv, gv, sv], [TensorType(dtype, shape=tuple(out))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        x, gz, shape = inputs
        k = tuple(int(v) for v in shape)
        self._check_run(x, self.imshp, "input_shape")
        o = gz.shape[1]
        self._check_groups(x.shape[1], x.shape[1] // self.num_groups, o)
        self._check_run(np.empty((o, x.shape[1] // self.num_groups, *k), dtype=bool), self.kshp,
                        "filter_shape")
        pads = self._run_pads(k)
        want = self._out_spatial(x.shape[2:], k)
        if tuple(gz.shape[2:]) != want or gz.shape[0] != x.shape[0]:
            raise ValueError(f"{self._name}: the output gradient has shape {gz.shape}, but the "
                             f"convolution of {x.shape} by filters {k} gives spatial {want}")
        gw = kernels.corr_grad_weights(x, gz, k, pads, self.subsample, self.filter_dilation,
                                       self.num_groups)
        output_storage[0][0] = self._kernel(gw)

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        ishape, gshape, _ = input_shapes
        shape = as_tensor_variable(node.inputs[2])
        return [(gshape[1], ishape[1] // self.num_groups,
                 *(shape[i] for i in range(self.convdim)))]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [True], [False]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        img, gz, _ = inputs
        (ggw,) = output_grads
        conv_op, _, gi_op = self._family()
        d_img = gi_op(**self._like())(ggw, gz, as_tensor_variable(img).shape[2:])
        d_gz = conv_op(**self._like())(img, ggw)
        return [d_img, d_gz, disconnected_type()]


class AbstractConv_gradInputs(_ConvBase):
    """The gradient of a convolution with respect to its input (a transposed convolution).

    Inputs: the filters, the gradient of the output, the input's spatial shape.
    """

    def make_node(self, kern: Any, topgrad: Any, shape: Any) -> Apply:
        kv, gv, dtype = _common(self._tensor(kern, "the filters"),
                                self._tensor(topgrad, "the output gradient"))
        sv = self._spatial_shape(shape, "the input shape")
        kshape = self._check_static(kv, self.kshp, "filter_shape")
        gshape = gv.type.shape
        c = None if kshape[1] is None else kshape[1] * self.num_groups
        out: list[int | None] = [gshape[0], c, *_const_vector(sv, self.convdim)]
        if self.imshp is not None:
            out = [a if a is not None else b for a, b in zip(out, self.imshp, strict=True)]
        return Apply(self, [kv, gv, sv], [TensorType(dtype, shape=tuple(out))()])

    def perform(self, node: Apply, inputs: Sequence[Any], output_storage: list[list[Any]]) -> None:
        w, gz, shape = inputs
        spatial = tuple(int(v) for v in shape)
        self._check_run(w, self.kshp, "filter_shape")
        o = w.shape[0]
        if gz.shape[1] != o:
            raise ValueError(f"{self._name}: the output gradient has {gz.shape[1]} channels "
                             f"but there are {o} filters")
        self._check_groups(w.shape[1] * self.num_groups, w.shape[1], o)
        k = w.shape[2:]
        want = self._out_spatial(spatial, k)
        if tuple(gz.shape[2:]) != want:
            raise ValueError(f"{self._name}: the output gradient has shape {gz.shape}, but an "
                             f"input of spatial shape {spatial} convolved by filters "
                             f"{w.shape} gives spatial {want}")
        gx = kernels.corr_grad_inputs(self._kernel(w), gz, spatial, self._run_pads(k),
                                      self.subsample, self.filter_dilation, self.num_groups)
        self._check_run(gx, self.imshp, "input_shape")
        output_storage[0][0] = gx

    def infer_shape(self, node: Apply, input_shapes: Sequence[Sequence[Any]]) -> list[Any]:
        kshape, gshape, _ = input_shapes
        shape = as_tensor_variable(node.inputs[2])
        return [(gshape[0], kshape[1] * self.num_groups,
                 *(shape[i] for i in range(self.convdim)))]

    def connection_pattern(self, node: Apply) -> list[list[bool]]:
        return [[True], [True], [False]]

    def grad(self, inputs: Sequence[Variable], output_grads: Sequence[Variable]) -> list[Any]:
        kern, gz, _ = inputs
        (ggi,) = output_grads
        conv_op, gw_op, _ = self._family()
        d_kern = gw_op(**self._like())(ggi, gz, as_tensor_variable(kern).shape[2:])
        d_gz = conv_op(**self._like())(ggi, kern)
        return [d_kern, d_gz, disconnected_type()]


class AbstractConv2d(AbstractConv):
    """2-D convolution: ``(N, C, H, W)`` by ``(O, C/groups, kh, kw)``."""


class AbstractConv3d(AbstractConv):
    """3-D convolution: ``(N, C, D, H, W)`` by ``(O, C/groups, kd, kh, kw)``."""

    convdim = 3


class AbstractConv2d_gradWeights(AbstractConv_gradWeights):
    """Gradient of a 2-D convolution with respect to the filters."""


class AbstractConv3d_gradWeights(AbstractConv_gradWeights):
    """Gradient of a 3-D convolution with respect to the filters."""

    convdim = 3


class AbstractConv2d_gradInputs(AbstractConv_gradInputs):
    """Gradient of a 2-D convolution with respect to the input (transposed convolution)."""


class AbstractConv3d_gradInputs(AbstractConv_gradInputs):
    """Gradient of a 3-D convolution with respect to the input (transposed convolution)."""

    convdim = 3


# -- the functions -------------------------------------------------------------------------
def _shape_arg(shape: Any, what: str) -> Any:
    """A full shape given as ints / symbolic scalars / a symbolic vector, as a vector."""
    if isinstance(shape, Variable):
        return shape
    items = list(shape)
    if all(isinstance(v, int | np.integer) for v in items):
        return np.asarray(items, dtype="int64")
    return as_tensor_variable([as_tensor_variable(v) for v in items])


def _hint_of(shape: Any) -> Any:
    if shape is None or isinstance(shape, Variable):
        return None
    return tuple(v if isinstance(v, int | np.integer | Constant) else None for v in shape)


def _conv(cls: type[AbstractConv], input: Any, filters: Any, input_shape: Any,
          filter_shape: Any, border_mode: Any, subsample: Any, filter_flip: bool,
          filter_dilation: Any, num_groups: int) -> TensorVariable:
    op = cls(imshp=input_shape, kshp=filter_shape, border_mode=border_mode, subsample=subsample,
             filter_flip=filter_flip, filter_dilation=filter_dilation, num_groups=num_groups)
    out = op(input, filters)
    assert isinstance(out, TensorVariable)
    return out


def conv2d(input: Any, filters: Any, input_shape: Any = None, filter_shape: Any = None,
           border_mode: Any = "valid", subsample: Any = (1, 1), filter_flip: bool = True,
           filter_dilation: Any = (1, 1), num_groups: int = 1, image_shape: Any = None,
           **kwargs: Any) -> TensorVariable:
    """2-D convolution of a batch of images ``(N, C, H, W)`` with filters ``(O, C/groups, kh, kw)``.

    Parameters
    ----------
    input, filters
        4-d float tensors.
    input_shape, filter_shape
        Optional shape hints (4 entries, ``None`` where unknown), checked at run time.
        ``image_shape`` is the old name of ``input_shape``.
    border_mode
        ``'valid'``, ``'full'``, ``'half'``, an int, a pair of ints, or a pair of
        ``(before, after)`` pairs: the zero padding of the input.
    subsample
        The strides.
    filter_flip
        True: a convolution (the filters are flipped); False: a correlation.
    filter_dilation
        The spacing between filter taps.
    num_groups
        Split the channels into this many independent groups.

    Returns
    -------
    The ``(N, O, H', W')`` output, ``H' = (H + pads - (kh - 1) * dilation - 1) // stride + 1``.

    Examples
    --------
    >>> import numpy as np
    >>> import theon.tensor as tt
    >>> x, w = tt.dtensor4("x"), tt.dtensor4("w")
    >>> y = conv2d(x, w, border_mode="half", filter_shape=(8, 3, 3, 3))
    >>> y.eval({x: np.ones((2, 3, 5, 5)), w: np.ones((8, 3, 3, 3))}).shape
    (2, 8, 5, 5)
    """
    if kwargs.pop("unshared", False):
        raise NotImplementedError("conv2d: unshared=True is not supported")
    if kwargs:
        raise TypeError(f"conv2d got unexpected keyword arguments {sorted(kwargs)}")
    if image_shape is not None:
        if input_shape is not None:
            raise TypeError("conv2d: give input_shape or its old name image_shape, not both")
        input_shape = image_shape
    return _conv(AbstractConv2d, input, filters, _hint_of(input_shape), _hint_of(filter_shape),
                 border_mode, subsample, filter_flip, filter_dilation, num_groups)


def conv3d(input: Any, filters: Any, input_shape: Any = None, filter_shape: Any = None,
           border_mode: Any = "valid", subsample: Any = (1, 1, 1), filter_flip: bool = True,
           filter_dilation: Any = (1, 1, 1), num_groups: int = 1) -> TensorVariable:
    """3-D convolution of ``(N, C, D, H, W)`` volumes with ``(O, C/groups, kd, kh, kw)`` filters.

    The parameters are those of :func:`conv2d`, with three spatial entries.

    Examples
    --------
    >>> import numpy as np
    >>> import theon.tensor as tt
    >>> x, w = tt.dtensor5("x"), tt.dtensor5("w")
    >>> conv3d(x, w).eval({x: np.ones((1, 2, 4, 4, 4)), w: np.ones((3, 2, 2, 2, 2))}).shape
    (1, 3, 3, 3, 3)
    """
    return _conv(AbstractConv3d, input, filters, _hint_of(input_shape), _hint_of(filter_shape),
                 border_mode, subsample, filter_flip, filter_dilation, num_groups)


def _grad_inputs(cls: type[AbstractConv_gradInputs], output_grad: Any, filters: Any,
                 input_shape: Any, filter_shape: Any, border_mode: Any, subsample: Any,
                 filter_flip: bool, filter_dilation: Any, num_groups: int) -> TensorVariable:
    nd = cls.convdim
    if input_shape is None or len(input_shape) != nd + 2:
        raise ValueError(f"conv{nd}d_grad_wrt_inputs needs the input_shape ({nd + 2} entries), "
                         f"got {input_shape!r}")
    shape = _shape_arg(input_shape, "input_shape")
    spatial = shape[2:]
    op = cls(imshp=_hint_of(input_shape), kshp=_hint_of(filter_shape), border_mode=border_mode,
             subsample=subsample, filter_flip=filter_flip, filter_dilation=filter_dilation,
             num_groups=num_groups)
    out = op(filters, output_grad, spatial)
    assert isinstance(out, TensorVariable)
    return out


def _grad_weights(cls: type[AbstractConv_gradWeights], input: Any, output_grad: Any,
                  filter_shape: Any, input_shape: Any, border_mode: Any, subsample: Any,
                  filter_flip: bool, filter_dilation: Any, num_groups: int) -> TensorVariable:
    nd = cls.convdim
    if filter_shape is None or len(filter_shape) != nd + 2:
        raise ValueError(f"conv{nd}d_grad_wrt_weights needs the filter_shape ({nd + 2} "
                         f"entries), got {filter_shape!r}")
    shape = _shape_arg(filter_shape, "filter_shape")
    op = cls(imshp=_hint_of(input_shape), kshp=_hint_of(filter_shape), border_mode=border_mode,
             subsample=subsample, filter_flip=filter_flip, filter_dilation=filter_dilation,
             num_groups=num_groups)
    out = op(input, output_grad, shape[2:])
    assert isinstance(out, TensorVariable)
    return out


def conv2d_grad_wrt_inputs(output_grad: Any, filters: Any, input_shape: Any,
                           filter_shape: Any = None, border_mode: Any = "valid",
                           subsample: Any = (1, 1), filter_flip: bool = True,
                           filter_dilation: Any = (1, 1), num_groups: int = 1) -> TensorVariable:
    """The gradient of :func:`conv2d` with respect to its input: a transposed convolution.

    ``input_shape`` (4 entries: ints or symbolic scalars) is the shape of the result;
    the other parameters are those of the forward :func:`conv2d`.

    Examples
    --------
    >>> import numpy as np
    >>> import theon.tensor as tt
    >>> g, w = tt.dtensor4("g"), tt.dtensor4("w")
    >>> up = conv2d_grad_wrt_inputs(g, w, (1, 1, 5, 5), subsample=(2, 2))
    >>> up.eval({g: np.ones((1, 1, 2, 2)), w: np.ones((1, 1, 3, 3))}).shape
    (1, 1, 5, 5)
    """
    return _grad_inputs(AbstractConv2d_gradInputs, output_grad, filters, input_shape,
                        filter_shape, border_mode, subsample, filter_flip, filter_dilation,
                        num_groups)


def conv2d_transpose(input: Any, filters: Any, output_shape: Any, filter_shape: Any = None,
                     border_mode: Any = "valid", input_dilation: Any = (1, 1),
                     filter_flip: bool = True, filter_dilation: Any = (1, 1),
                     num_groups: int = 1) -> TensorVariable:
    """Theano's transposed convolution ("deconvolution"): the :func:`conv2d` whose
    gradient it is maps an ``output_shape`` image to ``input``'s shape, with stride
    ``input_dilation``; ``filters`` are that convolution's.

    Examples
    --------
    >>> import numpy as np
    >>> import theon.tensor as tt
    >>> x, w = tt.dtensor4("x"), tt.dtensor4("w")
    >>> up = conv2d_transpose(x, w, (1, 1, 5, 5), input_dilation=(2, 2))
    >>> up.eval({x: np.ones((1, 1, 2, 2)), w: np.ones((1, 1, 3, 3))}).shape
    (1, 1, 5, 5)
    """
    return conv2d_grad_wrt_inputs(input, filters, output_shape, filter_shape, border_mode,
                                  input_dilation, filter_flip, filter_dilation, num_groups)


def conv2d_grad_wrt_weights(input: Any, output_grad: Any, filter_shape: Any,
                            input_shape: Any = None, border_mode: Any = "valid",
                            subsample: Any = (1, 1), filter_flip: bool = True,
                            filter_dilation: Any = (1, 1), num_groups: int = 1) -> TensorVariable:
    """The gradient of :func:`conv2d` with respect to its filters, of shape ``filter_shape``.

    Examples
    --------
    >>> import numpy as np
    >>> import theon.tensor as tt
    >>> x, g = tt.dtensor4("x"), tt.dtensor4("g")
    >>> gw = conv2d_grad_wrt_weights(x, g, (4, 3, 3, 3))
    >>> gw.eval({x: np.ones((2, 3, 6, 6)), g: np.ones((2, 4, 4, 4))}).shape
    (4, 3, 3, 3)
    """
    return _grad_weights(AbstractConv2d_gradWeights, input, output_grad, filter_shape,
                         input_shape, border_mode, subsample, filter_flip, filter_dilation,
                         num_groups)


def conv3d_grad_wrt_inputs(output_grad: Any, filters: Any, input_shape: Any,
                           filter_shape: Any = None, border_mode: Any = "valid",
                           subsample: Any = (1, 1, 1), filter_flip: bool = True,
                           filter_dilation: Any = (1, 1, 1), num_groups: int = 1) -> TensorVariable:
    """The gradient of :func:`conv3d` with respect to its input (5 entries in ``input_shape``).

    Examples
    --------
    >>> import numpy as np
    >>> import theon.tensor as tt
    >>> g, w = tt.dtensor5("g"), tt.dtensor5("w")
    >>> up = conv3d_grad_wrt_inputs(g, w, (1, 1, 3, 3, 3))
    >>> up.eval({g: np.ones((1, 2, 2, 2, 2)), w: np.ones((2, 1, 2, 2, 2))}).shape
    (1, 1, 3, 3, 3)
    """
    return _grad_inputs(AbstractConv3d_gradInputs, output_grad, filters, input_shape,
                        filter_shape, border_mode, subsample, filter_flip, filter_dilation,
                        num_groups)


def conv3d_grad_wrt_weights(input: Any, output_grad: Any, filter_shape: Any,
                            input_shape: Any = None, border_mode: Any = "valid",
                            subsample: Any = (1, 1, 1), filter_flip: bool = True,
                            filter_dilation: Any = (1, 1, 1), num_groups: int = 1
                            ) -> TensorVariable:
    """The gradient of :func:`conv3d` with respect to its filters (5 entries in ``filter_shape``).

    Examples
    --------
    >>> import numpy as np
    >>> import theon.tensor as tt
    >>> x, g = tt.dtensor5("x"), tt.dtensor5("g")
    >>> gw = conv3d_grad_wrt_weights(x, g, (2, 1, 2, 2, 2))
    >>> gw.eval({x: np.ones((1, 1, 3, 3, 3)), g: np.ones((1, 2, 2, 2, 2))}).shape
    (2, 1, 2, 2, 2)
    """
    return _grad_weights(AbstractConv3d_gradWeights, input, output_grad, filter_shape,
                         input_shape, border_mode, subsample, filter_flip, filter_dilation,
                         num_groups)


# the JAX rules of these Ops (mode="JAX"), imported by the JAX linker before its first link
_register_linker_backend("jax", "theon.backends.jax.nnet")
