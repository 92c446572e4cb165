"""A sharded ``mode="JAX"`` function run by several processes of one ``jax.distributed`` program.

After ``jax.distributed.initialize`` (or :func:`theon.launch.initialize`),
``jax.devices()`` lists the devices of every process, and the mesh of a sharded
function spans them.  Each process calls the function with its own rows of the
sharded inputs and the same values of the replicated ones (the weights); this
module turns those into global ``jax.Array``\\ s
(``jax.make_array_from_process_local_data``), runs the one SPMD program, and hands
back NumPy values: a replicated output (a loss, a gradient, an updated weight)
whole, in every process; a sharded output as this process's own block.  Updates
of replicated shared variables are replicated outputs, so every process stores the
same new values and the parameters stay in sync.

Before each call the processes exchange the shapes of their arguments (one small
all-gather, about half a millisecond on two CPU processes): a process whose local
rows differ in length from the others', or whose replicated input has another
shape, would otherwise run a different program than the others (the sums of a
mean over the batch would silently differ); theon raises an error naming the input
in every process instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import prod
from typing import Any

import numpy as np

from theon.graph.basic import Variable
from theon.graph.fg import describe

__all__ = ["indivisible", "local_block", "multiprocess_runner", "spec_axis_sizes"]


def spec_axis_sizes(sharding: Any, ndim: int) -> list[tuple[tuple[str, ...], int]]:
    """For each of ``ndim`` dimensions: (the mesh axis names it is split over, the
    number of pieces); ``((), 1)`` for a dimension not split.  Only a
    ``NamedSharding``'s spec is read; other shardings give ``((), 1)`` everywhere."""
    spec = getattr(sharding, "spec", None)
    mesh = getattr(sharding, "mesh", None)
    out: list[tuple[tuple[str, ...], int]] = [((), 1)] * ndim
    if spec is None or mesh is None:
        return out
    sizes = dict(mesh.shape)
    for d, part in enumerate(tuple(spec)[:ndim]):
        if part is None:
            continue
        names = tuple(part) if isinstance(part, tuple) else (part,)
        out[d] = (names, prod(sizes[n] for n in names))
    return out


def indivisible(var: Variable, shape: Sequence[int], sharding: Any,
                local: tuple[int, int] | None = None) -> ValueError | None:
    """The error for an input of ``shape`` (global) that ``sharding`` cannot split
    evenly, naming the input, its length and the mesh axis size; None when it can.
    ``local``: (the local length on the first split axis, the number of processes),
    for the message of a multi-process call."""
    for d, (names, pieces) in enumerate(spec_axis_sizes(sharding, len(shape))):
        if pieces > 1 and shape[d] % pieces:
            axes = " x ".join(repr(n) for n in names)
            whose = "" if local is None else (
                f" ({local[0]} local rows in each of {local[1]} processes)")
            return ValueError(
                f"sharding: input '{var}' has length {shape[d]} on axis {d}{whose}, which "
                f"does not divide evenly over mesh axis {axes} of size {pieces}; pass a "
                f"batch whose length is a multiple of {pieces} (the input: {describe(var)})"
            )
    return None


def local_block(arr: Any) -> np.ndarray:
    """This process's part of a global ``jax.Array`` as a NumPy array: the whole value
    when it is replicated, else the block its devices hold (their shards put together)."""
    if arr.is_fully_replicated:
        return np.asarray(arr.addressable_data(0))
    shards = arr.addressable_shards
    if len(shards) == 1:
        return np.asarray(shards[0].data)
    shape = arr.shape
    lo = [min(s.index[d].indices(shape[d])[0] for s in shards) for d in range(len(shape))]
    hi = [max(s.index[d].indices(shape[d])[1] for s in shards) for d in range(len(shape))]
    block = np.empty([h - low for low, h in zip(lo, hi)], dtype=arr.dtype)
    seen: set[tuple[Any, ...]] = set()
    filled = 0
    for s in shards:
        idx = tuple(slice(i.indices(n)[0] - low, i.indices(n)[1] - low)
                    for i, n, low in zip(s.index, shape, lo))
        key = tuple((i.start, i.stop) for i in idx)
        if key in seen:  # a copy on another local device
            continue
        seen.add(key)
        data = np.asarray(s.data)
        block[idx] = data
        filled += data.size
    if filled != block.size:
        raise ValueError(
            f"this process's devices hold no contiguous block of an output of shape "
            f"{shape} (sharding {arr.sharding}); order the mesh's devices by process"
        )
    return block


class _ShapeExchange:
    """One all-gather of a small int64 vector over the processes (one device each)."""

    def __init__(self, jax: Any) -> None:
        from jax.sharding import Mesh, NamedSharding, PartitionSpec

        first: dict[int, Any] = {}
        for d in jax.devices():
            first.setdefault(d.process_index, d)
        devs = [first[p] for p in sorted(first)]
        mesh = Mesh(np.array(devs), ("process",))
        self._jax = jax
        self._split = NamedSharding(mesh, PartitionSpec("process"))
        self._gather = jax.jit(lambda a: a, out_shardings=NamedSharding(mesh, PartitionSpec()))

    def __call__(self, row: np.ndarray) -> np.ndarray:
        """Every process's ``row``, stacked in process order (call under x64)."""
        arr = self._jax.make_array_from_process_local_data(self._split, row[None, :])
        return np.asarray(self._gather(arr).addressable_data(0))


def _check_same(inputs: Sequence[Variable], shapes: list[tuple[int, ...]], sharded: set[int],
                table: np.ndarray) -> None:
    """Raise, naming the input, when the processes' argument shapes (rows of ``table``)
    differ."""
    pos = 0
    for k, shp in enumerate(shapes):
        cols = table[:, pos:pos + len(shp)]
        pos += len(shp)
        if (cols == cols[0]).all():
            continue
        per = ", ".join(f"process {p}: {tuple(int(n) for n in row)}"
                        for p, row in enumerate(cols))
        if k in sharded:
            raise ValueError(
                f"sharding: the processes pass local blocks of different shapes for the "
                f"sharded input '{inputs[k]}' ({per}); every process must pass the same "
                f"number of local rows (the input: {describe(inputs[k])})"
            )
        raise ValueError(
            f"sharding: the replicated input '{inputs[k]}' has different shapes in the "
            f"processes ({per}); a replicated input must be the same in every process "
            f"(the input: {describe(inputs[k])})"
        )


def _sharded_arg(make: Any, var: Variable, value: Any, shape: tuple[int, ...], sharding: Any,
                 n_proc: int) -> Any:
    """The global array of this process's block ``value`` of a sharded input; theon's error
    naming the input when the batch does not split evenly over the mesh."""
    split = spec_axis_sizes(sharding, len(shape))
    d = next((d for d, (_, pieces) in enumerate(split) if pieces > 1), None)
    if d is not None:
        # the processes' blocks lie one after another along the first split axis
        glob = [n * n_proc if i == d else n for i, n in enumerate(shape)]
        err = indivisible(var, glob, sharding, (shape[d], n_proc))
        if err is not None:
            raise err
    try:
        return make(sharding, np.asarray(value))
    except ValueError as e:
        if d is None:
            raise
        names, pieces = split[d]
        raise ValueError(
            f"sharding: input '{var}' has {shape[d]} local rows on axis {d} in this "
            f"process, which do not split evenly over this process's share of mesh axis "
            f"{' x '.join(map(repr, names))} (size {pieces} over {n_proc} processes; "
            f"the input: {describe(var)})"
        ) from e


_PEER_LOST = ("gloo", "connection", "unavailable", "heartbeat", "socket closed")


def _note_lost_peer(e: BaseException, n_proc: int) -> None:
    """Say what a failed cross-process collective most likely means."""
    text = str(e).lower()
    if any(w in text for w in _PEER_LOST):
        e.add_note(
            f"theon: a collective operation across the {n_proc} processes failed: another "
            "process has probably stopped (see its output); this one cannot go on alone"
        )


def multiprocess_runner(jax: Any, call: Callable[[Sequence[Any]], Any],
                        inputs: Sequence[Variable], shardings: Sequence[Any],
                        typify: Callable[[Sequence[Any]], list[Any]],
                        untyp: Sequence[Callable[[Any], Any]]) -> Callable[..., list[Any]]:
    """The call of a sharded function in one process of several: process-local arguments
    in, NumPy results out (see the module's text)."""
    exchange = _ShapeExchange(jax)
    n_proc = jax.process_count()
    make = jax.make_array_from_process_local_data
    sharded = {k for k, s in enumerate(shardings) if not s.is_fully_replicated}
    x64 = jax.enable_x64

    def run(*args: Any) -> list[Any]:
        vals = typify(args)
        shapes = [tuple(np.shape(v)) for v in vals]
        row = np.array([n for s in shapes for n in s], dtype=np.int64)
        with x64(True):
            try:
                table = exchange(row)
            except Exception as e:
                _note_lost_peer(e, n_proc)
                raise
            _check_same(inputs, shapes, sharded, table)
            gargs = []
            for k, (v, s) in enumerate(zip(vals, shardings)):
                if k in sharded:
                    gargs.append(_sharded_arg(make, inputs[k], v, shapes[k], s, n_proc))
                else:
                    gargs.append(jax.tree.map(lambda x, s=s: make(s, np.asarray(x)), v))
            try:
                outs = call(gargs)
            except Exception as e:
                _note_lost_peer(e, n_proc)
                raise
            return [u(local_block(o)) for u, o in zip(untyp, outs)]

    return run
