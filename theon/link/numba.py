"""``mode="NUMBA"``: theon's generated Python with tier-1 numba kernels.

PyTensor's NUMBA mode compiles the whole graph with numba.  theon's linker generates
Python for the whole graph (tier 0), and tier 1 compiles faster kernels in the
background (docs/tier1.md): for some nodes, and for the whole graph where numba takes
every node (:mod:`theon.link.tier1.nbgraph`).  ``NumbaLinker`` is that
linker with tier 1 on and numba as its only kernel compiler: every node numba takes
gets a numba kernel once a call has enough work (fused float64 elementwise nodes with
``tanh`` or several arithmetic steps, lone ``tanh`` nodes, scan loops on numbers; the
sizes are ``config.tier1_small_threshold``, ``config.elemwise_block`` and
``config.tier1_scan_steps``, and a large call stays with numba rather than XLA), and
every other node runs its tier-0 code.  The first link in a process says so, once, in a
``UserWarning``.  Without numba installed every node runs its tier-0 code.

``mode="NUMBA"``, ``get_mode("NUMBA")`` and ``Mode(linker="numba")`` use it; the names
are PyTensor's (``pytensor.link.numba.NumbaLinker``).

>>> import numpy as np, theon, theon.tensor as tt, warnings
>>> x = tt.dvector("x")
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore")
...     f = theon.function([x], tt.tanh(x) * 2, mode="NUMBA")
>>> isinstance(f.maker.mode.linker, NumbaLinker), f(np.zeros(2)).tolist()
(True, [0.0, 0.0])
"""

from __future__ import annotations

import threading
import warnings
from typing import Any

from theon.graph.fg import FunctionGraph
from theon.link.basic import Runner
from theon.link.pyfunc.linker import PyLinker
from theon.link.tier1 import available, link_compilers

__all__ = ["NUMBA_KINDS", "NumbaLinker"]

#: The tier-1 kernels numba compiles (docs/tier1.md): smaller fused nodes, scan loops.
NUMBA_KINDS = frozenset({"elemwise_small", "loop", "graph"})

_said = threading.Event()


class NumbaLinker(PyLinker):
    """The py linker with tier 1 on and numba its only kernel compiler (see the module
    docstring).

    Parameters
    ----------
    float_path
        As :class:`~theon.link.pyfunc.linker.PyLinker`'s.
    """

    name = "numba"

    def __init__(self, float_path: bool = True, tier: int | str | None = 1) -> None:
        super().__init__(float_path=float_path, tier=tier)

    def __repr__(self) -> str:
        return f"NumbaLinker(float_path={self.float_path})"

    def make_function(self, fgraph: FunctionGraph, profile: Any = None) -> Runner:
        if not _said.is_set():
            _said.set()
            have = available("elemwise_small") or available("loop")
            warnings.warn(
                "mode='NUMBA': "
                + ("a graph numba takes whole is compiled whole in the background after "
                   "config.tier1_graph_calls calls; otherwise the nodes numba takes (fused "
                   "float64 elementwise nodes, tanh, scan loops on numbers) get tier-1 "
                   "numba kernels once a call has enough work, and every other node runs "
                   "theon's generated Python (tier 0)" if have else
                   "numba is not installed (pip install theon[numba]), so every node "
                   "runs theon's generated Python (tier 0)")
                + "; see docs/tier1.md",
                UserWarning,
                stacklevel=2,
            )
        with link_compilers(NUMBA_KINDS):
            return super().make_function(fgraph, profile)
