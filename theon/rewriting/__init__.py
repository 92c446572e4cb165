"""Graph rewriting: local rewriters, pattern rewrites, walkers, merge, and the rewrite database.

>>> from theon.rewriting import rewrite_db
>>> "canonicalize" in rewrite_db.phases
True
"""

from theon.rewriting.basic import (
    FromFunctionGraphRewriter,
    FromFunctionNodeRewriter,
    GraphRewriter,
    NodeRewriter,
    RewriteError,
    RewriterIndex,
    RewriteStats,
    SequentialGraphRewriter,
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
)
from theon.rewriting.pattern import PatternNodeRewriter
from theon.rewriting.tracing import TraceEntry, format_trace, record_rewrites, trace
from theon.rewriting.walkers import (
    EquilibriumGraphRewriter,
    RewriteLoopWarning,
    WalkingGraphRewriter,
    in2out,
    out2in,
)

__all__ = [
    "PHASES",
    "ConstantFolding",
    "EquilibriumGraphRewriter",
    "FromFunctionGraphRewriter",
    "FromFunctionNodeRewriter",
    "GraphRewriter",
    "MergeFeature",
    "MergeRewriter",
    "NodeRewriter",
    "PatternNodeRewriter",
    "Phase",
    "PhasedRewriter",
    "RewriteDatabase",
    "RewriteEntry",
    "RewriteError",
    "RewriteLoopWarning",
    "RewriteQuery",
    "RewriteStats",
    "RewriterIndex",
    "SequentialGraphRewriter",
    "TraceEntry",
    "WalkingGraphRewriter",
    "apply_replacements",
    "constant_folding",
    "format_trace",
    "graph_rewriter",
    "in2out",
    "merge_rewriter",
    "node_rewriter",
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
    "trace",
]
