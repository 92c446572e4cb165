"""Data-parallel ``mode="JAX"`` functions: inputs placed across devices with ``jax.sharding``.

The default is one device.  Give some inputs a ``jax.sharding.PartitionSpec``
and the jitted function runs SPMD over a device mesh: XLA splits the work along
the sharded axes and inserts the collectives (a gradient summed over a sharded
batch becomes a local sum and an all-reduce).  Two spellings::

    f = theon.function([X, Y], [loss, *grads], mode="JAX",
                       sharding={X: PartitionSpec("batch"), Y: PartitionSpec("batch")})
    f = theon.link.jax.shard(f, {X: PartitionSpec("batch")})   # an existing function

A value may also be a ``jax.sharding.Sharding`` (``NamedSharding(mesh, spec)``),
which names its mesh.  With bare PartitionSpecs the mesh is all of
``jax.devices()`` on one axis, named by the specs' (single) axis name; inputs
without a spec are replicated.  jax picks the backend: the same code runs on the
GPUs when ``jax[cuda]`` is installed (see ``docs/jax.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from theon.graph.fg import FunctionGraph, describe

__all__ = ["default_mesh", "input_shardings", "shard"]


def _axis_names(spec: Any) -> list[str]:
    names: list[str] = []
    for part in tuple(spec):
        if part is None:
            continue
        for n in (part if isinstance(part, tuple) else (part,)):
            if n not in names:
                names.append(n)
    return names


def default_mesh(specs: Mapping[int, Any]) -> Any:
    """All of ``jax.devices()`` on one mesh axis, named by the specs' axis name."""
    import jax
    import numpy as np
    from jax.sharding import Mesh, PartitionSpec

    names: list[str] = []
    for s in specs.values():
        if isinstance(s, PartitionSpec):
            for n in _axis_names(s):
                if n not in names:
                    names.append(n)
    if len(names) > 1:
        raise ValueError(
            f"sharding: the PartitionSpecs name several mesh axes {names}; pass "
            "NamedSharding(mesh, spec) values with a mesh that has those axes"
        )
    return Mesh(np.array(jax.devices()), tuple(names) or ("batch",))


def input_shardings(fgraph: FunctionGraph, specs: Mapping[int, Any], mesh: Any = None
                    ) -> list[Any]:
    """One ``jax.sharding.Sharding`` per input of ``fgraph``: ``specs[k]`` for input ``k``
    (a PartitionSpec on ``mesh``, or a Sharding as is), replicated for the others."""
    from jax.sharding import NamedSharding, PartitionSpec

    if mesh is None and any(isinstance(s, PartitionSpec) for s in specs.values()):
        mesh = default_mesh(specs)
    if mesh is None:  # every value is a Sharding already: its mesh replicates the rest
        first = next(iter(specs.values()))
        mesh = getattr(first, "mesh", None)
    replicated = NamedSharding(mesh, PartitionSpec())
    out = []
    for k, v in enumerate(fgraph.inputs):
        s = specs.get(k)
        if s is None:
            out.append(replicated)
        elif isinstance(s, PartitionSpec):
            ndim = getattr(v.type, "ndim", 0)
            if len(tuple(s)) > ndim:
                raise ValueError(
                    f"sharding: {s} has {len(tuple(s))} entries but input {describe(v)} "
                    f"has {ndim} dimensions"
                )
            out.append(NamedSharding(mesh, s))
        else:
            out.append(s)
    return out


def shard(f: Any, sharding: Mapping[Any, Any], mesh: Any = None) -> Any:
    """The compiled function ``f`` (made with ``mode="JAX"``), recompiled to run
    data-parallel with its inputs placed by ``sharding``.

    Parameters
    ----------
    f
        A :class:`theon.compile.Function` compiled in mode ``"JAX"``.
    sharding
        ``{input variable: PartitionSpec or Sharding}``, as ``theon.function``'s
        ``sharding=``.
    mesh
        A ``jax.sharding.Mesh`` for the PartitionSpecs (default: all devices on one
        axis named by the specs).

    Returns
    -------
    Function
        A new function with the same inputs, outputs and updates (sharing ``f``'s
        shared variables), running over the devices.

    Examples
    --------
    >>> import theon, theon.tensor as tt
    >>> from jax.sharding import PartitionSpec  # doctest: +SKIP
    >>> X = tt.dmatrix("X")
    >>> f = theon.function([X], X.sum(axis=1), mode="JAX")  # doctest: +SKIP
    >>> g = shard(f, {X: PartitionSpec("batch")})  # doctest: +SKIP
    """
    job = getattr(f, "_link_job", None)
    if job is None:
        raise TypeError(f"shard() takes a function made by theon.function, got {f!r}")
    if mesh is not None:
        from jax.sharding import NamedSharding, PartitionSpec

        sharding = {v: NamedSharding(mesh, s) if isinstance(s, PartitionSpec) else s
                    for v, s in sharding.items()}
    return job.with_sharding(sharding).link()
