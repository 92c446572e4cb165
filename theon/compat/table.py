"""The old module paths that theon spells differently: one line each.

A key is an old path without its package name (``"gof.graph"`` stands for
``theano.gof.graph``, ``aesara.gof.graph`` and ``theon.gof.graph``). A value is the
theon module it is, or a :class:`Namespace` of theon modules whose names it holds.
A path not listed here is the theon module of the same path (``pytensor.tensor.basic``
is ``theon.tensor.basic``). Adding an old path is adding one line.

Keep a key's last part from naming an attribute of its parent module (importing
``pytensor.tensor.var`` would set ``theon.tensor.var``, the variance function, to a
module): map the parent instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["ALIASES", "Namespace"]


@dataclass(frozen=True)
class Namespace:
    """An old module made of theon modules: a name is looked up in ``modules`` in order;
    ``renames`` maps an old name to ``"theon.module:name"``."""

    modules: tuple[str, ...]
    renames: dict[str, str] = field(default_factory=dict)
    doc: str = ""


def ns(*modules: str, doc: str = "", **renames: str) -> Namespace:
    """A :class:`Namespace` of ``modules`` (the table's shorthand)."""
    return Namespace(tuple(modules), renames, doc)


_GRAPH = ("theon.graph.basic", "theon.graph.traversal", "theon.graph.replace")

ALIASES: dict[str, str | Namespace] = {
    # Theano's graph core (seed 004 builds Ops with gof.Op, gof.Apply, gof.Constant)
    "gof": ns("theon.graph.basic", "theon.graph.op", "theon.graph.type", "theon.graph.fg",
              "theon.graph.features", "theon.compat.theano_opt",
              doc="Theano's gof: the graph core's objects under their old names."),
    # Theano's walks in Theano's order first (theon.graph.traversal has PyTensor's)
    "gof.graph": ns("theon.compat.theano_graph", *_GRAPH,
                    ops="theon.graph.traversal:applys_between"),
    "gof.fg": ns("theon.graph.fg", "theon.graph.features"),
    "gof.op": "theon.graph.op",
    "gof.type": "theon.graph.type",
    "gof.opt": "theon.compat.theano_opt",
    "gof.toolbox": "theon.graph.features",
    # PyTensor's (and theon's earlier) home of OpFromGraph
    "compile.builders": "theon.opfromgraph",
    # Theano's scan module and its sandbox generator
    "scan_module": "theon.scan",
    "scan_module.scan_op": "theon.scan.op",
    "scan_module.scan_utils": ns("theon.scan.utils", "theon.compile.clone",
                                 "theon.graph.replace"),
    "sandbox": ns("theon.compat.theano_rng_mrg", doc="Theano's sandbox: rng_mrg."),
    "sandbox.rng_mrg": "theon.compat.theano_rng_mrg",
    # Theano 0.8's old CUDA backend (Lasagne 0.1 imports it): as theano.gpuarray, absent
    "sandbox.cuda": "theon.compat.theano_gpuarray",
    "sandbox.cuda.dnn": "theon.compat.theano_gpuarray",
    "sandbox.cuda.basic_ops": "theon.compat.theano_gpuarray",
    "sandbox.cuda.blas": "theon.compat.theano_gpuarray",
    # Theano's GPU backend, which theon does not have (pygpu_activated is False; a GPU-only
    # name raises, pointing to mode="JAX"); its submodules are the same module
    "gpuarray": "theon.compat.theano_gpuarray",
    "gpuarray.dnn": "theon.compat.theano_gpuarray",
    "gpuarray.type": "theon.compat.theano_gpuarray",
    "gpuarray.basic_ops": "theon.compat.theano_gpuarray",
    # Theano's misc.pkl_utils: dump/load to a zip of a pickle and .npy arrays, StripPickler
    "misc": ns("theon.compat.theano_pkl_utils", doc="Theano's misc: pkl_utils."),
    "misc.pkl_utils": "theon.compat.theano_pkl_utils",
    # Theano 0.7's pooling module (Lasagne 0.1 imports it): max_pool_2d is pool_2d
    "tensor.signal.downsample": ns("theon.tensor.signal.pool",
                                   max_pool_2d="theon.tensor.signal.pool:pool_2d"),
    # PyTensor's scalar.math: the special-function ops (scalar.basic is theon.scalar.basic)
    "scalar.math": ns("theon.scalar.special", "theon.scalar",
                      doc="PyTensor's scalar.math: the special functions' scalar ops."),
    # PyTensor's rewrite registration and named rewrites (theon keeps them in theon.rewriting)
    "tensor.rewriting.basic": ns("theon.rewriting.db", "theon.rewriting.merge",
                                 "theon.tensor.rewriting.useless",
                                 doc="PyTensor's register_* helpers and constant folding."),
    "tensor.rewriting.math": ns("theon.tensor.rewriting.canonicalize",
                                "theon.tensor.rewriting.stabilize",
                                "theon.tensor.rewriting.specialize",
                                local_exp_over_1_plus_exp=(
                                    "theon.tensor.rewriting.stabilize:local_sigmoid_from_exp")),
    # PyTensor's random paths: var (2.x) is theon's variable module (PyTensor 3's path)
    "tensor.random.var": "theon.tensor.random.variable",
    # PyTensor's checks, update dicts, and its C types (theon has no C backend: every
    # theon Type plays CType's part, so CType is Type)
    "raise_op": "theon.tensor.raise_op",
    "updates": "theon.compile.updates",
    "link.c": ns("theon.graph.type", doc="PyTensor's C backend (theon has none): its types."),
    "link.c.type": ns("theon.graph.type", CType="theon.graph.type:Type"),
    # PyTensor's config modules: theon's config is one module
    "configdefaults": "theon.config",
    "configparser": "theon.config",
    # PyTensor 3's compile layout: the checking modes under compile.debug, the function
    # maker and the compiled function's modules
    "compile.debug": ns("theon.compile.debugmode", "theon.compile.monitormode",
                        "theon.compile.nanguardmode", "theon.compile.profiling",
                        doc="PyTensor's compile.debug: DebugMode, MonitorMode, NanGuardMode."),
    "compile.debug.debugmode": "theon.compile.debugmode",
    "compile.debug.monitormode": "theon.compile.monitormode",
    "compile.debug.nanguardmode": "theon.compile.nanguardmode",
    "compile.debug.profiling": "theon.compile.profiling",
    "compile.maker": ns("theon.compile.pipeline", "theon.compile.compiled"),
    "compile.executor": ns("theon.compile.compiled"),
    # PyTensor's home of the rewrite inlining OpFromGraph nodes
    "tensor.rewriting.ofg": "theon.opfromgraph",
}
