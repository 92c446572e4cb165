"""Graph rewriting: local rewriters, pattern rewrites, walkers, merge, and the rewrite database.

Also PyTensor's rewrite databases (:mod:`.tagdb`) and its global ``optdb``, a view of
:data:`rewrite_db` (:mod:`.optdb`).  Importing this package registers
``node_rewriter``, ``graph_rewriter`` and ``rewrite_graph`` as ``theon.graph``'s
names too (PyTensor's ``pytensor.graph`` holds them).

>>> from theon.rewriting import rewrite_db
>>> "canonicalize" in rewrite_db.phases
True
"""

from theon.graph import register_graph_export as _register_graph_export
from theon.rewriting.basic import (
    FromFunctionGraphRewriter,
    FromFunctionNodeRewriter,
    GraphRewriter,
    NodeRewriter,
    RewriteError,
    RewriterIndex,
    RewriteStats,
    SequentialGraphRewriter,
    SequentialNodeRewriter,
    SubstitutionNodeRewriter,
    apply_replacements,
    graph_rewriter,
    node_rewriter,
    register_track_key,
    replacement_pairs,
)
from theon.rewriting.db import (
    PHASES,
    Phase,
    PhasedRewriter,
    RewriteDatabase,
    RewriteEntry,
    RewriteQuery,
    register_canonicalize,
    register_fusion,
    register_inplace,
    register_specialize,
    register_stabilize,
    register_useless,
    resolve_rewriter,
    rewrite_db,
)
from theon.rewriting.merge import (
    ConstantFolding,
    MergeFeature,
    MergeRewriter,
    constant_folding,
    merge_rewriter,
    topo_constant_folding,
    topo_unconditional_constant_folding,
    unconditional_constant_folding,
)
from theon.rewriting.optdb import OptDB, PhaseDB, optdb, rewrite_graph
from theon.rewriting.pattern import PatternNodeRewriter
from theon.rewriting.tagdb import (
    EquilibriumDB,
    LocalGroupDB,
    ProxyDB,
    SequenceDB,
    TagDatabase,
    TopoDB,
)
from theon.rewriting.tracing import TraceEntry, format_trace, record_rewrites, trace
from theon.rewriting.walkers import (
    EquilibriumGraphRewriter,
    RewriteLoopWarning,
    WalkingGraphRewriter,
    dfs_rewriter,
    in2out,
    out2in,
)

__all__ = [
    "PHASES",
    "ConstantFolding",
    "EquilibriumDB",
    "EquilibriumGraphRewriter",
    "FromFunctionGraphRewriter",
    "FromFunctionNodeRewriter",
    "GraphRewriter",
    "LocalGroupDB",
    "MergeFeature",
    "MergeRewriter",
    "NodeRewriter",
    "OptDB",
    "PatternNodeRewriter",
    "Phase",
    "PhaseDB",
    "PhasedRewriter",
    "ProxyDB",
    "RewriteDatabase",
    "RewriteEntry",
    "RewriteError",
    "RewriteLoopWarning",
    "RewriteQuery",
    "RewriteStats",
    "RewriterIndex",
    "SequenceDB",
    "SequentialGraphRewriter",
    "SequentialNodeRewriter",
    "SubstitutionNodeRewriter",
    "TagDatabase",
    "TopoDB",
    "TraceEntry",
    "WalkingGraphRewriter",
    "apply_replacements",
    "constant_folding",
    "dfs_rewriter",
    "format_trace",
    "graph_rewriter",
    "in2out",
    "merge_rewriter",
    "node_rewriter",
    "optdb",
    "out2in",
    "record_rewrites",
    "register_canonicalize",
    "register_fusion",
    "register_inplace",
    "register_specialize",
    "register_stabilize",
    "register_track_key",
    "register_useless",
    "replacement_pairs",
    "resolve_rewriter",
    "rewrite_db",
    "rewrite_graph",
    "topo_constant_folding",
    "topo_unconditional_constant_folding",
    "trace",
    "unconditional_constant_folding",
]

for _name in ("node_rewriter", "graph_rewriter", "rewrite_graph"):
    _register_graph_export(_name, globals()[_name])

