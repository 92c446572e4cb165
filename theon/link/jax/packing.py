"""Scalar packing: many 0-d arguments and results cross into and out of ``jax.jit`` as one
vector per dtype.

A jitted call pays per argument and per result, in Python and in jax's dispatch: a
graph of 100 scalar parameters and their 100 gradients spent most of its call in
converting 100 arguments and building 101 result arrays, not in computing.  When a
graph has at least :data:`MIN_PACK` 0-d inputs of one dtype, :class:`PackPlan` passes
them as one NumPy vector (``np.array`` of the values: one conversion, one transfer)
that the traced function indexes; when it has at least :data:`MIN_PACK` 0-d outputs
of one dtype, the traced function stacks them into one vector and the call hands out
0-d views of it.  The values are the same: a 0-d input is indexed out of the vector
inside the trace exactly as it was given, and a 0-d result is a read-only 0-d array of
the output's dtype, as an unpacked result is.

>>> PackPlan.build([], [], enabled=True) is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from theon.graph.basic import Variable
from theon.link.jax.dispatch import typify_is_default, untypify_is_default

__all__ = ["MIN_PACK", "PackPlan"]

#: a dtype's 0-d inputs (or outputs) are packed when there are at least this many
MIN_PACK = 3

_PACKABLE_KINDS = frozenset("biufc")


def _scalar_dtype(v: Variable) -> np.dtype[Any] | None:
    """The dtype of ``v`` if its values are 0-d arrays (or NumPy/Python scalars)."""
    t = v.type
    if getattr(t, "ndim", None) != 0 or getattr(t, "shape", None) != ():
        return None
    dtype = getattr(t, "dtype", None)
    if not isinstance(dtype, str):
        return None
    dt = np.dtype(dtype)
    return dt if dt.kind in _PACKABLE_KINDS else None


def _groups(variables: Sequence[Variable], ok: Callable[[Variable], bool]
            ) -> list[tuple[np.dtype[Any], list[int]]]:
    by_dtype: dict[np.dtype[Any], list[int]] = {}
    for k, v in enumerate(variables):
        dt = _scalar_dtype(v)
        if dt is not None and ok(v):
            by_dtype.setdefault(dt, []).append(k)
    return [(dt, pos) for dt, pos in by_dtype.items() if len(pos) >= MIN_PACK]


class PackPlan:
    """Which inputs and outputs of a graph travel packed, and how.

    ``keep_in``/``keep_out``: positions passed as they are; ``in_groups``/``out_groups``:
    ``(dtype, positions)`` of the 0-d values packed into one vector each.
    """

    def __init__(self, n_in: int, in_groups: list[tuple[np.dtype[Any], list[int]]],
                 n_out: int, out_groups: list[tuple[np.dtype[Any], list[int]]]) -> None:
        packed_in = {k for _, pos in in_groups for k in pos}
        packed_out = {k for _, pos in out_groups for k in pos}
        self.n_in = n_in
        self.n_out = n_out
        self.in_groups = in_groups
        self.out_groups = out_groups
        self.keep_in = [k for k in range(n_in) if k not in packed_in]
        self.keep_out = [k for k in range(n_out) if k not in packed_out]

    @classmethod
    def build(cls, inputs: Sequence[Variable], outputs: Sequence[Variable],
              enabled: bool = True) -> PackPlan | None:
        """The plan for a graph, or ``None`` when nothing is worth packing."""
        if not enabled:
            return None
        in_groups = _groups(inputs, lambda v: typify_is_default(v.type))
        out_groups = _groups(outputs, lambda v: untypify_is_default(v.type))
        if not in_groups and not out_groups:
            return None
        return cls(len(inputs), in_groups, len(outputs), out_groups)

    @property
    def float64_inputs(self) -> frozenset[int]:
        """Packed float64 input positions: ``np.array`` converts a Python float there
        exactly as the input's filter would (so the caller may skip the filter)."""
        return frozenset(k for dt, pos in self.in_groups if dt == np.float64 for k in pos)

    # inside the trace ---------------------------------------------------------------
    def wrap(self, graph_fn: Callable[..., list[Any]]) -> Callable[..., tuple[Any, ...]]:
        """``graph_fn`` (of all inputs, returning all outputs) as a function of the
        packed arguments returning the packed results."""
        import jax.numpy as jnp

        n_in, keep_in, in_groups = self.n_in, self.keep_in, self.in_groups
        keep_out, out_groups = self.keep_out, self.out_groups

        def packed_fn(*jargs: Any) -> tuple[Any, ...]:
            args: list[Any] = [None] * n_in
            for k, a in zip(keep_in, jargs):
                args[k] = a
            for (_, pos), vec in zip(in_groups, jargs[len(keep_in):]):
                for j, k in enumerate(pos):
                    args[k] = vec[j]
            outs = graph_fn(*args)
            res = [outs[k] for k in keep_out]
            for dt, pos in out_groups:
                res.append(jnp.stack([jnp.asarray(outs[k], dtype=dt) for k in pos]))
            return tuple(res)

        return packed_fn

    # around the call ----------------------------------------------------------------
    def pack(self, args: Sequence[Any]) -> list[Any]:
        """The jitted function's arguments from the graph's."""
        jargs = [args[k] for k in self.keep_in]
        for dt, pos in self.in_groups:
            jargs.append(np.array([args[k] for k in pos], dtype=dt))
        return jargs

    def unpack(self, outs: Sequence[Any], untyp: Sequence[Callable[[Any], Any]]) -> list[Any]:
        """The graph's outputs (NumPy values) from the jitted function's results."""
        res: list[Any] = [None] * self.n_out
        for k, o in zip(self.keep_out, outs):
            res[k] = untyp[k](o)
        ell = Ellipsis
        for (_, pos), vec in zip(self.out_groups, outs[len(self.keep_out):]):
            v = np.asarray(vec)
            for j, k in enumerate(pos):
                res[k] = v[j, ell]
        return res
