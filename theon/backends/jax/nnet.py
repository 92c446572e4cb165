"""JAX rules for convolutions (:mod:`theon.tensor.nnet.abstract_conv`) and pooling
(:mod:`theon.tensor.signal.pool`).

A convolution is :func:`jax.lax.conv_general_dilated` (``NCHW`` images, ``OIHW``
filters; 3-D: ``NCDHW``/``OIDHW``), a cross-correlation, so the filters are
flipped along their spatial axes first when ``filter_flip=True`` (Theano's
true convolution).  ``border_mode`` gives the ``(before, after)`` padding of each
spatial axis (``'half'``/``'full'`` from the dilated filter length), ``subsample``
the strides, ``filter_dilation`` the filter dilation, ``num_groups`` the feature
groups.  The two gradient Ops are the vector-Jacobian products of that same
function with respect to the filters and to the images (XLA emits the transposed
convolutions); their ``shape`` input (the filters' or the images' spatial shape)
must be known when tracing, as the graph's static shapes or a constant.

Pooling pads the input as ``Pool.perform`` does (the padding and, with
``ignore_border=False``, the partial windows at the end: ``-inf`` for max, 0
otherwise) and reduces each window with :func:`jax.lax.reduce_window`; the
averages divide by the same per-window counts.  The gradients route ``gz`` into
every position of a window equal to its max (all of them on ties, as Theano's),
or spread each window's ``gz`` over it, one strided slice per window offset.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from theon.backends.jax.tensor import DynamicShapeError
from theon.graph.basic import Apply, Constant
from theon.link.jax.dispatch import jax_funcify
from theon.tensor.nnet.abstract_conv import (
    AbstractConv,
    AbstractConv_gradInputs,
    AbstractConv_gradWeights,
    _ConvBase,
)
from theon.tensor.signal.pool import AveragePoolGrad, MaxPoolGrad, MaxPoolGradGrad, Pool, _PoolBase
from theon.tensor.signal.pool_params import PoolParams
from theon.tensor.type import tensor_type

__all__: list[str] = []


# -- convolutions --------------------------------------------------------------------------
def _forward(op: _ConvBase) -> Callable[[Any, Any], Any]:
    """``conv(x, w)`` exactly as ``AbstractConv.perform`` computes it."""
    nd = op.convdim
    spatial = "DHW"[3 - nd:]
    dims = ("NC" + spatial, "OI" + spatial, "NC" + spatial)

    def conv(x: Any, w: Any) -> Any:
        from jax import lax

        if op.filter_flip:
            w = w[(slice(None), slice(None), *(slice(None, None, -1),) * nd)]
        pads = op._run_pads(w.shape[2:])
        return lax.conv_general_dilated(
            x, w, window_strides=op.subsample, padding=[(int(a), int(b)) for a, b in pads],
            rhs_dilation=op.filter_dilation, dimension_numbers=dims,
            feature_group_count=op.num_groups, precision=lax.Precision.HIGHEST)

    return conv


def _static_shape(node: Apply, value: Any, nd: int) -> tuple[int, ...]:
    """The spatial shape input (2) of a gradient node, known when tracing."""
    out = tensor_type(node.outputs[0]).shape[2:]
    known = [int(s) for s in out if s is not None]
    if len(known) == len(out):
        return tuple(known)
    v = node.inputs[2]
    data = v.data if isinstance(v, Constant) else value
    try:
        return tuple(int(s) for s in np.asarray(data).reshape(-1))
    except Exception:
        raise DynamicShapeError(
            f"mode='JAX': {node.op} has a spatial shape computed from a run-time value: under "
            "jax.jit the output shape must be known when tracing (give the shapes to conv2d "
            "as input_shape / filter_shape, or as constants)") from None


@jax_funcify.register(AbstractConv)
def _conv(op: AbstractConv, node: Apply, **kw: Any) -> Callable[..., Any]:
    conv = _forward(op)
    dtype = tensor_type(node.outputs[0]).dtype
    return lambda x, w: conv(x, w).astype(dtype)


@jax_funcify.register(AbstractConv_gradWeights)
def _conv_grad_weights(op: AbstractConv_gradWeights, node: Apply, **kw: Any
                       ) -> Callable[..., Any]:
    conv = _forward(op)
    dtype = tensor_type(node.outputs[0]).dtype

    def grad_weights(x: Any, gz: Any, shape: Any) -> Any:
        import jax
        import jax.numpy as jnp

        k = _static_shape(node, shape, op.convdim)
        w0 = jnp.zeros((gz.shape[1], x.shape[1] // op.num_groups, *k), dtype=x.dtype)
        _, vjp = jax.vjp(lambda w: conv(x, w), w0)
        return vjp(gz.astype(x.dtype))[0].astype(dtype)

    return grad_weights


@jax_funcify.register(AbstractConv_gradInputs)
def _conv_grad_inputs(op: AbstractConv_gradInputs, node: Apply, **kw: Any
                      ) -> Callable[..., Any]:
    conv = _forward(op)
    dtype = tensor_type(node.outputs[0]).dtype

    def grad_inputs(w: Any, gz: Any, shape: Any) -> Any:
        import jax
        import jax.numpy as jnp

        spatial = _static_shape(node, shape, op.convdim)
        x0 = jnp.zeros((gz.shape[0], w.shape[1] * op.num_groups, *spatial), dtype=w.dtype)
        _, vjp = jax.vjp(lambda x: conv(x, w), x0)
        return vjp(gz.astype(w.dtype))[0].astype(dtype)

    return grad_inputs


# -- pooling -----------------------------------------------------------------------------
def _geometry(op: _PoolBase, shape: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    spatial = shape[len(shape) - op.ndim:]
    out, padded = op._geometry(spatial)
    return spatial, out, padded


def _pad(op: _PoolBase, x: Any, padded: tuple[int, ...], fill: Any) -> Any:
    import jax.numpy as jnp

    spatial = x.shape[x.ndim - op.ndim:]
    widths = [(0, 0)] * (x.ndim - op.ndim) + [
        (p, t - n - p) for p, n, t in zip(op.pad, spatial, padded)]
    if all(a == 0 and b == 0 for a, b in widths):
        return x
    return jnp.pad(x, widths, constant_values=fill)


def _fill(op: _PoolBase, dtype: Any) -> Any:
    return op._fill(np.dtype(dtype))


@jax_funcify.register(Pool)
def _pool(op: Pool, node: Apply, **kw: Any) -> Callable[..., Any]:
    def pool(x: Any) -> Any:
        import jax.numpy as jnp
        from jax import lax

        spatial, out, padded = _geometry(op, x.shape)
        lead = x.shape[: x.ndim - op.ndim]
        if min(out, default=1) <= 0:
            return jnp.zeros(lead + tuple(max(m, 0) for m in out), x.dtype)
        xp = _pad(op, x, padded, _fill(op, x.dtype))
        one = (1,) * len(lead)
        if op.mode == "max":
            init, reduce = jnp.asarray(_fill(op, x.dtype), x.dtype), lax.max
        else:
            init, reduce = jnp.asarray(0, x.dtype), lax.add
        acc = lax.reduce_window(xp, init, reduce, one + op.ws, one + op.stride, "VALID")
        acc = acc[(Ellipsis, *(slice(0, m) for m in out))]
        if op.mode.startswith("average"):
            counts = jnp.asarray(op._counts(spatial, out, padded, np.dtype(x.dtype)))
            acc = acc / counts if jnp.issubdtype(x.dtype, jnp.inexact) else acc // counts
        return acc.astype(x.dtype)

    return pool


def _tiles(op: _PoolBase) -> bool:
    """Whether the windows tile the input (stride == ws, no padding, whole windows)."""
    return op.stride == op.ws and not any(op.pad) and op.ignore_border


def _tiled(op: _PoolBase, x: Any, out: tuple[int, ...], fill: Callable[[Any, Any], Any],
           dtype: Any) -> Any:
    """A gradient for tiling windows, without a pass per window offset: ``x`` viewed as
    ``(..., out_0, ws_0, out_1, ws_1, ...)``, ``fill(x_tiles, expand)`` giving each
    element's value (``expand`` indexes a pooled array to broadcast against the tiles);
    the uncovered end of each dimension gets zeros."""
    import jax.numpy as jnp

    nd = op.ndim
    lead = x.shape[: x.ndim - nd]
    covered = tuple(o * w for o, w in zip(out, op.ws))
    tiles = tuple(v for o, w in zip(out, op.ws) for v in (o, w))
    expand = (Ellipsis, *(v for _ in range(nd) for v in (slice(None), None)))
    xt = x[(Ellipsis, *(slice(0, c) for c in covered))].reshape(lead + tiles)
    g = fill(xt, expand).reshape(lead + covered)
    rest = [(0, 0)] * len(lead) + [(0, n - c) for n, c in zip(x.shape[len(lead):], covered)]
    return jnp.pad(g, rest) if any(b for _, b in rest) else g


@jax_funcify.register(MaxPoolGrad)
def _max_pool_grad(op: MaxPoolGrad, node: Apply, **kw: Any) -> Callable[..., Any]:
    dtype = tensor_type(node.outputs[0]).dtype

    def max_pool_grad(x: Any, maxout: Any, gz: Any) -> Any:
        import jax.numpy as jnp

        spatial, out, padded = _geometry(op, x.shape)
        if _tiles(op):
            return _tiled(op, x, out, lambda xt, e: jnp.where(
                xt == maxout[e], gz.astype(dtype)[e], 0).astype(dtype), dtype)
        xp = _pad(op, x, padded, _fill(op, x.dtype))
        gz = gz.astype(dtype)
        gx = jnp.zeros(xp.shape, dtype)
        for where in op._windows(out):
            gx = gx.at[where].add(jnp.where(xp[where] == maxout, gz, 0).astype(dtype))
        return gx[op._inner(spatial)]

    return max_pool_grad


@jax_funcify.register(MaxPoolGradGrad)
def _max_pool_grad_grad(op: MaxPoolGradGrad, node: Apply, **kw: Any) -> Callable[..., Any]:
    dtype = tensor_type(node.outputs[0]).dtype

    def max_pool_grad_grad(x: Any, maxout: Any, ggx: Any) -> Any:
        import jax.numpy as jnp

        spatial, out, padded = _geometry(op, x.shape)
        xp = _pad(op, x, padded, _fill(op, x.dtype))
        gp = _pad(op, ggx, padded, 0)
        acc = jnp.zeros(maxout.shape, dtype)
        for where in op._windows(out):
            acc = acc + jnp.where(xp[where] == maxout, gp[where], 0).astype(dtype)
        return acc

    return max_pool_grad_grad


@jax_funcify.register(AveragePoolGrad)
def _average_pool_grad(op: AveragePoolGrad, node: Apply, **kw: Any) -> Callable[..., Any]:
    dtype = tensor_type(node.outputs[0]).dtype

    def average_pool_grad(x: Any, gz: Any) -> Any:
        import jax.numpy as jnp

        spatial, out, padded = _geometry(op, x.shape)
        gz = gz.astype(dtype)
        if op.mode.startswith("average"):
            gz = gz / jnp.asarray(op._counts(spatial, out, padded, np.dtype(dtype)))
        if _tiles(op):
            return _tiled(op, x, out, lambda xt, e: jnp.broadcast_to(gz[e], xt.shape), dtype)
        lead = x.shape[: x.ndim - op.ndim]
        gx = jnp.zeros(lead + tuple(padded), dtype)
        for where in op._windows(out):
            gx = gx.at[where].add(gz)
        return gx[op._inner(spatial)]

    return average_pool_grad


@jax_funcify.register(PoolParams)
def _pool_params(op: PoolParams, node: Apply, **kw: Any) -> Callable[..., Any]:
    """The constant Op's rule, for parameters that are constants of the graph (the
    rewrite ``local_pool_params_constant`` has replaced those nodes in a rewritten graph)."""
    params = node.inputs[op.n_tensors:]
    if not all(isinstance(p, Constant) for p in params):
        raise DynamicShapeError(
            f"mode='JAX': {op} has a window size, stride or padding computed at run time; "
            "under jax.jit the windows must be known when tracing (give them as constants "
            "or compute them from static lengths)")
    const = op.constant_op(*(p.data for p in params))  # type: ignore[attr-defined]
    inner = jax_funcify(const, node=node, **kw)

    def pool_params(*args: Any) -> Any:
        return inner(*args[: op.n_tensors])

    return pool_params
