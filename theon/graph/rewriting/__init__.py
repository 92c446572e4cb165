"""PyTensor's module paths for the rewriting machinery: ``theon.graph.rewriting.basic``,
``.db`` and ``.utils`` re-export :mod:`theon.rewriting` under the names PyTensor uses.

Nothing is defined twice: every name is theon's own object, so a rewrite written
against ``pytensor.graph.rewriting.basic`` runs after renaming the import.  These
modules belong to the rewriting layer (``tests/test_layers.py``), not to the graph
layer their path suggests; ``import theon.graph`` does not import them.

>>> from theon.graph.rewriting.basic import node_rewriter
>>> import theon.rewriting
>>> node_rewriter is theon.rewriting.node_rewriter
True
"""
