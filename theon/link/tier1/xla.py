"""Tier-1 elementwise kernels compiled by XLA (through jax), cached on disk.

A fused node's :class:`~theon.link.pyfunc.kernel.KernelSpec` becomes a jax
function of fixed-size chunks (:data:`CHUNK` elements; 0-d inputs stay 0-d),
compiled ahead of time with 64-bit types enabled (in a context, so the user's
own jax configuration is untouched).  The compiled executable is serialized
into the disk cache (:mod:`.diskcache`): a later process deserializes it in
about a millisecond instead of tracing, lowering and compiling it (tens of
milliseconds).

Only steps whose NumPy and XLA semantics agree are compiled: the ufuncs of
:data:`UFUNCS` on floating-point (or boolean) values.  A step is known by its
``name`` (:class:`~theon.link.pyfunc.kernel.KStep`), its scalar op's one name in
NumPy's namespaces, and compiled as ``jax.numpy.<name>``.  Anything else (integer
arithmetic, a non-ufunc step) stays on tier 0, and so does a node whose steps are
all in :data:`SIMPLE` (arithmetic NumPy runs as one vector pass each): there tier
0's blocked passes, in place where the inputs allow, are as fast or faster.  jax is imported by
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

__all__ = ["CHUNK", "SIMPLE", "UFUNCS", "XlaCompiler", "chunk_for", "make_compiler", "supports"]

#: Elements per compiled chunk (measured: docs/tier1.md).
CHUNK = 1 << 17

#: The steps compiled to XLA, by name (float or bool values only): those whose
#: ``jax.numpy`` function computes what NumPy's does.
UFUNCS = frozenset(
    """add subtract multiply true_divide negative absolute square sqrt
    exp exp2 expm1 log log2 log10 log1p sin cos tan arcsin arccos arctan arctan2 sinh cosh
    tanh arcsinh arccosh arctanh maximum minimum power floor ceil trunc
    sign greater greater_equal less less_equal equal not_equal
    logical_and logical_or logical_xor logical_not isnan isinf isfinite""".split()
)


#: Steps NumPy computes with a few vector instructions an element.  A node of these
#: alone is memory-bound: measured on this 2-core machine, ``x*y + z*0.5 - x/y`` on
#: 250,000 float64 elements took 0.88 ms on tier 0 and 1.25 ms as an XLA kernel (2.6
#: and 4.0 ms on 1,000,000), and ``gp_logp``'s arithmetic nodes were slower still as
#: kernels (broadcast and transposed inputs copied, no writing in place).
SIMPLE = frozenset(
    """add subtract multiply true_divide negative absolute square sqrt
    maximum minimum floor ceil trunc sign greater
    greater_equal less less_equal equal not_equal logical_and logical_or logical_xor
    logical_not isnan isinf isfinite""".split()
)


def chunk_for(size: int) -> int:
    """The chunk length for calls of ``size`` elements: :data:`CHUNK`, or the power of two
    at or above ``size`` when that is smaller (so a node of 32,768 elements is one call of
    the kernel, not a quarter-full chunk; a few lengths at most per node).

    >>> chunk_for(10**6), chunk_for(32768), chunk_for(20000)
    (131072, 32768, 32768)
    """
    return min(CHUNK, 1 << max(0, int(size) - 1).bit_length())


class Unsupported(Exception):
    """The kernel has a step XLA is not trusted to compute as NumPy does."""


def supports(spec: KernelSpec) -> bool:
    """Whether XLA may compile ``spec`` (its steps; the inputs' dtypes are checked
    when the job runs), and has something to win: a step beyond :data:`SIMPLE`.
    Needs no jax, so the linker asks it before making a slot.

    >>> import numpy as np
    >>> from theon.link.pyfunc.kernel import KStep
    >>> exp = KStep(np.exp, (0,), "float64", name="exp")
    >>> supports(KernelSpec(1, [exp], [1], ["float64"]))
    True
    >>> supports(KernelSpec(1, [KStep(np.exp, (0,), "float64")], [1], ["float64"]))  # no name
    False
    >>> floor_div = KStep(np.floor_divide, (0, 0), "int64", name="floor_divide")
    >>> supports(KernelSpec(1, [floor_div], [1], ["int64"]))
    False
    >>> supports(KernelSpec(2, [KStep(np.add, (0, 1), "float64", name="add"),
    ...                         KStep(np.multiply, (2, 0), "float64", name="multiply")],
    ...                     [2], ["float64"]))
    False
    """
    try:
        _check(spec, ())
    except Unsupported:
        return False
    return any(st.name not in SIMPLE for st in spec.steps)


def _check(spec: KernelSpec, sig: Sequence[tuple[str, bool]]) -> None:
    for dt, _ in sig:
        if np.dtype(dt).kind not in "fb":
            raise Unsupported(f"input dtype {np.dtype(dt)}")
    for st in spec.steps:
        name = st.name
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
        (st.name or repr(st.fn), tuple(ref(a) for a in st.args),
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

    def key(self, spec: KernelSpec, sig: Sequence[tuple[str, bool]], chunk: int = CHUNK) -> str:
        """The disk-cache key: the kernel's structure, dtypes, chunk, compiler, machine."""
        from theon.config import environ_value

        cpu = getattr(np, "_core", np)
        feats = getattr(getattr(cpu, "_multiarray_umath", None), "__cpu_features__", {})
        return "xla-" + structural_hash(
            spec_key(spec), tuple(sig), chunk, self.version, VMATH_VERSION, platform.machine(),
            environ_value("XLA_FLAGS"), sorted(k for k, v in feats.items() if v),
        )

    def compile_elemwise(self, spec: KernelSpec, sig: Sequence[tuple[str, bool]],
                         size: int = CHUNK) -> _Chunked:
        """The chunk kernel of ``spec`` for inputs of ``sig`` (from memory, disk, or XLA),
        for calls of about ``size`` elements: chunks of :data:`CHUNK` elements, or of the
        power of two at or above ``size`` when that is smaller."""
        _check(spec, sig)
        chunk = chunk_for(size)
        key = self.key(spec, sig, chunk)
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
            compiled = self._compile(spec, sig, chunk)
            try:
                cache.put(key, pickle.dumps(se.serialize(compiled)))
            except Exception:
                pass
        kern = _Chunked(compiled, x64, chunk)
        with self._lock:
            self._memory[key] = kern
        return kern

    def _compile(self, spec: KernelSpec, sig: Sequence[tuple[str, bool]], chunk: int) -> Any:
        jax = self.jax
        import jax.numpy as jnp

        from theon.link.tier1 import vmath

        fast = vmath.functions()

        def kernel(*ins: Any) -> tuple[Any, ...]:
            vals: list[Any] = list(ins)

            def ref(a: Any) -> Any:
                return jnp.asarray(np.asarray(a.value)) if isinstance(a, KConst) else vals[a]

            for st in spec.steps:
                fn = getattr(jnp, st.name)
                if st.name in vmath.FLOAT64 and np.dtype(st.dtype) == np.float64:
                    fn = fast[st.name]  # SIMD float64 sin/cos/log1p (vmath)
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
                outs.append(jnp.broadcast_to(jnp.asarray(v, dtype=dt), (chunk,)))
            return tuple(outs)

        avals = [jax.ShapeDtypeStruct(() if scalar else (chunk,), np.dtype(dt))
                 for dt, scalar in sig]
        with jax.enable_x64(True):
            return jax.jit(kernel).lower(*avals).compile()


def make_compiler() -> XlaCompiler:
    """The default elementwise compiler (imports jax)."""
    return XlaCompiler()
