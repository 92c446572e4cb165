"""Tier-1 elementwise kernels compiled by XLA (through jax), cached on disk.

A fused node's :class:`~theon.link.pyfunc.kernel.KernelSpec` becomes a jax
function of fixed-size chunks (:data:`CHUNK` elements; 0-d inputs stay 0-d),
compiled ahead of time with 64-bit types enabled (in a context, so the user's
own jax configuration is untouched).  The compiled executable is serialized
into the disk cache (:mod:`.diskcache`): a later process deserializes it in
about a millisecond instead of tracing, lowering and compiling it (tens of
milliseconds).

Only steps whose NumPy and XLA semantics agree are compiled: the ufuncs of
:data:`UFUNCS` on floating-point (or boolean) values.  Anything else (integer
arithmetic, a non-ufunc step) stays on tier 0.  jax is imported by
:func:`make_compiler`, which only the background thread calls.
"""

from __future__ import annotations

import pickle
import platform
import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.link.pyfunc.kernel import KConst, KernelSpec
from theon.link.tier1.diskcache import DiskCache, default_cache, structural_hash
from theon.link.tier1.vmath import VERSION as VMATH_VERSION

__all__ = ["CHUNK", "UFUNCS", "XlaCompiler", "make_compiler", "supports"]

#: Elements per compiled chunk (measured: docs/tier1.md).
CHUNK = 1 << 17

#: The NumPy ufuncs compiled to XLA (by name; float or bool values only).
UFUNCS = frozenset(
    """add subtract multiply divide true_divide negative positive absolute square sqrt cbrt
    exp exp2 expm1 log log2 log10 log1p sin cos tan arcsin arccos arctan arctan2 sinh cosh
    tanh arcsinh arccosh arctanh maximum minimum fmax fmin power reciprocal floor ceil trunc
    rint sign hypot copysign greater greater_equal less less_equal equal not_equal
    logical_and logical_or logical_xor logical_not isnan isinf isfinite""".split()
)


class Unsupported(Exception):
    """The kernel has a step XLA is not trusted to compute as NumPy does."""


def supports(spec: KernelSpec) -> bool:
    """Whether XLA may compile ``spec`` (its steps; the inputs' dtypes are checked
    when the job runs).  Needs no jax, so the linker asks it before making a slot.

    >>> import numpy as np
    >>> from theon.link.pyfunc.kernel import KStep
    >>> supports(KernelSpec(1, [KStep(np.exp, (0,), "float64")], [1], ["float64"]))
    True
    >>> supports(KernelSpec(1, [KStep(np.floor_divide, (0, 0), "int64")], [1], ["int64"]))
    False
    """
    try:
        _check(spec, ())
    except Unsupported:
        return False
    return True


def _check(spec: KernelSpec, sig: Sequence[tuple[str, bool]]) -> None:
    for dt, _ in sig:
        if np.dtype(dt).kind not in "fb":
            raise Unsupported(f"input dtype {np.dtype(dt)}")
    for st in spec.steps:
        name = getattr(st.fn, "__name__", "")
        if not isinstance(st.fn, np.ufunc) or name not in UFUNCS:
            raise Unsupported(f"step {name or st.fn!r}")
        if np.dtype(st.dtype).kind not in "fb":
            raise Unsupported(f"step {name} of dtype {st.dtype}")
        for a in st.args:
            if isinstance(a, KConst) and np.asarray(a.value).dtype.kind not in "fbiu":
                raise Unsupported(f"constant {a.value!r}")
    for dt in spec.out_dtypes:
        if np.dtype(dt).kind not in "fb":
            raise Unsupported(f"output dtype {dt}")


def spec_key(spec: KernelSpec) -> tuple[Any, ...]:
    """A structural description of ``spec`` with a stable ``repr`` (for hashing)."""

    def ref(a: Any) -> Any:
        if isinstance(a, KConst):
            v = np.asarray(a.value)
            return ("c", v.dtype.str, v.shape, v.tobytes().hex())
        return a

    steps = tuple(
        (getattr(st.fn, "__name__", repr(st.fn)), tuple(ref(a) for a in st.args),
         np.dtype(st.dtype).str, st.fold)
        for st in spec.steps
    )
    outs = tuple(ref(r) for r in spec.outputs)
    return (spec.n_inputs, steps, outs, tuple(np.dtype(d).str for d in spec.out_dtypes))


class _Chunked:
    """A compiled chunk kernel: ``kernel(*chunk_inputs) -> outputs`` (jax arrays)."""

    autotune = True

    def __init__(self, compiled: Any, x64: Any, chunk: int) -> None:
        self.compiled = compiled
        self.x64 = x64
        self.chunk = chunk

    def __call__(self, *ins: Any) -> Any:
        with self.x64(True):  # (thread-local; about 0.5 us)
            return self.compiled(*ins)


class XlaCompiler:
    """Compiles :class:`KernelSpec` chunks with XLA; see the module docstring."""

    name = "xla"
    autotune = True

    def __init__(self, cache: DiskCache | None = None) -> None:
        import jax
        import jaxlib

        self.jax = jax
        self.version = f"jax {jax.__version__}, jaxlib {getattr(jaxlib, '__version__', '?')}"
        self._cache = cache
        self._memory: dict[str, _Chunked] = {}
        self._lock = threading.Lock()

    @property
    def cache(self) -> DiskCache:
        return self._cache if self._cache is not None else default_cache()

    def key(self, spec: KernelSpec, sig: Sequence[tuple[str, bool]]) -> str:
        """The disk-cache key: the kernel's structure, dtypes, chunk, compiler, machine."""
        from theon.config import environ_value

        cpu = getattr(np, "_core", np)
        feats = getattr(getattr(cpu, "_multiarray_umath", None), "__cpu_features__", {})
        return "xla-" + structural_hash(
            spec_key(spec), tuple(sig), CHUNK, self.version, VMATH_VERSION, platform.machine(),
            environ_value("XLA_FLAGS"), sorted(k for k, v in feats.items() if v),
        )

    def compile_elemwise(self, spec: KernelSpec, sig: Sequence[tuple[str, bool]]) -> _Chunked:
        """The chunk kernel of ``spec`` for inputs of ``sig`` (from memory, disk, or XLA)."""
        _check(spec, sig)
        key = self.key(spec, sig)
        with self._lock:
            hit = self._memory.get(key)
        if hit is not None:
            return hit
        from jax.experimental import serialize_executable as se

        x64 = self.jax.enable_x64
        cache = self.cache
        body = cache.get(key)
        compiled = None
        if body is not None:
            try:
                with x64(True):
                    compiled = se.deserialize_and_load(*pickle.loads(body))
            except Exception:
                cache.discard(key)
                from theon.link.tier1.worker import bump

                bump("disk_corrupt")
                compiled = None
        if compiled is None:
            compiled = self._compile(spec, sig)
            try:
                cache.put(key, pickle.dumps(se.serialize(compiled)))
            except Exception:
                pass
        kern = _Chunked(compiled, x64, CHUNK)
        with self._lock:
            self._memory[key] = kern
        return kern

    def _compile(self, spec: KernelSpec, sig: Sequence[tuple[str, bool]]) -> Any:
        jax = self.jax
        import jax.numpy as jnp

        from theon.link.tier1 import vmath

        fast = vmath.functions()

        def kernel(*ins: Any) -> tuple[Any, ...]:
            vals: list[Any] = list(ins)

            def ref(a: Any) -> Any:
                return jnp.asarray(np.asarray(a.value)) if isinstance(a, KConst) else vals[a]

            for st in spec.steps:
                fn = getattr(jnp, st.fn.__name__)
                if st.fn.__name__ in vmath.FLOAT64 and np.dtype(st.dtype) == np.float64:
                    fn = fast[st.fn.__name__]  # SIMD float64 sin/cos/log1p (vmath)
                args = [ref(a) for a in st.args]
                if st.fold and len(args) > 2:
                    r = fn(args[0], args[1])
                    for a in args[2:]:
                        r = fn(r, a)
                else:
                    r = fn(*args)
                vals.append(r.astype(st.dtype))
            outs = []
            for r, dt in zip(spec.outputs, spec.out_dtypes):
                v = ref(r)
                outs.append(jnp.broadcast_to(jnp.asarray(v, dtype=dt), (CHUNK,)))
            return tuple(outs)

        avals = [jax.ShapeDtypeStruct(() if scalar else (CHUNK,), np.dtype(dt))
                 for dt, scalar in sig]
        with jax.enable_x64(True):
            return jax.jit(kernel).lower(*avals).compile()


def make_compiler() -> XlaCompiler:
    """The default elementwise compiler (imports jax)."""
    return XlaCompiler()
