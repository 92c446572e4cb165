"""Lazy conditionals under ``mode="JAX"``: each branch's own work runs inside ``lax.cond``.

The schedule is the one the other linkers run (:func:`theon.link.lazy.lazy_schedule`,
on the contract :func:`theon.graph.op.lazy_branches`): the nodes only a branch needs
form its block.  :func:`run_branch` traces a :class:`~theon.link.lazy.Branch` as
``lax.cond`` whose two branch functions run their blocks, so XLA runs only the branch
taken; what both branches or other nodes need is computed in front, once.

>>> import numpy as np, pytest
>>> jax = pytest.importorskip("jax")  # the example needs jax
>>> import theon, theon.tensor as tt
>>> from theon.ifelse import ifelse
>>> from theon.link.lazy import lazy_schedule
>>> c, x = tt.dscalar("c"), tt.dvector("x")
>>> f = theon.function([c, x], ifelse(c > 0, tt.exp(x).sum(), tt.log(x).sum()), mode="JAX")
>>> [len(s.then_steps) for s in lazy_schedule(f.maker.fgraph).steps if hasattr(s, "node")]
[2]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from theon.graph.op import lazy_branches
from theon.link.jax.dispatch import DynamicShapeError
from theon.link.lazy import Branch

__all__ = ["run_branch"]


def run_branch(branch: Branch, env: dict[Any, Any],
               run_steps: Callable[[Sequence[Any], dict[Any, Any]], None]) -> None:
    """Trace one lazy conditional: ``lax.cond`` on its condition, each branch function
    running its block (on a copy of ``env``: it reads the values computed in front) and
    returning the branch's values; the conditional's outputs go into ``env``."""
    from jax import lax


    node = branch.node
    lb = lazy_branches(node)
    assert lb is not None

    def block(steps: Sequence[Any], values: Sequence[Any]) -> Callable[[], tuple[Any, ...]]:
        def fn() -> tuple[Any, ...]:
            local = dict(env)
            run_steps(steps, local)
            return tuple(local[v] for v in values)

        return fn

    then_fn = block(branch.then_steps, lb.then_values)
    else_fn = block(branch.else_steps, lb.else_values)
    try:
        out = lax.cond(env[lb.condition] != 0, then_fn, else_fn)
    except TypeError as e:
        import jax

        ts, es = jax.eval_shape(then_fn), jax.eval_shape(else_fn)
        bad = [j for j in range(len(ts)) if ts[j].shape != es[j].shape]
        if not bad:
            raise
        j = bad[0]
        raise DynamicShapeError(
            f"mode='JAX': output {j} of {node.op} has shape {ts[j].shape} when the condition "
            f"holds and {es[j].shape} when it does not; under jax.jit a value's shape cannot "
            "depend on a run-time condition") from e
    env.update(zip(node.outputs, out))
