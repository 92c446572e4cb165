"""Blocked, multi-threaded elementwise kernels for fused (Composite) nodes.

A fused node computes a small scalar graph on every element.  Evaluating it
with whole-array NumPy calls makes one full-size temporary per inner op and
streams each through memory; here the elements are cut into cache-sized
blocks, every inner op runs on one block with ``out=`` into per-chunk
scratch buffers, and contiguous runs of blocks are spread over a thread pool
(NumPy releases the GIL inside ufunc loops).

The kernel is described by a :class:`KernelSpec`: the inner graph as a list of
steps ``(fn, argument refs, dtype)``, where a ref is an input index, ``n_inputs
+ k`` for the result of step ``k``, or a :class:`KConst`.

>>> import numpy as np
>>> spec = KernelSpec(2, [KStep(np.multiply, (0, 1), "float64"),
...                       KStep(np.add, (2, KConst(np.float64(1.0))), "float64")],
...                   [3], ["float64"])
>>> k = build_kernel(spec, block=4)
>>> k(np.arange(6.0), np.full(6, 2.0))[0]
array([ 1.,  3.,  5.,  7.,  9., 11.])
"""

from __future__ import annotations

import math
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from theon.link.source import Source

__all__ = [
    "KERNEL_CACHE_SIZE",
    "KConst",
    "KStep",
    "Kernel",
    "KernelCache",
    "KernelSpec",
    "build_kernel",
    "QUIET_CALLS",
    "quiet_errors",
    "step_lines",
]

Ref = Any  # int (input or step result) or KConst


@dataclass(frozen=True)
class KConst:
    """A constant operand of a kernel step (a NumPy scalar or 0-d array, typed)."""

    value: Any


@dataclass(frozen=True)
class KStep:
    """One inner operation.

    Attributes
    ----------
    fn
        A ``np.ufunc`` (called with ``out=`` a scratch block when ``use_out``)
        or any callable returning the block's result.
    args
        Operand refs.
    dtype
        Dtype of the result.
    use_out
        Whether ``fn`` accepts ``out=`` and writes exactly ``dtype``.
    fold
        For a binary ufunc applied to more than two operands: fold left.
    name
        The step's one name in NumPy's namespaces, given by whoever builds the
        spec: ``numpy.<name>`` is ``fn``, and ``jax.numpy.<name>`` computes it
        (for a scalar op of :mod:`theon.scalar.table`, its row's ``numpy``).  Tier
        1 compiles a step by this name and leaves a step without one to tier 0.
    """

    fn: Callable[..., Any]
    args: tuple[Ref, ...]
    dtype: str
    use_out: bool = True
    fold: bool = False
    name: str = ""


@dataclass(frozen=True)
class KernelSpec:
    """An elementwise kernel: ``n_inputs`` arrays, ``steps``, and output refs."""

    n_inputs: int
    steps: Sequence[KStep]
    outputs: Sequence[Ref]
    out_dtypes: Sequence[str]


# errstate without the cost of np.errstate (about 1 us per use) -------------------
try:  # NumPy >= 2: the error state is a context variable holding an "extobj"
    from numpy._core.umath import _extobj_contextvar, _make_extobj

    _IGNORE_EXTOBJ = _make_extobj(all="ignore")

    def quiet_errors() -> Any:
        """Set NumPy's error handling to "ignore"; returns a token for :func:`restore_errors`."""
        return _extobj_contextvar.set(_IGNORE_EXTOBJ)

    def restore_errors(token: Any) -> None:
        """Undo :func:`quiet_errors`."""
        _extobj_contextvar.reset(token)

    #: ``(set, value, reset)``: generated code writes ``tok = set(value)`` ... ``reset(tok)``,
    #: the two C calls of :func:`quiet_errors`/:func:`restore_errors` without their frames.
    QUIET_CALLS: tuple[Callable[[Any], Any], Any, Callable[[Any], None]] = (
        _extobj_contextvar.set, _IGNORE_EXTOBJ, _extobj_contextvar.reset
    )

except ImportError:  # pragma: no cover - older NumPy

    def quiet_errors() -> Any:
        """Set NumPy's error handling to "ignore"; returns a token for :func:`restore_errors`."""
        es = np.errstate(all="ignore")
        es.__enter__()
        return es

    def restore_errors(token: Any) -> None:
        """Undo :func:`quiet_errors`."""
        token.__exit__(None, None, None)

    QUIET_CALLS = (lambda _: quiet_errors(), None, restore_errors)


# the thread pool -------------------------------------------------------------------
_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_pool_lock = threading.Lock()


def broadcast_shape(shapes: Sequence[tuple[int, ...]]) -> tuple[int, ...]:
    """``np.broadcast_shapes(*shapes)`` for a few short shapes, without its ~3 us setup.

    >>> broadcast_shape([(3, 1), (4,), ()])
    (3, 4)
    """
    nd = max(len(s) for s in shapes)
    out = [1] * nd
    for s in shapes:
        off = nd - len(s)
        for i, d in enumerate(s):
            o = out[off + i]
            if d != o:
                if o == 1:
                    out[off + i] = d
                elif d != 1:
                    return np.broadcast_shapes(*shapes)  # raises NumPy's error
    return tuple(out)


def _get_pool(workers: int) -> ThreadPoolExecutor:
    """A process-wide pool with at least ``workers`` threads (created lazily)."""
    global _pool, _pool_size, _fork_hook
    if _pool is None or _pool_size < workers:
        with _pool_lock:
            if not _fork_hook and hasattr(os, "register_at_fork"):
                os.register_at_fork(after_in_child=_forget_pool)
                _fork_hook = True
            if _pool is None or _pool_size < workers:
                # the smaller pool is dropped, not shut down: a kernel in another
                # thread may have it in hand and still submit to it; its idle
                # threads end once it is garbage
                _pool = ThreadPoolExecutor(workers, thread_name_prefix="theon-elemwise")
                _pool_size = workers
    return _pool


_pool_started = 0  # how many of the pool's threads were started ahead (prestart_pool)


def _noop() -> None:
    return None


def prestart_pool(workers: int) -> None:
    """Start the pool's ``workers`` threads now, without waiting for them: at link time,
    so that the first call of a parallel kernel does not start them.  (Starting a
    thread then cost 1-4 ms: the new thread takes its first block at once and the
    caller waits for the GIL; here it costs about 0.1 ms.)  Once per pool size.

    >>> prestart_pool(1)
    >>> _get_pool(1)._max_workers >= 1
    True
    """
    global _pool_started
    if _pool_started >= workers:
        return
    pool = _get_pool(workers)
    with _pool_lock:
        if _pool_started >= workers:
            return
        for _ in range(workers):
            pool.submit(_noop)
        _pool_started = workers


def _forget_pool() -> None:
    """In a forked child the pool's threads are gone: start a new pool when needed."""
    global _pool, _pool_size, _pool_lock, _pool_started
    _pool, _pool_size, _pool_lock, _pool_started = None, 0, threading.Lock(), 0


_fork_hook = False


def default_threads() -> int:
    """Number of cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


# code generation ---------------------------------------------------------------------
def _chunk_source(spec: KernelSpec, src: Source) -> None:
    """Add ``chunk(ins..., outs..., lo, hi, rows, rest)`` to ``src``: blocks of rows lo..hi."""
    n_in = spec.n_inputs
    names: dict[int, str] = {i: f"a{i}" for i in range(n_in)}
    last = _last_uses(spec)
    out_refs = {r for r in spec.outputs if isinstance(r, int)}
    direct = _direct_outputs(spec)

    def ref(r: Ref) -> str:
        return src.bind(r.value, "c") if isinstance(r, KConst) else names[r]

    slots = _ScratchSlots()
    body: list[str] = []
    for k, st in enumerate(spec.steps):
        r = n_in + k
        args = [ref(a) for a in st.args]
        if r in direct:
            target = f"o{direct[r]}[lo_:hi_]"
            names[r] = f"t{r}"
            assign = f"t{r} = "
        elif st.use_out:
            slot = slots.take(r, k, st, last, out_refs)
            target = f"s{slot}"
            names[r] = f"s{slot}"
            assign = ""
        else:
            target = ""
            names[r] = f"t{r}"
            assign = f"t{r} = "
        body.extend(_step_calls(src.bind(st.fn, "f"), st, args, r, names[r], target, assign))
        slots.release_dead(k, st, last, out_refs)
    # outputs not written directly: copy
    for j, r in enumerate(spec.outputs):
        if isinstance(r, int) and r >= n_in and direct.get(r) == j:
            continue
        body.append(f"_copyto(o{j}[lo_:hi_], {ref(r)}, casting='unsafe')")
    src.define("_copyto", np.copyto)
    src.define("_slot_dtypes", [np.dtype(dt) for dt in slots.dtypes])
    src.add(*_chunk_lines(n_in, len(spec.outputs), len(slots.dtypes), body))


def _last_uses(spec: KernelSpec) -> dict[int, int]:
    """Per value read by a step, the last step reading it."""
    last: dict[int, int] = {}
    for k, st in enumerate(spec.steps):
        for r in st.args:
            if isinstance(r, int):
                last[r] = k
    return last


def _direct_outputs(spec: KernelSpec) -> dict[int, int]:
    """The outputs a step writes straight into the output block: step result -> output."""
    n_in = spec.n_inputs
    direct: dict[int, int] = {}
    for j, r in enumerate(spec.outputs):
        if isinstance(r, int) and r >= n_in and r not in direct:
            st = spec.steps[r - n_in]
            if st.use_out and str(np.dtype(st.dtype)) == str(np.dtype(spec.out_dtypes[j])):
                direct[r] = j
    return direct


class _ScratchSlots:
    """The chunk's scratch arrays, one dtype each, reused once the value in one is dead."""

    def __init__(self) -> None:
        self.dtypes: list[str] = []  # dtype of each scratch slot
        self.free: dict[str, list[int]] = {}
        self.slot_of: dict[int, int] = {}

    def take(self, r: int, k: int, st: KStep, last: dict[int, int], out_refs: set[Ref]) -> int:
        """The slot step ``k`` writes its result ``r`` into.

        It reuses the slot of an operand that dies here (ufuncs allow out == input); a
        fold writes its first result before it reads operands 3.., so only the first
        two operands qualify, and only if not read again later.  Else a free slot of
        the dtype, else a new one.
        """
        dt = str(np.dtype(st.dtype))
        slot_of, slots = self.slot_of, self.dtypes
        reusable = st.args
        if st.fold and len(st.args) > 2:
            reusable = tuple(a for a in st.args[:2] if a not in st.args[2:])
        slot = None
        for a in reusable:
            if (
                isinstance(a, int)
                and a in slot_of
                and last.get(a) == k
                and a not in out_refs
                and slots[slot_of[a]] == dt
            ):
                slot = slot_of.pop(a)
                break
        if slot is None:
            lst = self.free.get(dt)
            if lst:
                slot = lst.pop()
            else:
                slot = len(slots)
                slots.append(dt)
        slot_of[r] = slot
        return slot

    def release_dead(self, k: int, st: KStep, last: dict[int, int], out_refs: set[Ref]) -> None:
        """Free the slots of step ``k``'s operands whose last use it is."""
        for a in st.args:
            if isinstance(a, int) and last.get(a) == k and a in self.slot_of and a not in out_refs:
                s = self.slot_of.pop(a)
                self.free.setdefault(self.dtypes[s], []).append(s)


def _step_calls(fn: str, st: KStep, args: list[str], r: int, name: str, target: str,
                assign: str) -> list[str]:
    """The statements of one step: a call of ``fn`` (writing into ``target`` when given),
    or for a fold a call on the first two operands, then one per further operand."""
    if st.fold and len(args) > 2:
        first = (
            f"{assign}{fn}({args[0]}, {args[1]}, out={target})"
            if target
            else (f"{assign}{fn}({args[0]}, {args[1]})")
        )
        lines = [first]
        for a in args[2:]:
            lines.append(
                f"{fn}({name}, {a}, out={target})" if target else f"t{r} = {fn}(t{r}, {a})"
            )
        return lines
    if target:
        return [f"{assign}{fn}({', '.join(args)}, out={target})"]
    return [f"{assign}{fn}({', '.join(args)})"]


def _chunk_lines(n_in: int, n_out: int, n_slots: int, body: list[str]) -> list[str]:
    """The ``chunk`` function around the steps' statements ``body``: unpack the inputs,
    outputs and scratch slots, then run ``body`` on each block of rows."""
    ins = ", ".join(f"x{i}" for i in range(n_in))
    outs = ", ".join(f"o{j}" for j in range(n_out))
    lines = [
        "def chunk(ins, outs, lo, hi, rows, rest, scratch):",
        f"    {ins}{',' if n_in == 1 else ''} = ins" if n_in else "    pass",
        f"    {outs}{',' if n_out == 1 else ''} = outs",
    ]
    for k in range(n_slots):
        lines.append(f"    s{k}_full = scratch[{k}]")
    lines.append("    for lo_ in range(lo, hi, rows):")
    lines.append("        hi_ = min(lo_ + rows, hi)")
    for k in range(n_slots):
        lines.append(f"        s{k} = s{k}_full if hi_ - lo_ == rows else s{k}_full[:hi_ - lo_]")
    for i in range(n_in):
        lines.append(f"        a{i} = x{i}[lo_:hi_] if x{i}.ndim else x{i}")
    lines.extend("        " + b for b in body)
    return lines


def step_lines(spec: KernelSpec, inputs: Sequence[str], temp: str,
               bind: Callable[[Any, str], str]) -> tuple[list[str], list[str]]:
    """The steps of ``spec`` as statements on whole arrays: step ``k`` assigns
    ``{temp}{k}``, reading ``inputs`` (one name per input) and constants through
    ``bind(value, hint)``.  Returns the lines and the names of the outputs' values."""
    n_in = spec.n_inputs
    names: dict[int, str] = dict(enumerate(inputs))

    def ref(r: Ref) -> str:
        return bind(r.value, "c") if isinstance(r, KConst) else names[r]

    body: list[str] = []
    for k, st in enumerate(spec.steps):
        t = names[n_in + k] = f"{temp}{k}"
        fn = bind(st.fn, "f")
        args = [ref(a) for a in st.args]
        if st.fold and len(args) > 2:
            body.append(f"{t} = {fn}({args[0]}, {args[1]})")
            body.extend(f"{t} = {fn}({t}, {a})" for a in args[2:])
        else:
            body.append(f"{t} = {fn}({', '.join(args)})")
    return body, [ref(r) for r in spec.outputs]


def _small_source(spec: KernelSpec, src: Source) -> None:
    """Add ``small(x0, ...)`` to ``src``: the steps on whole arrays (inputs within one block)."""
    params = [f"x{i}" for i in range(spec.n_inputs)]
    body, outs = step_lines(spec, params, "t", src.bind)
    src.add(f"def small({', '.join(params)}):", *("    " + b for b in body),
            f"    return ({', '.join(outs)},)")


class Kernel:
    """A compiled blocked kernel: ``kernel(*arrays) -> list of output arrays``.

    Inputs broadcast against each other; outputs are new C-contiguous arrays of
    the broadcast shape.
    """

    def __init__(
        self,
        spec: KernelSpec,
        chunk: Callable[..., None],
        small: Callable[..., tuple[Any, ...]],
        block: int,
        threads: int,
        threshold: int,
        quiet: bool,
        slot_dtypes: Sequence[np.dtype[Any]] = (),
        source: str | None = None,
    ) -> None:
        self.spec = spec
        self.chunk = chunk
        self.small = small
        # the dtypes of the scratch buffers ``chunk`` uses, in slot order
        self.slot_dtypes = list(slot_dtypes)
        # the generated source of chunk and small
        self.source = source
        # outputs that are not fresh ufunc results need a copy in the small path
        n_in = spec.n_inputs
        seen: set[int] = set()
        self._borrowed = []
        for r in spec.outputs:
            own = (
                isinstance(r, int) and r >= n_in and spec.steps[r - n_in].use_out and r not in seen
            )
            self._borrowed.append(not own)
            if isinstance(r, int):
                seen.add(r)
        self.block = max(1, block)
        self.threads = max(1, threads)
        if self.threads > 1:
            prestart_pool(self.threads - 1)
        self.threshold = threshold
        self.quiet = quiet
        self.out_dtypes = [np.dtype(d) for d in spec.out_dtypes]

    def __call__(self, *inputs: Any) -> list[np.ndarray]:
        try:
            shape = inputs[0].shape
            for a in inputs:
                if a.shape != shape:
                    shape = broadcast_shape([a.shape for a in inputs])
                    break
        except AttributeError:
            inputs = tuple(np.asarray(a) for a in inputs)
            shape = np.broadcast_shapes(*[a.shape for a in inputs])
        size = math.prod(shape)
        if size <= self.block:
            return self._call_small(inputs, shape)
        arrays = [np.asarray(a) for a in inputs]
        outs = [np.empty(shape, dt) for dt in self.out_dtypes]
        if all(a.ndim == 0 or (a.shape == shape and a.flags.c_contiguous) for a in arrays):
            # the common case: one flat run of elements
            flat = [a if a.ndim == 0 else a.reshape(-1) for a in arrays]
            oflat = [o.reshape(-1) for o in outs]
            self._run(flat, oflat, size, self.block, ())
            return outs
        # general broadcasting: block over the leading axis of broadcast views
        if len(shape) == 0:
            views = arrays
            oviews = [o.reshape(1) for o in outs]
            views = [a.reshape(1) for a in arrays]
            self._run(views, oviews, 1, 1, ())
            return outs
        views = [a if a.ndim == 0 else np.broadcast_to(a, shape) for a in arrays]
        rest = shape[1:]
        row = math.prod(rest)
        rows = max(1, self.block // max(row, 1))
        self._run(views, outs, shape[0], rows, rest)
        return outs

    def call_like(self, lead: int, *inputs: Any) -> list[np.ndarray]:
        """``self(*inputs)`` when the result is known to have ``inputs[lead]``'s shape.

        Skips working out the broadcast shape on small arrays (the emitter picks
        ``lead`` from the static types); a result of another shape (a length that
        broadcast at run time) falls back to the general call.  The caller has
        set NumPy's error handling to "ignore" (generated functions do).
        """
        shape = inputs[lead].shape
        if math.prod(shape) > self.block:
            return self(*inputs)
        res = self.small(*inputs)
        outs = []
        for r, dt, borrowed in zip(res, self.out_dtypes, self._borrowed):
            if borrowed or type(r) is not np.ndarray or r.dtype != dt or r.shape != shape:
                if type(r) is np.ndarray and r.shape != shape and r.ndim == len(shape):
                    return self(*inputs)
                r = np.array(np.broadcast_to(r, shape), dtype=dt)
            outs.append(r)
        return outs

    def _call_small(self, inputs: Sequence[Any], shape: tuple[int, ...]) -> list[np.ndarray]:
        if self.quiet:
            tok = quiet_errors()
            try:
                res = self.small(*inputs)
            finally:
                restore_errors(tok)
        else:
            res = self.small(*inputs)
        outs = []
        for r, dt, borrowed in zip(res, self.out_dtypes, self._borrowed):
            if borrowed or type(r) is not np.ndarray or r.dtype != dt or r.shape != shape:
                r = np.array(np.broadcast_to(r, shape), dtype=dt)
            outs.append(r)
        return outs

    def _run(
        self, ins: list[Any], outs: list[Any], n: int, rows: int, rest: tuple[int, ...]
    ) -> None:
        threads = self.threads
        per_row = math.prod(rest) if rest else 1
        if threads > 1 and n * per_row >= self.threshold and n >= 2 * rows:
            # Dynamic scheduling: every participant takes the next group of blocks
            # from a shared iterator (``next`` on a range iterator is atomic under
            # the GIL), so a thread the OS does not schedule soon costs nothing.
            nblocks = -(-n // rows)
            threads = min(threads, nblocks)
            group = max(1, nblocks // (4 * threads)) * rows
            starts = iter(range(0, n, group))
            pool = _get_pool(threads - 1)
            futs = [
                pool.submit(self._work, ins, outs, starts, group, n, rows, rest)
                for _ in range(threads - 1)
            ]
            try:
                self._work(ins, outs, starts, group, n, rows, rest)
            finally:
                for f in futs:
                    if not f.cancel():  # a worker that never started is not waited for
                        f.result()
        else:
            self._work(ins, outs, iter((0,)), n, n, rows, rest)

    def _work(
        self,
        ins: list[Any],
        outs: list[Any],
        starts: Any,
        group: int,
        n: int,
        rows: int,
        rest: tuple[int, ...],
    ) -> None:
        """Run groups of blocks taken from ``starts`` until there are none left."""
        scratch = _scratch(self.slot_dtypes, (min(rows, n), *rest))
        tok = quiet_errors() if self.quiet else None
        try:
            for lo in starts:
                self.chunk(ins, outs, lo, min(lo + group, n), rows, rest, scratch)
        finally:
            if tok is not None:
                restore_errors(tok)


_local = threading.local()
_SCRATCH_KEEP = 1 << 22  # bytes of scratch a thread keeps between calls, per dtype


def _scratch(dtypes: list[np.dtype[Any]], shape: tuple[int, ...]) -> list[np.ndarray]:
    """Scratch buffers of ``shape``, one per entry of ``dtypes``, reused per thread.

    Reusing them avoids fresh pages (and their page faults) on every call.  Each
    thread runs one chunk at a time, so its buffers are never shared.
    """
    pool: dict[tuple[Any, ...], list[np.ndarray]] | None = getattr(_local, "pool", None)
    if pool is None or len(pool) > 64:  # many distinct shapes: start over
        pool = _local.pool = {}
    out: list[np.ndarray] = []
    used: dict[np.dtype[Any], int] = {}
    for dt in dtypes:
        key = (dt, shape)
        bufs = pool.get(key)
        if bufs is None:
            bufs = []
            if math.prod(shape) * dt.itemsize * 8 <= _SCRATCH_KEEP:
                pool[key] = bufs
        k = used.get(dt, 0)
        used[dt] = k + 1
        if k == len(bufs):
            bufs.append(np.empty(shape, dt))
        out.append(bufs[k])
    return out


def build_kernel(
    spec: KernelSpec,
    block: int = 16384,
    threads: int = 1,
    threshold: int = 200_000,
    quiet: bool = True,
) -> Kernel:
    """Generate and compile the kernel for ``spec``.

    Parameters
    ----------
    block
        Elements per block (scratch buffers hold one block).
    threads
        Most threads one call uses (``0``: the number of cores).
    threshold
        Below this many elements a call runs on the calling thread only.
    quiet
        Ignore floating-point warnings (as ``perform`` of elementwise ops does).

    Examples
    --------
    >>> import numpy as np
    >>> spec = KernelSpec(1, [KStep(np.exp, (0,), "float64")], [1], ["float64"])
    >>> build_kernel(spec)(np.zeros(3))[0]
    array([1., 1., 1.])
    """
    src = Source({"_empty": np.empty})
    _chunk_source(spec, src)
    _small_source(spec, src)
    chunk = src.function("chunk", "kernel")
    if threads <= 0:
        threads = default_threads()
    return Kernel(
        spec, chunk, src.namespace["small"], block, threads, threshold, quiet,
        src.namespace["_slot_dtypes"], src.text(),
    )


#: Most kernels a :class:`KernelCache` keeps (by default): the least recently used
#: one is dropped first.  A compiled function keeps the kernels it calls alive
#: itself; the cache only saves rebuilding a kernel for the next compile.
KERNEL_CACHE_SIZE = 256


class KernelCache:
    """A least-recently-used map from a key to a built kernel, of bounded size.

    ``None`` is cached too (a key whose kernel cannot be built).  Safe to use
    from several threads; two threads missing the same key may both build it.

    Parameters
    ----------
    maxsize
        Most entries kept (:data:`KERNEL_CACHE_SIZE` by default).

    Examples
    --------
    >>> cache = KernelCache(maxsize=2)
    >>> for key in "abc":
    ...     _ = cache.get_or_build(key, lambda: None)
    >>> len(cache), "a" in cache, "c" in cache
    (2, False, True)
    """

    def __init__(self, maxsize: int = KERNEL_CACHE_SIZE) -> None:
        if maxsize < 1:
            raise ValueError(f"KernelCache needs maxsize >= 1, got {maxsize}")
        self.maxsize = maxsize
        self._entries: OrderedDict[Hashable, Kernel | None] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_build(self, key: Hashable, build: Callable[[], Kernel | None]) -> Kernel | None:
        """The kernel cached for ``key``, or ``build()``'s result, cached."""
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key]
        kernel = build()
        with self._lock:
            self._entries[key] = kernel
            self._entries.move_to_end(key)
            while len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)
        return kernel

    def __contains__(self, key: object) -> bool:
        with self._lock:
            return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Drop every entry."""
        with self._lock:
            self._entries.clear()
