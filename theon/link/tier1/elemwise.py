"""The tier-1 dispatcher of a fused elementwise node.

:class:`Tier1Kernel` stands where the tier-0 :class:`~theon.link.pyfunc.kernel.Kernel`
stood in the generated code, with the same two entry points (``kern(*inputs)``
and ``kern.call_like(lead, *inputs)``).  Until its slot holds a compiled
kernel every call is the tier-0 kernel's; the first call with at least
``config.tier1_threshold`` elements submits the compile job *after* computing
its result.  A compiled kernel works on fixed-size chunks of flat arrays
(inputs of one element are passed as 0-d); the chunks run on the elementwise thread pool, the
last, partial chunk zero-padded to a whole one.

Calls of fewer elements, down to ``config.tier1_small_threshold``, ask the
``"elemwise_small"`` compiler instead (numba, :mod:`.nbelem`), when it takes the
node: its kernel is a whole-array function (``whole = True``) run on one thread.

A compiler for elementwise kernels has ``compile_elemwise(spec, signature, size)``,
``signature`` being ``((dtype, is_single), ...)`` per input and ``size`` the element
count of the call that asked (a hint for the chunk length), and returns a callable
with a ``chunk`` attribute: ``kernel(*chunk_inputs)`` gives the outputs of one
chunk of ``chunk`` elements.  It may have ``autotune = True``: the first call
then also times both tiers, and keeps tier 0 where tier 1 is clearly slower.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from theon.link.pyfunc.kernel import Kernel, _get_pool, broadcast_shape
from theon.link.tier1 import accepts, available, compiler
from theon.link.tier1.nbelem import WholeKernel, input_kinds
from theon.link.tier1.worker import (
    DROPPED,
    FAILED,
    IDLE,
    STATS,
    VERIFY,
    Slot,
    bump,
    close_enough,
)

__all__ = ["Tier1Kernel"]


def _padded(x: np.ndarray, size: int) -> np.ndarray:
    """``x`` followed by zeros, ``size`` elements in all."""
    out = np.zeros(size, x.dtype)
    out[: x.size] = x
    return out

_F8 = np.dtype(np.float64)

#: Slot states after which tier 0 serves every call for good.
_GIVEN_UP = (DROPPED, FAILED)

#: A compiler with ``autotune`` keeps tier 0 where tier 1 takes this many times as long.
_SLOWER = 1.25


class Tier1Kernel:
    """A tier-0 kernel with a tier-1 slot (see the module docstring).

    Parameters
    ----------
    base
        The tier-0 kernel: serves every call until tier 1 is ready, and checks it.
    node
        The fused node, named in the warning if its tier-1 kernel is dropped.
    threshold
        Elements from which a call uses (and first asks for) the tier-1 kernel.
    autotune
        Whether a compiler's ``autotune`` is honoured (``config.tier1_autotune``).
    small_threshold
        Elements from which a smaller call asks the ``"elemwise_small"`` compiler;
        None when that compiler does not take this node.
    """

    def __init__(self, base: Kernel, node: Any = None, threshold: int = 1 << 17,
                 autotune: bool = True, small_threshold: int | None = None) -> None:
        self.base = base
        self.autotune = autotune
        self.spec = base.spec
        self.block = base.block
        self.threshold = max(1, threshold)
        self.small_threshold = (None if small_threshold is None
                                else max(1, min(small_threshold, self.threshold)))
        self.slot = Slot(f"fused node {getattr(node, 'op', '?')}", node)
        self._sig: tuple[tuple[str, bool], ...] | None = None
        #: whether a large call may ask XLA (None: not asked yet; False: a node of
        #: simple arithmetic, xla.SIMPLE, which XLA does not take)
        self._large: bool | None = None
        #: whether the generated code may run small calls inline (NumPy on whole
        #: arrays) rather than through this object: not while a small-call kernel
        #: may come or is in use
        self.inline = self.small_threshold is None or self.small_threshold > self.block

    def __repr__(self) -> str:
        return f"Tier1Kernel({self.slot.state})"

    # the entry points of the generated code --------------------------------------
    def __call__(self, *inputs: Any) -> list[np.ndarray]:
        impl = self.slot.impl
        if impl is not None:
            res = self._tier1(impl, inputs, None)
            if res is not None:
                return res
        outs = self.base(*inputs)
        state = self.slot.state
        if state == IDLE:
            self._ask(inputs, outs)
        elif state in _GIVEN_UP:
            self.inline = True
        return outs

    def call_like(self, lead: int, *inputs: Any) -> list[np.ndarray]:
        impl = self.slot.impl
        if impl is not None:
            res = self._tier1(impl, inputs, lead)
            if res is not None:
                return res
        outs = self.base.call_like(lead, *inputs)
        state = self.slot.state
        if state == IDLE:
            self._ask(inputs, outs)
        elif state in _GIVEN_UP:
            self.inline = True
        return outs

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until this kernel's compile job (if any was submitted) has finished."""
        if self.slot.state == IDLE:
            return True
        return self.slot.ready.wait(timeout)

    # -------------------------------------------------------------------------------
    def _ask(self, inputs: Sequence[Any], outs: Sequence[np.ndarray]) -> None:
        """Submit the compile job, once, after a call with enough elements."""
        if not outs:
            return
        size = int(outs[0].size)
        small = self.small_threshold
        if size >= self.threshold and available("elemwise"):
            if self._large is None:  # (asked once: the answer depends on the steps only)
                self._large = accepts("elemwise", self.spec)
            if not self._large:  # nothing to win (xla.SIMPLE steps): tier 0 serves
                return
            kind = "elemwise"
        elif small is not None and size >= small:
            kind = "elemwise_small"
        else:
            return
        sig: tuple[tuple[str, Any], ...]
        if kind == "elemwise":
            # an input of one element (a 0-d value, a broadcast constant) is passed as 0-d
            sig = tuple((np.asarray(a).dtype.str, np.size(a) == 1) for a in inputs)
        else:  # (numba) each input whole, a row repeated, or a number
            kinds = input_kinds([np.asarray(a) for a in inputs], outs[0].shape)
            if kinds is None:
                return
            sig = tuple(("<f8", k) for k in kinds)
        self._sig = sig
        spec = self.spec

        def build() -> Any:
            comp = compiler(kind)
            if comp is None:
                raise RuntimeError(f"no {kind} kernel compiler is installed")
            return comp.compile_elemwise(spec, sig, size)

        self.slot.submit(build)

    def _tier1(self, impl: Any, inputs: Sequence[Any], lead: int | None) -> list[np.ndarray] | None:
        """The tier-1 result, None where it does not apply (tier 0 then runs).

        On the kernel's first call the result is compared with tier 0's.
        """
        slot = self.slot
        if slot.state == VERIFY:
            return self._verify(impl, inputs, lead)
        try:
            return self._run(impl, inputs)
        except Exception as e:  # a kernel that fails later: dropped, tier 0 serves the call
            slot.drop(f"raised {type(e).__name__}: {e}")
            return None

    def _verify(
        self, impl: Any, inputs: Sequence[Any], lead: int | None
    ) -> list[np.ndarray] | None:
        clock = time.perf_counter
        t = clock()
        ref = self.base(*inputs) if lead is None else self.base.call_like(lead, *inputs)
        t0 = clock() - t
        t = clock()
        try:
            got = self._run(impl, inputs)
        except Exception as e:
            self.slot.drop(f"raised {type(e).__name__}: {e}")
            return ref
        t1 = clock() - t
        if got is None:
            return ref  # not applicable to these inputs: check on a later call
        if len(got) != len(ref) or not all(close_enough(g, r) for g, r in zip(got, ref)):
            self.slot.drop("gives results that differ from tier 0's beyond tolerance")
            return ref
        if self.autotune and getattr(impl, "autotune", False) and t1 > _SLOWER * t0:
            # (the fastest of a few more runs: a busy machine only makes runs slower)
            for _ in range(3):
                t = clock()
                self._run(impl, inputs)
                t1 = min(t1, clock() - t)
            if t1 > _SLOWER * t0:
                self.slot.drop("is slower than tier 0 here", warn=False)
                return ref
        self.slot.verified()
        return ref

    def _flat_inputs(self, arrays: Sequence[np.ndarray], shape: tuple[int, ...]
                     ) -> list[np.ndarray] | None:
        """The inputs as the kernel takes them (flat, or 0-d for one element); None
        when they do not match the signature it was compiled for."""
        sig = self._sig
        if sig is None or len(sig) != len(arrays):
            return None
        flat: list[np.ndarray] = []
        for a, (dt, scalar) in zip(arrays, sig):
            if a.dtype.str != dt or (a.size == 1) != scalar:
                return None
            if scalar:
                flat.append(a.reshape(()))
            elif a.shape == shape and a.flags.c_contiguous:
                flat.append(a.reshape(-1))
            else:  # broadcast or strided: one contiguous copy
                flat.append(np.ascontiguousarray(np.broadcast_to(a, shape)).reshape(-1))
        return flat

    def _run_whole(self, impl: WholeKernel, inputs: Sequence[Any]) -> list[np.ndarray] | None:
        """Run a whole-array kernel (numba) on one thread, when the inputs are of the
        kinds it was compiled for (else None: tier 0 serves the call).  (A strided
        input is copied by ``reshape``; the checks are kept few: this path serves
        arrays of a thousand elements, where each microsecond counts.)"""
        kinds = impl.kinds
        if len(inputs) != len(kinds):
            return None
        lead = inputs[impl.lead]
        if type(lead) is not np.ndarray or lead.size < (self.small_threshold or 0):
            return None
        shape = lead.shape
        n = lead.size
        args: list[Any]
        if impl.plain:  # every input whole (a lone tanh): the shortest checks
            for a in inputs:
                if type(a) is not np.ndarray or a.dtype is not _F8 or a.shape != shape:
                    return None
            args = [a.reshape(-1) for a in inputs]
            STATS["tier1_calls"] += 1
            return impl.run(args, shape, n)
        last = shape[-1:]
        args = []
        for a, k in zip(inputs, kinds):
            if k == "s":
                if type(a) is float:
                    args.append(a)
                    continue
                if getattr(a, "dtype", None) is not _F8 or a.size != 1:
                    return None
                args.append(a.item())
            elif type(a) is not np.ndarray or a.dtype is not _F8:
                return None
            elif k == "f":
                if a.shape != shape:
                    return None
                args.append(a.reshape(-1))
            else:
                if a.shape[-1:] != last or a.size != last[0]:
                    return None
                args.append(a.reshape(-1))
        STATS["tier1_calls"] += 1  # (a statistic: no lock on this path)
        return impl.run(args, shape, n)

    def _run(self, impl: Any, inputs: Sequence[Any]) -> list[np.ndarray] | None:
        """Run the compiled chunks (and the tier-0 tail) over the thread pool."""
        if isinstance(impl, WholeKernel):  # (numba's, ``whole = True``)
            return self._run_whole(impl, inputs)
        arrays = [np.asarray(a) for a in inputs]
        shape = broadcast_shape([a.shape for a in arrays])
        n = math.prod(shape)
        C = int(impl.chunk)
        if n < self.threshold:  # (below one chunk: one zero-padded chunk)
            return None
        flat = self._flat_inputs(arrays, shape)
        if flat is None:
            return None
        base = self.base
        outs = [np.empty(n, dt) for dt in base.out_dtypes]
        nchunks = -(-n // C)
        chunks = iter(range(nchunks))

        def work() -> None:
            for i in chunks:
                lo = i * C
                hi = lo + C
                if hi <= n:
                    res = impl(*[x if x.ndim == 0 else x[lo:hi] for x in flat])
                    for o, r in zip(outs, res):
                        o[lo:hi] = np.asarray(r)  # (a view of XLA's buffer: one copy)
                else:  # the last, partial chunk: run zero-padded to a whole chunk
                    res = impl(*[x if x.ndim == 0 else _padded(x[lo:], C) for x in flat])
                    for o, r in zip(outs, res):
                        o[lo:] = np.asarray(r)[: n - lo]

        threads = min(base.threads, nchunks)
        futs = []
        if threads > 1:
            pool = _get_pool(threads - 1)
            futs = [pool.submit(work) for _ in range(threads - 1)]
        try:
            work()
        finally:
            for f in futs:
                if not f.cancel():
                    f.result()
        bump("tier1_calls")
        return [o.reshape(shape) for o in outs]
