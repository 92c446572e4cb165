"""Shared helpers of the tensor rewrite tests: compile with or without rewrites, list ops."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

import theon
from theon.compile.mode import Mode
from theon.graph.basic import Variable
from theon.graph.fg import FunctionGraph
from theon.rewriting import RewriteQuery, rewrite_db
from theon.tensor.elemwise import Elemwise

# FAST_RUN's rewrites without fusion and inplace, so the rewritten ops stay visible.
NOFUSE = Mode(linker="vm", optimizer=RewriteQuery.named("fast_run").excluding("fusion", "inplace"))
FAST_RUN_VM = Mode(linker="vm", optimizer="fast_run")
REFERENCE = "REFERENCE"


def rewrite(inputs: Sequence[Variable], outputs: Sequence[Variable],
            query: RewriteQuery | None = None) -> FunctionGraph:
    """A clone of the graph rewritten by ``query`` (FAST_RUN without fusion/inplace)."""
    import theon.tensor.rewriting  # noqa: F401  (registers the rewrites)

    fg = FunctionGraph(list(inputs), list(outputs), clone=True)
    q = query or RewriteQuery.named("fast_run").excluding("fusion", "inplace")
    rewrite_db.query(q)(fg)
    return fg


def op_names(fg: FunctionGraph) -> Counter[str]:
    """How many nodes of each op: Elemwise nodes by scalar op name, others by class name."""
    c: Counter[str] = Counter()
    for n in fg.apply_nodes:
        if isinstance(n.op, Elemwise):
            c[str(n.op.scalar_op)] += 1
        else:
            c[type(n.op).__name__] += 1
    return c


def run(inputs: Sequence[Variable], outputs: Any, values: Sequence[Any], mode: Any = NOFUSE) -> Any:
    """Compile and call once."""
    return theon.function(list(inputs), outputs, mode=mode)(*values)


def check_same(inputs: Sequence[Variable], outputs: Sequence[Variable], values: Sequence[Any],
               mode: Any = NOFUSE, rtol: float = 1e-7, atol: float = 0.0) -> list[Any]:
    """Rewritten and reference results agree (values within tolerance, dtypes exactly)."""
    got = theon.function(list(inputs), list(outputs), mode=mode, on_unused_input="ignore")(*values)
    ref = theon.function(list(inputs), list(outputs), mode=REFERENCE,
                         on_unused_input="ignore")(*values)
    for g, r, o in zip(got, ref, outputs):
        g, r = np.asarray(g), np.asarray(r)
        assert g.dtype == r.dtype == np.dtype(o.type.dtype), (g.dtype, r.dtype, o.type)
        assert g.shape == r.shape
        np.testing.assert_allclose(g, r, rtol=rtol, atol=atol, equal_nan=True)
    return list(got)
