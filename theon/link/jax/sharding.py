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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from theon.graph.fg import FunctionGraph, describe

__all__ = ["Placement", "ShardingReport", "default_mesh", "input_shardings", "shard",
           "sharding_report"]


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


# where a sharded function's values live ---------------------------------------------------
def _index_text(index: Sequence[Any], shape: Sequence[int]) -> str:
    """``[0:32, :]`` for a device's slices of a value of ``shape``; ``whole`` for all of it."""
    parts = []
    whole = True
    for sl, n in zip(index, shape):
        a, b, _ = sl.indices(n)
        if (a, b) == (0, n):
            parts.append(":")
        else:
            whole = False
            parts.append(f"{a}:{b}")
    return "whole" if whole else "[" + ", ".join(parts) + "]"


@dataclass(frozen=True)
class Placement:
    """Where one input or output of a sharded function lives.

    ``name`` names the value, ``shape`` is its global shape (over all processes),
    ``sharding`` the ``jax.sharding.Sharding`` jax uses, ``spec`` its PartitionSpec as
    text (``"replicated"`` when every device holds all of it), and ``devices`` maps
    each device (``"cpu:0"``; with several processes, ``"cpu:2048 (process 1)"``) to
    the part it holds (``"[0:32, :]"`` or ``"whole"``)."""

    name: str
    shape: tuple[int, ...]
    dtype: str
    sharding: Any
    spec: str
    devices: dict[str, str]

    @property
    def replicated(self) -> bool:
        """Whether every device holds the whole value."""
        return all(part == "whole" for part in self.devices.values())


@dataclass(frozen=True)
class ShardingReport:
    """The placement of a sharded function's inputs and outputs for one shape signature
    (:func:`sharding_report`); ``str()`` gives it as a table."""

    mesh: dict[str, int]
    n_processes: int
    inputs: list[Placement]
    outputs: list[Placement]

    def __str__(self) -> str:
        axes = ", ".join(f"{k!r}: {v}" for k, v in self.mesh.items())
        lines = [f"mesh {{{axes}}} over {self.n_processes} process(es)"]
        for title, rows in (("inputs", self.inputs), ("outputs", self.outputs)):
            lines.append(f"{title}:")
            for p in rows:
                head = f"  {p.name}: {p.dtype}{list(p.shape)} {p.spec}"
                if p.replicated:
                    lines.append(f"{head}, whole on {len(p.devices)} device(s)")
                else:
                    lines.append(head + ", " + "; ".join(
                        f"{d} {part}" for d, part in p.devices.items()))
        return "\n".join(lines)


def _device_name(d: Any, n_processes: int) -> str:
    name = f"{d.platform}:{d.id}"
    return f"{name} (process {d.process_index})" if n_processes > 1 else name


def _placement(name: str, shape: tuple[int, ...], dtype: Any, sharding: Any,
               n_processes: int) -> Placement:
    where = sharding.devices_indices_map(shape)
    devices = {_device_name(d, n_processes): _index_text(idx, shape)
               for d, idx in sorted(where.items(), key=lambda kv: kv[0].id)}
    spec = getattr(sharding, "spec", None)
    if spec is not None:
        text = str(spec) if any(p is not None for p in tuple(spec)) else "replicated"
    else:
        text = "replicated" if sharding.is_fully_replicated else str(sharding)
    return Placement(name, tuple(shape), str(np.dtype(dtype)), sharding, text, devices)


def sharding_report(f: Any, *args: Any) -> ShardingReport:
    """Where the inputs and outputs of ``f`` (compiled with ``sharding=``) live: for each,
    its global shape, its sharding, and the part each device holds.

    The shapes are those of ``args`` (the function's explicit arguments, as you would
    call it; in one process of several, this process's rows), or, without ``args``,
    those of the last call.  The report comes from jax's compiled program
    (``jax.jit(...).lower(...).compile()``), so the outputs' shardings are the ones
    XLA chose; nothing is run.  Also ``f.sharding_report(*args)``.

    Raises
    ------
    ValueError
        When ``f`` was compiled without ``sharding=``, or has not been called and is
        given no arguments while its input shapes are not all static.
    """
    import jax

    runner = getattr(f, "_runner", None)
    shardings = getattr(runner, "shardings", None)
    if shardings is None:
        raise ValueError(
            "sharding_report: this function was compiled without sharding= (it runs on "
            "one device); compile it with mode='JAX', sharding={input: PartitionSpec(...)}"
        )
    assert runner is not None
    fgraph = f.maker.fgraph
    inputs = list(fgraph.inputs)
    n_args = f._n_args
    n_proc = jax.process_count()
    from theon.link.jax.dispatch import jax_typify, typify_is_default

    if args:
        if len(args) != n_args:
            raise TypeError(f"sharding_report: the function takes {n_args} arguments, "
                            f"got {len(args)}")
        shapes: list[Any] = [np.shape(a) for a in args]
        if n_proc > 1:  # this process's rows: the blocks of all lie along the split axis
            from theon.link.jax.distributed import spec_axis_sizes

            for k in range(n_args):
                split = spec_axis_sizes(shardings[k], len(shapes[k]))
                d = next((d for d, (_, n) in enumerate(split) if n > 1), None)
                if d is not None:
                    shapes[k] = tuple(n * n_proc if i == d else n
                                      for i, n in enumerate(shapes[k]))
    else:
        shapes = list(runner.jax_call.last_shapes(inputs) or [None] * len(inputs))[:n_args]
        if any(s is None for s in shapes):
            raise ValueError(
                "sharding_report: the function has not been called yet and its input "
                "shapes are not all static; call it once, or pass example arguments: "
                "f.sharding_report(*args)"
            )
    abstract: list[Any] = []
    for k, v in enumerate(inputs):
        if k < n_args and typify_is_default(v.type):
            abstract.append(jax.ShapeDtypeStruct(tuple(shapes[k]), v.type.dtype))
            continue
        value = (args[k] if args and k < n_args
                 else f.input_storage[k].storage[0] if k >= n_args else None)
        if value is None:
            raise ValueError(f"sharding_report: pass example arguments for input "
                             f"{describe(v)}")
        if not typify_is_default(v.type):
            value = jax_typify(v.type, value)
        abstract.append(jax.tree.map(
            lambda x: jax.ShapeDtypeStruct(np.shape(x), np.asarray(x).dtype
                                           if not hasattr(x, "dtype") else x.dtype), value))
    with jax.enable_x64(True):
        lowered = runner.lowerable.lower(*abstract)
        compiled = lowered.compile()
    in_sh = compiled.input_shardings[0]
    out_sh = compiled.output_shardings
    out_info = lowered.out_info
    n_out = len(f.maker.outputs)
    upd = dict(fgraph.update_mapping)
    ins = []
    for k, (v, a, sh) in enumerate(zip(inputs, abstract, in_sh)):
        if not hasattr(a, "shape"):  # a pytree (a sparse layout): its first leaf's place
            a = jax.tree.leaves(a)[0]
            sh = jax.tree.leaves(sh)[0] if not hasattr(sh, "devices_indices_map") else sh
        ins.append(_placement(str(v.name or f"input {k}"), tuple(a.shape), a.dtype, sh, n_proc))
    outs = []
    for j, (info, sh) in enumerate(zip(out_info, out_sh)):
        if not hasattr(info, "shape"):
            info, sh = jax.tree.leaves(info)[0], jax.tree.leaves(sh)[0]
        o = fgraph.outputs[j]
        name = (f"update of {inputs[upd[j]].name or upd[j]}" if j >= n_out and j in upd
                else str(o.name or f"output {j}"))
        outs.append(_placement(name, tuple(info.shape), info.dtype, sh, n_proc))
    mesh = getattr(shardings[0], "mesh", None)
    axes = {str(k): int(n) for k, n in dict(getattr(mesh, "shape", {})).items()}
    return ShardingReport(axes, n_proc, ins, outs)
