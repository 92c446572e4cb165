"""JAX rules for the Ops of ``theon.tensor.searching``, ``theon.tensor.complex`` and
``theon.tensor.fft``.

- ``SearchSorted``: ``jnp.searchsorted`` (``sorter``: the sorted array gathered first);
- ``RavelMultiIndex``, ``UnravelIndex``: the strides' arithmetic, with ``dims`` concrete
  when tracing (a constant, or computed from shapes); ``mode='raise'`` cannot raise
  under ``jit``: an index out of range gives a wrong flat index, as ``'wrap'`` would;
- ``Complex``: ``jax.lax.complex``;
- ``RFFTOp``, ``IRFFTOp``: ``jnp.fft.rfftn``/``irfftn`` over the axes after the first;
- ``Unique`` and ``Bincount`` have results whose length depends on the values: they are
  computed with NumPy when their input is concrete while tracing (a constant), and
  otherwise raise ``DynamicShapeError`` naming the reason, as ``nonzero`` does.

Registered by ``theon.tensor`` for the ``"jax"`` linker; jax is imported when a rule
runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from theon.graph.basic import Apply
from theon.link.jax.dispatch import DynamicShapeError, jax_funcify
from theon.tensor.complex import Complex
from theon.tensor.fft import IRFFTOp, RFFTOp
from theon.tensor.searching import Bincount, RavelMultiIndex, SearchSorted, Unique, UnravelIndex
from theon.tensor.type import tensor_type

__all__: list[str] = []

Fn = Callable[..., Any]


def _jnp() -> Any:
    import jax.numpy as jnp

    return jnp


def _concrete(v: Any) -> bool:
    return isinstance(v, (np.ndarray, np.generic, int, float))


def _dims(node: Apply, dims: Any, what: str) -> tuple[int, ...]:
    if not _concrete(dims):
        raise DynamicShapeError(
            f"mode='JAX': {what}'s dims must be known when tracing (a constant, or computed "
            f"from shapes), in {node}")
    return tuple(int(d) for d in np.asarray(dims))


@jax_funcify.register(SearchSorted)
def _searchsorted(op: SearchSorted, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()

    def f(a: Any, v: Any, sorter: Any = None) -> Any:
        if sorter is not None:
            a = jnp.take(a, sorter)
        return jnp.searchsorted(a, v, side=op.side).astype("int64")

    return f


@jax_funcify.register(RavelMultiIndex)
def _ravel_multi_index(op: RavelMultiIndex, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()

    def f(*args: Any) -> Any:
        *idx, dims = args
        shape = _dims(node, dims, "ravel_multi_index")
        modes = (op.mode,) * len(shape) if isinstance(op.mode, str) else tuple(op.mode)
        order = range(len(shape)) if op.order == "C" else range(len(shape) - 1, -1, -1)
        flat: Any = 0
        for d in order:
            i = jnp.asarray(idx[d], dtype="int64")
            if modes[d] == "wrap":
                i = jnp.mod(i, shape[d])
            elif modes[d] == "clip":
                i = jnp.clip(i, 0, shape[d] - 1)
            flat = flat * shape[d] + i
        return jnp.asarray(flat, dtype="int64")

    return f


@jax_funcify.register(UnravelIndex)
def _unravel_index(op: UnravelIndex, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()

    def f(indices: Any, dims: Any) -> Any:
        shape = _dims(node, dims, "unravel_index")
        rest = jnp.asarray(indices, dtype="int64")
        out: list[Any] = [None] * len(shape)
        order = range(len(shape) - 1, -1, -1) if op.order == "C" else range(len(shape))
        for d in order:
            out[d] = jnp.mod(rest, shape[d])
            rest = rest // shape[d]
        return tuple(out)

    return f


@jax_funcify.register(Complex)
def _complex(op: Complex, node: Apply, **kw: Any) -> Fn:
    import jax

    jnp = _jnp()
    dt = tensor_type(node.outputs[0]).dtype
    part = "float32" if dt == "complex64" else "float64"

    def f(re: Any, im: Any) -> Any:
        r, i = jnp.broadcast_arrays(jnp.asarray(re, part), jnp.asarray(im, part))
        return jax.lax.complex(r, i)

    return f


@jax_funcify.register(RFFTOp)
def _rfft(op: RFFTOp, node: Apply, **kw: Any) -> Fn:
    jnp = _jnp()
    dt = tensor_type(node.outputs[0]).dtype

    def f(x: Any) -> Any:
        spec = jnp.fft.rfftn(jnp.asarray(x, dt), axes=tuple(range(1, x.ndim)))
        return jnp.stack([spec.real, spec.imag], axis=-1).astype(dt)

    return f


@jax_funcify.register(IRFFTOp)
def _irfft(op: IRFFTOp, node: Apply, **kw: Any) -> Fn:
    import jax

    jnp = _jnp()
    dt = tensor_type(node.outputs[0]).dtype

    def f(z: Any, n_last: Any = None) -> Any:
        spec = jax.lax.complex(z[..., 0], z[..., 1])
        if n_last is None:
            n = 2 * (z.shape[-2] - 1) + int(op.is_odd)
        elif _concrete(n_last):
            n = int(n_last)
        else:
            static = tensor_type(node.outputs[0]).shape[-1]
            if static is None:
                raise DynamicShapeError(
                    f"mode='JAX': the length of irfft's result must be known when tracing, "
                    f"in {node}")
            n = static
        s = (*z.shape[1:-2], n)
        out = jnp.fft.irfftn(spec, s=s, axes=tuple(range(1, spec.ndim)), norm="forward")
        return out.astype(dt)

    return f


@jax_funcify.register(Unique)
def _unique(op: Unique, node: Apply, **kw: Any) -> Fn:
    def f(x: Any) -> Any:
        if not _concrete(x):
            raise DynamicShapeError(
                "mode='JAX': unique's result has a length that depends on the values of its "
                "input, which jax.jit cannot trace (compute it outside the function)")
        fn: Any = np.unique  # (its overloads want literal flags)
        res = fn(x, return_index=op.return_index, return_inverse=op.return_inverse,
                        return_counts=op.return_counts, axis=op.axis)
        parts = res if isinstance(res, tuple) else (res,)
        outs = tuple(np.asarray(p, dtype=tensor_type(o).dtype)
                     for p, o in zip(parts, node.outputs))
        return outs if len(outs) > 1 else outs[0]

    return f


@jax_funcify.register(Bincount)
def _bincount(op: Bincount, node: Apply, **kw: Any) -> Fn:
    dt = tensor_type(node.outputs[0]).dtype

    def f(x: Any, weights: Any = None) -> Any:
        if not _concrete(x):
            raise DynamicShapeError(
                "mode='JAX': bincount's length is one more than the largest value of its "
                "input, which jax.jit cannot trace (compute it outside the function)")
        if np.any(np.asarray(x) < 0):
            raise ValueError(f"bincount: the input has a negative entry, in {node}")
        n = max(int(np.max(x, initial=-1)) + 1, op.minlength)
        jnp = _jnp()
        w = jnp.ones(np.shape(x), dt) if weights is None else jnp.asarray(weights, dt)
        return jnp.zeros(n, dt).at[np.asarray(x)].add(w)

    return f
