"""The runner of a profiled ``mode="JAX"`` function (``theon.function(..., profile=True)``).

A jitted graph runs as one XLA computation, so there are no per-node times to
collect.  What a profile can tell is where a call's time goes: moving the arguments
to the device, the computation itself (on the first call of each shape signature:
jax's trace and XLA's compile, and the first run), and bringing the results back.
Each call is split so, waiting for each step to finish
(``jax.block_until_ready``), and the steps go to the profile's
:meth:`~theon.compile.profiling.ProfileStats.record_step`.  Waiting costs a little, so
only a profiled function is run this way.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from theon.graph.fg import FunctionGraph
from theon.link.jax.dispatch import jax_typify
from theon.link.jax.linker import JAXRunner
from theon.link.jax.packing import PackPlan

__all__ = ["SHARDED", "STEPS", "profile_whole_calls", "profiled_runner"]

#: the steps of a call, in the order the profile lists them
STEPS = ("compile (first call of a shape: trace, XLA compile, run)", "run on the device",
         "transfer to the device", "transfer from the device")
#: the step of a sharded function's later calls (jit places the arguments itself)
SHARDED = "run, sharded (placing the arguments, computing, gathering the results)"


def profiled_runner(jax: Any, fgraph: FunctionGraph, call: Any,
                    typify: list[tuple[int, Any]], untyp: list[Callable[[Any], Any]],
                    plan: PackPlan | None, profile: Any) -> JAXRunner:
    """A runner of the jitted ``call`` that records each call's steps in ``profile``."""
    perf = time.perf_counter
    x64 = jax.enable_x64
    put, ready = jax.device_put, jax.block_until_ready
    record = profile.record_step
    compile_, run_, to_dev, from_dev = STEPS

    def run(*args: Any) -> list[Any]:
        t0 = perf()
        vals = list(args)
        for k, t in typify:
            vals[k] = jax_typify(t, vals[k])
        jargs = plan.pack(vals) if plan is not None else vals
        with x64(True):
            dev = ready(put(jargs))
            t1 = perf()
            before = call.n_traces
            outs = ready(call(dev))
        t2 = perf()
        if plan is not None:
            res = plan.unpack(outs, untyp)
        else:
            res = [u(o) for u, o in zip(untyp, outs)]
        t3 = perf()
        record(to_dev, t1 - t0)
        record(compile_ if call.n_traces != before else run_, t2 - t1)
        record(from_dev, t3 - t2)
        return res

    if hasattr(profile, "add_note"):
        profile.add_note("mode='JAX': the graph runs as one XLA computation, so time is "
                         "measured per step of a call, not per node")
    float_inputs = plan.float64_inputs if plan is not None else frozenset()
    return JAXRunner(run, fgraph.toposort(), float_inputs=float_inputs, reentrant=True,
                     pack_plan=plan, jax_call=call)


def profile_whole_calls(runner: JAXRunner, call: Any, profile: Any) -> None:
    """Make ``runner`` (a sharded function's: jax places its arguments as it calls)
    record each call in ``profile`` as one step: the first call of a shape's compile,
    or a later run with its transfers."""
    perf = time.perf_counter
    fn, record = runner.fn, profile.record_step
    compile_ = STEPS[0]

    def run(*args: Any) -> list[Any]:
        t0 = perf()
        before = call.n_traces
        res = fn(*args)
        record(compile_ if call.n_traces != before else SHARDED, perf() - t0)
        return res

    runner.fn = run
    if hasattr(profile, "add_note"):
        profile.add_note("mode='JAX' with sharding: each call is timed as a whole "
                         "(jax places the arguments on the devices as it runs)")
