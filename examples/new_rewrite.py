"""Worked example: adding rewrites, for the ``SoftThreshold`` Op of ``new_op.py``.

A rewrite is a small registered function.  Its docstring states the math; the
``node_rewriter`` decorator says which Ops it is tried on (it only ever sees
nodes of those); a ``register_<phase>`` decorator puts it in the rewrite
database under that phase (``useless``/``canonicalize``, ``stabilize``,
``specialize``, ...) with the ``fast_run`` tag, so ``theon.function`` runs it.
It returns ``None`` (no change) or the replacement outputs, each of exactly
the type of the output it replaces.

A rewrite that is a fixed tree match can be data instead of code: a
:class:`~theon.rewriting.PatternNodeRewriter` from an input and an output
pattern, registered the same way.

Run it: ``python examples/new_rewrite.py``; ``tests/test_examples.py`` tests it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import theon
import theon.tensor as tt
from theon.graph.basic import Apply
from theon.graph.fg import FunctionGraph
from theon.rewriting import (
    PatternNodeRewriter,
    node_rewriter,
    register_specialize,
    register_useless,
)

if __package__:
    from .new_op import SoftThreshold, soft_threshold
else:  # run as a script: examples/ is on sys.path
    from new_op import SoftThreshold, soft_threshold  # type: ignore[no-redef]


@register_specialize
@node_rewriter([SoftThreshold])
def local_soft_threshold_twice(fgraph: FunctionGraph, node: Apply) -> Any:
    """soft_threshold(soft_threshold(x, a), b) -> soft_threshold(x, a + b)   (a, b >= 0)

    With t = |x|, the inner op keeps the sign and gives max(t - a, 0); the outer
    gives max(max(t - a, 0) - b, 0) = max(t - a - b, 0).  One pass over the data
    instead of two.  In floating point (t - a) - b and t - (a + b) may round
    differently, so results can differ from the two-step form in the last bit.
    """
    inner = node.inputs[0].owner
    if inner is None or not isinstance(inner.op, SoftThreshold):
        return None
    return [SoftThreshold(inner.op.lam + node.op.lam)(inner.inputs[0])]


#: soft_threshold(x, 0) -> x: sign(x) * max(|x|, 0) is x for every x, inf and nan included;
#: only -0.0 differs in sign (the op gives +0.0, x stays -0.0; they compare equal).
local_soft_threshold_zero = PatternNodeRewriter(
    (SoftThreshold(0.0), "x"), "x", name="local_soft_threshold_zero"
)
register_useless(local_soft_threshold_zero)


def main() -> None:
    x = tt.dvector("x")
    y = soft_threshold(soft_threshold(x, 0.5), 0.25)
    f = theon.function([x], y)
    ops = [type(n.op).__name__ for n in f.maker.fgraph.toposort()]
    print("nodes after rewriting:", ops)
    print("value:", f(np.array([-2.0, 0.5, 1.0])))
    g = theon.function([x], soft_threshold(x, 0.0))
    # the rewrite removed the node: what is left is the copy of x returned as the result
    left = [type(n.op).__name__ for n in g.maker.fgraph.apply_nodes]
    print("nodes of soft_threshold(x, 0):", left)


if __name__ == "__main__":
    main()
