"""Calling NumPy code on the host from a traced JAX function, 64-bit values intact.

theon traces and runs its JAX functions with 64-bit types on (``jax.enable_x64``, a
context of the calling thread), but XLA may run a host callback on one of its own
threads, where jax's default (32 bits) holds: jax then narrows the callback's
float64 and int64 arguments and results (``dtypes.canonicalize_value``), and the call
fails ("Incorrect output dtype") or computes in the wrong precision, depending on
which thread ran it.  :func:`host_call` therefore carries every 64-bit array across
the boundary as 32-bit words (``lax.bitcast_convert_type`` in the graph, ``.view`` on
the host): the bits are the values, whatever the thread's setting.

Used by the rules of ``as_op``'s Ops, the scalar rows jax cannot compute, and the
optimizers of ``theon.tensor.optimize``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

__all__ = ["host_call"]

#: the dtypes jax narrows without 64-bit mode, carried as words of 32 bits
_WIDE = frozenset(np.dtype(d) for d in ("float64", "int64", "uint64", "complex128"))


def _encode(a: Any) -> Any:
    """A traced array as the graph hands it to the host: 64-bit ones as uint32 words."""
    import jax.numpy as jnp
    from jax import lax

    if np.dtype(a.dtype) not in _WIDE:
        return a
    if jnp.iscomplexobj(a):
        a = jnp.stack([jnp.real(a), jnp.imag(a)], axis=-1)
    return lax.bitcast_convert_type(a, jnp.uint32)


def _decode_host(words: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The host's view of :func:`_encode`'s result as ``dtype``."""
    if dtype not in _WIDE:
        return words
    w = np.asarray(words, order="C")
    if dtype.kind == "c":  # (..., 2, 2) words: real and imaginary parts
        return w.view(np.float64)[..., 0].copy().view(np.complex128)[..., 0]
    return w.view(dtype)[..., 0]


def _encode_host(value: Any, dtype: np.dtype) -> np.ndarray:
    """A host result of ``dtype`` as the words the graph expects (its shape, under
    ``vmap`` with the batch dimensions, then the words)."""
    r = np.asarray(value, dtype=dtype, order="C")  # (ascontiguousarray makes 0-d 1-d)
    if dtype not in _WIDE:
        return r
    shape = r.shape
    if dtype.kind == "c":
        r = np.asarray(np.stack([r.real, r.imag], axis=-1), order="C")
    return r.view(np.uint32).reshape(shape + ((2, 2) if dtype.kind == "c" else (2,)))


def _word_spec(shape: tuple[int, ...], dtype: np.dtype) -> Any:
    import jax

    if dtype not in _WIDE:
        return jax.ShapeDtypeStruct(shape, dtype)
    return jax.ShapeDtypeStruct(shape + ((2, 2) if dtype.kind == "c" else (2,)), np.uint32)


def _decode(words: Any, dtype: np.dtype) -> Any:
    import jax.numpy as jnp
    from jax import lax

    if dtype not in _WIDE:
        return words
    if dtype.kind == "c":
        parts = lax.bitcast_convert_type(words, jnp.float64)
        return lax.complex(parts[..., 0], parts[..., 1])
    return lax.bitcast_convert_type(words, dtype)


def host_call(fn: Callable[..., Sequence[Any]], outs: Sequence[tuple[tuple[int, ...], Any]],
              *args: Any, vectorized: bool = False) -> list[Any]:
    """``fn(*args)`` computed on the host by ``jax.pure_callback``: ``fn`` takes NumPy
    arrays of the arguments' dtypes and returns one value per ``(shape, dtype)`` of
    ``outs``; the results are traced arrays of those shapes and dtypes.

    ``vectorized``: ``vmap`` calls ``fn`` once on the whole batch, the arguments
    broadcast together (``fn`` must broadcast); otherwise once per element.

    How a float64 array crosses (the graph's side, ``lax.bitcast_convert_type``, is the
    same bit-for-bit view):

    >>> words = _encode_host(np.array([1.5, -2.0]), np.dtype("float64"))
    >>> words.dtype, words.shape
    (dtype('uint32'), (2, 2))
    >>> _decode_host(words, np.dtype("float64"))
    array([ 1.5, -2. ])
    """
    import jax

    in_dtypes = [np.dtype(a.dtype) for a in args]
    out_specs = [(tuple(int(d) for d in s), np.dtype(dt)) for s, dt in outs]

    def host(*words: Any) -> tuple[Any, ...]:
        values = [_decode_host(np.asarray(w), d) for w, d in zip(words, in_dtypes)]
        res = fn(*values)
        return tuple(_encode_host(r, d) for r, (_, d) in zip(res, out_specs))

    specs = tuple(_word_spec(s, d) for s, d in out_specs)
    kw = {"vmap_method": "broadcast_all"} if vectorized else {"vmap_method": "sequential"}
    words = jax.pure_callback(host, specs, *(_encode(a) for a in args), **kw)
    return [_decode(w, d) for w, (_, d) in zip(words, out_specs)]
